// The function table (functions.hpp) against the checker and the lowering: for every row and
// every signature, a program calls it with arguments of exactly that signature's types (each
// family -- reals, ints, vectors, T -- in several of its members), and
//   (a) `check` accepts the result in a variable of the signature's result type, and refuses it
//       in one with int elements where the result is real (so the type is exactly that);
//   (b) the lowering, with data of size 1, accepts the same program;
// and a call with one argument too many is refused naming the function and its signatures.
// A signature that the lowering cannot do fails here, so the table cannot promise what the
// lowering does not keep.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/io/json_reader.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/functions.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>
#include <advi/stan/stan_library.hpp>
#include <advi/stan/types.hpp>

namespace advi::stan {
namespace {

constexpr int kVariants = 4;

StanType concrete(TypeKind k, int dims) {
    StanType t;
    t.kind = k;
    t.array_dims = dims;
    return t;
}

// A member of the family `p` stands for, chosen by `variant`; nullopt if `p` is concrete.
StanType instance(const StanType& p, int variant) {
    switch (p.kind) {
        case TypeKind::Reals: {
            const StanType v[] = {real_type(), concrete(TypeKind::Vector, 0), real_type(1),
                                  concrete(TypeKind::RowVector, 0)};
            return v[variant];
        }
        case TypeKind::Ints: return variant % 2 == 0 ? int_type() : int_type(1);
        case TypeKind::Vectors: {
            const StanType v[] = {concrete(TypeKind::Vector, 0), concrete(TypeKind::Vector, 1),
                                  concrete(TypeKind::RowVector, 0),
                                  concrete(TypeKind::RowVector, 1)};
            return v[variant];
        }
        case TypeKind::Any: {
            // (data of three dimensions cannot be read: no arrays of matrices)
            const TypeKind k[] = {TypeKind::Real, TypeKind::Vector, TypeKind::Int,
                                  p.array_dims > 0 ? TypeKind::RowVector : TypeKind::Matrix};
            return concrete(k[variant], p.array_dims);
        }
        default: return p;
    }
}

// What Stan's reference says the call returns, worked out here independently of types.cpp.
StanType expected_result(const Signature& s, const std::vector<StanType>& args) {
    const StanType& r = s.result;
    auto container = [&]() -> const StanType* {
        for (const StanType& a : args) {
            if (a.array_dims > 0 || (a.kind != TypeKind::Int && a.kind != TypeKind::Real))
                return &a;
        }
        return nullptr;
    };
    switch (r.kind) {
        case TypeKind::Any:
            for (std::size_t k = 0; k < args.size(); ++k) {
                if (s.args[k].kind == TypeKind::Any && s.args[k].variable == r.variable) {
                    StanType t = args[k];
                    t.array_dims += r.array_dims - s.args[k].array_dims;
                    return t;
                }
            }
            FAIL("result variable not among the arguments");
            return r;
        case TypeKind::Broadcast: {
            const StanType* c = container();
            StanType t = c != nullptr ? *c : real_type();
            if (t.kind == TypeKind::Int)
                t.kind = TypeKind::Real;
            return t;
        }
        case TypeKind::Reals:
        case TypeKind::Ints:
            return concrete(r.kind == TypeKind::Ints ? TypeKind::Int : TypeKind::Real,
                            container() != nullptr ? 1 : 0);
        default: return r;
    }
}

// Stan's declaration of a data variable of type t, all sizes 1, and its JSON value.
std::string declaration(const StanType& t, const std::string& name) {
    std::string base = t.kind == TypeKind::Int                ? "int"
                       : t.kind == TypeKind::Real             ? "real"
                       : t.kind == TypeKind::Vector           ? "vector[1]"
                       : t.kind == TypeKind::RowVector        ? "row_vector[1]"
                       : t.kind == TypeKind::Complex          ? "complex"
                       : t.kind == TypeKind::ComplexVector    ? "complex_vector[1]"
                       : t.kind == TypeKind::ComplexRowVector ? "complex_row_vector[1]"
                       : t.kind == TypeKind::ComplexMatrix    ? "complex_matrix[1, 1]"
                                                              : "matrix[1, 1]";
    std::string dims;
    for (int d = 0; d < t.array_dims; ++d) dims += d == 0 ? "1" : ", 1";
    return (t.array_dims > 0 ? "array[" + dims + "] " : "") + base + " " + name;
}
std::string json_value(const StanType& t) {
    // a complex number is [re, im] (CmdStan JSON)
    std::string v = t.kind == TypeKind::Int                ? "1"
                    : t.kind == TypeKind::Real             ? "0.5"
                    : t.kind == TypeKind::Matrix           ? "[[0.5]]"
                    : t.kind == TypeKind::Complex          ? "[0.5, 0.25]"
                    : t.kind == TypeKind::ComplexMatrix    ? "[[[0.5, 0.25]]]"
                    : t.kind == TypeKind::ComplexVector    ? "[[0.5, 0.25]]"
                    : t.kind == TypeKind::ComplexRowVector ? "[[0.5, 0.25]]"
                                                           : "[0.5]";
    for (int d = 0; d < t.array_dims; ++d) v = "[" + v + "]";
    return v;
}
// The declared type of `e`'s value, its sizes read off `e` itself (append_row makes its own).
std::string sized_type(const StanType& t, const std::string& e, bool int_elements) {
    std::string inner = e, dims;
    for (int d = 0; d < t.array_dims; ++d) {
        dims += (d == 0 ? "" : ", ") + fmt::format("size({})", inner);
        inner += "[1]";
    }
    std::string base;
    if (t.kind == TypeKind::Tuple) {  // (qr_thin: a tuple of matrices)
        for (std::size_t k = 0; k < t.parts.size(); ++k) {
            base += (k == 0 ? "tuple(" : ", ") +
                    sized_type(t.parts[k], fmt::format("{}.{}", inner, k + 1), int_elements);
        }
        base += ")";
    } else {
        const bool real = t.kind == TypeKind::Real;
        base = t.kind == TypeKind::Int             ? "int"
               : real                              ? (int_elements ? "int" : "real")
               : t.kind == TypeKind::Complex       ? "complex"
               : t.kind == TypeKind::Vector        ? fmt::format("vector[rows({})]", inner)
               : t.kind == TypeKind::RowVector     ? fmt::format("row_vector[cols({})]", inner)
               : t.kind == TypeKind::ComplexVector ? fmt::format("complex_vector[rows({})]", inner)
               : t.kind == TypeKind::ComplexRowVector
                   ? fmt::format("complex_row_vector[cols({})]", inner)
               : t.kind == TypeKind::ComplexMatrix
                   ? fmt::format("complex_matrix[rows({}), cols({})]", inner, inner)
                   : fmt::format("matrix[rows({}), cols({})]", inner, inner);
    }
    return (t.array_dims > 0 ? "array[" + dims + "] " : "") + base;
}
// `T r = e;`
std::string result_declaration(const StanType& t, const std::string& e, bool int_elements) {
    return sized_type(t, e, int_elements) + " r = " + e + ";";
}

struct Case {
    std::string name;  // as called
    const Signature* signature;
    std::vector<StanType> args;
    bool density = false;  // also as `a0 ~ family(...)`
};

// Whether the arguments that are not scalars all have the same shape (int and real alike).
bool same_shapes(const std::vector<StanType>& args) {
    const StanType* first = nullptr;
    for (const StanType& a : args) {
        if (a.array_dims == 0 && (a.kind == TypeKind::Int || a.kind == TypeKind::Real))
            continue;
        const bool scalar_elements =
            (a.kind == TypeKind::Int || a.kind == TypeKind::Real) && first != nullptr &&
            (first->kind == TypeKind::Int || first->kind == TypeKind::Real);
        if (first != nullptr &&
            (first->array_dims != a.array_dims || (first->kind != a.kind && !scalar_elements)))
            return false;
        first = &a;
    }
    return true;
}

std::string data_block(const std::vector<StanType>& args, std::string& json) {
    std::string decls;
    json = "{";
    for (std::size_t k = 0; k < args.size(); ++k) {
        decls += declaration(args[k], fmt::format("a{}", k)) + "; ";
        json += fmt::format("{}\"a{}\": {}", k == 0 ? "" : ", ", k, json_value(args[k]));
    }
    json += "}";
    return "data { " + decls + "}\n";
}

std::string call_text(const Case& c, int extra = 0) {
    std::string out = c.name + "(";
    const std::size_t n = c.args.size() + static_cast<std::size_t>(extra);
    for (std::size_t k = 0; k < n; ++k) {
        if (k > 0)
            out += (c.signature->density || c.density) && k == 1 ? " | " : ", ";
        out += k < c.args.size() ? fmt::format("a{}", k) : "0.5";
    }
    return out + ")";
}

std::string check_message(const std::string& text) {
    try {
        check(parse_program(text, "m.stan"));
    } catch (const ParseError& e) {
        return e.what();
    }
    return "ok";
}

// The lowering's error, or "ok".
std::string lower_message(const std::string& text, const std::string& json) {
    try {
        (void)lower(parse_program(text, "m.stan"), read_json_data(json, "d.json"));
    } catch (const std::exception& e) {
        return e.what();
    }
    return "ok";
}

const char* kModel = "parameters { real mu; }\nmodel { mu ~ normal(0, 1); }\n";

void run_case(const Case& c) {
    const std::vector<StanType>& args = c.args;
    INFO(c.name << str(args, c.signature->density) << " from " << str(*c.signature));
    std::string json;
    const std::string data = data_block(args, json);
    const std::string call = call_text(c);
    if (c.signature->result.kind == TypeKind::Broadcast && !same_shapes(args)) {
        // elementwise over containers of different shapes: refused
        const std::string text =
            data + kModel + "generated quantities {\n  real r = " + call + ";\n}\n";
        INFO(text);
        CHECK_THAT(check_message(text), Catch::Contains(c.name + " takes "));
        return;
    }
    // A row says only what Stan says: the call is valid Stan, with the same result.
    const LibraryFunction* library = find_library_function(c.name);
    REQUIRE(library != nullptr);
    const auto stan = resolve(library->signatures, args);
    if (!stan) {
        FAIL_CHECK("the row accepts a call that Stan's library does not");
        return;
    }
    const StanType r = expected_result(*c.signature, args);
    CHECK(str(*stan) == str(r));
    auto program = [&](bool int_elements) {
        // a `_jacobian` function belongs in transformed parameters
        if (c.name.ends_with("_jacobian")) {
            return data + "parameters { real mu; }\ntransformed parameters {\n  " +
                   result_declaration(r, call, int_elements) +
                   "\n}\nmodel { mu ~ normal(0, 1); }\n";
        }
        return data + kModel + "generated quantities {\n  " +
               result_declaration(r, call, int_elements) + "\n}\n";
    };
    // Values of three or more dimensions (an array[,,] real, an array[] matrix) are refused at
    // their declaration ("not supported yet"; ints, known while lowering, are not): the call
    // checks (printed), the lowering does it or refuses so.
    auto rank = [](const StanType& t) {
        switch (t.kind) {
            case TypeKind::Matrix:
            case TypeKind::ComplexMatrix: return t.array_dims + 2;
            case TypeKind::Vector:
            case TypeKind::RowVector:
            case TypeKind::ComplexVector:
            case TypeKind::ComplexRowVector: return t.array_dims + 1;
            default: return t.array_dims;
        }
    };
    // Transforms whose values of size 1 are no member of their set (a unit vector of one
    // element, correlation matrices from one free value): the data of size 1 are refused, as
    // they should be; their lowering is tested in table_lowerings_test.cpp.
    bool sized = false;
    // (compressed rows, whose u has m + 1 elements, and hypergeometric_3F2, whose arguments have
    // 3 and 2 elements: no data of size 1 is one)
    for (const char* t :
         {"unit_vector_", "cholesky_factor_corr_", "corr_matrix_", "csr_", "hypergeometric_3F2"})
        sized = sized || c.name.starts_with(t);
    auto refused_size = [](const std::string& why) {
        return why.find("free values") != std::string::npos ||
               why.find("K >= 2") != std::string::npos ||
               why.find("(needs m + 1)") != std::string::npos ||
               why.find("elements, not") != std::string::npos;
    };
    bool flat = rank(r) <= 2;
    for (const StanType& a : args) flat = flat && rank(a) <= 2;
    if (!flat) {
        const std::string deep =
            data + (c.name.ends_with("_jacobian")
                        ? "parameters { real mu; }\ntransformed parameters {"
                          " print(" +
                              call + "); }\nmodel { mu ~ normal(0, 1); }\n"
                        : std::string(kModel) + "generated quantities { print(" + call + "); }\n");
        INFO(deep);
        CHECK(check_message(deep) == "ok");
        const std::string lowered = lower_message(deep, json);
        CHECK((lowered == "ok" || lowered.find("is not supported yet") != std::string::npos ||
               (sized && refused_size(lowered))));
        return;
    }
    // (a) the checker types the call as the signature says
    const std::string text = program(false);
    INFO(text);
    CHECK(check_message(text) == "ok");
    if (sized) {
        const std::string why = lower_message(text, json);
        CHECK((why == "ok" || refused_size(why)));
        return;
    }
    if (r.kind == TypeKind::Real && !c.name.ends_with("_jacobian"))  // (no int there at all)
        CHECK_THAT(check_message(program(true)), Catch::Contains("cannot assign"));
    try {
        const auto lowered = lower(parse_program(text, "m.stan"), read_json_data(json, "d.json"));
        CHECK(lowered != nullptr);
    } catch (const std::exception& e) {
        FAIL_CHECK(e.what());
    }
    if (c.density) {
        // the same as a `~` statement in the model block
        const std::string family(density_family(c.name));
        std::string tilde = "a0 ~ " + family + "(";
        for (std::size_t k = 1; k < args.size(); ++k)
            tilde += fmt::format("{}a{}", k == 1 ? "" : ", ", k);
        const std::string t2 =
            data + "parameters { real mu; }\nmodel { mu ~ normal(0, 1); " + tilde + "); }\n";
        INFO(t2);
        CHECK(check_message(t2) == "ok");
        try {
            lower(parse_program(t2, "m.stan"), read_json_data(json, "d.json"));
        } catch (const std::exception& e) {
            FAIL_CHECK(e.what());
        }
    }
}

template <class Row>
void every_signature(const Row& row, const std::string& name, bool density) {
    std::vector<std::vector<StanType>> seen;
    for (const Signature& s : row.signatures) {
        for (int v = 0; v < kVariants; ++v) {
            std::vector<StanType> args;
            // the family members rotate over the positions: scalars meet containers
            for (const StanType& p : s.args)
                args.push_back(instance(p, (v + static_cast<int>(args.size())) % kVariants));
            // the best match of these arguments may be an earlier, exact signature
            if (std::find(seen.begin(), seen.end(), args) != seen.end())
                continue;
            seen.push_back(args);
            run_case({name, &s, args, density});
        }
    }
}

// One argument too many: refused by `check` with the function's name and signatures.
template <class Row>
void one_too_many(const Row& row, const std::string& name, bool density) {
    const Signature* longest = &row.signatures.front();
    for (const Signature& t : row.signatures) {
        if (t.args.size() > longest->args.size())
            longest = &t;
    }
    const Signature& s = *longest;
    std::vector<StanType> args;
    for (const StanType& p : s.args) args.push_back(instance(p, 0));
    std::string json;
    const Case c{name, &s, args, density};
    const std::string text = data_block(args, json) + kModel +
                             "generated quantities {\n  real r = " + call_text(c, 1) + ";\n}\n";
    INFO(text);
    // (where Stan has a longer form, it is valid Stan not lowered yet)
    std::vector<StanType> called = args;
    called.push_back(parse_signature("(real) => real").args.front());  // the 0.5
    const LibraryFunction* library = find_library_function(name);
    if (library != nullptr && resolve(library->signatures, called)) {
        CHECK_THAT(check_message(text), Catch::Contains("is not supported yet"));
        return;
    }
    const std::string expected = name + " takes " + str_arguments(row.signatures) + "; got ";
    CHECK_THAT(check_message(text), Catch::Contains("m.stan:5:12: " + expected));
}

}  // namespace

TEST_CASE("every signature of the function table checks and lowers", "[stan]") {
    for (const FunctionRow& row : functions()) {
        every_signature(row, std::string(row.name), false);
        // a distribution function (std_normal_lcdf) takes `|` after its variate
        const bool cdf = row.name.ends_with("_cdf") || row.name.ends_with("_lcdf") ||
                         row.name.ends_with("_lccdf");
        one_too_many(row, std::string(row.name), cdf);
    }
}

TEST_CASE("every signature of the _rng table checks and lowers", "[stan]") {
    for (const RandomRow& row : random_functions()) {
        every_signature(row, std::string(row.name), false);
        one_too_many(row, std::string(row.name), false);
    }
}

TEST_CASE("every density of the table checks and lowers, as a call and as ~", "[stan]") {
    for (const DensityRow& row : densities()) {
        const bool ints = row.signatures.front().args.front().kind == TypeKind::Int ||
                          row.signatures.front().args.front().kind == TypeKind::Ints;
        const std::string name = std::string(row.name) + (ints ? "_lpmf" : "_lpdf");
        every_signature(row, name, true);
        one_too_many(row, name, true);
    }
}

}  // namespace advi::stan
