// Stan variable declarations: `array[N] vector<lower=0>[K] x = e, y;` (the old
// `vector<lower=0>[K] x[N];` is refused with the new spelling), with the checks on sizes and
// constraints that need the type.
#include <advi/stan/grammar/grammar.hpp>

namespace advi::stan::grammar {
namespace {

enum class ConstraintKind { Lower, Upper, Offset, Multiplier };

struct ConstraintItem {
    ConstraintKind kind = ConstraintKind::Lower;
    Loc loc;
    Term value;
};

constexpr std::string_view constraint_name(ConstraintKind k) {
    switch (k) {
        case ConstraintKind::Lower: return "lower";
        case ConstraintKind::Upper: return "upper";
        case ConstraintKind::Offset: return "offset";
        case ConstraintKind::Multiplier: return "multiplier";
    }
    return "?";
}

// How many sizes each type takes, how they read (for messages), which constraints it allows.
struct TypeShape {
    int min_sizes, max_sizes;
    std::string_view usage;
    bool bounds, affine;
};

TypeShape shape_of(BaseType t) {
    switch (t) {
        case BaseType::Int: return {0, 0, "int", true, false};
        case BaseType::Real: return {0, 0, "real", true, true};
        case BaseType::Vector: return {1, 1, "vector[N]", true, true};
        case BaseType::RowVector: return {1, 1, "row_vector[N]", true, true};
        case BaseType::Matrix: return {2, 2, "matrix[rows, cols]", true, true};
        case BaseType::Simplex: return {1, 1, "simplex[K]", false, false};
        case BaseType::UnitVector: return {1, 1, "unit_vector[K]", false, false};
        case BaseType::Ordered: return {1, 1, "ordered[K]", false, false};
        case BaseType::PositiveOrdered: return {1, 1, "positive_ordered[K]", false, false};
        case BaseType::CholeskyFactorCorr: return {1, 1, "cholesky_factor_corr[K]", false, false};
        case BaseType::CholeskyFactorCov:
            return {1, 2, "cholesky_factor_cov[M] or cholesky_factor_cov[M, N]", false, false};
        case BaseType::CorrMatrix: return {1, 1, "corr_matrix[K]", false, false};
        case BaseType::CovMatrix: return {1, 1, "cov_matrix[K]", false, false};
        case BaseType::SumToZeroVector: return {1, 1, "sum_to_zero_vector[K]", false, false};
        case BaseType::SumToZeroMatrix: return {2, 2, "sum_to_zero_matrix[M, N]", false, false};
        case BaseType::RowStochasticMatrix:
            return {2, 2, "row_stochastic_matrix[N, M]", false, false};
        case BaseType::ColumnStochasticMatrix:
            return {2, 2, "column_stochastic_matrix[N, M]", false, false};
        case BaseType::Complex: return {0, 0, "complex", false, false};
        case BaseType::ComplexVector: return {1, 1, "complex_vector[N]", false, false};
        case BaseType::ComplexRowVector: return {1, 1, "complex_row_vector[N]", false, false};
        case BaseType::ComplexMatrix: return {2, 2, "complex_matrix[rows, cols]", false, false};
    }
    throw InternalError("shape_of: unknown base type");
}

SizedType make_sized_type(const ParseState& state, Loc loc, BaseType base,
                          boost::optional<std::vector<ConstraintItem>> constraints, Loc after,
                          boost::optional<std::vector<Term>> sizes) {
    const TypeShape shape = shape_of(base);
    SizedType t;
    t.loc = loc;
    t.base = base;
    if (constraints) {
        bool bounds = false, affine = false;
        for (ConstraintItem& c : *constraints) {
            const bool is_bound =
                c.kind == ConstraintKind::Lower || c.kind == ConstraintKind::Upper;
            if (is_bound ? !shape.bounds : !shape.affine)
                throw SyntaxError{state.at(c.loc), fmt::format("`{}` cannot take `{}`", name(base),
                                                               constraint_name(c.kind))};
            (is_bound ? bounds : affine) = true;
            if (bounds && affine)
                throw SyntaxError{state.at(c.loc),
                                  "bounds (lower, upper) cannot be combined with offset and "
                                  "multiplier"};
            std::optional<Expression>* slot = nullptr;
            switch (c.kind) {
                case ConstraintKind::Lower: slot = &t.lower; break;
                case ConstraintKind::Upper: slot = &t.upper; break;
                case ConstraintKind::Offset: slot = &t.offset; break;
                case ConstraintKind::Multiplier: slot = &t.multiplier; break;
            }
            if (*slot)
                throw SyntaxError{state.at(c.loc),
                                  fmt::format("`{}` is given twice", constraint_name(c.kind))};
            *slot = std::move(c.value.e);
        }
    }
    const int n = sizes ? static_cast<int>(sizes->size()) : 0;
    if (shape.max_sizes == 0 && sizes)
        throw SyntaxError{
            state.at(after),
            fmt::format("`{0}` takes no size (for an array: array[N] {0})", name(base))};
    if (shape.min_sizes > 0 && !sizes)
        throw SyntaxError{
            state.at(after),
            fmt::format("expected the size of the {} in brackets: {}", name(base), shape.usage),
            false};
    if (n < shape.min_sizes || n > shape.max_sizes)
        throw SyntaxError{
            state.at(after),
            fmt::format("`{}` takes {} size{}, got {}: {}", name(base),
                        shape.min_sizes == shape.max_sizes
                            ? std::to_string(shape.min_sizes)
                            : fmt::format("{} or {}", shape.min_sizes, shape.max_sizes),
                        shape.max_sizes == 1 ? "" : "s", n, shape.usage)};
    if (sizes)
        t.sizes = take(*sizes);
    return t;
}

// One name of a declaration, with the old-style dimensions and the value if any.
struct DeclVar {
    Name name;
    Loc dims_loc;
    boost::optional<std::vector<Term>> old_dims;
    boost::optional<Term> value;
};

// `array[...] type a, b = e;` before it becomes one VarDecl per name.
struct DeclGroup {
    Loc loc;
    bool array_syntax = false;
    std::vector<Term> dims;
    SizedType type;
    std::vector<DeclVar> vars;
};

std::vector<Statement> expand(const ParseState& state, DeclGroup group) {
    std::vector<Statement> out;
    for (DeclVar& v : group.vars) {
        if (v.old_dims)
            throw SyntaxError{state.at(v.dims_loc),
                              "array dimensions after the name were removed from Stan (2.33): "
                              "write `array[...] type name`"};
        Statement s;
        s.loc = group.loc;
        VarDecl d;
        d.type = group.type;
        d.type.loc = group.loc;
        // Each name gets its own copy of the shared dimensions.
        for (const Term& dim : group.dims) d.type.dims.push_back(dim.e);
        d.name = std::move(v.name.name);
        d.name_loc = v.name.loc;
        d.initial_value = take(v.value);
        s.node = std::move(d);
        out.push_back(std::move(s));
    }
    return out;
}

// ---- Actions

const auto sized_type_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = make_sized_type(state_of(ctx), at_c<0>(a), at_c<1>(a), std::move(at_c<2>(a)),
                                    at_c<3>(a), std::move(at_c<4>(a)));
};
const auto push = [](auto& ctx) { x3::_val(ctx).push_back(std::move(x3::_attr(ctx))); };
const auto set = [](auto& ctx) { x3::_val(ctx) = std::move(x3::_attr(ctx)); };
// `tuple(A, B)`: the first element, then the others (none for the one-element `tuple(A,)`).
const auto tuple_type_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    SizedType t;
    t.loc = at_c<0>(a);
    t.base = BaseType::Tuple;
    t.parts.push_back(std::move(at_c<1>(a)));
    if (at_c<2>(a))
        for (SizedType& p : *at_c<2>(a)) t.parts.push_back(std::move(p));
    x3::_val(ctx) = std::move(t);
};
// `array[N] T` as an element of a tuple type.
const auto part_dims_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    SizedType t = std::move(at_c<2>(a));
    t.loc = at_c<0>(a);
    t.dims = take(at_c<1>(a));
    x3::_val(ctx) = std::move(t);
};
const auto constraint_item_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = ConstraintItem{at_c<1>(a), at_c<0>(a), std::move(at_c<2>(a))};
};
const auto group_loc = [](auto& ctx) { x3::_val(ctx).loc = x3::_attr(ctx); };
const auto group_dims = [](auto& ctx) {
    x3::_val(ctx).array_syntax = true;
    x3::_val(ctx).dims = std::move(x3::_attr(ctx));
};
const auto group_type = [](auto& ctx) { x3::_val(ctx).type = std::move(x3::_attr(ctx)); };
const auto group_var = [](auto& ctx) { x3::_val(ctx).vars.push_back(std::move(x3::_attr(ctx))); };
const auto decl_var_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) =
        DeclVar{std::move(at_c<0>(a)), at_c<1>(a), std::move(at_c<2>(a)), std::move(at_c<3>(a))};
};
const auto expand_action = [](auto& ctx) {
    x3::_val(ctx) = expand(state_of(ctx), std::move(x3::_attr(ctx)));
};

// ---- Rules

inline constexpr WordOf<ConstraintKind> constraint_words[] = {
    {"lower",      ConstraintKind::Lower     },
    {"upper",      ConstraintKind::Upper     },
    {"offset",     ConstraintKind::Offset    },
    {"multiplier", ConstraintKind::Multiplier},
};
inline constexpr WordTable<ConstraintKind> constraint_kind{
    constraint_words, "`lower`, `upper`, `offset` or `multiplier`"};

inline constexpr Keyword kw_tuple{"tuple"};

const x3::rule<class sized_type_id, SizedType> sized_type{"a type (int, real, vector, ...)"};
const x3::rule<class tuple_type_id, SizedType> tuple_type{"a tuple type"};
const x3::rule<class tuple_part_id, SizedType> tuple_part{"a type (int, real, vector, ...)"};
const x3::rule<class constraints_id, std::vector<ConstraintItem>> constraints{"`<`"};
const x3::rule<class constraint_item_id, ConstraintItem> constraint_item{
    "`lower`, `upper`, `offset` or `multiplier`"};
const x3::rule<class decl_group_id, DeclGroup> decl_group{"a type (int, real, vector, ...)"};
const x3::rule<class decl_var_id, DeclVar> decl_var{"a name"};

// The bounds are additive expressions: `<lower=0>` ends at the `>` (a comparison in a bound
// needs parentheses, as in Stan).
const auto sized_type_def =
    tuple_type[set] | (pos >> base_type >> -constraints >> pos >>
                       -(lbracket > expression_list > rbracket))[sized_type_action];
// `tuple(real)` is refused at the `)`: a tuple of one element is written `tuple(real,)`.
const auto tuple_type_def = (pos >> kw_tuple > lparen > tuple_part > comma > -(tuple_part % comma) >
                             rparen)[tuple_type_action];
const auto tuple_part_def =
    (pos >> kw_array > lbracket > expression_list > rbracket > sized_type)[part_dims_action] |
    (sized_type[set]);
const auto constraints_def = langle > constraint_item[push] >
                             *(comma > constraint_item[push]) > rangle;
const auto constraint_item_def =
    (pos >> constraint_kind > equals > additive)[constraint_item_action];

const auto decl_group_def = pos[group_loc] >> ((kw_array > lbracket > expression_list[group_dims] >
                                                rbracket > sized_type[group_type]) |
                                               sized_type[group_type]) > decl_var[group_var] >
                            *(comma > decl_var[group_var]) > semicolon;
const auto decl_var_def = (declared_name >> pos >> -(lbracket > expression_list > rbracket) >>
                           -(equals > expression))[decl_var_action];
const auto declaration_def = decl_group[expand_action];

BOOST_SPIRIT_DEFINE(sized_type, tuple_type, tuple_part, constraints, constraint_item, decl_group,
                    decl_var)

}  // namespace

BOOST_SPIRIT_DEFINE(declaration)
BOOST_SPIRIT_INSTANTIATE(DeclarationRule, Iterator, Context)

}  // namespace advi::stan::grammar
