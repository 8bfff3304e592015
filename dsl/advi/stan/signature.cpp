#include <advi/stan/signature.hpp>

#include <cctype>
#include <utility>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi::stan {

namespace {

// clang-format off
constexpr std::pair<std::string_view, TypeKind> kTypeNames[] = {
    {"int",                TypeKind::Int},
    {"real",               TypeKind::Real},
    {"complex",            TypeKind::Complex},
    {"vector",             TypeKind::Vector},
    {"row_vector",         TypeKind::RowVector},
    {"matrix",             TypeKind::Matrix},
    {"complex_vector",     TypeKind::ComplexVector},
    {"complex_row_vector", TypeKind::ComplexRowVector},
    {"complex_matrix",     TypeKind::ComplexMatrix},
    {"ints",       TypeKind::Ints},
    {"reals",      TypeKind::Reals},
    {"vectors",    TypeKind::Vectors},
    {"R",          TypeKind::Broadcast},
    {"void",       TypeKind::Void},
};
// clang-format on

class SignatureParser {
public:
    explicit SignatureParser(std::string_view text) : text_(text) {}

    Signature signature() {
        Signature s = arguments_and_result();
        skip_space();
        if (at_ != text_.size())
            bad("trailing text");
        return s;
    }

private:
    // `(args) => result`, at the top or as the type of a higher-order function's argument.
    Signature arguments_and_result() {
        Signature s;
        expect('(');
        if (!next_is(')')) {
            s.args.push_back(type());
            if (next_is('|')) {
                ++at_;
                s.density = true;
                s.args.push_back(type());
            }
            while (next_is(',')) {
                ++at_;
                s.args.push_back(type());
            }
        }
        expect(')');
        expect('=');
        expect('>');
        s.result = type();
        return s;
    }

    StanType type() {
        StanType t;
        if (next_is('(')) {  // a function type
            Signature f = arguments_and_result();
            t.kind = TypeKind::Function;
            t.parts = std::move(f.args);
            t.parts.push_back(std::move(f.result));
            return t;
        }
        std::string_view w = word();
        if (w == "data") {
            t = type();
            t.data_only = true;
            return t;
        }
        if (w == "array") {
            expect('[');
            t.array_dims = 1;
            while (next_is(',')) {
                ++at_;
                ++t.array_dims;
            }
            expect(']');
            w = word();
        }
        if (w == "tuple") {
            t.kind = TypeKind::Tuple;
            expect('(');
            t.parts.push_back(type());
            while (next_is(',')) {
                ++at_;
                t.parts.push_back(type());
            }
            expect(')');
            return t;
        }
        for (const auto& [name, kind] : kTypeNames) {
            if (w == name) {
                t.kind = kind;
                return t;
            }
        }
        if (!w.empty() && w[0] == 'T') {
            t.kind = TypeKind::Any;
            t.variable = w;
            return t;
        }
        bad(fmt::format("unknown type `{}`", w));
    }
    std::string_view word() {
        skip_space();
        const std::size_t start = at_;
        while (at_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
            ++at_;
        }
        return text_.substr(start, at_ - start);
    }
    void skip_space() {
        while (at_ < text_.size() && text_[at_] == ' ') ++at_;
    }
    bool next_is(char c) {
        skip_space();
        return at_ < text_.size() && text_[at_] == c;
    }
    void expect(char c) {
        if (!next_is(c))
            bad(fmt::format("expected `{}`", c));
        ++at_;
    }
    [[noreturn]] void bad(const std::string& why) const {
        throw InternalError(fmt::format("signature \"{}\" at {}: {}", text_, at_, why));
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

}  // namespace

std::string str(const StanType& t) {
    std::string s = t.data_only ? "data " : "";
    if (t.array_dims > 0)
        s += "array[" + std::string(t.array_dims - 1, ',') + "] ";
    if (t.kind == TypeKind::Tuple || t.kind == TypeKind::Function) {
        s += t.kind == TypeKind::Tuple ? "tuple(" : "(";
        const std::size_t n = t.parts.size() - (t.kind == TypeKind::Function ? 1 : 0);
        for (std::size_t k = 0; k < n; ++k) s += (k > 0 ? ", " : "") + str(t.parts[k]);
        s += ")";
        if (t.kind == TypeKind::Function)
            s += " => " + str(t.parts.back());
        return s;
    }
    if (t.kind == TypeKind::Any)
        return s + std::string(t.variable);
    for (const auto& [name, kind] : kTypeNames) {
        if (kind == t.kind)
            return s + std::string(name);
    }
    return s + "?";
}

std::string str(const Signature& s) {
    std::string out = "(";
    for (std::size_t k = 0; k < s.args.size(); ++k) {
        if (k > 0)
            out += s.density && k == 1 ? " | " : ", ";
        out += str(s.args[k]);
    }
    return out + ") => " + str(s.result);
}

Signature parse_signature(std::string_view text) {
    return SignatureParser(text).signature();
}

std::vector<Signature> parse_signatures(std::string_view text) {
    std::vector<Signature> out;
    while (true) {
        const std::size_t end = text.find(';');
        out.push_back(parse_signature(text.substr(0, end)));
        if (end == std::string_view::npos)
            return out;
        text.remove_prefix(end + 1);
    }
}

}  // namespace advi::stan
