// Tuples in the parser and the checker: the types `tuple(real, array[N] vector[K])` in
// declarations and function signatures, the expressions `(a, b)`, `(a,)` and `x.2`, the
// unpacking `(a, b) = e;` with Stan's rules, and promotion element by element.
#include <string>

#include <catch2/catch.hpp>

#include <advi/stan/ast_printer.hpp>
#include <advi/stan/parser.hpp>

#include "stan_test_util.hpp"

namespace advi::stan {
namespace {

using test::first_line_of_error;
using test::parens;
using test::round_trip;

// "m.stan:L:C: message" with the message cut to its start.
std::string error_start(const std::string& text, std::size_t chars = 60) {
    return first_line_of_error(text).substr(0, chars);
}

}  // namespace

TEST_CASE("tuple expressions: parentheses, one element with a comma, `.k` after any primary",
          "[stan][parser][tuple]") {
    CHECK(parens("(a)") == "a");
    CHECK(parens("(a, b + 1)") == "(a, (b + 1))");
    CHECK(parens("(a,)") == "(a,)");
    CHECK(parens("x.1") == "(x.1)");
    CHECK(parens("x.1.2") == "((x.1).2)");
    CHECK(parens("x[i].2[j]") == "(((x[i]).2)[j])");
    CHECK(parens("f(y).1 * 2") == "((f(y).1) * 2)");
    CHECK(parens("((1, 2), 3.5).1.2") == "((((1, 2), 3.5).1).2)");
    // the dot after whitespace, and a real literal's dot stay apart
    CHECK(parens("x .1 + 1.5") == "((x.1) + 1.5)");
}

TEST_CASE("tuple types print back as written and parse again", "[stan][parser][tuple]") {
    const std::string program =
        "functions {\n"
        "  tuple(real, array[] int) f(data tuple(real,) x, array[,] tuple(matrix, int) y) {\n"
        "    return (x.1, {1});\n"
        "  }\n"
        "}\n"
        "data {\n"
        "  int N;\n"
        "  tuple(int<lower=0>, array[N] vector<lower=0>[3]) d;\n"
        "}\n"
        "parameters {\n"
        "  array[2] tuple(real<lower=0>, simplex[4], tuple(real, cov_matrix[2])) p;\n"
        "}\n"
        "model {\n"
        "  real a;\n"
        "  real b;\n"
        "  (a, b) = (p[1].1, p[2].3.1);\n"
        "  ((a, b), a) = ((1, 2.5), 3);\n"
        "}\n";
    const std::string printed = round_trip(program);
    CHECK(printed.find("tuple(real, array[] int) f(data tuple(real,) x, "
                       "array[,] tuple(matrix, int) y)") != std::string::npos);
    CHECK(printed.find("tuple(int<lower=0>, array[N] vector<lower=0>[3]) d;") != std::string::npos);
    CHECK(printed.find("array[2] tuple(real<lower=0>, simplex[4], tuple(real, cov_matrix[2])) "
                       "p;") != std::string::npos);
    CHECK(printed.find("(a, b) = (p[1].1, p[2].3.1);") != std::string::npos);
    CHECK(printed.find("((a, b), a) = ((1, 2.5), 3);") != std::string::npos);
}

TEST_CASE("tuple syntax errors name the place", "[stan][parser][tuple]") {
    CHECK(error_start("model { tuple(real) y; }") == "m.stan:1:19: expected `,`");
    CHECK(error_start("model { tuple() y; }") ==
          "m.stan:1:15: expected a type (int, real, vector, ...)");
    CHECK(error_start("model { real y = (); }") == "m.stan:1:19: expected an expression");
    CHECK(error_start("model { real y = (1, 2,); }")
              .starts_with("m.stan:1:24: expected an expression after `,`"));
    // `data` applies to a whole argument, not to an element of a tuple
    CHECK(error_start("functions { void f(tuple(real, data real) x) { } }") ==
          "m.stan:1:32: expected `)`");
    CHECK(error_start("model { real x; real y; (x, y) += (1, 2); }") ==
          "m.stan:1:25: a tuple unpacking takes `=`, not `+=`");
    CHECK(error_start("model { real x; real y; (x, y).1 = 2; }")
              .starts_with("m.stan:1:25: cannot assign to this expression"));
    CHECK(error_start("model { real x = y.99999999999; }", 200)
              .starts_with("m.stan:1:19: tuple index `.99999999999` out of range"));
}

TEST_CASE("tuple types: element access, promotion element by element, arrays of tuples",
          "[stan][tuple]") {
    // well typed
    for (const std::string ok : {
             "transformed data { tuple(real, real) t = (1, 2); real s = t.1 + t.2; }",
             "transformed data { array[2] tuple(real, int) a = {(1, 2), (3.5, 4)}; "
             "real s = a[2].1; }",
             "parameters { real x; } model { array[2] tuple(real, real) z = {(1, x), (x, 1)}; }",
             "transformed data { tuple(real, tuple(int, vector[2])) t = (1, (2, [1, 2]')); "
             "int k = t.2.1; vector[2] v = t.2.2; }",
             "functions { real f(tuple(real, array[] int) t) { return t.1 + sum(t.2); } } "
             "transformed data { real s = f((1, {1, 2})); }",
             "functions { real p_lpmf(tuple(int, int) y, real q) { return y.1 * q; } } "
             "parameters { real q; } model { (1, 2) ~ p(q); }",
             "transformed data { array[3] tuple(int, real) a; for (t in a) print(t.1); }",
             "transformed data { int x = 1; int y = 2; (x, y) = (y, x); }",
             "transformed data { real x; array[2] real y; (x, y[1]) = (1, 2); }",
         }) {
        CAPTURE(ok);
        CHECK(first_line_of_error(ok) == "ok");
    }
    CHECK(error_start("transformed data { real x = 1; real y = x.1; }") ==
          "m.stan:1:42: `.1` takes an element of a tuple; this is real");
    CHECK(error_start("transformed data { tuple(real, real) t; real y = t.3; }") ==
          "m.stan:1:51: `.3`: tuple(real, real) has 2 elements");
    CHECK(error_start("transformed data { array[2] tuple(real, real) t; real y = t.1; }", 200) ==
          "m.stan:1:60: `.1` takes an element of a tuple; this is array[] tuple(real, real) "
          "(index the array first: `x[i].1`)");
    CHECK(error_start("transformed data { tuple(int, real) t = (1.5, 2); }", 200) ==
          "m.stan:1:41: `t` is declared tuple(int, real); cannot assign tuple(real, int)");
    CHECK(error_start("transformed data { tuple(real, real) t = (1, 2, 3); }", 200) ==
          "m.stan:1:42: `t` is declared tuple(real, real); cannot assign tuple(int, int, int)");
    CHECK(error_start("transformed data { tuple(real, real) t = 1 ? (1, 2) : (1, 2, 3); }", 200) ==
          "m.stan:1:42: the branches of `?:` have different types: tuple(int, int) and "
          "tuple(int, int, int)");
    CHECK(error_start("transformed data { tuple(real, real) t; t += 1; }", 200) ==
          "m.stan:1:41: no operator tuple(real, real) += int");
    CHECK(error_start("parameters { tuple(real, int) p; }", 200) ==
          "m.stan:1:14: `p`: parameters cannot be int");
    CHECK(error_start("model { tuple(real<lower=0>, real) t; }", 200) ==
          "m.stan:1:9: `t`: a local variable cannot have a constrained type");
    // data-only arguments: a tuple built from a parameter is not data
    CHECK(error_start("functions { real f(data tuple(real, real) x) { return x.1; } }\n"
                      "data { real a; } parameters { real b; } model { target += f((a, b)); }",
                      200)
              .starts_with("m.stan:2:61: argument `x` of `f` is declared `data`"));
}

TEST_CASE("unpacking: shapes, types, and Stan's rules on the places written", "[stan][tuple]") {
    const std::string head =
        "generated quantities { int x = 1; int y = 2; real r = 0; "
        "vector[2] v = [1, 1]'; tuple(int, int) t = (1, 1); "
        "array[2] tuple(int, int) a; ";
    auto gq = [&](const std::string& body) { return error_start(head + body + " }", 200); };
    CHECK(gq("(x, y) = (y, x, x);")
              .ends_with("cannot unpack tuple(int, int, int) into a tuple of 2 elements"));
    CHECK(gq("(r, x) = (x, r);").ends_with("cannot assign real to `x` of type int"));
    CHECK(gq("(x, y, x) = (1, 2, 3);").find("`x` is written twice by this unpacking") !=
          std::string::npos);
    CHECK(gq("(v[1], v[2]) = (1, 2);").find("`v[...]` is written twice") != std::string::npos);
    CHECK(gq("(t.2, t) = (1, (2, 3));").find("`t.2` is written twice") != std::string::npos);
    CHECK(gq("(a, a[1].1) = ({(1, 2), (3, 4)}, 3);").find("`a[...].1` is written twice") !=
          std::string::npos);
    CHECK(gq("(x, v[x]) = (2, 2);")
              .find("`x` is written by this unpacking: the indices on the left cannot read it") !=
          std::string::npos);
    // different elements of one tuple are different places
    CHECK(gq("(t.1, t.2) = (3, 4);") == "ok");
    CHECK(error_start("data { int x; } generated quantities { int y; (x, y) = (1, 2); }", 200) ==
          "m.stan:1:48: `x` cannot be assigned here (data variable)");
}

}  // namespace advi::stan
