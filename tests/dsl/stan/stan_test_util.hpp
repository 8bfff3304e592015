// Helpers for the Stan parser and checker tests: expressions printed fully parenthesised, the
// round trip parse -> print -> parse -> print, one block of a printed program, and the first
// line of what `check` says of a program.
#pragma once

#include <string>

#include <catch2/catch.hpp>

#include <advi/stan/ast_printer.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/parser.hpp>

namespace advi::stan::test {

// "m.stan:L:C: message" of the first error `check` finds in `text`, or "ok".
inline std::string first_line_of_error(const std::string& text) {
    try {
        check(parse_program(text, "m.stan"));
    } catch (const ParseError& e) {
        const std::string w = e.what();
        return w.substr(0, w.find('\n'));
    }
    return "ok";
}

inline std::string parens(const Expression& e);

inline std::string parens_list(const std::vector<Expression>& items, bool conditional = false) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            out += conditional && i == 1 ? " | " : ", ";
        out += parens(items[i]);
    }
    return out;
}

// Every operator application in parentheses: shows how the parser grouped the text.
inline std::string parens(const Expression& e) {
    if (const auto* b = e.as<Binary>())
        return "(" + parens(*b->lhs) + " " + std::string(binary_op_info(b->op).symbol) + " " +
               parens(*b->rhs) + ")";
    if (const auto* u = e.as<Unary>())
        return "(" + std::string(symbol(u->op)) + parens(*u->operand) + ")";
    if (const auto* c = e.as<Conditional>())
        return "(" + parens(*c->condition) + " ? " + parens(*c->if_true) + " : " +
               parens(*c->if_false) + ")";
    if (const auto* t = e.as<Transpose>())
        return "(" + parens(*t->operand) + "')";
    if (const auto* ix = e.as<Indexed>()) {
        std::string out = "(" + parens(*ix->base) + "[";
        for (std::size_t i = 0; i < ix->indices.size(); ++i) {
            const Index& index = ix->indices[i];
            if (i > 0)
                out += ", ";
            if (index.lower)
                out += parens(**index.lower);
            if (index.is_range)
                out += ":";
            if (index.upper)
                out += parens(**index.upper);
        }
        return out + "])";
    }
    if (const auto* call = e.as<Call>())
        return call->name + "(" + parens_list(call->args, call->conditional) + ")";
    if (const auto* a = e.as<ArrayExpr>())
        return "{" + parens_list(a->elements) + "}";
    if (const auto* r = e.as<RowVectorExpr>())
        return "[" + parens_list(r->elements) + "]";
    if (const auto* t = e.as<TupleExpr>())
        return "(" + parens_list(t->elements) + (t->elements.size() == 1 ? ",)" : ")");
    if (const auto* t = e.as<TupleIndex>())
        return "(" + parens(*t->base) + "." + std::to_string(t->index) + ")";
    return to_stan(e);
}

inline std::string parens(const std::string& text) {
    return parens(parse_expression(text));
}

// The canonical print of an expression.
inline std::string print(const std::string& text) {
    return to_stan(parse_expression(text));
}

// Parses, prints, parses the print and prints again: both prints must agree. Returns the print.
inline std::string round_trip(const std::string& text) {
    const std::string once = to_stan(parse_program(text, "round_trip.stan"));
    const std::string twice = to_stan(parse_program(once, "round_trip_print.stan"));
    CHECK(once == twice);
    return once;
}

// The lines inside `name { ... }` of a printed program.
inline std::string block_of(const std::string& printed, const std::string& name) {
    const std::string head = name + " {\n";
    std::size_t begin = printed.starts_with(head) ? 0 : printed.find("\n" + head);
    if (begin == std::string::npos)
        return "<no block " + name + ">";
    if (begin > 0 || !printed.starts_with(head))
        begin += 1;
    begin += head.size();
    const std::size_t end = printed.find("\n}\n", begin - 1);
    return printed.substr(begin, end + 1 - begin);
}

}  // namespace advi::stan::test
