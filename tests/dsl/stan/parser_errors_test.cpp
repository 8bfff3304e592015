// Every syntax error of the Stan parser: file:line:col and what was expected, the line shown
// with a caret; pathological nesting is an error, not a crash.
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/stan/parser.hpp>

namespace advi::stan {
namespace {

// `text` must fail with a message that starts "e.stan:line:column: <start>".
void check_error(const std::string& text, int line, int column, const std::string& start) {
    INFO("program:\n" << text);
    try {
        (void)parse_program(text, "e.stan");
        FAIL("no error");
    } catch (const ParseError& e) {
        INFO("error: " << e.what());
        CHECK(e.file() == "e.stan");
        CHECK(e.line() == line);
        CHECK(e.column() == column);
        CHECK(std::string(e.what()).starts_with(
            fmt::format("e.stan:{}:{}: {}", line, column, start)));
    }
}

void check_expression_error(const std::string& text, int column, const std::string& start) {
    INFO("expression: " << text);
    try {
        (void)parse_expression(text, "x");
        FAIL("no error");
    } catch (const ParseError& e) {
        INFO("error: " << e.what());
        CHECK(e.column() == column);
        CHECK(std::string(e.what()).starts_with(fmt::format("x:1:{}: {}", column, start)));
    }
}

}  // namespace

TEST_CASE("the message shows the line and a caret under the column", "[stan][parser]") {
    try {
        (void)parse_program("model {\n  y ~ normal(0, 1)\n}\n", "m.stan");
        FAIL("no error");
    } catch (const ParseError& e) {
        CHECK(std::string(e.what()) ==
              "m.stan:2:19: expected `;`\n"
              "    y ~ normal(0, 1)\n"
              "                    ^");
    }
}

TEST_CASE("a missing `;` is reported where it belongs", "[stan][parser]") {
    // At the end of its line when the next token is on another line...
    check_error("model {\n  real x = 1\n  x ~ normal(0, 1);\n}\n", 2, 13, "expected `;`");
    check_error("data {\n  int N // the count\n  real y;\n}\n", 2, 8, "expected `;`");
    check_error("model {\n  foo(x)\n  y = 1;\n}\n", 2, 9, "expected `;`");
    check_error("model {\n  x = y\n}\n", 2, 8, "expected `;`");
    check_error("model {\n  break\n}\n", 2, 8, "expected `;`");
    check_error("model {\n  return 1\n}\n", 2, 11, "expected `;`");
    check_error("model {\n  target += 1\n}\n", 2, 14, "expected `;`");
    // ... at the next token on the same line.
    check_error("model { x = 1 y = 2; }", 1, 15, "expected `;`");
    check_error("data { int N real y; }", 1, 14, "expected `;`");
}

TEST_CASE("unbalanced parentheses, brackets and braces", "[stan][parser]") {
    check_error("model { x = (1 + 2; }", 1, 19, "expected `)`");
    check_error("model { x = f(1, 2; }", 1, 19, "expected `)`");
    check_error("model { x = (1 + 2)); }", 1, 20, "expected `;`");
    check_error("model { x = a[1; }", 1, 16, "expected `]`");
    check_error("model { x = {1, 2; }", 1, 18, "expected `}`");
    check_error("model {\n  x ~ normal(0, 1);\n", 2, 20, "expected `}`");
    check_error("model { { x = 1; }", 1, 19, "expected `}`");
    check_error("model { if (a x = 1; }", 1, 15, "expected `)`");
    check_error("model { for (i in 1:N { } }", 1, 23, "expected `)`");
    check_error("model { while a { } }", 1, 15, "expected `(`");
    check_error("model { if a { } }", 1, 12, "expected `(`");
    check_error("model { } }", 1, 11, "expected a program block (functions, data,");
}

TEST_CASE("missing expressions and operands", "[stan][parser]") {
    check_error("model { x = ; }", 1, 13, "expected an expression");
    check_error("model { x = 1 + ; }", 1, 17, "expected an expression");
    check_error("model { x = -; }", 1, 14, "expected an expression");
    check_error("model { x = 2 ^ ; }", 1, 17, "expected an expression");
    check_error("model { x = f(1, ); }", 1, 18, "expected an expression");
    check_error("model { x = c ? 1 ; }", 1, 19, "expected `:`");
    check_error("model { x = {}; }", 1, 14, "expected an expression");
    check_error("model { y ~ ; }", 1, 13, "expected a distribution");
    check_error("model { y ~ normal; }", 1, 19, "expected `(`");
    check_error("model { y ~ normal(0, 1) T[0; }", 1, 29, "expected `,`");
    check_expression_error("1 + 2 )", 7, "expected an operator or the end of the expression");
    check_expression_error("", 1, "expected an expression");
}

TEST_CASE("statements that are not statements", "[stan][parser]") {
    check_error("model { x; }", 1, 9, "this expression is not a statement");
    check_error("model { x + 1; }", 1, 9, "this expression is not a statement");
    check_error("model { a + b = 3; }", 1, 9, "cannot assign to this expression with `=`");
    check_error("model { f(x) += 1; }", 1, 9, "cannot assign to this expression with `+=`");
    check_error("model { mu normal(0, 1); }", 1, 9,
                "expected a type (int, real, vector, ...), found `mu`");
    check_error("model { x = 1; y }", 1, 18, "expected an assignment (`=`, `+=`");
    check_error("model { 1 + 2 }", 1, 15, "expected `~`");
    check_error("model { else x = 1; }", 1, 9,
                "expected an expression, found the reserved word `else`");
    check_error("model { x <- 3; }", 1, 11, "the assignment `<-` was removed from Stan; use `=`");
    check_error("model { target = 1; }", 1, 16, "expected `+=`");
    check_error("model { x = \"s\"; }", 1, 13,
                "a string can only be an argument of print, reject or fatal_error");
    check_error("model { x = lower; }", 1, 13,
                "expected an expression, found the reserved word `lower`");
}

TEST_CASE("program blocks: unknown, out of order, twice, wrong contents", "[stan][parser]") {
    check_error("data { int N; }\nparamters { real mu; }\n", 2, 1, "unknown block `paramters`");
    check_error("model { }\ndata { int N; }\n", 2, 1,
                "the `data` block must come before the `model` block");
    check_error("parameters { }\nfunctions { }\n", 2, 1,
                "the `functions` block must come before the `parameters` block");
    check_error("model { }\nmodel { }\n", 2, 1, "the `model` block appears twice");
    check_error("data { }\nmodel { }\ndata { }\n", 3, 1, "the `data` block appears twice");
    check_error("transformed foo { }", 1, 13,
                "expected `data` or `parameters` after `transformed`");
    check_error("generated { }", 1, 11, "expected `quantities` after `generated`");
    check_error("model\n  x ~ normal(0, 1);", 1, 6, "expected `{`");
    check_error("data { int N; N = 3; }", 1, 15, "the data block can only declare variables");
    check_error("parameters { real mu = 1; }", 1, 24,
                "a variable of the parameters block cannot be given a value");
    // A missing `}` before the next block is reported before it, not as a strange statement.
    check_error("data {\n  int N;\nparameters { real mu; }\n", 2, 9, "expected `}`");
    check_error("model {\n  mu ~ normal(0, 1);\ngenerated quantities { }\n", 2, 21, "expected `}`");
}

TEST_CASE("types: unknown, missing or wrong sizes, constraints", "[stan][parser]") {
    check_error("data { integer N; }", 1, 8,
                "expected a type (int, real, vector, ...), found `integer`");
    check_error("data { array[N] integer y; }", 1, 17, "expected a type (int, real, vector, ...)");
    check_error("data { array N real y; }", 1, 14, "expected `[`");
    check_error("parameters { vector v; }", 1, 21,
                "expected the size of the vector in brackets: vector[N]");
    check_error("parameters { simplex<lower=0> v; }", 1, 22, "`simplex` cannot take `lower`");
    check_error("parameters { matrix[N] m; }", 1, 20,
                "`matrix` takes 2 sizes, got 1: matrix[rows, cols]");
    check_error("parameters { cov_matrix[N, N] S; }", 1, 24, "`cov_matrix` takes 1 size, got 2");
    check_error("parameters { cholesky_factor_cov[M, N, K] L; }", 1, 33,
                "`cholesky_factor_cov` takes 1 or 2 sizes, got 3");
    check_error("parameters { real[N] x; }", 1, 18,
                "`real` takes no size (for an array: array[N] real)");
    check_error("parameters { vector[] x; }", 1, 21, "expected an expression");
    check_error("data { int<offset=1> n; }", 1, 12, "`int` cannot take `offset`");
    check_error("parameters { real<lower=0, offset=1> x; }", 1, 28,
                "bounds (lower, upper) cannot be combined with offset and multiplier");
    check_error("parameters { real<lower=0, lower=1> x; }", 1, 28, "`lower` is given twice");
    check_error("parameters { real<low=0> x; }", 1, 19,
                "expected `lower`, `upper`, `offset` or `multiplier`");
    check_error("parameters { real<lower=0 x; }", 1, 27, "expected `>`");
    check_error("parameters { real<lower 0> x; }", 1, 25, "expected `=`");
    // Stan 2.33 removed the old spellings; each is refused with the new one.
    check_error("data { array[2] real x[3]; }", 1, 23,
                "array dimensions after the name were removed from Stan (2.33): write "
                "`array[...] type name`");
    check_error("data { real x[3], y; }", 1, 14, "array dimensions after the name were removed");
    check_error("functions { real f(real[] x) { return 1; } }", 1, 24,
                "array types after the element type (`real[]`) were removed from Stan (2.33): "
                "write `array[] real`");
    check_error("data { int N; # a comment\n }", 1, 15,
                "`#` comments were removed from Stan (2.33): write `//`");
    check_error("functions { real f() reject(\"\"); }", 1, 22,
                "expected a function body `{ ... }` or `;`");
    check_error("parameters { real; }", 1, 18, "expected a name");
}

TEST_CASE("reserved words and reserved names", "[stan][parser]") {
    check_error("data { int for; }", 1, 12,
                "`for` is a reserved word; it cannot be used as a name");
    check_error("data { real lower; }", 1, 13, "`lower` is a reserved word");
    check_error("data { vector[3] array; }", 1, 18, "`array` is a reserved word");
    check_error("model { for (in in 1:3) { } }", 1, 14, "`in` is a reserved word");
    check_error("functions { real if(real x) { return x; } }", 1, 18, "`if` is a reserved word");
    check_error("functions { real f(real target) { return 1; } }", 1, 25,
                "`target` is a reserved word");
    check_error("data { real x__; }", 1, 13, "`x__`: names ending in `__` are reserved");
}

TEST_CASE("functions: return types, arguments, bodies", "[stan][parser]") {
    check_error("functions { foo(real x) { } }", 1, 13, "expected a function definition");
    check_error("functions { real f(simplex x) { return 1; } }", 1, 20,
                "`simplex` is not a type for function arguments and results");
    check_error("functions { real f(real x, ) { } }", 1, 28, "expected an argument type");
    check_error("functions { real f(real) { } }", 1, 24, "expected a name");
    check_error("functions { real f(real x) }", 1, 28, "expected a function body");
    check_error("functions { real f(real x) { return x; }", 1, 41, "expected `}`");
}

TEST_CASE("lexical errors: #include, comments, strings, characters, numbers", "[stan][parser]") {
    check_error("#include \"other.stan\"\nmodel { }\n", 1, 1, "#include is not supported");
    check_error("model {\n  #include foo.stan\n}\n", 2, 3, "#include is not supported");
    check_error("model {\n  x = 1; /* not closed\n}\n", 2, 10,
                "unterminated comment: `/*` without `*/`");
    check_error("model { print(\"abc); }", 1, 15, "unterminated string");
    check_error("model { y ~ normal(0, 1) @; }", 1, 26, "unexpected character `@`; expected `;`");
    check_error("model { x = 1 $ 2; }", 1, 15, "unexpected character `$`");
    check_error("model { x = 1; } €", 1, 18, "unexpected character `€`");
    check_error("model { z = 2ix; }", 1, 13, "malformed number `2ix`");
    check_error("model { n = 2147483648; }", 1, 13, "integer literal 2147483648 is too large");
    check_error("model { n = 99999999999999999999999; }", 1, 13, "integer literal");
}

TEST_CASE("deep nesting is an error, not a stack overflow", "[stan][parser]") {
    const int n = 10000;
    const auto nesting = [](const std::string& text) {
        try {
            (void)parse_program(text, "deep.stan");
            FAIL("no error");
        } catch (const ParseError& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find("nesting too deep (more than 200 levels") !=
                  std::string::npos);
            CHECK(e.line() == 1);
        }
    };
    nesting("model { x = " + std::string(n, '(') + "1" + std::string(n, ')') + "; }");
    nesting("model { x = " + std::string(n, '[') + "1" + std::string(n, ']') + "; }");
    nesting("model { x = " + std::string(n, '{') + "1" + std::string(n, '}') + "; }");
    nesting("model { x = " + std::string(n, '-') + "1; }");
    std::string calls;
    for (int i = 0; i < n; ++i) calls += "f(";
    nesting("model { x = " + calls + "1" + std::string(n, ')') + "; }");
    std::string powers = "a";
    for (int i = 0; i < n; ++i) powers += "^a";
    nesting("model { x = " + powers + "; }");
    std::string ternary = "a";
    for (int i = 0; i < n; ++i) ternary += " ? a : a";
    nesting("model { x = " + ternary + "; }");
    std::string index = "a";
    for (int i = 0; i < n; ++i) index = "a[" + index + "]";
    nesting("model { x = " + index + "; }");
    nesting("model { " + std::string(n, '{') + std::string(n, '}') + " }");
    std::string ifs;
    for (int i = 0; i < n; ++i) ifs += "if (a) ";
    nesting("model { " + ifs + "x = 1; }");
    std::string fors;
    for (int i = 0; i < n; ++i) fors += "for (i in 1:2) ";
    nesting("model { " + fors + "x = 1; }");

    // Within the limit, deep nesting parses.
    const int ok = 150;
    Program p = parse_program("model { x = " + std::string(ok, '(') + "1" + std::string(ok, ')') +
                              "; " + std::string(ok, '{') + std::string(ok, '}') + " }");
    CHECK(p.model->statements.size() == 2);
}

TEST_CASE("long chains: a bounded tree height, long else-if chains and lists are fine",
          "[stan][parser]") {
    // 1 + 1 + ... grows the tree without recursion in the parser: its height is bounded too.
    std::string sum = "1";
    for (int i = 0; i < 5000; ++i) sum += " + 1";
    try {
        (void)parse_program("model { x = " + sum + "; }", "long.stan");
        FAIL("no error");
    } catch (const ParseError& e) {
        CHECK(std::string(e.what()).find("expression too deeply nested (more than 1000 levels") !=
              std::string::npos);
    }
    std::string postfix = "x";
    for (int i = 0; i < 5000; ++i) postfix += "'";
    CHECK_THROWS_AS(parse_expression(postfix), ParseError);
    std::string ok = "1";
    for (int i = 0; i < 500; ++i) ok += " + 1";
    CHECK(parse_expression(ok).is<Binary>());

    // An else-if chain is a list, not nesting.
    std::string chain = "if (a) x = 0;";
    for (int i = 1; i < 5000; ++i) chain += fmt::format(" else if (a == {}) x = {};", i, i);
    Program p = parse_program("model { " + chain + " else x = -1; }");
    const If* cond = p.model->statements.at(0).as<If>();
    REQUIRE(cond);
    CHECK(cond->branches.size() == 5000);
    CHECK(cond->otherwise);

    // A long list is flat.
    std::string list = "{1";
    for (int i = 0; i < 20000; ++i) list += ", 1";
    list += "}";
    CHECK(parse_expression(list).as<ArrayExpr>()->elements.size() == 20001);
}

}  // namespace advi::stan
