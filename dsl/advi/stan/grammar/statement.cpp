// Stan statements: blocks, control flow, print/reject, `target +=`, and the statements that
// start with an expression (assignment, `~`, a call), told apart by what follows it.
#include <algorithm>

#include <advi/stan/grammar/grammar.hpp>

namespace advi::stan::grammar {
namespace {

// What follows an expression that starts a statement.
struct Tail {
    enum class Kind { Assign, Tilde, End } kind = Kind::End;
    AssignOp op = AssignOp::Assign;
    Term rhs;
    Name distribution;
    std::vector<Term> args;
    std::optional<Truncation> truncation;
};

bool is_lvalue(const Expression& e) {
    if (e.is<Variable>())
        return true;
    if (const auto* ix = e.as<Indexed>())
        return is_lvalue(*ix->base);
    if (const auto* t = e.as<TupleIndex>())
        return is_lvalue(*t->base);
    return false;
}

// `(a, b[i], (c, d.1))`: the left side of an unpacking.
bool is_unpacking(const Expression& e) {
    const auto* t = e.as<TupleExpr>();
    if (t == nullptr)
        return false;
    return std::all_of(t->elements.begin(), t->elements.end(),
                       [](const Expression& x) { return is_lvalue(x) || is_unpacking(x); });
}

// The name under an lvalue (`x` of x[i][j]).
const Variable* lvalue_variable(const Expression& e) {
    if (const auto* v = e.as<Variable>())
        return v;
    if (const auto* ix = e.as<Indexed>())
        return lvalue_variable(*ix->base);
    if (const auto* t = e.as<TupleIndex>())
        return lvalue_variable(*t->base);
    return nullptr;
}

Statement make_expression_statement(const ParseState& state, Term lhs, Loc next,
                                    boost::optional<Tail> tail) {
    Expression& e = lhs.e;
    Statement s;
    s.loc = e.loc;
    if (!tail) {
        // Nothing we know follows: say what could have.
        if (e.is<Call>())
            throw SyntaxError{state.at(next), "expected `;`", false};
        if (is_lvalue(e)) {
            const Variable* v = lvalue_variable(e);
            // `vectr[N] x;`: a misspelt type reads as an expression followed by a name.
            if (v && !word_at(state.at(next), state.end).empty())
                throw SyntaxError{
                    state.at(e.loc),
                    fmt::format("expected a type (int, real, vector, ...), found `{}`", v->name)};
            throw SyntaxError{state.at(next),
                              "expected an assignment (`=`, `+=`, `-=`, `*=`, `/=`, `.*=`, `./=`) "
                              "or `~`",
                              false};
        }
        throw SyntaxError{state.at(next), "expected `~`", false};
    }
    switch (tail->kind) {
        case Tail::Kind::End: {
            // `x <- e;` reads as the comparison x < -e: Stan's old assignment, since removed.
            if (const auto* b = e.as<Binary>();
                b && b->op == BinaryOp::Less && state.at(b->op_loc)[1] == '-')
                throw SyntaxError{state.at(b->op_loc),
                                  "the assignment `<-` was removed from Stan; use `=`"};
            auto* call = std::get_if<Call>(&e.node);
            if (!call)
                throw SyntaxError{state.at(e.loc),
                                  "this expression is not a statement (only a function call can "
                                  "stand alone)"};
            s.node = CallStatement{std::move(*call)};
            return s;
        }
        case Tail::Kind::Assign:
            if (is_unpacking(e)) {
                if (tail->op != AssignOp::Assign)
                    throw SyntaxError{
                        state.at(e.loc),
                        fmt::format("a tuple unpacking takes `=`, not `{}`", symbol(tail->op))};
                s.node = Assign{std::move(e), tail->op, std::move(tail->rhs.e)};
                return s;
            }
            if (!is_lvalue(e))
                throw SyntaxError{state.at(e.loc),
                                  fmt::format("cannot assign to this expression with `{}` (only to "
                                              "a variable, optionally indexed)",
                                              symbol(tail->op))};
            s.node = Assign{std::move(e), tail->op, std::move(tail->rhs.e)};
            return s;
        case Tail::Kind::Tilde:
            s.node = Tilde{std::move(e), std::move(tail->distribution.name), tail->distribution.loc,
                           take(tail->args), std::move(tail->truncation)};
            return s;
    }
    throw InternalError("make_expression_statement: unknown tail");
}

// Whether a declaration starts here (a type word), without consuming it: a declaration where a
// lone statement is expected (the body of if, for, while) is read as a block of its own, as
// stanc reads it (its variables are local to that body).
struct DeclarationAhead : x3::parser<DeclarationAhead> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        It at = first;
        x3::skip_over(at, last, ctx);
        const std::string_view w = word_at(at, last);
        bool type = w == "array" || w == "tuple";
        for (const auto& row : base_type_words) type = type || row.word == w;
        return type;
    }
};

// Whether an array expression followed by `~` starts here (`{a, b} ~ normal(...)`) rather
// than a block: the braces hold no `;` (a block's statements end with one) and `~` follows the
// closing brace. Looks ahead without consuming or reporting anything.
struct ArrayTildeAhead : x3::parser<ArrayTildeAhead> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        It at = first;
        x3::skip_over(at, last, ctx);
        if (at == last || *at != '{')
            return false;
        int depth = 0;
        for (; at != last; ++at) {
            const char c = *at;
            if (c == ';' || c == '"')
                return false;
            if (c == '{' || c == '(' || c == '[')
                ++depth;
            if ((c == '}' || c == ')' || c == ']') && --depth == 0)
                break;
        }
        if (at == last)
            return false;
        ++at;
        x3::skip_over(at, last, ctx);
        return at != last && *at == '~';
    }
};

template <class T>
Statement statement_at(Loc loc, T node) {
    Statement s;
    s.loc = loc;
    s.node = std::move(node);
    return s;
}

// ---- Actions

const auto set = [](auto& ctx) { x3::_val(ctx) = std::move(x3::_attr(ctx)); };
const auto push = [](auto& ctx) { x3::_val(ctx).push_back(std::move(x3::_attr(ctx))); };
const auto append = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    for (auto& s : x3::_attr(ctx)) v.push_back(std::move(s));
};

const auto block_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = statement_at(fusion::at_c<0>(a), Block{std::move(fusion::at_c<1>(a))});
};
const auto for_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    Name& var = at_c<1>(a);
    auto& upper = at_c<3>(a);
    if (upper) {
        x3::_val(ctx) =
            statement_at(at_c<0>(a), For{std::move(var.name), var.loc, std::move(at_c<2>(a).e),
                                         std::move(upper->e), std::move(at_c<4>(a))});
    } else {
        x3::_val(ctx) = statement_at(
            at_c<0>(a),
            ForEach{std::move(var.name), var.loc, std::move(at_c<2>(a).e), std::move(at_c<4>(a))});
    }
};
const auto while_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = statement_at(at_c<0>(a), While{std::move(at_c<1>(a).e), std::move(at_c<2>(a))});
};
const auto break_action = [](auto& ctx) { x3::_val(ctx) = statement_at(x3::_attr(ctx), Break{}); };
const auto continue_action = [](auto& ctx) {
    x3::_val(ctx) = statement_at(x3::_attr(ctx), Continue{});
};
const auto empty_action = [](auto& ctx) { x3::_val(ctx) = statement_at(x3::_attr(ctx), Empty{}); };
const auto return_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = statement_at(fusion::at_c<0>(a), Return{take(fusion::at_c<1>(a))});
};
const auto print_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = statement_at(at_c<0>(a), Print{at_c<1>(a), take(at_c<2>(a))});
};
const auto profile_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = statement_at(at_c<0>(a), Profile{std::move(at_c<1>(a)), std::move(at_c<2>(a))});
};
const auto target_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = statement_at(fusion::at_c<0>(a), TargetPlus{std::move(fusion::at_c<1>(a).e)});
};
const auto jacobian_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) =
        statement_at(fusion::at_c<0>(a), TargetPlus{std::move(fusion::at_c<1>(a).e), true});
};
const auto expression_statement_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = make_expression_statement(state_of(ctx), std::move(at_c<0>(a)), at_c<1>(a),
                                              std::move(at_c<2>(a)));
};

const auto if_start = [](auto& ctx) { x3::_val(ctx) = statement_at(x3::_attr(ctx), If{}); };
const auto if_branch_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = IfBranch{std::move(fusion::at_c<0>(a).e), std::move(fusion::at_c<1>(a))};
};
const auto add_branch = [](auto& ctx) {
    std::get<If>(x3::_val(ctx).node).branches.push_back(std::move(x3::_attr(ctx)));
};
const auto set_else = [](auto& ctx) {
    std::get<If>(x3::_val(ctx).node).otherwise = Box<Statement>(std::move(x3::_attr(ctx)));
};

const auto string_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    Term t;
    t.e.loc = fusion::at_c<0>(a);
    t.e.node = StringLiteral{std::move(fusion::at_c<1>(a))};
    x3::_val(ctx) = std::move(t);
};

const auto assign_tail_action = [](auto& ctx) {
    auto& a = x3::_attr(ctx);
    Tail t;
    t.kind = Tail::Kind::Assign;
    t.op = fusion::at_c<0>(a);
    t.rhs = std::move(fusion::at_c<1>(a));
    x3::_val(ctx) = std::move(t);
};
const auto tilde_tail_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    Tail t;
    t.kind = Tail::Kind::Tilde;
    t.distribution = std::move(at_c<0>(a));
    if (at_c<1>(a))
        t.args = std::move(*at_c<1>(a));
    if (at_c<2>(a))
        t.truncation = std::move(*at_c<2>(a));
    x3::_val(ctx) = std::move(t);
};
const auto end_tail_action = [](auto& ctx) { x3::_val(ctx) = Tail{}; };
const auto truncation_action = [](auto& ctx) {
    using fusion::at_c;
    auto& a = x3::_attr(ctx);
    x3::_val(ctx) = Truncation{at_c<0>(a), take(at_c<1>(a)), take(at_c<2>(a))};
};

// ---- Rules

inline constexpr Keyword kw_if{"if"};
inline constexpr Keyword kw_else{"else"};
inline constexpr Keyword kw_for{"for"};
inline constexpr Keyword kw_in{"in"};
inline constexpr Keyword kw_while{"while"};
inline constexpr Keyword kw_break{"break"};
inline constexpr Keyword kw_continue{"continue"};
inline constexpr Keyword kw_return{"return"};
inline constexpr Keyword kw_profile{"profile"};
inline constexpr Keyword kw_target{"target"};
inline constexpr Keyword kw_jacobian{"jacobian"};
inline constexpr Keyword kw_truncate{"T"};

inline constexpr WordOf<PrintKind> print_words[] = {
    {"print",       PrintKind::Print     },
    {"reject",      PrintKind::Reject    },
    {"fatal_error", PrintKind::FatalError},
};
inline constexpr WordTable<PrintKind> print_kind{print_words, "print"};

const x3::rule<class if_statement_id, Statement> if_statement{"a statement"};
// Named after what it starts with, which is what a failure at its start lacks.
const x3::rule<class if_branch_id, IfBranch> if_branch{"`(`"};
const x3::rule<class printable_id, Term> printable{"an expression or a string"};
const x3::rule<class printables_id, std::vector<Term>> printables{"an expression or a string"};
const x3::rule<class tail_id, Tail> tail{"`;`"};
const x3::rule<class truncation_id, Truncation> truncation{"`T[`"};

// A block's statements, up to the `}` or the start of the next program block (a missing `}`
// is then reported there rather than as a strange statement).
const auto statements_def = *(!(BlockName{} >> lbrace) >> (declaration[append] | statement[push]));

const auto statement_def =
    // `{a, b} ~ d(...)`: an array expression, not a block, starts the statement
    nest[(ArrayTildeAhead{} >> expression >> pos >> -tail)[expression_statement_action] |
         (pos >> lbrace > statements > rbrace)[block_action] | if_statement[set] |
         (pos >> kw_for > lparen > declared_name > kw_in > expression > -(colon > expression) >
          rparen > statement)[for_action] |
         (pos >> kw_while > lparen > expression > rparen > statement)[while_action] |
         (pos >> kw_break > semicolon)[break_action] |
         (pos >> kw_continue > semicolon)[continue_action] |
         (pos >> kw_return > -expression > semicolon)[return_action] |
         (pos >> print_kind > lparen > printables > rparen > semicolon)[print_action] |
         (pos >> kw_profile > lparen > String{} > rparen > lbrace > statements >
          rbrace)[profile_action] |
         (pos >> kw_target >> !lparen > plus_equals > expression > semicolon)[target_action] |
         (pos >> kw_jacobian > plus_equals > expression > semicolon)[jacobian_action] |
         (pos >> semicolon)[empty_action] |
         (pos >> DeclarationAhead{} >> declaration)[block_action] |
         (expression >> pos >> -tail)[expression_statement_action]];

// `else if` chains are read in a loop, not by recursion: a long chain is not deep nesting.
const auto if_statement_def = (pos >> kw_if)[if_start] > if_branch[add_branch] >
                              *((kw_else >> kw_if) > if_branch[add_branch]) >
                              -(kw_else > statement[set_else]);
const auto if_branch_def = (lparen > expression > rparen > statement)[if_branch_action];

const auto printable_def = (pos >> String{})[string_action] | expression[set];
const auto printables_def = printable % comma;

const auto tail_def = (AssignOperator{} > expression > semicolon)[assign_tail_action] |
                      (tilde > Identifier{"a distribution"} > lparen > -expression_list > rparen >
                       -truncation > semicolon)[tilde_tail_action] |
                      semicolon[end_tail_action];
const auto truncation_def = (pos >> kw_truncate >> lbracket > -expression > comma > -expression >
                             rbracket)[truncation_action];

BOOST_SPIRIT_DEFINE(if_statement, if_branch, printable, printables, tail, truncation)

}  // namespace

BOOST_SPIRIT_DEFINE(statement, statements)
BOOST_SPIRIT_INSTANTIATE(StatementRule, Iterator, Context)
BOOST_SPIRIT_INSTANTIATE(StatementsRule, Iterator, Context)

}  // namespace advi::stan::grammar
