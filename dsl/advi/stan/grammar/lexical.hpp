// The tokens of the Stan grammar as hand-written Spirit X3 primitives: the skipper (whitespace
// and comments), punctuation, keywords, names, numbers, strings and operators. Private to
// dsl/advi/stan (includes Spirit); the rules that combine them are in grammar.hpp.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/spirit/home/x3.hpp>
#include <fmt/format.h>

#include <advi/stan/ast.hpp>

namespace advi::stan::grammar {

namespace x3 = boost::spirit::x3;

using Iterator = const char*;

// A syntax error found by a token or an action. `exact`: report at `where` as is. Otherwise
// `where` is where something was expected, and the report moves back to the end of the
// previous token when a line break lies between (a missing `;` belongs to its own line).
struct SyntaxError {
    Iterator where;
    std::string message;
    bool exact = true;
};

// What the parse carries besides the skipper: where the text starts (Loc offsets) and the
// nesting depth (see NestDirective).
struct ParseState {
    Iterator begin = nullptr;
    Iterator end = nullptr;
    int depth = 0;
    [[nodiscard]] Loc loc(Iterator p) const { return Loc{static_cast<std::size_t>(p - begin)}; }
    [[nodiscard]] Iterator at(Loc l) const { return begin + l.offset; }
};
struct state_tag;

template <class Context>
ParseState& state_of(const Context& ctx) {
    return x3::get<state_tag>(ctx);
}

// Parentheses, brackets, blocks and prefix operators nest by recursion: bounded so that a
// pathological input is an error rather than a stack overflow. Expressions also have a bounded
// height (chains like 1 + 1 + ... grow the tree without recursion in the parser).
inline constexpr int kMaxNesting = 200;
inline constexpr int kMaxHeight = 1000;

// Whether a parser is asked for its attribute (X3 passes unused_type when not).
template <class Attr>
inline constexpr bool wants = !std::is_same_v<std::remove_cvref_t<Attr>, x3::unused_type>;

inline bool is_word_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool is_word_char(char c) {
    return is_word_start(c) || (c >= '0' && c <= '9') || c == '_';
}
inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// The word (identifier-shaped: a letter, then letters, digits, underscores) at p, or empty.
inline std::string_view word_at(Iterator p, Iterator last) {
    if (p == last || !is_word_start(*p))
        return {};
    Iterator q = p;
    while (q != last && is_word_char(*q)) ++q;
    return {p, static_cast<std::size_t>(q - p)};
}

// Whitespace, `//` line comments, `/* */` comments. `#include` is refused rather than read as
// a comment, so is a `#` comment (removed from Stan), and an unterminated `/*` is an error at the
// `/*`.
struct Skipper : x3::parser<Skipper> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx&, RCtx&, Attr&) const {
        const It start = first;
        while (first != last) {
            const char c = *first;
            const char next = first + 1 != last ? first[1] : '\0';
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                ++first;
            } else if (c == '/' && next == '/') {
                while (first != last && *first != '\n') ++first;
            } else if (c == '#') {
                if (std::string_view(first, last - first).starts_with("#include"))
                    throw SyntaxError{first, "#include is not supported"};
                throw SyntaxError{first, "`#` comments were removed from Stan (2.33): write `//`"};
            } else if (c == '/' && next == '*') {
                const std::string_view rest(first + 2, last - first - 2);
                const auto end = rest.find("*/");
                if (end == std::string_view::npos)
                    throw SyntaxError{first, "unterminated comment: `/*` without `*/`"};
                first += 2 + end + 2;
            } else {
                break;
            }
        }
        return first != start;
    }
};

// Punctuation or an operator spelled `text`, not followed by any of `not_before` (so that `|`
// does not match the start of `||`, nor `=` the start of `==`).
struct Token : x3::parser<Token> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;
    std::string_view text;
    std::string_view not_before = {};

    constexpr Token(std::string_view t, std::string_view nb = {}) : text(t), not_before(nb) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        x3::skip_over(first, last, ctx);
        const std::string_view rest(first, last - first);
        if (!rest.starts_with(text))
            return false;
        if (rest.size() > text.size() &&
            not_before.find(rest[text.size()]) != std::string_view::npos)
            return false;
        first += text.size();
        return true;
    }
};

// A keyword: the word itself, not the start of a longer word.
struct Keyword : x3::parser<Keyword> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;
    std::string_view word;

    constexpr explicit Keyword(std::string_view w) : word(w) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        x3::skip_over(first, last, ctx);
        if (word_at(first, last) != word)
            return false;
        first += word.size();
        return true;
    }
};

// The offset of the next token (after skipping), as a Loc; consumes nothing else.
struct Position : x3::parser<Position> {
    using attribute_type = Loc;
    static bool const has_attribute = true;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if constexpr (wants<Attr>)
            attr = state_of(ctx).loc(first);
        return true;
    }
};

// A name and where it starts.
struct Name {
    std::string name;
    Loc loc;
};

// A name used in an expression (a variable or a function): any word but a reserved one, which
// fails the match so that the caller can try something else.
struct Identifier : x3::parser<Identifier> {
    using attribute_type = Name;
    static bool const has_attribute = true;
    std::string_view what;

    constexpr explicit Identifier(std::string_view w = "an identifier") : what(w) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        const std::string_view w = word_at(first, last);
        if (w.empty() || is_reserved_word(w))
            return false;
        if constexpr (wants<Attr>)
            attr = Name{std::string(w), state_of(ctx).loc(first)};
        first += w.size();
        return true;
    }
};

// A name being declared (variable, loop variable, function, argument): a reserved word, or a
// name ending in `__`, is an error here rather than a mismatch.
struct DeclaredName : x3::parser<DeclaredName> {
    using attribute_type = Name;
    static bool const has_attribute = true;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        const std::string_view w = word_at(first, last);
        if (w.empty())
            return false;
        if (is_reserved_word(w))
            throw SyntaxError{
                first, fmt::format("`{}` is a reserved word; it cannot be used as a name", w)};
        if (w.ends_with("__"))
            throw SyntaxError{first, fmt::format("`{}`: names ending in `__` are reserved", w)};
        if constexpr (wants<Attr>)
            attr = Name{std::string(w), state_of(ctx).loc(first)};
        first += w.size();
        return true;
    }
};

// Where an expression should start, what cannot start one but says what the user meant: a
// reserved word, a string (only print, reject and fatal_error take strings). An error.
struct NotAnExpression : x3::parser<NotAnExpression> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        x3::skip_over(first, last, ctx);
        if (first != last && *first == '"')
            throw SyntaxError{first,
                              "a string can only be an argument of print, reject or "
                              "fatal_error"};
        const std::string_view w = word_at(first, last);
        if (w.empty() || !is_reserved_word(w))
            return false;
        if (w == "jacobian")
            throw SyntaxError{first, "`jacobian` is a statement (`jacobian += ...;`), not a value"};
        throw SyntaxError{first,
                          fmt::format("expected an expression, found the reserved word `{}`", w)};
    }
};

// `.2` after an expression: a tuple's element. The dot and the digits are one token (as in
// stanc3), so `x.1.2` is two of them; whitespace may come before the dot.
struct TupleSlot {
    Loc loc;    // the dot
    int index;  // as written, from 1
};
struct TupleDot : x3::parser<TupleDot> {
    using attribute_type = TupleSlot;
    static bool const has_attribute = true;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if (first == last || *first != '.' || first + 1 == last || !is_digit(first[1]))
            return false;
        It q = first + 1;
        long long index = 0;
        while (q != last && is_digit(*q)) {
            index = std::min<long long>(index * 10 + (*q - '0'), 1LL << 40);
            ++q;
        }
        if (q != last && is_word_char(*q))
            throw SyntaxError{first, "expected a tuple index (`.1`, `.2`, ...)"};
        if (index < 1 || index > 1'000'000)
            throw SyntaxError{first, fmt::format("tuple index `{}` out of range (tuples count "
                                                 "their elements from 1)",
                                                 std::string(first, q))};
        if constexpr (wants<Attr>)
            attr = TupleSlot{state_of(ctx).loc(first), static_cast<int>(index)};
        first = q;
        return true;
    }
};

// An expression being built and the height of its tree.
struct Term {
    Expression e;
    int height = 1;
};

// Stan's numerals: 12, 1_000, 1.5, 1., .5, 1e-3, 2.5E+10. Integers must fit Stan's 32-bit int;
// a numeral followed by `i` (imaginary) is refused.
struct Number : x3::parser<Number> {
    using attribute_type = Term;
    static bool const has_attribute = true;

    template <class It>
    static bool digits(It& q, const It& last) {
        if (q == last || !is_digit(*q))
            return false;
        while (q != last && (is_digit(*q) || (*q == '_' && q + 1 != last && is_digit(q[1])))) ++q;
        return true;
    }

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        It q = first;
        bool real = false;
        if (digits(q, last)) {
            if (q != last && *q == '.') {
                ++q;
                real = true;
                digits(q, last);
            }
        } else if (q != last && *q == '.' && q + 1 != last && is_digit(q[1])) {
            ++q;
            digits(q, last);
            real = true;
        } else {
            return false;
        }
        if (q != last && (*q == 'e' || *q == 'E')) {
            It e = q + 1;
            if (e != last && (*e == '+' || *e == '-'))
                ++e;
            if (digits(e, last)) {
                q = e;
                real = true;
            }
        }
        // `2i`, `1.5e3i`: an imaginary literal
        const bool imaginary = q != last && *q == 'i' && (q + 1 == last || !is_word_char(q[1]));
        const It digits_end = q;
        if (imaginary)
            ++q;
        // Letters straight after a numeral (`1e`, `2x`, `3.5f`) make no token Stan knows.
        if (q != last && is_word_char(*q)) {
            It end = q;
            while (end != last && is_word_char(*end)) ++end;
            throw SyntaxError{first, fmt::format("malformed number `{}`", std::string(first, end))};
        }
        std::string text;
        for (It p = first; p != digits_end; ++p)
            if (*p != '_')
                text += *p;
        Term t;
        t.e.loc = state_of(ctx).loc(first);
        if (imaginary) {
            t.e.node = ImagLiteral{std::strtod(text.c_str(), nullptr)};
        } else if (real) {
            t.e.node = RealLiteral{std::strtod(text.c_str(), nullptr)};
        } else {
            std::int64_t v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec != std::errc() || v > 2147483647)
                throw SyntaxError{first, fmt::format("integer literal {} is too large (Stan's int "
                                                     "is 32-bit: at most 2147483647)",
                                                     std::string(first, q))};
            t.e.node = IntLiteral{v};
        }
        if constexpr (wants<Attr>)
            attr = std::move(t);
        first = q;
        return true;
    }
};

// "text": printable characters other than `"` on one line (Stan has no escapes).
struct String : x3::parser<String> {
    using attribute_type = std::string;
    static bool const has_attribute = true;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if (first == last || *first != '"')
            return false;
        It q = first + 1;
        while (q != last && *q != '"' && *q != '\n') ++q;
        if (q == last || *q != '"')
            throw SyntaxError{first, "unterminated string"};
        if constexpr (wants<Attr>)
            attr.assign(first + 1, q);
        first = q + 1;
        return true;
    }
};

// A binary operator of one precedence level (the table in ast.cpp), with where it stands. The
// longest spelling over all levels wins (`%/%` is not `%`), and an operator followed by `=` is
// an assignment (`+=`, `.*=`), not an operator.
struct OpAt {
    BinaryOp op = BinaryOp::Add;
    Loc loc;
};
struct BinaryOperator : x3::parser<BinaryOperator> {
    using attribute_type = OpAt;
    static bool const has_attribute = true;
    int precedence;

    constexpr explicit BinaryOperator(int p) : precedence(p) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        const std::string_view rest(first, last - first);
        const BinaryOpInfo* best = nullptr;
        for (const BinaryOpInfo& row : binary_op_table())
            if (rest.starts_with(row.symbol) && (!best || row.symbol.size() > best->symbol.size()))
                best = &row;
        if (!best || best->precedence != precedence)
            return false;
        const std::size_t n = best->symbol.size();
        if (rest.size() > n && rest[n] == '=')
            return false;
        if constexpr (wants<Attr>)
            attr = OpAt{best->op, state_of(ctx).loc(first)};
        first += n;
        return true;
    }
};

// A prefix operator: - + !
struct UnaryOperator : x3::parser<UnaryOperator> {
    using attribute_type = UnaryOp;
    static bool const has_attribute = true;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        if (first == last)
            return false;
        UnaryOp op;
        switch (*first) {
            case '-': op = UnaryOp::Minus; break;
            case '+': op = UnaryOp::Plus; break;
            case '!': op = UnaryOp::Not; break;
            default: return false;
        }
        if constexpr (wants<Attr>)
            attr = op;
        ++first;
        return true;
    }
};

// = += -= *= /= .*= ./=  (the longest spelling; `==` is not `=`)
struct AssignOperator : x3::parser<AssignOperator> {
    using attribute_type = AssignOp;
    static bool const has_attribute = true;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        static constexpr std::pair<std::string_view, AssignOp> ops[] = {
            {".*=", AssignOp::EltMultiply},
            {"./=", AssignOp::EltDivide  },
            {"+=",  AssignOp::Add        },
            {"-=",  AssignOp::Subtract   },
            {"*=",  AssignOp::Multiply   },
            {"/=",  AssignOp::Divide     },
            {"=",   AssignOp::Assign     },
        };
        const std::string_view rest(first, last - first);
        for (const auto& [spelling, op] : ops) {
            if (!rest.starts_with(spelling))
                continue;
            if (rest.size() > spelling.size() && rest[spelling.size()] == '=')
                return false;
            if constexpr (wants<Attr>)
                attr = op;
            first += spelling.size();
            return true;
        }
        return false;
    }
};

// One word of a table: keyword -> value (type names, print kinds, constraint names).
template <class T>
struct WordOf {
    std::string_view word;
    T value;
};
template <class T>
struct WordTable : x3::parser<WordTable<T>> {
    using attribute_type = T;
    static bool const has_attribute = true;
    std::span<const WordOf<T>> rows;
    std::string_view what;

    constexpr WordTable(std::span<const WordOf<T>> r, std::string_view w) : rows(r), what(w) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        const std::string_view w = word_at(first, last);
        for (const auto& row : rows) {
            if (w.empty() || row.word != w)
                continue;
            if constexpr (wants<Attr>)
                attr = row.value;
            first += w.size();
            return true;
        }
        return false;
    }
};

// A program block's name (`transformed data` is two words, any space between), or
// `functions`.
struct BlockHead {
    bool functions = false;
    BlockKind kind = BlockKind::Data;
    Loc loc;
};
struct BlockName : x3::parser<BlockName> {
    using attribute_type = BlockHead;
    static bool const has_attribute = true;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        const std::string_view w = word_at(first, last);
        BlockHead head;
        head.loc = state_of(ctx).loc(first);
        It q = first + w.size();
        const auto second = [&](std::string_view a, BlockKind ka, std::string_view b,
                                BlockKind kb) {
            x3::skip_over(q, last, ctx);
            const std::string_view w2 = word_at(q, last);
            if (w2 != a && w2 != b)
                return false;
            head.kind = w2 == a ? ka : kb;
            q += w2.size();
            return true;
        };
        if (w == "functions") {
            head.functions = true;
        } else if (w == "data") {
            head.kind = BlockKind::Data;
        } else if (w == "parameters") {
            head.kind = BlockKind::Parameters;
        } else if (w == "model") {
            head.kind = BlockKind::Model;
        } else if (w == "transformed") {
            if (!second("data", BlockKind::TransformedData, "parameters",
                        BlockKind::TransformedParameters))
                return false;
        } else if (w == "generated") {
            if (!second("quantities", BlockKind::GeneratedQuantities, "quantities",
                        BlockKind::GeneratedQuantities))
                return false;
        } else {
            return false;
        }
        if constexpr (wants<Attr>)
            attr = head;
        first = q;
        return true;
    }
};

// Counts one level of nesting around its subject (see kMaxNesting).
template <class Subject>
struct NestDirective : x3::unary_parser<Subject, NestDirective<Subject>> {
    using base_type = x3::unary_parser<Subject, NestDirective<Subject>>;
    static bool const is_pass_through_unary = true;
    constexpr explicit NestDirective(const Subject& subject) : base_type(subject) {}

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx& rctx, Attr& attr) const {
        ParseState& state = state_of(ctx);
        if (state.depth >= kMaxNesting) {
            x3::skip_over(first, last, ctx);
            throw SyntaxError{first, fmt::format("nesting too deep (more than {} levels of "
                                                 "parentheses, brackets, blocks or operators)",
                                                 kMaxNesting)};
        }
        ++state.depth;
        struct Leave {
            ParseState& s;
            ~Leave() { --s.depth; }
        } leave{state};
        return this->subject.parse(first, last, ctx, rctx, attr);
    }
};
struct NestGen {
    template <class Subject>
    constexpr NestDirective<typename x3::extension::as_parser<Subject>::value_type> operator[](
        const Subject& subject) const {
        return NestDirective<typename x3::extension::as_parser<Subject>::value_type>(
            x3::as_parser(subject));
    }
};
inline constexpr NestGen nest{};

}  // namespace advi::stan::grammar

// What an expectation failure says was expected ("expected `;`").
namespace boost::spirit::x3 {
template <>
struct get_info<advi::stan::grammar::Token> {
    using result_type = std::string;
    std::string operator()(const advi::stan::grammar::Token& p) const {
        return fmt::format("`{}`", p.text);
    }
};
template <>
struct get_info<advi::stan::grammar::Keyword> {
    using result_type = std::string;
    std::string operator()(const advi::stan::grammar::Keyword& p) const {
        return fmt::format("`{}`", p.word);
    }
};
template <>
struct get_info<advi::stan::grammar::Identifier> {
    using result_type = std::string;
    std::string operator()(const advi::stan::grammar::Identifier& p) const {
        return std::string(p.what);
    }
};
template <>
struct get_info<advi::stan::grammar::DeclaredName> {
    using result_type = std::string;
    std::string operator()(const advi::stan::grammar::DeclaredName&) const { return "a name"; }
};
template <class T>
struct get_info<advi::stan::grammar::WordTable<T>> {
    using result_type = std::string;
    std::string operator()(const advi::stan::grammar::WordTable<T>& p) const {
        return std::string(p.what);
    }
};
template <>
struct get_info<advi::stan::grammar::String> {
    using result_type = std::string;
    std::string operator()(const advi::stan::grammar::String&) const { return "a string"; }
};
// An action reports what its subject expects.
template <class Subject, class Action>
struct get_info<action<Subject, Action>> {
    using result_type = std::string;
    std::string operator()(const action<Subject, Action>& p) const { return what(p.subject); }
};
template <class Subject>
struct get_info<advi::stan::grammar::NestDirective<Subject>> {
    using result_type = std::string;
    std::string operator()(const advi::stan::grammar::NestDirective<Subject>& p) const {
        return what(p.subject);
    }
};
}  // namespace boost::spirit::x3
