#include <advi/stan/parser.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <advi/io/source_text.hpp>
#include <advi/stan/large_stack.hpp>

#include <advi/stan/grammar/grammar.hpp>

namespace advi::stan {
namespace {

using grammar::Iterator;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The first offset at or after `at` that is not whitespace or comment (the grammar's own
// skipper; an unterminated comment or an #include stops it where it starts).
std::size_t skip_forward(std::string_view text, std::size_t at) {
    Iterator p = text.data() + at;
    const Iterator last = text.data() + text.size();
    try {
        while (grammar::Skipper{}.parse(p, last, grammar::x3::unused, grammar::x3::unused,
                                        grammar::x3::unused)) {
        }
    } catch (const grammar::SyntaxError&) {
    }
    return static_cast<std::size_t>(p - text.data());
}

// Where the token before `next` ends (a forward scan, so that comments and strings are read
// as the skipper reads them).
std::size_t end_of_previous_token(std::string_view text, std::size_t next) {
    std::size_t end = 0, at = 0;
    while (true) {
        at = skip_forward(text, at);
        if (at >= next)
            return end;
        if (text[at] == '"') {
            const auto close = text.find_first_of("\"\n", at + 1);
            at = close == std::string_view::npos ? text.size() : close + 1;
        } else {
            ++at;
        }
        end = std::min(at, next);
    }
}

// Characters that can start or continue a Stan token.
bool is_stan_char(char c) {
    if (grammar::is_word_char(c) || is_space(c))
        return true;
    return std::string_view("{}()[]<>,;|?:!-+^'*/%\\.&=~\"#").find(c) != std::string_view::npos;
}

ParseError syntax_error(std::string_view file, std::string_view text, std::size_t at,
                        std::string message, bool exact) {
    if (!exact) {
        // A missing token is reported where it belongs: after the previous token if a line
        // break lies between, else at the next token; a character that no token can start
        // is reported as such.
        const std::size_t next = skip_forward(text, at);
        if (next < text.size() && !is_stan_char(text[next]))
            return parse_error_at(
                file, text, next,
                fmt::format("unexpected {}; {}", describe_character(text, next), message));
        const std::size_t prev = end_of_previous_token(text, next);
        const bool line_break = text.substr(prev, next - prev).find('\n') != std::string_view::npos;
        at = line_break ? prev : next;
    }
    return parse_error_at(file, text, at, message);
}

// Runs `rule` over the whole text, turning the grammar's failures into ParseErrors.
template <class Rule, class Attribute>
void run(const Rule& rule, std::string_view text, std::string_view file, Attribute& attr,
         std::string_view expected, std::string_view whole) {
    grammar::ParseState state{text.data(), text.data() + text.size()};
    const grammar::Skipper skipper{};
    const auto skipper_context = grammar::x3::make_context<grammar::x3::skipper_tag>(skipper);
    const auto context = grammar::x3::make_context<grammar::state_tag>(state, skipper_context);
    static_assert(std::is_same_v<std::remove_const_t<decltype(context)>, grammar::Context>,
                  "the context must be the one the grammar is instantiated for");
    Iterator first = text.data();
    const Iterator last = text.data() + text.size();
    // A UTF-8 byte order mark (some editors write one) is not part of the program.
    if (text.starts_with("\xEF\xBB\xBF"))
        first += 3;
    // A program is UTF-8 text, comments and strings included: a stray byte (a file in another
    // encoding, a binary file) is reported where it is, before the grammar trips over it.
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t n = utf8_length_at(text, at);
        if (n == 0)
            throw parse_error_at(file, text, at,
                                 describe_character(text, at) + "; a Stan program is UTF-8 text");
        at += n;
    }
    try {
        const bool ok = rule.parse(first, last, context, grammar::x3::unused, attr);
        grammar::x3::skip_over(first, last, context);
        if (!ok)
            throw grammar::SyntaxError{first, fmt::format("expected {}", expected), false};
        if (first != last)
            throw grammar::SyntaxError{
                first, fmt::format("expected an operator or the end of {}", whole), false};
    } catch (const grammar::x3::expectation_failure<Iterator>& e) {
        throw syntax_error(file, text, e.where() - text.data(), "expected " + e.which(), false);
    } catch (const grammar::SyntaxError& e) {
        throw syntax_error(file, text, e.where - text.data(), e.message, e.exact);
    }
}

}  // namespace

Program parse_program(std::string text, std::string file) {
    grammar::ProgramParts parts;
    run_with_stack(kParserStackBytes, [&] {
        run(grammar::program, text, file, parts, "a program block", "the program");
    });
    parts.program.text = std::move(text);
    parts.program.file = std::move(file);
    return std::move(parts.program);
}

Expression parse_expression(std::string_view text, std::string_view file) {
    grammar::Term term;
    run_with_stack(kParserStackBytes, [&] {
        run(grammar::expression, text, file, term, "an expression", "the expression");
    });
    return std::move(term.e);
}

}  // namespace advi::stan
