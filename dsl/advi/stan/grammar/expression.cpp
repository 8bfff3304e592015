// Stan expressions: one rule per precedence level of the Reference Manual's operator table
// (ast.cpp), from `c ? a : b` down to the postfix operators and the primaries.
#include <algorithm>

#include <advi/stan/grammar/grammar.hpp>

namespace advi::stan::grammar {
namespace {

void check_height(const ParseState& state, int height, Loc loc) {
    if (height > kMaxHeight)
        throw SyntaxError{state.at(loc), fmt::format("expression too deeply nested (more than "
                                                     "{} levels of operators)",
                                                     kMaxHeight)};
}

Term make_binary(const ParseState& state, Term lhs, const OpAt& op, Term rhs) {
    Term t;
    t.height = 1 + std::max(lhs.height, rhs.height);
    check_height(state, t.height, op.loc);
    t.e.loc = lhs.e.loc;
    t.e.node = Binary{op.op, std::move(lhs.e), std::move(rhs.e), op.loc};
    return t;
}

Term make_unary(const ParseState& state, Loc loc, UnaryOp op, Term operand) {
    Term t;
    t.height = 1 + operand.height;
    check_height(state, t.height, loc);
    t.e.loc = loc;
    t.e.node = Unary{op, std::move(operand.e)};
    return t;
}

Term make_conditional(const ParseState& state, Term c, Term a, Term b) {
    Term t;
    t.height = 1 + std::max({c.height, a.height, b.height});
    check_height(state, t.height, c.e.loc);
    t.e.loc = c.e.loc;
    t.e.node = Conditional{std::move(c.e), std::move(a.e), std::move(b.e)};
    return t;
}

// The arguments of a call: `f(a, b)` or `f(y | a, b)`.
struct CallArgs {
    std::vector<Term> args;
    bool conditional = false;
};

Term make_call_or_variable(const ParseState& state, Name name, boost::optional<CallArgs> call) {
    Term t;
    t.e.loc = name.loc;
    if (!call) {
        t.e.node = Variable{std::move(name.name)};
        return t;
    }
    int height = 0;
    for (const Term& a : call->args) height = std::max(height, a.height);
    t.height = 1 + height;
    check_height(state, t.height, name.loc);
    t.e.node = Call{std::move(name.name), take(call->args), call->conditional};
    return t;
}

// A node of kind List ({...}, [...], (a, b)) over `elements`, one level above the highest.
template <class List>
Term make_over(const ParseState& state, Loc loc, std::vector<Term> elements) {
    Term t;
    t.e.loc = loc;
    int height = 0;
    for (const Term& a : elements) height = std::max(height, a.height);
    t.height = 1 + height;
    check_height(state, t.height, loc);
    t.e.node = List{take(elements)};
    return t;
}

Term make_list(const ParseState& state, Loc loc, std::vector<Term> elements, bool row_vector) {
    return row_vector ? make_over<RowVectorExpr>(state, loc, std::move(elements))
                      : make_over<ArrayExpr>(state, loc, std::move(elements));
}

// One position inside brackets and the height of its expressions.
struct IndexTerm {
    Index index;
    int height = 0;
};

Term make_indexed(const ParseState& state, Term base, std::vector<IndexTerm> indices) {
    Term t;
    t.e.loc = base.e.loc;
    int height = base.height;
    Indexed node{std::move(base.e), {}};
    for (IndexTerm& i : indices) {
        height = std::max(height, i.height);
        node.indices.push_back(std::move(i.index));
    }
    t.height = 1 + height;
    check_height(state, t.height, t.e.loc);
    t.e.node = std::move(node);
    return t;
}

// `(a)` is `a`; `(a,)` and `(a, b, ...)` are tuples; `(a, b,)` is neither.
Term make_parenthesised(const ParseState& state, Loc loc, std::vector<Term> elements,
                        bool trailing_comma, Loc end) {
    if (elements.size() == 1 && !trailing_comma)
        return std::move(elements[0]);
    if (elements.size() > 1 && trailing_comma)
        throw SyntaxError{state.at(end),
                          "expected an expression after `,` (only a tuple of one "
                          "element ends with a comma: `(a,)`)"};
    return make_over<TupleExpr>(state, loc, std::move(elements));
}

Term make_tuple_index(const ParseState& state, Term base, const TupleSlot& slot) {
    Term t;
    t.e.loc = base.e.loc;
    t.height = 1 + base.height;
    check_height(state, t.height, slot.loc);
    t.e.node = TupleIndex{std::move(base.e), slot.index, slot.loc};
    return t;
}

Term make_transpose(const ParseState& state, Term operand, Loc quote) {
    Term t;
    t.e.loc = operand.e.loc;
    t.height = 1 + operand.height;
    check_height(state, t.height, quote);
    t.e.node = Transpose{std::move(operand.e)};
    return t;
}

// ---- Actions

const auto set = [](auto& ctx) { x3::_val(ctx) = std::move(x3::_attr(ctx)); };

// lhs op rhs, folded into the value so far: (a op b) op c.
const auto fold = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    auto& v = x3::_val(ctx);
    v = make_binary(state_of(ctx), std::move(v), fusion::at_c<0>(a), std::move(fusion::at_c<1>(a)));
};

const auto unary_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = make_unary(state_of(ctx), fusion::at_c<0>(a), fusion::at_c<1>(a),
                               std::move(fusion::at_c<2>(a)));
};

const auto conditional_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    auto& v = x3::_val(ctx);
    v = make_conditional(state_of(ctx), std::move(v), std::move(fusion::at_c<0>(a)),
                         std::move(fusion::at_c<1>(a)));
};

const auto indexed_action = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v = make_indexed(state_of(ctx), std::move(v), std::move(x3::_attr(ctx)));
};

const auto transpose_action = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v = make_transpose(state_of(ctx), std::move(v), x3::_attr(ctx));
};

const auto tuple_index_action = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v = make_tuple_index(state_of(ctx), std::move(v), x3::_attr(ctx));
};

const auto parenthesised_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = make_parenthesised(state_of(ctx), at_c<0>(a), std::move(at_c<1>(a)), at_c<2>(a),
                                       at_c<3>(a));
};

const auto name_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = make_call_or_variable(state_of(ctx), std::move(fusion::at_c<0>(a)),
                                          std::move(fusion::at_c<1>(a)));
};

const auto target_action = [](auto& ctx) {
    Term t;
    t.e.loc = x3::_attr(ctx);
    t.e.node = Call{"target", {}, false};
    x3::_val(ctx) = std::move(t);
};

const auto array_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) =
        make_list(state_of(ctx), fusion::at_c<0>(a), std::move(fusion::at_c<1>(a)), false);
};

const auto row_vector_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    auto& elements = fusion::at_c<1>(a);
    x3::_val(ctx) = make_list(state_of(ctx), fusion::at_c<0>(a),
                              elements ? std::move(*elements) : std::vector<Term>{}, true);
};

const auto push_arg = [](auto& ctx) { x3::_val(ctx).args.push_back(std::move(x3::_attr(ctx))); };
const auto set_conditional = [](auto& ctx) { x3::_val(ctx).conditional = true; };

const auto index_loc = [](auto& ctx) { x3::_val(ctx).index.loc = x3::_attr(ctx); };
const auto index_lower = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v.height = std::max(v.height, x3::_attr(ctx).height);
    v.index.lower = Box<Expression>(std::move(x3::_attr(ctx).e));
};
const auto index_upper = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v.height = std::max(v.height, x3::_attr(ctx).height);
    v.index.upper = Box<Expression>(std::move(x3::_attr(ctx).e));
};
const auto index_range = [](auto& ctx) { x3::_val(ctx).index.is_range = true; };

// ---- Rules

inline constexpr Keyword kw_target{"target"};

const x3::rule<class conditional_id, Term> conditional{"an expression"};
const x3::rule<class logical_or_id, Term> logical_or{"an expression"};
const x3::rule<class logical_and_id, Term> logical_and{"an expression"};
const x3::rule<class equality_id, Term> equality{"an expression"};
const x3::rule<class comparison_id, Term> comparison{"an expression"};
const x3::rule<class multiplicative_id, Term> multiplicative{"an expression"};
const x3::rule<class left_division_id, Term> left_division{"an expression"};
const x3::rule<class unary_id, Term> unary{"an expression"};
const x3::rule<class prefixed_id, Term> prefixed{"an expression"};
const x3::rule<class power_id, Term> power{"an expression"};
const x3::rule<class postfix_id, Term> postfix{"an expression"};
const x3::rule<class primary_id, Term> primary{"an expression"};
const x3::rule<class call_args_id, CallArgs> call_args{"the arguments"};
const x3::rule<class index_id, IndexTerm> index{"an index"};
const x3::rule<class indices_id, std::vector<IndexTerm>> indices = "an index";

// A left-associative level: operand (op operand)*.
template <class Operand>
auto left_associative(const Operand& operand, int precedence) {
    return operand[set] >> *((BinaryOperator(precedence) > operand)[fold]);
}

// The nesting guard sits on the rules that recurse: every parenthesis, bracket, brace and call
// argument goes through `expression`; prefix operators and `^` recurse through `prefixed`.
const auto expression_def = nest[conditional];
const auto expression_list_def = expression % comma;
const auto conditional_def = logical_or[set] >>
                             -((question > expression > colon > expression)[conditional_action]);
const auto logical_or_def = left_associative(logical_and, 9);
const auto logical_and_def = left_associative(equality, 8);
const auto equality_def = left_associative(comparison, 7);
const auto comparison_def = left_associative(additive, 6);
const auto additive_def = left_associative(multiplicative, 5);
const auto multiplicative_def = left_associative(left_division, 4);
const auto left_division_def = left_associative(unary, 3);
// -a^2 is -(a^2): the prefix operators take a power as their operand.
const auto unary_def = (pos >> UnaryOperator{} > prefixed)[unary_action] | power[set];
const auto prefixed_def = nest[unary];
// a^b^c is a^(b^c), and a^-b is allowed: the exponent is a unary expression.
const auto power_def = postfix[set] >> -((BinaryOperator(1) > prefixed)[fold]);
const auto postfix_def = primary[set] >>
                         *((lbracket > indices > rbracket)[indexed_action] |
                           TupleDot{}[tuple_index_action] | (pos >> quote)[transpose_action]);
const auto primary_def =
    Number{}[set] | (pos >> kw_target >> lparen > rparen)[target_action] |
    (Identifier{} >> -(lparen > call_args > rparen))[name_action] |
    (pos >> lparen > expression_list > x3::matches[comma] > pos > rparen)[parenthesised_action] |
    (pos >> lbrace > expression_list > rbrace)[array_action] |
    (pos >> lbracket > -expression_list > rbracket)[row_vector_action] | NotAnExpression{};
const auto call_args_def =
    -(expression[push_arg] >> ((bar[set_conditional] >> -(expression[push_arg] % comma)) |
                               *(comma > expression[push_arg])));
// `i`, `a:b`, `a:`, `:b`, `:`, and nothing (all, as `:`).
const auto index_def = pos[index_loc] >> ((colon >> -expression[index_upper])[index_range] |
                                          (expression[index_lower] >>
                                           -(colon >> -expression[index_upper])[index_range]) |
                                          x3::eps[index_range]);
const auto indices_def = index % comma;

BOOST_SPIRIT_DEFINE(conditional, logical_or, logical_and, equality, comparison, multiplicative,
                    left_division, unary, prefixed, power, postfix, primary, call_args, index,
                    indices)

}  // namespace

BOOST_SPIRIT_DEFINE(expression, expression_list, additive)
BOOST_SPIRIT_INSTANTIATE(ExpressionRule, Iterator, Context)
BOOST_SPIRIT_INSTANTIATE(ExpressionListRule, Iterator, Context)
BOOST_SPIRIT_INSTANTIATE(AdditiveRule, Iterator, Context)

}  // namespace advi::stan::grammar
