// Blocks and statements. A `for` loop is first lowered once for all its iterations at once
// (vectorised: the loop variable is the vector of its values, and everything that depends on
// it has one value per iteration); if the body has a recurrence, a condition on the
// iteration, a break or the like, a short loop is unrolled instead and a long one is an error
// that says why.
#include <advi/stan/lower.hpp>

#include <advi/stan/check.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/base/memory_budget.hpp>
#include <advi/io/source_text.hpp>
#include <advi/stan/data_constraints.hpp>

#include <advi/graph/ops_dynamic_index.hpp>
#include <advi/stan/ast_printer.hpp>
#include <advi/stan/lowerer.hpp>
#include <advi/stan/stan_library.hpp>
#include <advi/stan/truncation.hpp>
#include <advi/stan/types.hpp>

namespace advi::stan {

namespace {

struct BreakSignal {};
struct ContinueSignal {};

// Counts one unrolled loop around the statements lowered while it lives (Lowerer::loop_depth_).
struct InLoop {
    int& depth;
    explicit InLoop(int& d) : depth(d) { ++depth; }
    ~InLoop() { --depth; }
    InLoop(const InLoop&) = delete;
    InLoop& operator=(const InLoop&) = delete;
};
struct ReturnSignal {
    std::optional<Value> value;
};

Base base_of(BaseType t) {
    switch (t) {
        case BaseType::Int: return Base::Int;
        case BaseType::Real: return Base::Real;
        case BaseType::Vector:
        case BaseType::Simplex:
        case BaseType::UnitVector:
        case BaseType::Ordered:
        case BaseType::PositiveOrdered:
        case BaseType::SumToZeroVector: return Base::Vector;
        case BaseType::RowVector: return Base::RowVector;
        case BaseType::Tuple: return Base::Tuple;
        case BaseType::Complex:
        case BaseType::ComplexVector:
        case BaseType::ComplexRowVector:
        case BaseType::ComplexMatrix: return Base::Complex;
        default: return Base::Matrix;
    }
}

// complex_vector -> vector, ...: the type of a complex type's parts; nullopt if not complex.
std::optional<BaseType> part_type(BaseType t) {
    switch (t) {
        case BaseType::Complex: return BaseType::Real;
        case BaseType::ComplexVector: return BaseType::Vector;
        case BaseType::ComplexRowVector: return BaseType::RowVector;
        case BaseType::ComplexMatrix: return BaseType::Matrix;
        default: return std::nullopt;
    }
}

// The support a constrained type declares; nothing for int, real, vector, row_vector, matrix.
std::optional<Support> declared_support(BaseType t) {
    // clang-format off
    static const std::pair<BaseType, Support (*)()> kSupports[] = {
        {BaseType::Simplex,            &Support::simplex},
        {BaseType::UnitVector,         &Support::unit_vector},
        {BaseType::Ordered,            &Support::ordered},
        {BaseType::PositiveOrdered,    &Support::positive_ordered},
        {BaseType::CholeskyFactorCorr, &Support::cholesky_factor_corr},
        {BaseType::CholeskyFactorCov,  &Support::cholesky_factor_cov},
        {BaseType::CorrMatrix,         &Support::corr_matrix},
        {BaseType::CovMatrix,          &Support::cov_matrix},
        {BaseType::SumToZeroVector,    &Support::sum_to_zero},
        {BaseType::SumToZeroMatrix,    &Support::sum_to_zero_matrix},
        {BaseType::RowStochasticMatrix, &Support::simplex},  // every row a simplex
        {BaseType::ColumnStochasticMatrix, &Support::stochastic_columns},
    };
    // clang-format on
    for (const auto& [type, support] : kSupports) {
        if (type == t)
            return support();
    }
    return std::nullopt;
}

}  // namespace

void assigned_names(const Statement& s, std::set<std::string>& out) {
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, Assign>) {
                // the variables under the left side: `x` of x[i].2, each of an unpacking's
                std::function<void(const Expression&)> under = [&](const Expression& e) {
                    if (const auto* ix = e.as<Indexed>())
                        under(*ix->base);
                    else if (const auto* t = e.as<TupleIndex>())
                        under(*t->base);
                    else if (const auto* u = e.as<TupleExpr>())
                        for (const Expression& x : u->elements) under(x);
                    else if (const auto* v = e.as<Variable>())
                        out.insert(v->name);
                };
                under(n.lhs);
            } else if constexpr (std::is_same_v<T, For> || std::is_same_v<T, ForEach> ||
                                 std::is_same_v<T, While>) {
                assigned_names(*n.body, out);
            } else if constexpr (std::is_same_v<T, If>) {
                for (const auto& b : n.branches) assigned_names(*b.body, out);
                if (n.otherwise)
                    assigned_names(**n.otherwise, out);
            } else if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Profile>) {
                for (const auto& st : n.statements) assigned_names(st, out);
            }
        },
        s.node);
}

// The stream of transformed data's random numbers (apart from the fit's own streams).
constexpr std::uint64_t kTransformedDataStream = 0x7464617461726E67ull;

Lowerer::Lowerer(const Program& program, const DataTable& data, LoweredProgram& out,
                 std::uint64_t seed)
    : program_(program),
      data_(data),
      out_(out),
      model_(&out.model()),
      transformed_data_rng_(seed ^ kTransformedDataStream) {
    scopes_.emplace_back();
}

void Lowerer::fail(Loc at, const std::string& message) const {
    throw program_.error_at(at, message);
}

Eigen::VectorXd& Lowerer::random_input(std::int64_t n, bool normal) {
    if (block_ != BlockKind::TransformedData)
        return out_.random_input(n, normal);
    Eigen::VectorXd v(n);
    for (auto& x : v) {
        // uniform on (0, 1): the top 53 bits, centred in their interval
        x = normal ? transformed_data_rng_.normal()
                   : (static_cast<double>(transformed_data_rng_.next_u64() >> 11) + 0.5) * 0x1p-53;
    }
    return out_.fixed_input(std::move(v));
}

std::string Lowerer::fresh_name(const std::string& hint) {
    return fmt::format("_{}{}", hint, ++names_);
}

Var* Lowerer::find(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
        auto v = it->find(name);
        if (v != it->end())
            return &v->second;
    }
    return nullptr;
}

void Lowerer::declare(Loc at, const std::string& name, Var v) {
    if (find(name) != nullptr)
        fail(at, fmt::format("`{}` is already declared", name));
    scopes_.back().emplace(name, std::move(v));
}

SizedType Lowerer::element_type(const SizedType& tuple, std::size_t k) {
    SizedType e = tuple.parts.at(k);
    e.dims.insert(e.dims.begin(), tuple.dims.begin(), tuple.dims.end());
    return e;
}

void Lowerer::declare_value(Loc at, const std::string& name, Var v) {
    if (!v.value.has_parts()) {
        declare(at, name, std::move(v));
        return;
    }
    Var alias = v;
    alias.value.parts.clear();
    for (std::size_t k = 0; k < v.value.parts.size(); ++k) {
        // a tuple's elements `x:1`, `x:2`; a complex value's parts `z:re`, `z:im`
        alias.elements.push_back(v.value.is_complex()
                                     ? fmt::format("{}:{}", name, k == 0 ? "re" : "im")
                                     : fmt::format("{}:{}", name, k + 1));
        Var element = v;
        element.value = v.value.parts[k];
        declare_value(at, alias.elements.back(), std::move(element));
    }
    declare(at, name, std::move(alias));
}

Value Lowerer::read_variable(const std::string& name, Loc at) {
    Var* var = find(name);
    if (var->elements.empty()) {
        // An empty array has nothing to assign (`array[0] real x_r;`, as ODE calls pass).
        if (!var->initialised && var->value.size() != 0) {
            fail(at,
                 fmt::format("`{}` is used before it is assigned", name.substr(0, name.find(':'))));
        }
        return var->value;
    }
    Value t;
    t.base = var->value.base;  // a tuple or a complex value
    t.dims = var->value.dims;
    t.sizes = var->value.sizes;
    for (const std::string& e : var->elements) {
        t.parts.push_back(read_variable(e, at));
        t.level = std::max(t.level, t.parts.back().level);
    }
    if (t.is_complex() && !levels_.empty())
        throw NotVectorisable(at, "a complex number");
    return t;
}

void Lowerer::element_leaves(const std::string& name, std::vector<std::string>& out) {
    const Var* var = find(name);
    if (var->elements.empty()) {
        out.push_back(name);
        return;
    }
    for (const std::string& e : var->elements) element_leaves(e, out);
}

Value Lowerer::declared_shape(const SizedType& t, const std::string& name) {
    if (const auto part = part_type(t.base)) {
        SizedType p = t;
        p.base = *part;
        Value re = declared_shape(p, name);
        Value v = re;
        v.base = Base::Complex;
        v.parts = {re, re};
        return v;
    }
    if (t.base == BaseType::Tuple) {
        Value v;
        v.base = Base::Tuple;
        for (const auto& d : t.dims) v.dims.push_back(known_int(d, "an array size"));
        for (std::size_t k = 0; k < t.parts.size(); ++k)
            v.parts.push_back(
                declared_shape(element_type(t, k), fmt::format("{}.{}", name, k + 1)));
        return v;
    }
    Value v;
    v.base = base_of(t.base);
    for (const auto& d : t.dims) {
        const int n = known_int(d, "an array size");
        if (n < 0)
            fail(d.loc, fmt::format("an array size must be non-negative, got {}", n));
        v.dims.push_back(n);
    }
    std::vector<int> sizes;
    for (const auto& s : t.sizes) {
        const int n = known_int(s, "a size");
        if (n < 0)
            fail(s.loc, fmt::format("a size must be non-negative, got {}", n));
        sizes.push_back(n);
    }
    switch (t.base) {
        case BaseType::Int:
        case BaseType::Real: break;
        case BaseType::Vector:
        case BaseType::RowVector:
        case BaseType::Simplex:
        case BaseType::UnitVector:
        case BaseType::Ordered:
        case BaseType::PositiveOrdered:
        case BaseType::SumToZeroVector: v.sizes = {sizes.at(0)}; break;
        case BaseType::Matrix:
        case BaseType::SumToZeroMatrix:
        case BaseType::RowStochasticMatrix:
        case BaseType::ColumnStochasticMatrix: v.sizes = {sizes.at(0), sizes.at(1)}; break;
        case BaseType::CholeskyFactorCov:
            v.sizes = {sizes.at(0), sizes.size() > 1 ? sizes[1] : sizes[0]};
            break;
        default: v.sizes = {sizes.at(0), sizes.at(0)}; break;
    }
    // Refused before anything of that size exists: a graph node holds at most INT_MAX
    // elements, and a value must fit in memory.
    std::vector<std::int64_t> all(v.dims.begin(), v.dims.end());
    all.insert(all.end(), v.sizes.begin(), v.sizes.end());
    const auto count = checked_product(all);
    const std::string what = fmt::format("`{}` ({})", name, fmt::join(all, " x "));
    try {
        require_memory(what, count);
    } catch (const SizeError& e) {
        fail(t.loc, e.what());
    }
    if (*count > std::numeric_limits<int>::max()) {
        fail(t.loc, fmt::format("{} has {} elements, more than the {} a variable can hold", what,
                                *count, std::numeric_limits<int>::max()));
    }
    return v;
}

// ------------------------------------------------------------------------------ blocks

void Lowerer::run() {
    for (const FunctionDef& f : program_.functions) {
        if (!f.body)
            continue;                      // a forward declaration
        functions_[f.name].push_back(&f);  // overloads differ in their arguments (check)
    }
    if (program_.data)
        data_block();
    if (program_.transformed_data)
        transformed_data_block();
    if (program_.parameters)
        parameters_block();
    if (program_.transformed_parameters)
        transformed_parameters_block();
    if (program_.model)
        model_block();
    if (program_.generated_quantities)
        generated_quantities_block();
}

namespace {

std::vector<std::int64_t> flat_dims(const Value& v) {
    std::vector<std::int64_t> d(v.dims.begin(), v.dims.end());
    d.insert(d.end(), v.sizes.begin(), v.sizes.end());
    return d;
}

}  // namespace

void Lowerer::check_known_values(const SizedType& type, const std::string& name, const Value& shape,
                                 const std::vector<double>& x, const std::string& where,
                                 std::string_view what, bool finite) {
    // Declared bounds, element by element.
    auto bound = [&](const std::optional<Expression>& b) -> std::optional<double> {
        if (!b)
            return std::nullopt;
        const Value bv = expr(*b);
        if (!bv.is_scalar())
            fail(b->loc, fmt::format("only scalar bounds are supported on {}s", what));
        return bv.is_int() ? bv.ints[0] : m().evaluate(bv.expr)[0];
    };
    const auto lower = bound(type.lower), upper = bound(type.upper);
    for (std::size_t k = 0; k < x.size(); ++k) {
        if (finite && !std::isfinite(x[k])) {
            throw DataError(
                fmt::format("{}: {} `{}`: element {} is {}; data must be finite numbers", where,
                            what, name, k + 1, std::isnan(x[k]) ? "NaN" : fmt::format("{}", x[k])));
        }
        // NaN is outside any bound (Stan's checks fail on it)
        if ((lower && !(x[k] >= *lower)) || (upper && !(x[k] <= *upper))) {
            throw DataError(fmt::format(
                "{}: {} `{}`: element {} is {}, outside the declared bounds [{}, {}]", where, what,
                name, k + 1, x[k], lower ? fmt::format("{}", *lower) : "-inf",
                upper ? fmt::format("{}", *upper) : "inf"));
        }
    }
    // Structured constraints (simplex, ordered, cov_matrix, ...), one per array element.
    if (!shape.is_int()) {
        const std::vector<std::int64_t> array_dims(shape.dims.begin(), shape.dims.end());
        if (const auto problem =
                violated_data_constraint(name, type.base, array_dims, shape.sizes, x)) {
            throw DataError(fmt::format("{}: {} {}", where, what, *problem));
        }
    }
}

void Lowerer::transformed_data_constraints(const SizedType& type, const std::string& name,
                                           Loc name_loc) {
    if (type.base == BaseType::Tuple) {
        for (std::size_t k = 0; k < type.parts.size(); ++k) {
            transformed_data_constraints(element_type(type, k), fmt::format("{}:{}", name, k + 1),
                                         name_loc);
        }
        return;
    }
    if (!type.lower && !type.upper && !declared_constraint(type.base))
        return;
    const Value& v = find(name)->value;
    std::vector<double> x;
    if (v.is_known_int())
        x.assign(v.ints.begin(), v.ints.end());
    else
        x = m().evaluate(real(v, name_loc));
    const SourcePosition p = position_of(program_.text, name_loc.offset);
    std::string shown = name;
    std::replace(shown.begin(), shown.end(), ':', '.');
    check_known_values(type, shown, v, x, fmt::format("{}:{}:{}", program_.file, p.line, p.column),
                       "transformed data variable", false);
}

void Lowerer::data_block() {
    read_only_block(*program_.data, BlockKind::Data, &Lowerer::data_variable);
}

void Lowerer::read_only_block(const ProgramBlock& b, BlockKind kind,
                              Value (Lowerer::*value_of)(const SizedType&, const std::string&,
                                                         Loc)) {
    block_ = kind;
    for (const Statement& s : b.statements) {
        const auto* d = s.as<VarDecl>();
        if (d == nullptr)
            fail(s.loc, fmt::format("the {} block holds declarations only", stan::name(kind)));
        Var var;
        var.value = (this->*value_of)(d->type, d->name, d->name_loc);
        var.block = kind;
        var.initialised = true;
        var.readonly = true;
        declare(d->name_loc, d->name, std::move(var));
    }
}

DataValue Lowerer::placeholder_value(const SizedType& type, const std::string& name,
                                     const Value& shape) {
    DataValue x;
    x.name = name;
    x.type = shape.is_int() ? DType::Int : DType::Real;
    x.dims = flat_dims(shape);
    // a number inside the declared bounds (scalar bounds only; others are left to the check)
    auto bound = [&](const std::optional<Expression>& b) -> std::optional<double> {
        if (!b)
            return std::nullopt;
        const Value bv = expr(*b);
        if (!bv.is_scalar())
            return std::nullopt;
        return bv.is_int() ? bv.ints[0] : m().evaluate(bv.expr)[0];
    };
    const auto lo = bound(type.lower), hi = bound(type.upper);
    double value = shape.is_int() ? 2 : 0.5;  // two: loops over a size run more than once
    if (lo && hi)
        value = shape.is_int() ? std::max(*lo, std::min(value, *hi)) : (*lo + *hi) / 2;
    else if (lo)
        value = shape.is_int() ? std::max(value, *lo) : *lo + 0.5;
    else if (hi)
        value = shape.is_int() ? std::min(value, *hi) : *hi - 0.5;
    const std::int64_t n = checked_product(x.dims).value_or(0);
    std::vector<double> values(static_cast<std::size_t>(n), value);
    // Structured types: per array element (array index fastest), a value of the type.
    const std::int64_t per_element = [&] {
        std::int64_t k = 1;
        for (int s : shape.sizes) k *= s;
        return k;
    }();
    const std::int64_t elements = per_element == 0 ? 0 : n / per_element;
    const int rows = shape.sizes.empty() ? 1 : shape.sizes[0];
    for (std::int64_t k = 0; k < per_element; ++k) {
        const std::int64_t r = k % rows, c = k / rows;
        double v = value;
        switch (type.base) {
            case BaseType::Simplex:
            case BaseType::ColumnStochasticMatrix: v = 1.0 / static_cast<double>(rows); break;
            case BaseType::RowStochasticMatrix:
                v = 1.0 / static_cast<double>(shape.sizes.at(1));
                break;
            case BaseType::SumToZeroVector:
            case BaseType::SumToZeroMatrix: v = 0; break;
            case BaseType::UnitVector: v = r == 0 ? 1 : 0; break;
            case BaseType::Ordered:
            case BaseType::PositiveOrdered: v = static_cast<double>(r + 1); break;
            case BaseType::CholeskyFactorCorr:
            case BaseType::CholeskyFactorCov:
            case BaseType::CorrMatrix:
            case BaseType::CovMatrix: v = r == c ? 1 : 0; break;
            default: continue;
        }
        for (std::int64_t e = 0; e < elements; ++e)
            values[static_cast<std::size_t>(e + elements * k)] = v;
    }
    for (const double v : values) {
        if (shape.is_int())
            x.ints.push_back(static_cast<int>(v));
        else
            x.reals.push_back(v);
    }
    return x;
}

Expr Lowerer::real_data(const Value& v, const std::string& name,
                        const std::vector<double>& values) {
    const auto fd = flat_dims(v);
    if (fd.empty())
        return m().data(name, values[0]);
    if (fd.size() == 1) {
        Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(
            values.data(), static_cast<Eigen::Index>(values.size()));
        return m().data(name, out_.keep(std::move(x)));
    }
    // Two dimensions or more: rows by the first index, the rest column-major in the columns
    // (array[N] matrix[R, C] is mat[N, R * C]), the layout of every value of rank 2 or more.
    std::int64_t cols = 1;
    for (std::size_t k = 1; k < fd.size(); ++k) cols *= fd[k];
    Eigen::MatrixXd x = Eigen::Map<const Eigen::MatrixXd>(values.data(), fd[0], cols);
    return m().data(name, out_.keep(std::move(x)));
}

Value Lowerer::complex_data(const SizedType& type, BaseType part, const std::string& name,
                            Loc name_loc) {
    // CmdStan JSON writes a complex number as [re, im], the pair innermost: the data are reals
    // of the declared dims and a last dim of 2, whose halves (column-major) are the parts.
    SizedType p = type;
    p.base = part;
    const Value shape = declared_shape(p, name);
    std::string data_name = name;
    std::replace(data_name.begin(), data_name.end(), ':', '.');
    const SourcePosition at = position_of(program_.text, name_loc.offset);
    const std::string where = fmt::format("{}:{}:{}", program_.file, at.line, at.column);
    std::vector<std::int64_t> dims = flat_dims(shape);
    dims.push_back(2);
    const auto n = static_cast<std::size_t>(shape.size());
    std::vector<double> values;
    if (const DataValue* given = data_.find(data_name)) {
        try {
            given->check(DType::Real, dims);
        } catch (const DataError& e) {
            throw DataError(
                fmt::format("{}: {} (a complex value is [real, imaginary])", where, e.what()));
        }
        if (given->is_int())
            values.assign(given->ints.begin(), given->ints.end());
        else
            values = given->reals;
        if (given->type_unknown)
            values.assign(2 * n, 0.0);
    } else if (placeholder_data_) {
        values.assign(2 * n, 0.5);
    } else {
        throw DataError(
            fmt::format("{}: data variable `{}` is missing from the data", where, data_name));
    }
    for (std::size_t k = 0; k < values.size(); ++k) {
        if (!std::isfinite(values[k])) {
            throw DataError(
                fmt::format("{}: data variable `{}`: element {} is {}; data must be "
                            "finite numbers",
                            where, data_name, k + 1, values[k]));
        }
    }
    const std::vector<double> re(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
    const std::vector<double> im(values.begin() + static_cast<std::ptrdiff_t>(n), values.end());
    Value r = shape, i = shape;
    r.expr = real_data(shape, data_name + ".real", re);
    i.expr = real_data(shape, data_name + ".imag", im);
    return complex_of(r, i, name_loc);
}

Value Lowerer::data_variable(const SizedType& type, const std::string& name, Loc name_loc) {
    if (const auto part = part_type(type.base))
        return complex_data(type, *part, name, name_loc);
    if (type.base == BaseType::Tuple) {
        Value v;
        v.base = Base::Tuple;
        for (const auto& dim : type.dims) v.dims.push_back(known_int(dim, "an array size"));
        for (std::size_t k = 0; k < type.parts.size(); ++k) {
            v.parts.push_back(
                data_variable(element_type(type, k), fmt::format("{}:{}", name, k + 1), name_loc));
        }
        return v;
    }
    // A tuple's element `x:2:1` is `x.2.1` in the data (and in messages), as CmdStan JSON nests it.
    std::string data_name = name;
    std::replace(data_name.begin(), data_name.end(), ':', '.');
    const VarDecl decl{type, data_name, name_loc, std::nullopt};
    const VarDecl* d = &decl;
    {
        Value v = declared_shape(d->type, d->name);
        const DataValue* given = data_.find(d->name);
        const auto where = [&] {
            const SourcePosition p = position_of(program_.text, d->name_loc.offset);
            return fmt::format("{}:{}:{}", program_.file, p.line, p.column);
        };
        // An empty array of tuples has no elements in the data to name its parts.
        static const DataValue kEmpty{};
        if (given == nullptr && name.find(':') != std::string::npos && v.size() == 0)
            given = &kEmpty;
        DataValue made_up;
        if (given == nullptr && placeholder_data_) {
            made_up = placeholder_value(d->type, d->name, v);
            given = &made_up;
        }
        if (given == nullptr) {
            throw DataError(
                fmt::format("{}: data variable `{}` is missing from the data", where(), d->name));
        }
        try {
            given->check(v.is_int() ? DType::Int : DType::Real, flat_dims(v));
        } catch (const DataError& e) {
            throw DataError(fmt::format("{}: {}", where(), e.what()));
        }
        {
            std::vector<double> values;
            if (given->is_int())
                values.assign(given->ints.begin(), given->ints.end());
            const std::vector<double>& x = given->is_int() ? values : given->reals;
            check_known_values(d->type, d->name, v, x, where(), "data variable", true);
        }
        // Bind: ints are known values (and integer data where one-dimensional), reals are
        // data slots of the model in their layout.
        const int rank = static_cast<int>(v.dims.size() + v.sizes.size());
        if (v.is_int()) {
            v.ints.assign(given->ints.begin(), given->ints.end());
            if (given->type_unknown)
                v.ints.assign(static_cast<std::size_t>(given->size()), 0);
            // An int scalar (a size, a count) is a known value: it enters the graph only where
            // it is used, as a constant (or as integer data if it is a count's variate).
            if (rank == 1) {
                Eigen::VectorXi x = Eigen::Map<const Eigen::VectorXi>(
                    v.ints.data(), static_cast<Eigen::Index>(v.ints.size()));
                v.expr = m().data(d->name, out_.keep(std::move(x)));
            }
        } else {
            std::vector<double> values =
                given->is_int() ? std::vector<double>(given->ints.begin(), given->ints.end())
                                : given->reals;
            if (given->type_unknown)
                values.assign(static_cast<std::size_t>(given->size()), 0.0);
            v.expr = real_data(v, d->name, values);
        }
        return v;
    }
}

void Lowerer::transformed_data_block() {
    block_ = BlockKind::TransformedData;
    for (const Statement& s : program_.transformed_data->statements) statement(s);
    // Stan checks the declared constraints at the end of the block.
    for (const Statement& s : program_.transformed_data->statements) {
        if (const auto* d = s.as<VarDecl>())
            transformed_data_constraints(d->type, d->name, d->name_loc);
    }
    for (auto& [name, var] : scopes_.back()) {
        if (var.block == BlockKind::TransformedData)
            var.readonly = true;
    }
}

void Lowerer::parameters_block() {
    read_only_block(*program_.parameters, BlockKind::Parameters, &Lowerer::parameter_variable);
}

Value Lowerer::parameter_variable(const SizedType& type, const std::string& name, Loc name_loc) {
    if (type.base == BaseType::Tuple && !type.dims.empty()) {
        // CmdStan's names and order: the tuples of the array in turn (first index fastest), the
        // elements of each together (`p.1:1, p.1:2, p.2:1, ...`): one set of latents per tuple,
        // stacked into the array's value.
        const Value shape = declared_shape(type, name);
        const std::int64_t count =
            checked_product(std::vector<std::int64_t>(shape.dims.begin(), shape.dims.end()))
                .value_or(0);
        if (count == 0)
            return shape;
        SizedType one = type;
        one.dims.clear();
        std::vector<Value> tuples;
        for (std::int64_t flat = 0; flat < count; ++flat) {
            std::string element = name;
            std::int64_t rest = flat;
            for (int d : shape.dims) {
                element += fmt::format(".{}", rest % d + 1);
                rest /= d;
            }
            tuples.push_back(parameter_variable(one, element, name_loc));
        }
        return stacked(tuples, shape.dims, name_loc);
    }
    if (const auto part = part_type(type.base)) {
        // One latent holding both parts, mat[2, n]: row 0 the real parts, row 1 the imaginary,
        // each column-major over the declared dims, so that its flat order is CmdStan's
        // (z.1.real, z.1.imag, z.2.real, ...).
        SizedType p = type;
        p.base = *part;
        const Value shape = declared_shape(p, name);
        const auto fd = flat_dims(shape);
        const auto n = static_cast<int>(shape.size());
        if (n == 0)
            return complex_of(zeros_like(shape), zeros_like(shape), name_loc);
        ParamOptions options;
        options.dims = fd;
        options.dims.insert(options.dims.begin(), 2);
        options.complex = true;
        Expr P;
        try {
            P = m().param(name, flat(), 2, n, options);
        } catch (const ParseError&) {
            throw;
        } catch (const Error& e) {
            fail(name_loc, e.what());
        }
        auto part_of = [&](int k) {
            Value v = shape;
            const Expr r = row(P, k);
            v.expr = fd.empty() ? sum(r) : fd.size() == 1 ? r : to_matrix(r, fd[0], n / fd[0]);
            return v;
        };
        return complex_of(part_of(0), part_of(1), name_loc);
    }
    if (type.base == BaseType::Tuple) {
        Value v;
        v.base = Base::Tuple;
        for (std::size_t k = 0; k < type.parts.size(); ++k) {
            v.parts.push_back(parameter_variable(element_type(type, k),
                                                 fmt::format("{}:{}", name, k + 1), name_loc));
        }
        return v;
    }
    const VarDecl decl{type, name, name_loc, std::nullopt};
    const VarDecl* d = &decl;
    {
        Value v = declared_shape(d->type, d->name);
        if (v.is_int())
            fail(d->type.loc, "parameters cannot be integers");
        ParamOptions options;
        auto arg = [&](const std::optional<Expression>& e) -> std::optional<Arg> {
            if (!e)
                return std::nullopt;
            const Value b = expr(*e);
            if (b.is_known_int() && b.is_scalar())
                return Arg(static_cast<double>(b.ints[0]));
            return Arg(real(b, e->loc));
        };
        options.lower = arg(d->type.lower);
        options.upper = arg(d->type.upper);
        options.offset = arg(d->type.offset);
        options.multiplier = arg(d->type.multiplier);
        if (const std::optional<Support> s = declared_support(d->type.base))
            options.support = *s;
        // array[U] simplex[K] (and ordered, positive_ordered, unit_vector, sum_to_zero_vector)
        // is mat[U, K] with the vectors as rows, the layout of array[U] vector[K]: the
        // library's supports take each row of a matrix as one vector. An array of a matrix type
        // (cholesky_factor_corr[K], cov_matrix[K], ...) is mat[E, R * C] with one element per
        // row (Support::array_of). An array of more dimensions is mat[E, K], E the product of
        // its dims, whose column-major order is that of the value's layout (rows by the first
        // index, the rest column-major): a reshape.
        const bool rowwise = base_of(d->type.base) == Base::Vector;
        if (options.support && !v.dims.empty() && !rowwise)
            options.support = Support::array_of(*options.support, v.sizes.at(0), v.sizes.at(1));
        const auto fd = flat_dims(v);
        try {
            if (options.support && fd.size() > 2) {
                const std::int64_t K =
                    rowwise ? fd.back() : std::int64_t{v.sizes.at(0)} * v.sizes.at(1);
                const std::int64_t E =
                    checked_product(fd).value_or(0) / std::max<std::int64_t>(K, 1);
                options.dims = fd;
                const Expr rows =
                    m().param(d->name, flat(), static_cast<int>(E), static_cast<int>(K), options);
                v.expr = to_matrix(rows, static_cast<int>(fd[0]), static_cast<int>(E * K / fd[0]));
            } else if (fd.empty()) {
                v.expr = m().param(d->name, flat(), options);
            } else if (fd.size() == 1) {
                v.expr = m().param(d->name, flat(), fd[0], options);
            } else if (fd.size() == 2) {
                v.expr = m().param(d->name, flat(), fd[0], fd[1], options);
            } else {
                // rows by the first index, the rest column-major (the layout of every value of
                // rank 2 or more), named by its declared dims
                std::int64_t cols = 1;
                for (std::size_t k = 1; k < fd.size(); ++k) cols *= fd[k];
                options.dims = fd;
                v.expr = m().param(d->name, flat(), fd[0], cols, options);
            }
        } catch (const ParseError&) {
            throw;
        } catch (const Error& e) {
            fail(d->name_loc, e.what());
        }
        return v;
    }
}

std::vector<std::pair<std::string, Value>> Lowerer::declaring_block(const ProgramBlock& b,
                                                                    std::string_view what) {
    std::vector<std::string> names;
    for (const Statement& s : b.statements) {
        if (const auto* d = s.as<VarDecl>())
            names.push_back(d->name);
        statement(s);
    }
    std::vector<std::pair<std::string, Value>> values;
    for (const std::string& n : names) {
        // every element of a tuple assigned, and none assignable after the block
        std::vector<std::string> leaves;
        element_leaves(n, leaves);
        for (const std::string& leaf : leaves) {
            Var* var = find(leaf);
            if (!var->initialised) {
                fail(b.loc, fmt::format("{} `{}` is never assigned", what,
                                        leaf == n ? n : fmt::format("{} (element {})", n, leaf)));
            }
            var->readonly = true;
        }
        find(n)->readonly = true;
        reported(n, read_variable(n, b.loc), b.loc, values);
    }
    return values;
}

void Lowerer::reported(const std::string& name, const Value& v, Loc at,
                       std::vector<std::pair<std::string, Value>>& out) {
    if (!v.is_tuple()) {
        out.emplace_back(name, v);
        return;
    }
    if (v.dims.empty()) {
        for (std::size_t k = 0; k < v.parts.size(); ++k)
            reported(fmt::format("{}:{}", name, k + 1), v.parts[k], at, out);
        return;
    }
    // An array of tuples, tuple by tuple (first index fastest), as CmdStan writes it.
    const std::int64_t count =
        checked_product(std::vector<std::int64_t>(v.dims.begin(), v.dims.end())).value_or(0);
    for (std::int64_t flat = 0; flat < count; ++flat) {
        std::string element = name;
        std::vector<Index> indices;
        std::int64_t rest = flat;
        for (int d : v.dims) {
            const int i = static_cast<int>(rest % d) + 1;
            rest /= d;
            element += fmt::format(".{}", i);
            Index ix;
            ix.loc = at;
            ix.lower = Box<Expression>(Expression{at, IntLiteral{i}});
            indices.push_back(std::move(ix));
        }
        reported(element, index(v, indices, at), at, out);
    }
}

Value Lowerer::stacked(const std::vector<Value>& values, const std::vector<int>& dims, Loc at) {
    // values[i0 + d0 * (i1 + d1 * ...)] is element [i0, i1, ...]: stacked along the first dim
    // last, each of its slices stacked first.
    std::vector<Loc> locs(static_cast<std::size_t>(dims[0]), at);
    if (dims.size() == 1)
        return array_of(values, locs, at);
    const std::vector<int> rest_dims(dims.begin() + 1, dims.end());
    const std::size_t d0 = static_cast<std::size_t>(dims[0]);
    std::vector<Value> slices;
    for (std::size_t i = 0; i < d0; ++i) {
        std::vector<Value> slice;
        for (std::size_t r = 0; r * d0 + i < values.size(); ++r)
            slice.push_back(values[r * d0 + i]);
        slices.push_back(stacked(slice, rest_dims, at));
    }
    return array_of(slices, locs, at);
}

ReportedValue Lowerer::report_of(const std::string& name, const Value& v, Loc at) {
    if (!v.is_complex())
        return {name, flat_dims(v), real(v, at)};
    // mat[2, n]: the parts as rows, so that the flat order is CmdStan's (z.1.real, z.1.imag, ...)
    std::vector<std::int64_t> dims = flat_dims(v);
    dims.insert(dims.begin(), 2);
    auto flat_part = [&](const Value& p) {
        const Expr e = real(p, at);
        const Expr f = e.shape().is_scalar()   ? rep_vector(e, 1)
                       : e.shape().is_vector() ? e
                                               : to_vector(e);
        return rep_matrix_rows(f, 1);
    };
    if (v.size() == 0)
        return {name, dims, real(zeros_like(v.parts[0]), at), true};
    return {name, dims, append_row(flat_part(v.parts[0]), flat_part(v.parts[1])), true};
}

void Lowerer::transformed_parameters_block() {
    block_ = BlockKind::TransformedParameters;
    const ProgramBlock& b = *program_.transformed_parameters;
    for (const auto& [n, value] : declaring_block(b, "transformed parameter"))
        out_.transformed_parameters().push_back(report_of(n, value, b.loc));
    declared_constraints(b, "transformed parameter", true);
}

void Lowerer::generated_quantities_block() {
    block_ = BlockKind::GeneratedQuantities;
    const ProgramBlock& b = *program_.generated_quantities;
    for (const auto& [n, value] : declaring_block(b, "generated quantity"))
        out_.generated_quantities().push_back(report_of(n, value, b.loc));
    declared_constraints(b, "generated quantity", false);
}

void Lowerer::model_block() {
    block_ = BlockKind::Model;
    push_scope();
    for (const Statement& s : program_.model->statements) statement(s);
    pop_scope();
}

// ------------------------------------------------------------------------------ statements

void Lowerer::effect(std::function<void()> f) {
    if (region_ != nullptr) {
        region_->effects.push_back(std::move(f));
    } else {
        f();
    }
}

void Lowerer::statement(const Statement& s) {
    const Loc at = s.loc;
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, VarDecl>) {
                local_declaration(n, at);
            } else if constexpr (std::is_same_v<T, Assign>) {
                assign(n, at);
            } else if constexpr (std::is_same_v<T, Tilde>) {
                tilde(n, at);
            } else if constexpr (std::is_same_v<T, TargetPlus>) {
                if (n.jacobian)
                    jacobian_plus(n.value, at);
                else
                    target_plus(n.value, at);
            } else if constexpr (std::is_same_v<T, For>) {
                for_loop(n, at);
            } else if constexpr (std::is_same_v<T, ForEach>) {
                for_each(n, at);
            } else if constexpr (std::is_same_v<T, While>) {
                while_loop(n, at);
            } else if constexpr (std::is_same_v<T, If>) {
                if_statement(n, at);
            } else if constexpr (std::is_same_v<T, Block> || std::is_same_v<T, Profile>) {
                push_scope();
                for (const auto& st : n.statements) statement(st);
                pop_scope();
            } else if constexpr (std::is_same_v<T, Break>) {
                if (!levels_.empty())
                    throw NotVectorisable(at, "a break");
                if (loop_depth_ == 0)
                    fail(at, "`break` outside a loop");
                throw BreakSignal{};
            } else if constexpr (std::is_same_v<T, Continue>) {
                if (!levels_.empty())
                    throw NotVectorisable(at, "a continue");
                if (loop_depth_ == 0)
                    fail(at, "`continue` outside a loop");
                throw ContinueSignal{};
            } else if constexpr (std::is_same_v<T, Return>) {
                if (call_stack_.empty())
                    fail(at, "return outside a function");
                if (static_cast<int>(levels_.size()) > function_level_) {
                    throw NotVectorisable(at, "a return inside a loop");
                }
                ReturnSignal r;
                if (n.value)
                    r.value = expr(*n.value);
                throw r;
            } else if constexpr (std::is_same_v<T, Print>) {
                print(n, at);
            } else if constexpr (std::is_same_v<T, CallStatement>) {
                (void)call(n.call, at);
            } else if constexpr (std::is_same_v<T, Empty>) {
            }
        },
        s.node);
}

namespace {

// A value as Stan prints it: 3, 1.5, [1,2,3], [[1,2],[3,4]] (arrays and matrices by rows).
// `im`, if given, holds imaginary parts: complex numbers print as (re,im).
std::string stan_text(const std::vector<double>& x, const std::vector<int>& extents,
                      const std::vector<double>* im = nullptr) {
    auto element = [&](std::size_t k) {
        return im == nullptr ? fmt::format("{}", x[k]) : fmt::format("({},{})", x[k], (*im)[k]);
    };
    if (extents.empty())
        return x.empty() ? "" : element(0);
    // column-major storage: element (i0, i1, ...) at i0 + e0 (i1 + e1 (...))
    std::function<std::string(std::size_t, std::int64_t, std::int64_t)> nest =
        [&](std::size_t dim, std::int64_t offset, std::int64_t stride) -> std::string {
        std::string out = "[";
        for (int i = 0; i < extents[dim]; ++i) {
            if (i > 0)
                out += ",";
            const std::int64_t at = offset + stride * i;
            out += dim + 1 == extents.size() ? element(static_cast<std::size_t>(at))
                                             : nest(dim + 1, at, stride * extents[dim]);
        }
        return out + "]";
    };
    return nest(0, 0, 1);
}

}  // namespace

void Lowerer::print(const Print& p, Loc at) {
    // Stan prints each time the statement runs. Values known before the fit (data, transformed
    // data, constants) are printed here, once per execution of the lowering: exactly Stan's
    // output in transformed data, and in the other blocks the same line without its repetition
    // at every evaluation. A value that depends on the parameters would need a print at every
    // evaluation of the graph, which advi does not have: refused, never silently dropped.
    if (!levels_.empty())
        throw NotVectorisable(at, fmt::format("a {} (it runs once per iteration)", name(p.kind)));
    std::string text;
    for (const Expression& a : p.args) {
        if (const auto* str = a.as<StringLiteral>()) {
            text += str->value;
            continue;
        }
        const Value v = expr(a);
        // Stan prints a tuple as (a, b); an array of tuples is refused rather than misprinted.
        std::function<std::optional<std::string>(const Value&)> text_of =
            [&](const Value& v) -> std::optional<std::string> {
            if (v.is_tuple() && !v.dims.empty()) {
                // an array of tuples as Stan prints it: [(1, 2),(3, 4)], nested by rows
                std::string out = "[";
                for (int i = 1; i <= v.dims[0]; ++i) {
                    Index ix;
                    ix.loc = a.loc;
                    ix.lower = Box<Expression>(Expression{a.loc, IntLiteral{i}});
                    const auto element = text_of(index(v, {ix}, a.loc));
                    if (!element)
                        return std::nullopt;
                    out += (i > 1 ? "," : "") + *element;
                }
                return out + "]";
            }
            if (v.is_complex()) {
                // Stan prints a complex number as (re,im)
                std::vector<int> extents = v.dims;
                extents.insert(extents.end(), v.sizes.begin(), v.sizes.end());
                std::vector<double> re, im;
                try {
                    re = m().evaluate(real(v.parts[0], a.loc));
                    im = m().evaluate(real(v.parts[1], a.loc));
                } catch (const ModelError&) {
                    return std::nullopt;
                }
                return stan_text(re, extents, &im);
            }
            if (v.is_tuple()) {
                std::string out = "(";
                for (std::size_t k = 0; k < v.parts.size(); ++k) {
                    const auto part = text_of(v.parts[k]);
                    if (!part)
                        return std::nullopt;
                    out += (k > 0 ? ", " : "") + *part;
                }
                return out + ")";
            }
            std::vector<int> extents = v.dims;
            extents.insert(extents.end(), v.sizes.begin(), v.sizes.end());
            std::vector<double> x;
            if (v.is_known_int()) {
                x.assign(v.ints.begin(), v.ints.end());
            } else {
                try {
                    x = m().evaluate(real(v, a.loc));
                } catch (const ModelError&) {
                    if (p.kind != PrintKind::Print)
                        return std::nullopt;
                    fail(a.loc,
                         fmt::format("{} of `{}`, which depends on the parameters: Stan prints "
                                     "it at every evaluation of the log density, and advi's "
                                     "compiled graph cannot print; print data, or remove it",
                                     name(p.kind), to_stan(a)));
                }
            }
            return stan_text(x, extents);
        };
        // reject/fatal_error reached whatever the parameters are: every evaluation stops here
        text += text_of(v).value_or(fmt::format("`{}`", to_stan(a)));
    }
    if (p.kind == PrintKind::Print) {
        out_.printed().push_back(text);
        return;
    }
    // reject / fatal_error: reached with known values, so every evaluation would reach it
    fail(at, fmt::format("{}: {}", name(p.kind), text));
}

void Lowerer::local_declaration(const VarDecl& d, Loc at) {
    if (d.type.lower || d.type.upper || d.type.offset || d.type.multiplier) {
        if (block_ == BlockKind::Model || !(scopes_.size() == 1)) {
            fail(d.type.loc, "local variables cannot have constraints");
        }
    }
    if (d.type.base == BaseType::Tuple || part_type(d.type.base)) {
        // Tuples and complex values stay out of loops run at once (their elements are
        // variables of their own, which the vectoriser's bookkeeping of a loop's assignments
        // does not follow).
        if (!levels_.empty()) {
            throw NotVectorisable(at, fmt::format("a {} declared in the loop",
                                                  part_type(d.type.base) ? "complex" : "tuple"));
        }
        std::optional<Value> initial;
        if (d.initial_value)
            initial = expr(*d.initial_value);
        Var var;
        var.value = declared_shape(d.type, d.name);
        var.block = block_;
        var.level = static_cast<int>(levels_.size());
        declare_value(d.name_loc, d.name, std::move(var));
        if (initial)
            store_whole(d.name, *initial, at, d.initial_value->loc);
        return;
    }
    Var var;
    var.value = declared_shape(d.type, d.name);
    var.block = block_;
    var.level = static_cast<int>(levels_.size());
    if (d.initial_value) {
        // in scope, unassigned, in its own initial value (`real x = x;`: a read before assignment)
        declare(d.name_loc, d.name, var);
        Value v;
        try {
            v = expr(*d.initial_value);
        } catch (...) {
            scopes_.back().erase(d.name);
            throw;
        }
        scopes_.back().erase(d.name);
        const bool int_declared = var.value.is_int();
        if (int_declared && !v.is_int()) {
            fail(d.initial_value->loc, fmt::format("`{}` is declared {}; cannot assign {}", d.name,
                                                   type_str(var.value), type_str(v)));
        }
        if (v.size() != var.value.size()) {
            fail(d.initial_value->loc, fmt::format("`{}` is declared {}; cannot assign {}", d.name,
                                                   type_str(var.value), type_str(v)));
        }
        if (!int_declared && v.is_int()) {
            v.expr = real(v, d.initial_value->loc);
            v.ints.clear();
        }
        v.base = var.value.base;
        v.dims = var.value.dims;
        v.sizes = var.value.sizes;
        var.value = v;
        var.initialised = true;
    }
    declare(d.name_loc, d.name, std::move(var));
}

std::vector<Index> Lowerer::Place::indices() const {
    std::vector<Index> out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        out.insert(out.end(), (*it)->begin(), (*it)->end());
    return out;
}

Lowerer::Place Lowerer::place_of(const Expression& lhs) const {
    Place p;
    std::vector<int> slots;  // the last first
    const Expression* e = &lhs;
    for (;;) {
        if (const auto* ix = e->as<Indexed>()) {
            p.chain.push_back(&ix->indices);
            e = &*ix->base;
        } else if (const auto* t = e->as<TupleIndex>()) {
            slots.push_back(t->index);
            p.element = true;
            e = &*t->base;
        } else {
            break;
        }
    }
    p.root = e->as<Variable>()->name;
    p.loc = e->loc;
    // Indices and elements commute: a tuple array's elements are arrays of its dims.
    p.name = p.root;
    for (auto it = slots.rbegin(); it != slots.rend(); ++it) p.name += fmt::format(":{}", *it);
    return p;
}

void Lowerer::unpack(const Expression& lhs, const Value& rhs, Loc at) {
    if (const auto* t = lhs.as<TupleExpr>()) {
        if (!rhs.is_tuple() || rhs.parts.size() != t->elements.size())
            fail(at,
                 fmt::format("cannot unpack {} into {} places", type_str(rhs), t->elements.size()));
        for (std::size_t k = 0; k < t->elements.size(); ++k)
            unpack(t->elements[k], rhs.parts[k], at);
        return;
    }
    const Place place = place_of(lhs);
    const Var* root = find(place.root);
    if (root == nullptr)
        fail(place.loc, fmt::format("unknown identifier `{}`", place.root));
    if (root->readonly) {
        fail(place.loc, fmt::format("`{}` cannot be assigned here ({} variable)", place.root,
                                    stan::name(root->block)));
    }
    store_at(place.name, place.indices(), rhs, at, lhs.loc, &lhs);
}

void Lowerer::assign(const Assign& a, Loc at) {
    if (a.lhs.is<TupleExpr>()) {
        // Tuples stay out of loops run at once (see local_declaration).
        if (!levels_.empty())
            throw NotVectorisable(at, "a tuple unpacking");
        const Value rhs = expr(a.rhs);  // all of it before any place is written
        unpack(a.lhs, rhs, at);
        return;
    }
    const Place place = place_of(a.lhs);
    const std::string& name = place.name;
    const auto& chain = place.chain;
    Var* var = find(place.root);
    if (var == nullptr)
        fail(place.loc, fmt::format("unknown identifier `{}`", place.root));
    if (var->readonly) {
        fail(place.loc, fmt::format("`{}` cannot be assigned here ({} variable)", place.root,
                                    stan::name(var->block)));
    }
    if ((place.element || !var->elements.empty()) && !levels_.empty())
        throw NotVectorisable(at, "an assignment to a tuple");
    Value rhs = expr(a.rhs);
    var = find(name);  // evaluating the right-hand side may have replaced the scopes
    if (a.op != AssignOp::Assign) {
        BinaryOp op = BinaryOp::Add;
        switch (a.op) {
            case AssignOp::Add: op = BinaryOp::Add; break;
            case AssignOp::Subtract: op = BinaryOp::Subtract; break;
            case AssignOp::Multiply: op = BinaryOp::Multiply; break;
            case AssignOp::Divide: op = BinaryOp::Divide; break;
            case AssignOp::EltMultiply: op = BinaryOp::EltMultiply; break;
            case AssignOp::EltDivide: op = BinaryOp::EltDivide; break;
            default: break;
        }
        // An accumulator over a vectorised loop: x += e in every iteration is x += sum of e.
        const int here = static_cast<int>(levels_.size());
        if (chain.empty() && var->level < here &&
            (a.op == AssignOp::Add || a.op == AssignOp::Subtract) && rhs.level > var->level &&
            rhs.is_scalar() && !rhs.is_int()) {
            const int B = batch_size(rhs.level), outer = batch_size(var->level);
            Expr total = real(rhs, at);
            total = outer == 1 ? sum(total) : row_sums(to_matrix(total, outer, B / outer));
            Value t;
            t.base = Base::Real;
            t.expr = total;
            t.level = var->level;
            Value updated = binary(op, var->value, t, at);
            if (region_ != nullptr) {
                region_->written[name] = updated;
            }
            var->value = updated;
            var->value.level = var->level;
            return;
        }
        const Value current = expr(a.lhs);
        rhs = binary(op, current, rhs, at);
    }
    store_at(name, place.indices(), rhs, at, a.rhs.loc, &a.lhs);
}

void Lowerer::store_at(const std::string& name, const std::vector<Index>& indices, Value rhs,
                       Loc at, Loc rhs_loc, const Expression* lhs) {
    Var* var = find(name);
    if (var->value.is_complex() && !rhs.has_parts())
        rhs = as_complex(rhs, rhs_loc);  // int and real promote
    if (!var->elements.empty()) {
        if (!rhs.has_parts() || rhs.base != var->value.base ||
            rhs.parts.size() != var->elements.size()) {
            fail(rhs_loc, fmt::format("cannot assign {} to the {} `{}`", type_str(rhs),
                                      var->value.is_complex() ? "complex value" : "tuple",
                                      name.substr(0, name.find(':'))));
        }
        const std::vector<std::string> elements = var->elements;
        for (std::size_t k = 0; k < elements.size(); ++k)
            store_at(elements[k], indices, rhs.parts[k], at, rhs_loc);
        return;
    }
    if (indices.empty()) {
        if (var->level < static_cast<int>(levels_.size()) && rhs.level > var->level) {
            throw NotVectorisable(at,
                                  fmt::format("`{}` is assigned whole in every iteration", name));
        }
        if (var->level < static_cast<int>(levels_.size())) {
            throw NotVectorisable(at, fmt::format("`{}` is assigned whole inside the loop", name));
        }
        Value v = rhs;
        if (var->value.is_int() && !v.is_int()) {
            fail(rhs_loc, fmt::format("`{}` is an int; cannot assign {}", name, type_str(v)));
        }
        const bool real_target = !var->value.is_int();
        if (real_target && v.is_int()) {
            v.expr = real(v, rhs_loc);
            v.ints.clear();
        }
        if (v.size() != var->value.size() && !(v.is_scalar() && var->value.is_scalar())) {
            fail(rhs_loc, fmt::format("cannot assign {} to `{}` ({})", type_str(v), name,
                                      type_str(var->value)));
        }
        v.base = var->value.base;
        v.dims = var->value.dims;
        v.sizes = var->value.sizes;
        var->value = v;
        var->initialised = true;
        return;
    }
    assign_indexed(name, *var, indices, rhs, at, lhs);
}

// x[i] = v with i known only per draw: the positions of index i replaced by v's values, the rest
// kept (select on a mask, so that an element not yet assigned, NaN, is replaced too). An index out
// of range makes the whole variable NaN, the density with it (Stan rejects the draw).
void Lowerer::assign_at_runtime_index(const std::string& name, Var& var, const RuntimeIndex& rt,
                                      const Value& value0, Loc at) {
    if (var.value.is_int())
        fail(at, fmt::format("assigning an element of the int array `{}` at an index known only "
                             "per draw is not supported yet",
                             name));
    if (var.level > 0 || value0.level > 0)
        throw NotVectorisable(at,
                              "an index known only per draw in a loop whose iterations run at "
                              "once");
    const auto size = static_cast<int>(var.value.size());
    const auto r = static_cast<int>(rt.positions.size());
    if (value0.size() != r && !(value0.is_scalar() && r == 1)) {
        fail(at, fmt::format("cannot assign {} to {} element{} of `{}`", type_str(value0), r,
                             r == 1 ? "" : "s", name));
    }
    Expr old = var.initialised && var.value.expr.valid()
                   ? real(var.value, at)
                   : rep_vector(m().constant(std::nan("")), size);
    if (old.shape().is_matrix())
        old = to_vector(old);
    if (old.shape().is_scalar())
        old = rep_vector(old, 1);
    Expr v = real(value0, at);
    if (v.shape().is_matrix())
        v = to_vector(v);
    if (v.shape().is_scalar())
        v = rep_vector(v, 1);
    Eigen::VectorXi idx(r);
    for (int k = 0; k < r; ++k) idx[k] = rt.positions[static_cast<std::size_t>(k)];
    const Expr positions = m().data(fresh_name("positions"), out_.keep(std::move(idx)));
    Graph& g = const_cast<Graph&>(m().nodes());
    const double nan = std::nan("");
    const NodeId ones = rep_vector(m().constant(1), r).id();
    // 1 at the positions written, 0 elsewhere; out of range, 1 everywhere (then all NaN), or,
    // on a side of a condition known only per draw, nothing written and the guard NaN
    const Expr guard = runtime_index_guard(positions, rt, size);
    const bool guarded = guard.valid();
    const NodeId mask = dyn_index::scatter(g, ones, positions.id(), rt.i.id(), rt.stride, rt.extent,
                                           guarded ? 0.0 : 1.0, Shape::vector(size));
    const NodeId placed = dyn_index::scatter(g, v.id(), positions.id(), rt.i.id(), rt.stride,
                                             rt.extent, guarded ? 0.0 : nan, Shape::vector(size));
    Expr flat = m().wrap(g.apply(Op::Select, mask, placed, old.id()));
    if (guarded)
        flat = m().wrap(g.apply(Op::Select, guard.id(), m().constant(nan).id(), flat.id()));
    Value updated = var.value;
    updated.ints.clear();
    const int rank = static_cast<int>(var.value.dims.size() + var.value.sizes.size());
    if (rank == 0) {
        updated.expr = sum(flat);
    } else if (rank == 1) {
        updated.expr = flat;
    } else {
        const int rows = var.value.dims.empty() ? var.value.sizes[0] : var.value.dims[0];
        updated.expr = to_matrix(flat, rows, size / rows);
    }
    var.value = updated;
    var.initialised = true;
}

std::optional<std::vector<int>> Lowerer::known_ints(const Value& v, int level, Loc at) {
    if (v.is_known_int() && level == 0)
        return v.ints;
    if (!v.is_int())
        return std::nullopt;
    std::vector<double> x;
    try {
        x = m().evaluate(real(at_level(v, level, at), at));
    } catch (const ModelError&) {
        return std::nullopt;  // it depends on the parameters
    }
    std::vector<int> out;
    out.reserve(x.size());
    for (const double d : x) {
        if (!(std::abs(d) <= std::numeric_limits<int>::max()) || d != std::round(d))
            return std::nullopt;
        out.push_back(static_cast<int>(d));
    }
    return out;
}

void Lowerer::assign_indexed(const std::string& name, Var& var, const std::vector<Index>& indices,
                             const Value& value0, Loc at, const Expression* lhs) {
    // Which element each iteration writes: index the variable's positions, as a read would.
    Value positions;
    positions.base = Base::Int;
    positions.dims = var.value.dims;
    positions.sizes = var.value.sizes;
    positions.level = 0;
    const auto per = var.value.size();
    positions.ints.resize(static_cast<std::size_t>(per));
    for (std::int64_t k = 0; k < per; ++k)
        positions.ints[static_cast<std::size_t>(k)] = static_cast<int>(k);
    if (positions.base == Base::Int) {
        // keep the declared base for the result type of the index
    }
    RuntimeIndex runtime;
    Value picked = index(positions, indices, at, lhs, &runtime);
    if (runtime.active) {
        assign_at_runtime_index(name, var, runtime, value0, at);
        return;
    }
    const int here = std::max({picked.level, value0.level, var.level});
    const int B = batch_size(here);
    const int outer = batch_size(var.level);
    Value value = value0;
    if (!value.is_int() || !var.value.is_int()) {
        if (value.is_int()) {
            value.expr = real(value, at);
            value.ints.clear();
            value.base = Base::Real;
        }
    }
    if (var.value.is_int() && block_ != BlockKind::GeneratedQuantities) {
        // Ints outside generated quantities are known while lowering (sizes, indices, counts):
        // the elements are set in place. A value computed from data only (`s[i] = sum(y[i])`
        // in transformed data, one per iteration of a vectorised loop) is evaluated now, the
        // iterations in order (t fastest, as the positions picked).
        std::optional<std::vector<int>> values = known_ints(value0, here, at);
        if (!values || (var.initialised && !var.value.is_known_int())) {
            fail(at,
                 "assigning an int array's elements a value known only per draw is "
                 "supported in generated quantities only");
        }
        const Value where = here > 0 ? at_level(picked, here, at) : picked;
        const std::size_t r = where.ints.size();
        if (values->size() != r && values->size() != 1) {
            fail(at, fmt::format("cannot assign {} to {} element{} of `{}`", type_str(value0), r,
                                 r == 1 ? "" : "s", name));
        }
        // Stan's value of an int not yet assigned: the smallest int
        if (!var.initialised)
            var.value.ints.assign(static_cast<std::size_t>(per), std::numeric_limits<int>::min());
        for (std::size_t e = 0; e < r; ++e) {
            var.value.ints[static_cast<std::size_t>(where.ints[e])] =
                (*values)[values->size() == 1 ? 0 : e];
        }
        var.value.expr = Expr();
        var.initialised = true;
        return;
    }
    // Element positions written, per iteration t (t fastest) and element e of the value.
    picked = at_level(picked, here, at);
    const std::int64_t written = static_cast<std::int64_t>(picked.ints.size());  // B * r
    const std::int64_t r = written / B;
    if (value.size() != r && !(value.is_scalar() && r == 1)) {
        fail(at, fmt::format("cannot assign {} to {} element{} of `{}`", type_str(value), r,
                             r == 1 ? "" : "s", name));
    }
    // Target positions in the variable's flattened (batched) layout.
    const std::int64_t target_size = static_cast<std::int64_t>(outer) * per;
    std::vector<std::int64_t> target(static_cast<std::size_t>(written));
    std::vector<int> hit(static_cast<std::size_t>(target_size), -1);
    for (std::int64_t t = 0; t < B; ++t) {
        for (std::int64_t e = 0; e < r; ++e) {
            const std::int64_t src = t + B * e;
            const std::int64_t pos =
                (t % outer) + outer * picked.ints[static_cast<std::size_t>(src)];
            if (hit[static_cast<std::size_t>(pos)] >= 0) {
                if (here > 0) {
                    throw NotVectorisable(
                        at, fmt::format("iterations write the same element of `{}`", name));
                }
            }
            hit[static_cast<std::size_t>(pos)] = static_cast<int>(src);
            target[static_cast<std::size_t>(src)] = pos;
        }
    }
    // The value flattened in the same order (t fastest).
    Expr v = real(at_level(value, here, at), at);
    if (here > 0 && value.level == 0 && !value.is_scalar())
        v = rep_matrix_rows(v, B);
    if (v.shape().is_matrix())
        v = to_vector(v);
    if (v.shape().is_scalar() && written > 1)
        v = rep_vector(v, static_cast<int>(written));
    if (v.shape().is_scalar())
        v = rep_vector(v, 1);
    bool covers = true;
    for (int h : hit) covers = covers && h >= 0;
    Expr flat;
    if (covers) {
        // new[p] = v[hit[p]]; the identity needs no gather
        bool identity = true;
        for (std::int64_t p = 0; p < target_size && identity; ++p)
            identity = hit[static_cast<std::size_t>(p)] == p;
        if (identity) {
            flat = v;
        } else {
            Eigen::VectorXi idx(target_size);
            for (std::int64_t p = 0; p < target_size; ++p)
                idx[p] = hit[static_cast<std::size_t>(p)];
            flat = v[m().data(fresh_name("scatter"), out_.keep(std::move(idx)))];
        }
    } else {
        // the elements not written keep their values: gather from [old; v]
        Expr old;
        if (var.initialised) {
            // the old value in the variable's own (batched) layout
            const Value& ov = var.value;
            old = real(ov.level < var.level && ov.level > 0 ? at_level(ov, var.level, at) : ov, at);
            if (var.level > 0 && ov.level == 0) {
                old = ov.is_scalar() ? rep_vector(old, outer) : rep_matrix_rows(old, outer);
            }
            if (old.shape().is_matrix())
                old = to_vector(old);
            if (old.shape().is_scalar())
                old = rep_vector(old, 1);
        } else {
            old = rep_vector(m().constant(std::nan("")), static_cast<int>(target_size));
        }
        Eigen::VectorXi idx(target_size);
        for (std::int64_t p = 0; p < target_size; ++p) {
            const int h = hit[static_cast<std::size_t>(p)];
            idx[p] = h >= 0 ? static_cast<int>(target_size) + h : static_cast<int>(p);
        }
        flat = append_row(old, v)[m().data(fresh_name("scatter"), out_.keep(std::move(idx)))];
    }
    // Back to the variable's layout.
    Value updated = var.value;
    updated.ints.clear();
    const int rank =
        static_cast<int>(var.value.dims.size() + var.value.sizes.size()) + (var.level > 0 ? 1 : 0);
    if (rank == 0) {
        updated.expr = sum(flat);
    } else if (rank == 1) {
        updated.expr = flat;
    } else {
        const int rows = var.level > 0
                             ? outer
                             : (var.value.dims.empty() ? var.value.sizes[0] : var.value.dims[0]);
        updated.expr = to_matrix(flat, rows, static_cast<int>(target_size / rows));
    }
    updated.level = var.level;
    var.value = updated;
    var.initialised = true;
    if (region_ != nullptr && var.level < static_cast<int>(levels_.size())) {
        region_->written[name] = updated;
        std::vector<int> w(target.begin(), target.end());
        region_->written_at[name] = w;
    }
}

void Lowerer::tilde(const Tilde& t, Loc at) {
    if (block_ != BlockKind::Model)
        fail(at, "`~` statements belong in the model block");
    const Value y = expr(t.lhs);
    std::vector<Value> args;
    for (const auto& a : t.args) args.push_back(expr(a));
    int level = y.level;
    for (const Value& a : args) level = std::max(level, a.level);
    for (const char* suffix : {"_lpdf", "_lpmf"}) {
        std::vector<Value> all{y};
        all.insert(all.end(), args.begin(), args.end());
        if (calls_user(t.distribution + suffix, all)) {
            const auto r = call_user_function(t.distribution + suffix, all, t.distribution_loc);
            Expr x = real(*r, at);
            if (!x.shape().is_scalar())
                x = sum(x);
            add_target(x, std::max(level, r->level));
            if (t.truncation)
                truncate(t, y, args, at);
            return;
        }
    }
    add_target(density(t.distribution, y, args, t.distribution_loc, false, &t.lhs), level);
    if (t.truncation)
        truncate(t, y, args, at);
}

void Lowerer::truncate(const Tilde& t, const Value& y, const std::vector<Value>& args, Loc at) {
    const Truncation& tr = *t.truncation;
    const DensityRow* row = find_density(t.distribution);
    const bool ints =
        has_user_function(t.distribution + "_lpmf") ||
        (!has_user_function(t.distribution + "_lpdf") && row != nullptr && integer_variate(*row));
    // y in [L, U]: data are checked now, other values by a term that is -inf outside
    const auto bound = [&](const std::optional<Expression>& e) -> std::optional<Arg> {
        if (!e)
            return std::nullopt;
        const Value b = expr(*e);
        if (b.is_known_int())
            return Arg(static_cast<double>(b.ints[0]));
        return Arg(real(b, e->loc));
    };
    // known values (data): checked here, naming the element
    const auto known = [&](const Expr& e) -> std::optional<std::vector<double>> {
        try {
            return m().evaluate(e);
        } catch (const ModelError&) {
            return std::nullopt;
        }
    };
    const auto lo = tr.lower ? known(real(expr(*tr.lower), tr.lower->loc))
                             : std::optional<std::vector<double>>{{-INFINITY}};
    const auto hi = tr.upper ? known(real(expr(*tr.upper), tr.upper->loc))
                             : std::optional<std::vector<double>>{{INFINITY}};
    if (const auto ys = known(real(y, t.lhs.loc)); ys && lo && hi) {
        for (std::size_t k = 0; k < ys->size(); ++k) {
            const double v = (*ys)[k];
            if (v < (*lo)[0] || v > (*hi)[0]) {
                fail(t.lhs.loc,
                     fmt::format("`{}`{} is {}, outside its truncation [{}, {}]", to_stan(t.lhs),
                                 ys->size() > 1 ? fmt::format(" (element {})", k + 1) : "", v,
                                 (*lo)[0], (*hi)[0]));
            }
        }
        return truncation_terms(t, y, args, ints, at);
    }
    if (tr.lower || tr.upper) {
        try {
            m().check_constraint(fmt::format("the truncated `{}`", to_stan(t.lhs)),
                                 real(y, t.lhs.loc), Constraint::Bounds, bound(tr.lower),
                                 bound(tr.upper), false, true);
        } catch (const ParseError&) {
            throw;
        } catch (const Error& e) {
            fail(tr.loc, e.what());
        }
    }
    truncation_terms(t, y, args, ints, at);
}

void Lowerer::truncation_terms(const Tilde& t, const Value& y, const std::vector<Value>& args,
                               bool ints, Loc at) {
    const Truncation& tr = *t.truncation;
    // One term per element of y or of a container argument (vectors and 1-D arrays).
    int n = 0;
    std::vector<bool> indexed;
    for (const Value* v : {&y}) {
        if (rank_of_value(*v) > 1)
            fail(tr.loc,
                 "truncation of a matrix or a multi-dimensional array is not supported yet");
        if (rank_of_value(*v) == 1)
            n = static_cast<int>(v->size());
    }
    for (const Value& a : args) {
        if (rank_of_value(a) > 1)
            fail(tr.loc, "truncation with matrix arguments is not supported yet");
        indexed.push_back(rank_of_value(a) == 1);
        if (rank_of_value(a) == 1)
            n = static_cast<int>(a.size());
    }
    if (n == 0) {
        if (const auto e = truncation_normaliser(t, ints)) {
            const Value v = expr(*e);
            add_target(-real(v, tr.loc), v.level);
        }
        return;
    }
    // for (truncated__ in 1:n) target += -normaliser(args[truncated__]);
    Expression index;
    index.loc = tr.loc;
    index.node = Variable{"truncated__"};
    const auto e = truncation_normaliser(t, ints, indexed, index);
    if (!e)
        return;
    auto literal = [&](int v) {
        Expression x;
        x.loc = tr.loc;
        x.node = IntLiteral{v};
        return x;
    };
    Unary minus;
    minus.op = UnaryOp::Minus;
    minus.operand = Box<Expression>(*e);
    Expression negated;
    negated.loc = tr.loc;
    negated.node = std::move(minus);
    Statement body;
    body.loc = at;
    body.node = TargetPlus{std::move(negated)};
    For loop;
    loop.variable = "truncated__";
    loop.variable_loc = tr.loc;
    loop.lower = literal(1);
    loop.upper = literal(n);
    loop.body = Box<Statement>(std::move(body));
    Statement s;
    s.loc = at;
    s.node = std::move(loop);
    statement(s);
}

void Lowerer::add_target(Expr term, int level) {
    // A term that is the same in the inner iterations of the vectorised loops around it is
    // summed over the outer ones only: it counts once per inner iteration too (`for (n in 1:N)
    // target += c` adds N c, as the loop would; it added c once).
    const int repeats = batch_size(static_cast<int>(levels_.size())) / batch_size(level);
    if (repeats > 1)
        term = static_cast<double>(repeats) * term;
    effect([this, term] { m().target_add(term); });
}

void Lowerer::target_plus(const Expression& e, Loc at) {
    // (an `_lp` function may be called in transformed parameters too)
    if (block_ != BlockKind::Model &&
        !(block_ == BlockKind::TransformedParameters && !call_stack_.empty()))
        fail(at, "`target +=` belongs in the model block");
    if (rows_) {
        target_plus_addends(e, at);
        return;
    }
    const Value v = expr(e);
    Expr x = real(v, e.loc);
    if (!x.shape().is_scalar())
        x = sum(x);
    add_target(x, v.level);
}

void Lowerer::target_plus_addends(const Expression& e, Loc at) {
    // the addends of e's top-level + and -, with their signs
    std::vector<std::pair<const Expression*, bool>> addends;
    const std::function<void(const Expression&, bool)> split = [&](const Expression& x,
                                                                   bool negated) {
        const auto* b = x.as<Binary>();
        if (b != nullptr && (b->op == BinaryOp::Add || b->op == BinaryOp::Subtract)) {
            split(*b->lhs, negated);
            split(*b->rhs, b->op == BinaryOp::Subtract ? !negated : negated);
            return;
        }
        addends.emplace_back(&x, negated);
    };
    split(e, false);
    std::vector<Value> values;
    bool scalars = true;
    for (const auto& [x, negated] : addends) {
        values.push_back(expr(*x));
        scalars = scalars && values.back().is_scalar() && !values.back().has_parts();
    }
    if (!scalars) {  // `v + c` of a vector v sums to sum(v) + n c: the whole, as Stan adds it
        Value whole = values[0];
        if (addends[0].second)
            whole = binary(BinaryOp::Subtract, constant(0), whole, e.loc);
        for (std::size_t k = 1; k < values.size(); ++k) {
            whole = binary(addends[k].second ? BinaryOp::Subtract : BinaryOp::Add, whole, values[k],
                           addends[k].first->loc);
        }
        Expr x = real(whole, e.loc);
        if (!x.shape().is_scalar())
            x = sum(x);
        add_target(x, whole.level);
        return;
    }
    for (std::size_t k = 0; k < values.size(); ++k) {
        Expr x = real(values[k], addends[k].first->loc);
        add_target(addends[k].second ? -x : x, values[k].level);
    }
    (void)at;
}

Value Lowerer::batch_rows_read(Loc at) {
    const std::string& n = rows_->size_variable;
    const auto refuse = [&](const std::string& what) {
        fail(at, fmt::format("`{}` sizes {} under {}, {}", n, what, rows_->option,
                             "which would hold a value per row of one batch only"));
    };
    switch (block_) {
        case BlockKind::Parameters:
            fail(at, fmt::format("`{}` sizes a parameter under {}: a latent variable per row "
                                 "(a local variable) is moved only when its row is drawn, and "
                                 "subsampling does not fit it; fit on the full data",
                                 n, rows_->option));
        case BlockKind::TransformedParameters:
            refuse("a transformed parameter (declare it as a local of the model block)");
        case BlockKind::GeneratedQuantities:
            refuse(
                "a generated quantity (leave it out of the fit and compute it over the full "
                "data afterwards with `advi generate-quantities`)");
        case BlockKind::TransformedData:
            refuse(
                "transformed data (computed once, not per batch: compute it in the model "
                "block or in the data file)");
        case BlockKind::Data:
        case BlockKind::Model: break;
    }
    return int_scalar(rows_->batch_rows);
}

void Lowerer::check_row_variable_read(const std::string& name, Loc at) const {
    const auto& rows = rows_->row_variables;
    if (block_ == BlockKind::Model || block_ == BlockKind::Data ||
        std::find(rows.begin(), rows.end(), name) == rows.end())
        return;
    const std::string why = [&]() -> std::string {
        switch (block_) {
            case BlockKind::TransformedData:
                return "transformed data are computed once, from the rows of no batch in "
                       "particular: compute it in the model block or in the data file";
            case BlockKind::TransformedParameters:
                return "a transformed parameter is written for each draw, and would be "
                       "computed from one batch's rows: compute it in the model block";
            case BlockKind::GeneratedQuantities:
                return "it would be computed from one batch's rows: leave it out of the fit and "
                       "compute it over the full data afterwards with `advi generate-quantities`";
            default: return "";
        }
    }();
    fail(at, fmt::format("`{}` holds the rows subsampled under {}, read in {}: {}", name,
                         rows_->option, stan::name(block_), why));
}

void Lowerer::check_row_position(const std::string& name, const std::vector<Index>& indices) {
    const auto& rows = rows_->row_variables;
    if (indices.empty() || std::find(rows.begin(), rows.end(), name) == rows.end())
        return;
    const Index& first = indices.front();
    // only literals, the size variable and data in the index: a position fixed by the program
    const std::function<bool(const Expression&)> fixed = [&](const Expression& x) {
        if (x.is<IntLiteral>())
            return true;
        if (const auto* v = x.as<Variable>()) {
            // the size, or an int of the data (a position the data fix): not a loop's index
            const Var* var = find(v->name);
            return v->name == rows_->size_variable ||
                   (var != nullptr &&
                    (var->block == BlockKind::Data || var->block == BlockKind::TransformedData));
        }
        if (const auto* b = x.as<Binary>())
            return fixed(*b->lhs) && fixed(*b->rhs);
        if (const auto* u = x.as<Unary>())
            return fixed(*u->operand);
        return false;
    };
    if (first.is_range) {  // y[1:N], y[:N], y[1:], y[:]: the whole batch
        const bool from_one = !first.lower || (first.lower && (*first.lower)->is<IntLiteral>() &&
                                               (*first.lower)->as<IntLiteral>()->value == 1);
        const auto* up = first.upper ? (*first.upper)->as<Variable>() : nullptr;
        const bool to_n = !first.upper || (up != nullptr && up->name == rows_->size_variable);
        if (from_one && to_n)
            return;
    }
    for (const auto* bound : {&first.lower, &first.upper}) {
        if (*bound && fixed(***bound)) {
            fail(first.loc, fmt::format("`{}[{}]` reads a row of `{}` by its position, which under "
                                        "{} would be that position in whichever batch was drawn",
                                        name, to_stan(***bound), name, rows_->option));
        }
    }
}

void Lowerer::jacobian_plus(const Expression& e, Loc at) {
    const Value v = expr(e);
    Expr x = real(v, e.loc);
    if (!x.shape().is_scalar())
        x = sum(x);
    add_jacobian(x, v.level, at);
}

void Lowerer::add_jacobian(Expr term, int level, Loc at) {
    if (block_ != BlockKind::TransformedParameters)
        fail(at, "a Jacobian term belongs in transformed parameters");
    if (!taken_.empty())
        fail(at, "a Jacobian term inside a condition on the parameters is not supported yet");
    const int repeats = batch_size(static_cast<int>(levels_.size())) / batch_size(level);
    if (repeats > 1)
        term = static_cast<double>(repeats) * term;
    effect([this, term] { m().jacobian_add(term); });
}

// ------------------------------------------------------------------------------ loops

void Lowerer::for_loop(const For& f, Loc at) {
    const int lower = known_int(f.lower, "a loop bound");
    const int upper = known_int(f.upper, "a loop bound");
    run_loop({f.variable, f.variable_loc, &*f.body, nullptr}, lower, upper, at);
}

void Lowerer::for_each(const ForEach& f, Loc at) {
    const Value c = expr(f.container);
    if (c.level > 0)
        throw NotVectorisable(at, "a foreach over values that differ between iterations");
    if (c.is_scalar())
        fail(f.container.loc,
             fmt::format("foreach over {}: expected an array, vector or matrix", type_str(c)));
    const int n = c.dims.empty() ? static_cast<int>(c.size()) : c.dims[0];
    run_loop({f.variable, f.variable_loc, &*f.body, &c}, 1, n, at);
}

void Lowerer::run_loop(const LoopSpec& loop, int lower, int upper, Loc at) {
    if (upper < lower)
        return;
    const bool outermost = region_ == nullptr;
    Region region;
    std::size_t effects_before = 0;
    std::map<std::string, Value> written_before;
    if (outermost) {
        assigned_names(*loop.body, region.assigned);
        region_ = &region;
    } else {
        effects_before = region_->effects.size();
        written_before = region_->written;
        assigned_names(*loop.body, region_->assigned);
    }
    // The values of the variables the body assigns, restored if the attempt fails
    // (assignments update them in place); only those, not every scope (data may be large).
    std::set<std::string> names;
    assigned_names(*loop.body, names);
    std::vector<std::pair<std::string, Var>> saved;
    for (const std::string& n : names) {
        if (const Var* v = find(n))
            saved.emplace_back(n, *v);
    }
    const std::size_t depth = scopes_.size();
    try {
        vectorised(loop, lower, upper, at);
        if (outermost) {
            region_ = nullptr;
            for (auto& fx : region.effects) fx();
        }
        return;
    } catch (const NotVectorisable& why) {
        scopes_.resize(depth);
        for (const auto& [n, v] : saved) *find(n) = v;  // kept: a failed loop op restores again
        if (outermost) {
            region_ = nullptr;
        } else {
            region_->effects.resize(effects_before);
            region_->written = written_before;
        }
        const long trip = static_cast<long>(upper) - lower + 1;
        if (try_scan(loop, lower, upper, at))
            return;
        std::string unrolled_because = why.what();
        if (trip > unroll_limit_) {
            // A loop the loop op cannot run (an int assigned, a foreach, a break, a size or
            // position known only per iteration) is unrolled instead, up to kUnrollFallback
            // iterations: exact, at a graph and a lowering time that grow with it (in
            // transformed data, whose values are all known, at any length).
            constexpr long kUnrollFallback = 200000;
            if (!levels_.empty() ||
                (block_ != BlockKind::TransformedData && trip > kUnrollFallback)) {
                loop_op(loop, lower, upper, at, why);
                return;
            }
            try {
                loop_op(loop, lower, upper, at, why);
                return;
            } catch (const ParseError& e) {
                scopes_.resize(depth);
                for (auto& [n, v] : saved) *find(n) = std::move(v);
                std::string m = e.what();
                m = m.substr(0, m.find('\n'));
                unrolled_because = fmt::format(
                    "{}; longer than the unrolling limit, but the loop op cannot run it ({})",
                    why.what(), m);
            }
        }
        const SourcePosition p = position_of(program_.text, at.offset);
        out_.loop_report().push_back(fmt::format("{}:{}: loop unrolled over {} iterations ({})",
                                                 program_.file, p.line, trip, unrolled_because));
        unrolled(loop, lower, upper, at);
    }
}

// The loop variable: the index itself, or the container's element at the index (foreach).
void Lowerer::bind_loop_variable(const LoopSpec& loop, const Value& index_value, Loc at) {
    Var var;
    var.block = block_;
    var.level = static_cast<int>(levels_.size());
    var.initialised = true;
    var.readonly = true;
    if (loop.container == nullptr) {
        var.value = index_value;
    } else {
        Var hidden = var;
        hidden.value = index_value;
        scopes_.back()[" index"] = hidden;  // not a Stan name: cannot collide
        Expression ref;
        ref.loc = at;
        ref.node = Variable{" index"};
        Index ix;
        ix.loc = at;
        ix.lower = Box<Expression>(ref);
        var.value = index(*loop.container, {ix}, at);
    }
    declare(loop.variable_loc, loop.variable, std::move(var));
}

void Lowerer::vectorised(const LoopSpec& loop, int lower, int upper, Loc at) {
    Level level;
    level.outer = batch_size(static_cast<int>(levels_.size()));
    level.variable = loop.variable;
    level.lower = loop.container != nullptr ? 1 : lower;
    level.foreach = loop.container != nullptr;
    // The loop variable becomes a vector of all its values (times the enclosing loops'): refused
    // before allocating when that many do not fit one node or the memory.
    const std::int64_t trip = std::max<std::int64_t>(std::int64_t{upper} - lower + 1, 0);
    const auto values = checked_product({trip, std::int64_t{level.outer}});
    const std::string what = fmt::format(
        "the loop over `{}` ({} iterations{})", loop.variable, trip,
        level.outer > 1 ? fmt::format(" in {} of the enclosing loops", level.outer) : "");
    try {
        require_memory(what, values);
    } catch (const SizeError& e) {
        fail(at, e.what());
    }
    if (*values > std::numeric_limits<int>::max()) {
        fail(at, fmt::format("{} has {} values, more than the {} a vector can hold", what, *values,
                             std::numeric_limits<int>::max()));
    }
    level.trip = static_cast<int>(trip);
    levels_.push_back(level);
    push_scope();
    Value iv;
    iv.base = Base::Int;
    iv.level = static_cast<int>(levels_.size());
    iv.ints.resize(static_cast<std::size_t>(level.total()));
    for (int t = 0; t < level.total(); ++t)
        iv.ints[static_cast<std::size_t>(t)] = lower + t / level.outer;
    try {
        bind_loop_variable(loop, iv, at);
        statement(*loop.body);
    } catch (...) {
        pop_scope();
        levels_.pop_back();
        throw;
    }
    pop_scope();
    levels_.pop_back();
    const SourcePosition p = position_of(program_.text, at.offset);
    out_.loop_report().push_back(fmt::format("{}:{}: loop over `{}` vectorised over {} iterations",
                                             program_.file, p.line, loop.variable, level.trip));
}

void Lowerer::unrolled(const LoopSpec& loop, int lower, int upper, Loc at) {
    const InLoop in_loop(loop_depth_);
    for (std::int64_t i = lower; i <= upper; ++i) {  // int64: `upper` may be INT_MAX
        push_scope();
        bind_loop_variable(loop, int_scalar(static_cast<int>(i)), at);
        try {
            statement(*loop.body);
        } catch (const BreakSignal&) {
            pop_scope();
            break;
        } catch (const ContinueSignal&) {
        }
        pop_scope();
    }
}

void Lowerer::if_statement(const If& s, Loc at) {
    (void)at;
    if_chain(s, 0);
}

void Lowerer::if_chain(const If& s, std::size_t from) {
    for (std::size_t k = from; k < s.branches.size(); ++k) {
        const auto& b = s.branches[k];
        const Value c = expr(b.condition);
        if (c.level > 0)
            throw NotVectorisable(b.condition.loc, "a condition that differs between iterations");
        if (!c.is_scalar())
            fail(b.condition.loc, fmt::format("a condition must be a scalar, got {}", type_str(c)));
        double value = 0;
        if (c.is_known_int()) {
            value = c.ints[0];
        } else {
            try {
                value = m().evaluate(c.expr)[0];
            } catch (const ModelError&) {
                if_per_draw(s, k, c.expr, b.condition.loc);
                return;
            }
        }
        if (value != 0) {
            push_scope();
            statement(*b.body);
            pop_scope();
            return;
        }
    }
    if (s.otherwise) {
        push_scope();
        statement(**s.otherwise);
        pop_scope();
    }
}

Value Lowerer::merge_branches(const Expr& c, const Value& a, const Value& b, Loc at) {
    if (a.is_complex() || b.is_complex()) {
        const Value x = as_complex(a, at), y = as_complex(b, at);
        return complex_of(merge_branches(c, x.parts[0], y.parts[0], at),
                          merge_branches(c, x.parts[1], y.parts[1], at), at);
    }
    if (a.is_tuple() || b.is_tuple()) {
        if (a.base != b.base || a.parts.size() != b.parts.size() || a.dims != b.dims) {
            fail(at, fmt::format("the two sides of a condition on a parameter give {} and {}",
                                 type_str(a), type_str(b)));
        }
        Value r = a;
        for (std::size_t k = 0; k < a.parts.size(); ++k)
            r.parts[k] = merge_branches(c, a.parts[k], b.parts[k], at);
        return r;
    }
    if (a.is_known_int() && b.is_known_int() && a.ints == b.ints && a.dims == b.dims)
        return a;
    if (a.dims != b.dims || a.sizes != b.sizes || a.level != b.level ||
        (a.base != b.base && !(a.is_int() || b.is_int()))) {
        fail(at, fmt::format("the two sides of a condition on a parameter give {} and {}: "
                             "advi merges values of one type and size",
                             type_str(a), type_str(b)));
    }
    Value r = a.is_int() ? b : a;
    if (a.is_int() && b.is_int())
        r.ints.clear();  // an int known only per draw
    r.expr = if_else(c, real(a, at), real(b, at));
    return r;
}

void Lowerer::if_per_draw(const If& s, std::size_t branch, const Expr& condition, Loc at) {
    if (!levels_.empty())
        throw NotVectorisable(at, "a condition on a parameter");
    struct Side {
        std::vector<std::map<std::string, Var>> scopes;
        std::optional<ReturnSignal> returned;
    };
    const std::vector<std::map<std::string, Var>> before = scopes_;
    auto side = [&](const std::function<void()>& lower_it) {
        Side out;
        try {
            lower_it();
        } catch (ReturnSignal& r) {
            out.returned = std::move(r);
        }

        scopes_.resize(before.size());
        out.scopes = std::move(scopes_);
        scopes_ = before;
        return out;
    };
    // 1 where this side is taken (for indices known only per draw inside it: lowerer.hpp)
    Graph& g = const_cast<Graph&>(m().nodes());
    const Expr one = m().constant(1), zero = m().constant(0);
    const Expr taken_yes = m().wrap(g.apply(Op::Select, condition.id(), one.id(), zero.id()));
    const Expr taken_no = m().wrap(g.apply(Op::Select, condition.id(), zero.id(), one.id()));
    // A side's target terms count where it is taken: added back as select(taken, their sum, 0).
    auto on_side = [&](const Expr& taken, const std::function<void()>& lower_it) {
        taken_.push_back(taken);
        const std::size_t from = m().term_count();
        auto weigh = [&] {
            if (const Expr added = m().take_terms(from); added.valid()) {
                m().target_add(m().wrap(g.apply(Op::Select, taken.id(), added.id(), zero.id())));
            }
            taken_.pop_back();
        };
        try {
            lower_it();
        } catch (...) {
            weigh();
            throw;
        }
        weigh();
    };
    const Side yes = side([&] {
        on_side(taken_yes, [&] {
            push_scope();
            statement(*s.branches[branch].body);
            pop_scope();
        });
    });
    const Side no = side([&] { on_side(taken_no, [&] { if_chain(s, branch + 1); }); });
    if (yes.returned.has_value() != no.returned.has_value()) {
        fail(at,
             "a `return` on one side only of a condition on a parameter is not supported "
             "yet: return on both sides, or assign a variable and return it after");
    }
    for (std::size_t d = 0; d < before.size(); ++d) {
        for (auto& entry : scopes_[d]) {
            const std::string& name = entry.first;
            Var& var = entry.second;  // not a structured binding: clang 14 cannot capture one
            const Var& a = yes.scopes[d].at(name);
            const Var& b = no.scopes[d].at(name);
            auto same = [&var](const Var& x) {
                return x.initialised == var.initialised && x.value.ints == var.value.ints &&
                       x.value.expr.id() == var.value.expr.id() && x.value.dims == var.value.dims;
            };
            if (same(a) && same(b))
                continue;
            // a side that leaves it unassigned leaves Stan's unassigned value: NaN, or the
            // smallest int (as Stan initialises int locals)
            auto value_of = [&](const Var& side) {
                if (side.initialised)
                    return side.value;
                Value u = (a.initialised ? a : b).value;
                if (u.is_int()) {
                    u.ints.assign(static_cast<std::size_t>(u.size()),
                                  std::numeric_limits<int>::min());
                    u.expr = Expr();
                } else {
                    const Expr like = real(u, at);
                    const Expr nan = rep_vector(m().constant(std::nan("")), like.shape().size());
                    u.expr = like.shape().is_scalar() ? sum(nan)
                             : like.shape().is_matrix()
                                 ? to_matrix(nan, like.shape().rows, like.shape().cols)
                                 : nan;
                }
                return u;
            };
            var.value = merge_branches(condition, value_of(a), value_of(b), at);
            var.initialised = true;
        }
    }
    if (yes.returned) {
        ReturnSignal r;
        if (yes.returned->value && no.returned->value) {
            r.value = merge_branches(condition, *yes.returned->value, *no.returned->value, at);
        }
        throw r;
    }
}

void Lowerer::while_loop(const While& w, Loc at) {
    if (!levels_.empty())
        throw NotVectorisable(at, "a while loop");
    for (int k = 0;; ++k) {
        if (k > 100000)
            fail(at, "this while loop runs more than 100000 times while lowering");
        const Value c = expr(w.condition);
        if (!c.is_known_int() || !c.is_scalar()) {
            fail(w.condition.loc, "a while condition must be an int that depends on data only");
        }
        if (c.ints[0] == 0)
            return;
        try {
            const InLoop in_loop(loop_depth_);
            push_scope();
            statement(*w.body);
            pop_scope();
        } catch (const BreakSignal&) {
            pop_scope();
            return;
        } catch (const ContinueSignal&) {
            pop_scope();
        }
    }
}

bool Lowerer::try_scan(const LoopSpec& loop, int lower, int upper, Loc at) {
    if (loop.container != nullptr || !levels_.empty() || region_ != nullptr)
        return false;
    // The body: one assignment x[t] (op)= rhs, t the loop variable.
    const Statement* s = loop.body;
    while (const auto* b = s->as<Block>()) {
        if (b->statements.size() != 1)
            return false;
        s = &b->statements[0];
    }
    const auto* assign = s->as<Assign>();
    if (assign == nullptr)
        return false;
    const auto* ix = assign->lhs.as<Indexed>();
    if (ix == nullptr || ix->indices.size() != 1 || ix->indices[0].is_range)
        return false;
    const auto* xv = ix->base->as<Variable>();
    const auto* tv = (*ix->indices[0].lower)->as<Variable>();
    if (xv == nullptr || tv == nullptr || tv->name != loop.variable)
        return false;
    Var* x = find(xv->name);
    if (x == nullptr || x->readonly || !x->initialised || x->value.is_int() || x->level != 0 ||
        x->value.dims.size() + x->value.sizes.size() != 1) {
        return false;
    }
    const int n = static_cast<int>(x->value.size());
    if (lower < 2 || upper > n)
        return false;
    const int trip = upper - lower + 1;  // no overflow: 2 <= lower, upper <= n
    const Value old = x->value;
    Graph& g = const_cast<Graph&>(m().nodes());
    const Eigen::VectorXd& unused = out_.keep(Eigen::VectorXd(Eigen::VectorXd::Zero(trip)));
    const Expr placeholder = m().data(fresh_name("previous"), unused);
    // Lower the right-hand side once for all iterations, x[t - 1] as the placeholder (an
    // expression: no variable changes, only the loop's scope comes and goes).
    const std::size_t depth = scopes_.size();
    Region region;
    region_ = &region;
    scan_ = Scan{xv->name, placeholder};
    levels_.push_back(Level{1, trip, loop.variable, lower});
    Expr f;
    try {
        push_scope();
        Value iv;
        iv.base = Base::Int;
        iv.level = 1;
        for (int t = lower; t <= upper; ++t) iv.ints.push_back(t);
        Var var;
        var.value = iv;
        var.level = 1;
        var.initialised = true;
        var.readonly = true;
        declare(loop.variable_loc, loop.variable, var);
        scopes_.back()[" scan index"] = var;
        Value rhs = expr(assign->rhs);
        if (assign->op != AssignOp::Assign) {
            BinaryOp op = assign->op == AssignOp::Add        ? BinaryOp::Add
                          : assign->op == AssignOp::Subtract ? BinaryOp::Subtract
                          : assign->op == AssignOp::Multiply ? BinaryOp::Multiply
                                                             : BinaryOp::Divide;
            rhs = binary(op, expr(assign->lhs), rhs, at);
        }
        if (!rhs.is_scalar())
            throw NotVectorisable(at, "not a scalar recurrence");
        f = real(rhs, at);
        if (rhs.level == 0)
            f = rep_vector(f, trip);
    } catch (const NotVectorisable&) {
        f = Expr();
    }
    levels_.pop_back();
    scan_.reset();
    region_ = nullptr;
    scopes_.resize(depth);
    if (!f.valid() || !region.effects.empty())
        return false;
    // f must be affine in the placeholder: a path of +, -, negation, and products and
    // quotients by values that do not depend on it.
    std::map<NodeId, bool> depends;
    std::function<bool(NodeId)> reaches = [&](NodeId id) {
        if (auto it = depends.find(id); it != depends.end())
            return it->second;
        bool r = id == placeholder.id();
        for (int k = 0; k < g[id].arity() && !r; ++k) r = reaches(g[id].in[k]);
        return depends[id] = r;
    };
    std::function<bool(NodeId)> affine = [&](NodeId id) {
        if (!reaches(id) || id == placeholder.id())
            return true;
        const Node& nd = g[id];
        switch (nd.op) {
            case Op::Add:
            case Op::Sub: return affine(nd.in[0]) && affine(nd.in[1]);
            case Op::Neg: return affine(nd.in[0]);
            case Op::Mul:
                return reaches(nd.in[0]) != reaches(nd.in[1]) && affine(nd.in[0]) &&
                       affine(nd.in[1]);
            case Op::Div: return !reaches(nd.in[1]) && affine(nd.in[0]);
            default: return false;
        }
    };
    if (!reaches(f.id()) || !affine(f.id()))
        return false;
    std::function<Expr(NodeId, double)> substitute = [&](NodeId id, double c) -> Expr {
        if (!reaches(id))
            return m().wrap(id);
        if (id == placeholder.id())
            return m().constant(c);
        const Node& nd = g[id];
        const Expr a = substitute(nd.in[0], c);
        if (nd.op == Op::Neg)
            return -a;
        return m().apply(nd.op, a, substitute(nd.in[1], c));
    };
    Expr A = substitute(f.id(), 1) - substitute(f.id(), 0);
    Expr B = substitute(f.id(), 0);
    if (B.shape().is_scalar())
        B = rep_vector(B, trip);
    const Expr old_x = real(old, at);
    const Expr x0 = sum(segment(old_x, lower - 2, 1));
    Expr scan = m().wrap(g.apply(Op::LinearScan, A.id(), B.id(), x0.id()));
    Expr whole = scan;
    if (lower > 1)
        whole = append_row(head(old_x, lower - 1), whole);
    if (upper < n)
        whole = append_row(whole, tail(old_x, n - upper));
    Value updated = old;
    updated.expr = whole;
    x->value = updated;
    const SourcePosition p = position_of(program_.text, at.offset);
    out_.loop_report().push_back(
        fmt::format("{}:{}: loop over `{}` lowered to a linear recurrence (scan) "
                    "over {} iterations",
                    program_.file, p.line, loop.variable, trip));
    return true;
}

namespace {

// A value's Stan type (a tuple's elements without the tuple array's dims: `outer`).
StanType stan_type(const Value& v, std::size_t outer = 0) {
    StanType t;
    const auto kind = [](Base b) {
        switch (b) {
            case Base::Int: return TypeKind::Int;
            case Base::Real: return TypeKind::Real;
            case Base::Vector: return TypeKind::Vector;
            case Base::RowVector: return TypeKind::RowVector;
            case Base::Matrix: return TypeKind::Matrix;
            case Base::Tuple: return TypeKind::Tuple;
            case Base::Complex: return TypeKind::Complex;
        }
        return TypeKind::Real;
    };
    t.kind = kind(v.base);
    if (v.is_complex()) {
        const TypeKind part = kind(v.parts.at(0).base);
        t.kind = part == TypeKind::Vector      ? TypeKind::ComplexVector
                 : part == TypeKind::RowVector ? TypeKind::ComplexRowVector
                 : part == TypeKind::Matrix    ? TypeKind::ComplexMatrix
                                               : TypeKind::Complex;
    }
    t.array_dims = static_cast<int>(v.dims.size() - outer);
    if (v.is_tuple()) {
        for (const Value& p : v.parts) t.parts.push_back(stan_type(p, v.dims.size()));
    }
    return t;
}

std::vector<StanType> stan_types(const std::vector<Value>& args) {
    std::vector<StanType> types;
    for (const Value& v : args) types.push_back(stan_type(v));
    return types;
}

}  // namespace

std::vector<Signature> Lowerer::user_signatures(const std::string& name) const {
    std::vector<Signature> sigs;
    for (const FunctionDef* d : functions_.at(name)) {
        Signature s;
        for (const auto& a : d->args) s.args.push_back(type_of(a.type));
        if (d->return_type)
            s.result = type_of(*d->return_type);
        else
            s.result.kind = TypeKind::Void;
        sigs.push_back(std::move(s));
    }
    return sigs;
}

bool Lowerer::calls_user(const std::string& name, const std::vector<Value>& args) const {
    if (!has_user_function(name))
        return false;
    // (the checker refused an ambiguous call)
    return user_function_wins(name, user_signatures(name), stan_types(args)).value_or(true);
}

const FunctionDef& Lowerer::overload(const std::string& name, const std::vector<Value>& args,
                                     Loc at) const {
    const std::vector<const FunctionDef*>& defs = functions_.at(name);
    if (defs.size() == 1)
        return *defs[0];
    // The checker's choice, made again from the values' types.
    const std::vector<StanType> types = stan_types(args);
    if (const auto k = resolve_index(user_signatures(name), types))
        return *defs[*k];
    fail(at, fmt::format("no overload of `{}` takes {}", name, str(types)));
}

std::optional<Value> Lowerer::call_user_function(const std::string& name,
                                                 const std::vector<Value>& args, Loc at) {
    const FunctionDef& f = overload(name, args, at);
    for (const auto& c : call_stack_) {
        // (reduce_sum may call the function it is in on a smaller slice: parallel_call)
        if (c == name && !shrinking_call_)
            fail(at, fmt::format("`{}` calls itself: recursive functions are not supported", name));
    }
    shrinking_call_ = false;
    if (args.size() != f.args.size()) {
        fail(at, fmt::format("`{}` takes {} argument{}, got {}", name, f.args.size(),
                             f.args.size() == 1 ? "" : "s", args.size()));
    }
    // The body sees its arguments only.
    auto saved_scopes = std::move(scopes_);
    const int saved_level = function_level_;
    scopes_.clear();
    scopes_.emplace_back();
    for (std::size_t k = 0; k < args.size(); ++k) {
        Var v;
        v.value = args[k];
        v.block = block_;
        v.level = static_cast<int>(levels_.size());
        v.initialised = true;
        v.readonly = true;
        scopes_.back().emplace(f.args[k].name, std::move(v));
    }
    call_stack_.push_back(name);
    function_level_ = static_cast<int>(levels_.size());
    const int saved_loop_depth = loop_depth_;
    loop_depth_ = 0;  // a loop around the call does not make `break` in the body legal
    std::optional<Value> result;
    auto restore = [&] {
        scopes_ = std::move(saved_scopes);
        call_stack_.pop_back();
        function_level_ = saved_level;
        loop_depth_ = saved_loop_depth;
    };
    try {
        statement(*f.body);
    } catch (ReturnSignal& r) {
        result = std::move(r.value);
    } catch (...) {
        restore();
        throw;
    }
    restore();
    if (f.return_type && !result)
        fail(at, fmt::format("`{}` ended without returning a value", name));
    return result;
}

std::unique_ptr<LoweredProgram> lower(const Program& program, const DataTable& data,
                                      std::uint64_t seed, int unroll_limit, const RowBatch* rows) {
    check(program);  // the checker's types first: a fit never lowers an ill-typed program
    auto out = std::make_unique<LoweredProgram>();
    Lowerer lowerer(program, data, *out, seed);
    lowerer.unroll_limit_ = unroll_limit;
    if (rows != nullptr)
        lowerer.rows_ = *rows;
    lowerer.run();
    return out;
}

std::unique_ptr<LoweredProgram> lower_with_placeholder_data(const Program& program) {
    check(program);
    auto out = std::make_unique<LoweredProgram>();
    const DataTable none;
    Lowerer lowerer(program, none, *out, 0);
    lowerer.placeholder_data_ = true;
    lowerer.run();
    return out;
}

}  // namespace advi::stan
