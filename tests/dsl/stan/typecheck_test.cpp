// The type checker (check.cpp with types.cpp): one ill-typed program per rule, each refused at
// its file:line:col with the expected and the actual types; and the lowering runs the same
// checker, so that a fit never sees such a program.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "stan_test_util.hpp"

namespace advi::stan {
namespace {

using test::first_line_of_error;

const std::string kHead = "data { int N; vector[N] y; }\nparameters { real mu; }\n";

// The head, then `model { <statements> }` on line 3 (column 9 is the first statement).
std::string model(const std::string& statements) {
    return kHead + "model { " + statements + " }";
}
// Functions on line 1, then the head and a model on lines 2-4.
std::string with_functions(const std::string& functions, const std::string& statements) {
    return "functions { " + functions + " }\n" + model(statements);
}

}  // namespace

TEST_CASE("calls of built-ins: argument count and types against the table's signatures", "[stan]") {
    CHECK(first_line_of_error(model("y ~ normal(mu, 1, 2, 3);")) ==
          "m.stan:3:13: normal takes (reals | reals, reals); got (vector | real, int, int, int)");
    CHECK(first_line_of_error(model("target += normal_lpdf(y | mu);")) ==
          "m.stan:3:19: normal_lpdf takes (reals | reals, reals); got (vector | real)");
    CHECK(first_line_of_error(model("vector[N] z = rep_vector(1.0, 2.5);")) ==
          "m.stan:3:23: rep_vector takes (real, int) or (complex, int); got (real, real)");
    // nullary functions have an arity too
    CHECK(first_line_of_error(model("y ~ normal(mu, pi(1));")) ==
          "m.stan:3:24: pi takes (); got (int)");
    // the variate of `~` is checked as much as the arguments
    CHECK(first_line_of_error(model("y ~ poisson(mu);")) ==
          "m.stan:3:13: poisson takes (ints | reals); got (vector | real)");
    // a built-in called as a statement has a value to drop
    CHECK(first_line_of_error(model("exp(mu);")) ==
          "m.stan:3:9: `exp` returns real: a function with a value cannot be called as a "
          "statement");
    // int promotes to real, real does not demote
    CHECK(first_line_of_error(model("y ~ normal(1, 2);")) == "ok");
    CHECK(first_line_of_error(model("vector[N] z = rep_vector(1, N);")) == "ok");
}

TEST_CASE("results: abs of an int is an int, reductions of ints are ints", "[stan]") {
    CHECK(first_line_of_error(model("int k = abs(-3);")) == "ok");
    CHECK(first_line_of_error(model("int k = exp(-3);")) ==
          "m.stan:3:17: `k` is declared int; cannot assign real");
    CHECK(first_line_of_error(model("real k = fabs(-3);")) ==
          "m.stan:3:18: `fabs` was removed from Stan (2.33): write `abs`");
    CHECK(first_line_of_error(model("int k = sum({1, 2});")) == "ok");
    CHECK(first_line_of_error(model("int k = sum({1, 2.0});")) ==
          "m.stan:3:17: `k` is declared int; cannot assign real");
    // and the lowering computes the int: a size of 3
    const auto lowered = lower(parse_program("transformed data { int n = abs(-3); }\n"
                                             "parameters { vector[n] x; }\n"
                                             "model { x ~ normal(0, 1); }",
                                             "m.stan"),
                               read_json_data("{}", "d.json"));
    CHECK(lowered->model().spec().latent("x").shape.size() == 3);
}

TEST_CASE("densities: _lpdf for reals, _lpmf for ints, no _log", "[stan]") {
    CHECK(first_line_of_error(model("target += poisson_lpdf(N | mu);")) ==
          "m.stan:3:19: `poisson` is a distribution of integers: write `poisson_lpmf`");
    CHECK(first_line_of_error(model("target += normal_lpmf(y | mu, 1);")) ==
          "m.stan:3:19: `normal` is a distribution of reals: write `normal_lpdf`");
    CHECK(first_line_of_error(model("target += normal_log(y, mu, 1);")) ==
          "m.stan:3:19: `normal_log`: Stan removed the `_log` suffix; write `normal_lpdf`");
    CHECK(first_line_of_error(model("target += normal_lpdf(y, mu, 1);")) ==
          "m.stan:3:19: `normal_lpdf` takes its variate first and `|` after it: "
          "normal_lpdf(y | ...)");
    CHECK(first_line_of_error(model("target += exp(mu | 1);")) ==
          "m.stan:3:19: `exp` is not a density or distribution function: it takes no `|`");
    CHECK(first_line_of_error(kHead + "model { y ~ normal(mu, 1); }\n" +
                              "generated quantities { real l = normal_lupdf(y | mu, 1); }") ==
          "m.stan:4:33: `normal_lupdf`: `_lupdf` and `_lupmf` can only be used in the model "
          "block or in functions ending in `_lpdf` or `_lpmf`");
    CHECK(first_line_of_error(model("target += normal_lupdf(y | mu, 1);")) == "ok");
}

TEST_CASE("what the lowering cannot do, check refuses in the lowering's words", "[stan]") {
    const std::string lcdf = model("target += generate_laplace_options(1).2;");
    const std::string message =
        "m.stan:3:19: `generate_laplace_options` is not supported yet: a Stan library function "
        "that advi "
        "does not lower";
    CHECK(first_line_of_error(lcdf) == message);
    // the lowering (which runs the checker first) says the same
    CHECK_THROWS_WITH(
        lower(parse_program(lcdf, "m.stan"), read_json_data(R"({"N": 1, "y": [1]})", "d.json")),
        Catch::StartsWith(message));
    CHECK(first_line_of_error(model("target += std_normal_log_cdf(mu);")) ==
          "m.stan:3:19: unknown function `std_normal_log_cdf`");
    CHECK(first_line_of_error(model("target += std_normal_lcdf(y);")) == "ok");
    // CDFs: graph terms of every argument, the shapes of the gamma and beta families too
    CHECK(first_line_of_error(model("target += normal_lcdf(y | mu, 1);")) == "ok");
    CHECK(first_line_of_error(model("target += -student_t_lccdf(0 | 3, 0, 2.5);")) == "ok");
    CHECK(first_line_of_error(model("target += student_t_lccdf(y | mu, mu, 2.5);")) == "ok");
    CHECK(first_line_of_error(model("target += target();")) == "ok");
    CHECK(first_line_of_error(
              "parameters { real mu; }\ngenerated quantities { real t = target(); }") ==
          "m.stan:2:33: `target()` can only be used in the model block, in transformed parameters "
          "or in a function whose name ends in `_lp`");
    CHECK(first_line_of_error(model("y ~ normal(mu, 1) T[0, ];")) == "ok");
    CHECK(first_line_of_error(model("y ~ von_mises(mu, 1) T[0, ];")) == "ok");
    CHECK(first_line_of_error(model("target += von_mises_lcdf(y | mu, 1);")) == "ok");
    // the hypergeometric functions, of parameters in every argument
    CHECK(first_line_of_error(model("real h = hypergeometric_2F1(1, 2, 3, inv_logit(mu));")) ==
          "ok");
    CHECK(first_line_of_error(model("real h = hypergeometric_2F1(mu, 2, 3, 0.5);")) == "ok");
    // _rng: in transformed data (drawn once: transformed_data_rng_test) and generated quantities
    CHECK(first_line_of_error("data { int N; vector[N] y; }\n"
                              "transformed data { real z = normal_rng(0, 1); }\n"
                              "parameters { real mu; }\nmodel { }") == "ok");
    CHECK(first_line_of_error(with_functions("real f(real x) { return normal_rng(x, 1); }",
                                             "y ~ normal(mu, 1);")) ==
          "m.stan:1:37: `normal_rng` can only be called in generated quantities or in a function "
          "whose name ends in `_rng`");
    CHECK(first_line_of_error("functions { real f_rng(real x) { return normal_rng(x, 1); } }\n" +
                              kHead + "model { y ~ normal(mu, 1); }\n" +
                              "generated quantities { real z = f_rng(mu); }") == "ok");
    CHECK(first_line_of_error("functions { real f_rng(real x) { return normal_rng(x, 1); } }\n" +
                              kHead + "model { y ~ normal(f_rng(mu), 1); }") ==
          "m.stan:4:20: `f_rng` is for generated quantities only");
}

TEST_CASE("user functions: returns on every path, of the declared type", "[stan]") {
    CHECK(first_line_of_error(
              with_functions("real f(real x) { return [x]'; }", "y ~ normal(f(mu), 1);")) ==
          "m.stan:1:37: `f` returns real; got vector");
    CHECK(first_line_of_error(
              with_functions("real f(real x) { if (x > 0) return 1; }", "y ~ normal(f(mu), 1);")) ==
          "m.stan:1:18: `f` may end without returning a value: every path must return real");
    CHECK(first_line_of_error(with_functions(
              "real f(real x) { if (x > 0) return 1; else return 2; }", "y ~ normal(f(mu), 1);")) ==
          "ok");
    CHECK(first_line_of_error(
              with_functions("real f(real x) { if (x > 0) { return 1; } else { print(x); } }",
                             "y ~ normal(f(mu), 1);")) ==
          "m.stan:1:18: `f` may end without returning a value: every path must return real");
    CHECK(first_line_of_error(with_functions("real f(real x) { reject(\"no\"); }",
                                             "y ~ normal(f(mu), 1);")) == "ok");
    CHECK(first_line_of_error(with_functions("void f(real x) { return x; }", "f(mu);")) ==
          "m.stan:1:30: `f` is a void function: it cannot return a value");
    CHECK(first_line_of_error(
              with_functions("real f(real x) { return; }", "y ~ normal(f(mu), 1);")) ==
          "m.stan:1:30: `f` returns real: `return;` has no value");
    // int promotes to real in a return
    CHECK(first_line_of_error(
              with_functions("real f(real x) { return 1; }", "y ~ normal(f(mu), 1);")) == "ok");
    CHECK(first_line_of_error(
              with_functions("int f(real x) { return 1.5; }", "y ~ normal(f(mu), 1);")) ==
          "m.stan:1:36: `f` returns int; got real");
}

TEST_CASE("user functions: calls with their argument types, void and non-void", "[stan]") {
    const std::string f = "real f(int k, real x) { return k * x; }";
    CHECK(first_line_of_error(with_functions(f, "y ~ normal(f(2, mu), 1);")) == "ok");
    // a real where an int is declared would change the model: refused
    CHECK(first_line_of_error(with_functions(f, "y ~ normal(f(mu, mu), 1);")) ==
          "m.stan:4:20: f takes (int, real); got (real, real)");
    CHECK(first_line_of_error(with_functions(f, "y ~ normal(f(2), 1);")) ==
          "m.stan:4:20: f takes (int, real); got (int)");
    CHECK(first_line_of_error(with_functions(f, "f(2, mu);")) ==
          "m.stan:4:9: `f` returns real: a function with a value cannot be called as a "
          "statement");
    const std::string v = "void g(real x) { print(x); }";
    CHECK(first_line_of_error(with_functions(v, "g(mu);")) == "ok");
    CHECK(first_line_of_error(with_functions(v, "y ~ normal(g(mu), 1);")) ==
          "m.stan:4:20: `g` is a void function: its call has no value to use");
    // densities defined by the user are checked like built-ins under `~`
    const std::string d = "real my_lpdf(vector y, real m) { return normal_lpdf(y | m, 1); }";
    CHECK(first_line_of_error(with_functions(d, "y ~ my(mu);")) == "ok");
    // Stan derives my_lupdf from my_lpdf: check and the lowering both call it
    const std::string lupdf = with_functions(d, "target += my_lupdf(y | mu);");
    CHECK(first_line_of_error(lupdf) == "ok");
    CHECK(lower(parse_program(lupdf, "m.stan"),
                read_json_data(R"({"N": 1, "y": [1]})", "d.json")) != nullptr);
    CHECK(first_line_of_error(with_functions(d, "target += my_lupdf(y | mu, 2);")) ==
          "m.stan:4:19: my_lpdf takes (vector | real); got (vector | real, int)");
    CHECK(first_line_of_error(with_functions(d, "y ~ my(mu, 1);")) ==
          "m.stan:4:13: my_lpdf takes (vector | real); got (vector | real, int)");
    CHECK(first_line_of_error(
              with_functions("real my_lpdf(int y, real m) { return m; }", "y ~ normal(mu, 1);")) ==
          "m.stan:1:26: the variate of a `_lpdf` must be real-valued, not int (write `_lpmf` for "
          "integers)");
    // the fit lowers through the same checker: the real never reaches the int
    CHECK_THROWS_WITH(lower(parse_program(with_functions(f, "y ~ normal(f(mu, mu), 1);"), "m.stan"),
                            read_json_data(R"({"N": 1, "y": [1]})", "d.json")),
                      Catch::StartsWith("m.stan:4:20: f takes (int, real); got (real, real)"));
}

// Stan: an argument declared `data` takes only values that do not depend on parameters; stanc
// refuses the call where the value given does, naming the argument.
TEST_CASE("user functions: data-only arguments take no parameter-dependent value", "[stan]") {
    const std::string f = "real f(data real x, real z) { return x + z; }";
    CHECK(first_line_of_error(with_functions(f, "y ~ normal(f(y[1], mu), 1);")) == "ok");
    CHECK(first_line_of_error(with_functions(f, "y ~ normal(f(mu, 1), 1);")) ==
          "m.stan:4:22: argument `x` of `f` is declared `data`, but the value given depends on "
          "parameters");
    // through an expression, a model-block local, an index, a transpose, an array
    CHECK(first_line_of_error(with_functions(f, "y ~ normal(f(2 * y[1] + mu, 1), 1);")) ==
          "m.stan:4:22: argument `x` of `f` is declared `data`, but the value given depends on "
          "parameters");
    CHECK(first_line_of_error(with_functions(f, "real m = mu; y ~ normal(f(m, 1), 1);")) ==
          "m.stan:4:35: argument `x` of `f` is declared `data`, but the value given depends on "
          "parameters");
    const std::string g = "real g(data vector v) { return sum(v); }";
    CHECK(first_line_of_error(with_functions(g, "target += g(y);")) == "ok");
    CHECK(first_line_of_error(with_functions(g, "target += g(y * mu);")) ==
          "m.stan:4:21: argument `v` of `g` is declared `data`, but the value given depends on "
          "parameters");
    // ints never depend on parameters; generated quantities read the parameters as numbers
    CHECK(first_line_of_error(
              with_functions("real h(data int k) { return k; }", "target += h(N) * mu;")) == "ok");
    CHECK(first_line_of_error("functions { " + f + " }\n" + kHead +
                              "model { }\ngenerated quantities { real q = f(mu, mu); }") == "ok");
    CHECK(first_line_of_error("functions { " + f + " }\n" + kHead +
                              "transformed parameters { real t = f(mu, 1); }\nmodel { }") ==
          "m.stan:4:37: argument `x` of `f` is declared `data`, but the value given depends on "
          "parameters");
    // a function's own non-data argument is not data; its data argument is
    CHECK(first_line_of_error(
              with_functions(f + " real k(real a) { return f(a, a); }", "target += k(mu);")) ==
          "m.stan:1:85: argument `x` of `f` is declared `data`, but the value given depends on "
          "parameters");
    CHECK(first_line_of_error(with_functions(f + " real k(data real a) { return f(a, a); }",
                                             "target += k(y[1]) * mu;")) == "ok");
    // a user density's data argument under `~`
    const std::string d = "real my_lpdf(vector y, data real s) { return normal_lpdf(y | 0, s); }";
    CHECK(first_line_of_error(with_functions(d, "y ~ my(2);")) == "ok");
    CHECK(first_line_of_error(with_functions(d, "y ~ my(mu);")) ==
          "m.stan:4:16: argument `s` of `my_lpdf` is declared `data`, but the value given "
          "depends on parameters");
}

TEST_CASE("user functions: names of built-ins, overloads, declarations", "[stan]") {
    CHECK(first_line_of_error(
              with_functions("real exp(real x) { return x; }", "y ~ normal(mu, 1);")) ==
          "m.stan:1:18: `exp` is a built-in function with signature (real) => real; a user "
          "function cannot redefine it");
    // an overload of a built-in name with other arguments: Stan resolves user and library
    // signatures together, and so do the checker and the lowering
    const std::string overloads = with_functions("real exp(vector x, int k) { return k; }",
                                                 "target += normal_lpdf(exp(y, 2) | exp(mu), 1);");
    CHECK(first_line_of_error(overloads) == "ok");
    CHECK_NOTHROW(lower(parse_program(overloads, "m.stan"),
                        read_json_data(R"({"N": 2, "y": [1, 2]})", "d.json")));
    CHECK(first_line_of_error(with_functions("real normal_lpdf(real y, real m, real s) { return "
                                             "m; }",
                                             "y ~ normal(mu, 1);")) ==
          "m.stan:1:18: `normal_lpdf` is a built-in function with signature (real | real, real) "
          "=> real; a user function cannot redefine it");
    CHECK(first_line_of_error(
              with_functions("real f(real x) { return x; } real f(vector x) { return 1; }",
                             "y ~ normal(mu, 1);")) == "ok");  // overloads (overload_test.cpp)
    CHECK(first_line_of_error(
              with_functions("real f(real x) { return x; } vector f(real x) { return [x]'; }",
                             "y ~ normal(mu, 1);")) ==
          "m.stan:1:49: `f` is declared again with the same arguments and another signature: "
          "(real) => vector, before (real) => real; overloads differ in their arguments");
    CHECK(first_line_of_error(with_functions("real f(real x); real f(real x) { return x; }",
                                             "y ~ normal(f(mu), 1);")) == "ok");
    CHECK(first_line_of_error(with_functions("real f(real x);", "y ~ normal(mu, 1);")) ==
          "m.stan:1:18: `f` is declared but never defined");
    CHECK(first_line_of_error(
              with_functions("real f(real x) { x = 2; return x; }", "y ~ normal(f(mu), 1);")) ==
          "m.stan:1:30: `x` cannot be assigned here (function argument variable)");
}

TEST_CASE("declarations and names, as stanc", "[stan]") {
    CHECK(first_line_of_error("parameters { int k; }\nmodel { }") ==
          "m.stan:1:14: `k`: parameters cannot be int");
    CHECK(first_line_of_error(kHead + "transformed parameters { array[2] int k; }\nmodel { }") ==
          "m.stan:3:26: `k`: transformed parameters cannot be int");
    CHECK(first_line_of_error(model("real<lower=0> z = 1;")) ==
          "m.stan:3:9: `z`: a local variable cannot have a constrained type");
    CHECK(first_line_of_error(model("simplex[3] z;")) ==
          "m.stan:3:9: `z`: a local variable cannot have a constrained type");
    CHECK(first_line_of_error(kHead + "model { }\ngenerated quantities { real<lower=0> z = 1; }") ==
          "ok");
    CHECK(first_line_of_error(model("break;")) == "m.stan:3:9: `break` outside a loop");
    CHECK(first_line_of_error(model("while (1) { break; }")) == "ok");
    CHECK(first_line_of_error(model("real x_lupdf = 1;")) ==
          "m.stan:3:14: `x_lupdf`: names ending in `_lupdf` or `_lupmf` are for densities");
    CHECK(first_line_of_error(with_functions("void g() { }", "real g = 1; g();")) ==
          "m.stan:4:21: `g` is a variable, not a function");
    CHECK(first_line_of_error(with_functions("real f(data real x); real f(real x) { return x; }",
                                             "y ~ normal(f(1), 1);")) ==
          "m.stan:1:39: `f` is declared again with the same arguments and another signature: "
          "(real) => real, before (data real) => real; overloads differ in their arguments");
    CHECK(first_line_of_error(with_functions("real f(real x) { return x; } real f(real x);",
                                             "y ~ normal(f(1), 1);")) ==
          "m.stan:1:47: `f` is already declared");
    CHECK(first_line_of_error(model("real z = 1; z ./= 2;")) ==
          "m.stan:3:21: no operator real ./= int");
    // Stan's constants log2() and log10() (also elementwise functions)
    CHECK(first_line_of_error(model("target += log2() + log10() + log2(mu);")) == "ok");
    // bounds of the variable's own type
    CHECK(first_line_of_error("data { vector[2] L; }\nparameters { vector<lower=L>[2] x; }\n"
                              "model { }") == "ok");
}

TEST_CASE("statements: assignments, conditions, loops, indexes, sizes", "[stan]") {
    CHECK(first_line_of_error(model("int k; k = 2.5;")) ==
          "m.stan:3:20: cannot assign real to `k` of type int");
    CHECK(first_line_of_error(model("vector[N] z; z = mu;")) ==
          "m.stan:3:26: cannot assign real to `z` of type vector");
    CHECK(first_line_of_error(model("real z; z = 1;")) == "ok");
    CHECK(first_line_of_error(model("vector[N] z = y; z *= y;")) ==
          "m.stan:3:26: no operator vector *= vector");
    CHECK(first_line_of_error(model("vector[N] z = y; z .*= y;")) == "ok");
    CHECK(first_line_of_error(model("if (mu) y ~ normal(mu, 1);")) ==
          "m.stan:3:13: the condition of `if` must be int, got real");
    CHECK(first_line_of_error(model("while (y) { }")) ==
          "m.stan:3:16: the condition of `while` must be int, got vector");
    CHECK(first_line_of_error(model("for (i in 1:2.0) { }")) ==
          "m.stan:3:21: a loop bound must be int, got real");
    CHECK(first_line_of_error(model("y[1.0] ~ normal(mu, 1);")) ==
          "m.stan:3:11: an index must be int or array[] int, got real");
    CHECK(first_line_of_error(model("y[1, 2] ~ normal(mu, 1);")) ==
          "m.stan:3:9: too many indexes for vector");
    CHECK(first_line_of_error(model("y[{1, 2}] ~ normal(mu, 1);")) == "ok");
    CHECK(
        first_line_of_error("data { real N; }\nparameters { real mu; }\nmodel { vector[N] z; }") ==
        "m.stan:3:16: a size must be int, got real");
    CHECK(first_line_of_error(model("real z = mu ? 1 : 2;")) ==
          "m.stan:3:18: the condition of `?:` must be int, got real");
    CHECK(first_line_of_error(model("real z = N ? y : mu;")) ==
          "m.stan:3:18: the branches of `?:` have different types: vector and real");
    CHECK(first_line_of_error(model("target += y + y';")) ==
          "m.stan:3:21: no operator vector + row_vector");
    CHECK(first_line_of_error(model("target += y * y;")) ==
          "m.stan:3:21: no operator vector * vector");
    CHECK(first_line_of_error(model("target += y' * y;")) == "ok");
    CHECK(first_line_of_error(model("target += {1, 2} + 1;")) ==
          "m.stan:3:26: no operator array[] int + int");
    CHECK(first_line_of_error(model("target += 1 % 2.0;")) ==
          "m.stan:3:21: no operator int % real");
}

TEST_CASE("Stan's library decides what is valid Stan; advi's table what it lowers", "[stan]") {
    // Stan has step(real) only: a vector is refused as Stan refuses it
    CHECK(first_line_of_error(model("real s = step(y);")) ==
          "m.stan:3:18: step takes (real); got (vector)");
    CHECK(first_line_of_error(model("real p = gamma_p(2.0, mu);")) == "ok");
    // stanc's DataOnly arguments
    CHECK(first_line_of_error(model("real q = quantile(y, 0.5);")) == "ok");
    CHECK(first_line_of_error(model("vector[N] s = to_vector(linspaced_array(size(y), mu, 1));")) ==
          "m.stan:3:58: `linspaced_array` takes data only; argument 2 depends on the parameters");
    CHECK(first_line_of_error(model("real q = quantile(y, inv_logit(mu));")) ==
          "m.stan:3:30: `quantile` takes data only; argument 2 depends on the parameters");
    // valid Stan that advi does not lower yet: named, "not supported yet"
    CHECK(
        first_line_of_error(model("real p = owens_t(mu, 2.0) + generate_laplace_options(1).2;")) ==
        "m.stan:3:37: `generate_laplace_options` is not supported yet: a Stan library function "
        "that "
        "advi does not lower");
    // cutpoints per observation (lower_densities.cpp)
    CHECK(first_line_of_error(model("target += ordered_logistic_lpmf({1, 2} | y, {y, y});")) ==
          "ok");
    // one vector against an array of means: the vector once per mean
    CHECK(first_line_of_error(model("target += multi_normal_cholesky_lpdf(y | {y, y}, "
                                    "diag_matrix(rep_vector(1, N)));")) == "ok");
    CHECK_THAT(first_line_of_error(model("array[1] vector[1] x = dae(f, y, y, 0.0, {1.0});")),
               Catch::StartsWith("m.stan:3:32: `dae` is not supported yet: a higher-order "
                                 "function of Stan's library that advi does not lower"));
    // a distribution advi does not lower is named before its arguments are read (the function
    // it is passed is no value)
    CHECK_THAT(first_line_of_error(model("y ~ laplace_marginal_poisson_log({1}, {1}, y, K, "
                                         "(y, 1.0));")),
               Catch::StartsWith("m.stan:3:13: `laplace_marginal_poisson_log_lpmf` is not "
                                 "supported yet: a higher-order function"));
    CHECK(first_line_of_error(model("real x = integrate_1d(f, 0, 1, {mu}, {1.0}, {1});")) ==
          "m.stan:3:31: `integrate_1d` takes the name of a function of the functions block first");
    CHECK(first_line_of_error(model("vector[1] x = solve_newton(f, y);")) ==
          "m.stan:3:36: `solve_newton` takes the name of a function of the functions block first");
    CHECK(first_line_of_error(model("real s = softmax({y})[1][1];")) == "ok");
    // names Stan does not have at all
    CHECK(first_line_of_error(model("real s = no_such_function(mu);")) ==
          "m.stan:3:18: unknown function `no_such_function`");
    CHECK(first_line_of_error(model("real s = binomial_logit_lcdf(3 | 5, mu);")) ==
          "m.stan:3:18: unknown function `binomial_logit_lcdf`");
}

TEST_CASE("user functions cannot take the names of Stan's non-overloadable functions", "[stan]") {
    CHECK(first_line_of_error(with_functions("real reduce_sum(real x) { return x; }", "")) ==
          "m.stan:1:18: `reduce_sum` is a Stan library function that cannot be overloaded");
    CHECK(first_line_of_error(with_functions(
              "real laplace_marginal_tol_poisson_log_lpmf(int y) { return 1; }", "")) ==
          "m.stan:1:18: `laplace_marginal_tol_poisson_log_lpmf` is a "
          "Stan library function that cannot be overloaded");
}

TEST_CASE("stanc's rules on sizes, assignments' indices, _jacobian functions", "[stan]") {
    // a block variable's size reads only data and transformed data
    CHECK(first_line_of_error("parameters { array[3] real x;\n  array[size(x)] real z; }") ==
          "m.stan:2:14: the size of a block's variable can only read data and transformed data; "
          "`x` is a parameters variable");
    CHECK(first_line_of_error("data { int N; }\nparameters { vector[N] x; }\n"
                              "model { vector[size(x)] local = x; }") == "ok");
    // indices on the left: one multi-index group, last; no reading of the assigned variable
    const std::string head = "data { array[5] vector[5] x; }\ntransformed data {\n";
    CHECK(first_line_of_error(head + "  array[5] vector[5] y;\n  y[:][1] = x[:][1];\n}") ==
          "m.stan:4:5: the left side of an assignment cannot index a multi-index again "
          "(`y[:][1]`): write the indices in one pair of brackets (`y[:, 1]`)");
    CHECK(first_line_of_error(head + "  array[5] vector[5] y;\n  y[1][:] = x[1];\n}") == "ok");
    CHECK(first_line_of_error("generated quantities {\n  array[2] int x = {1, 2};\n"
                              "  x[x[1]] = 2;\n}") ==
          "m.stan:3:5: `x` is assigned here: the indices on the left side cannot read it");
    // a _jacobian function: only from transformed parameters or another _jacobian function
    const std::string jacobian = "functions {\n  real bar_jacobian(real x) { return x; }\n";
    CHECK(first_line_of_error(jacobian + "  real bar(real x) { return bar_jacobian(x); }\n}\n") ==
          "m.stan:3:29: `bar_jacobian` adds to the Jacobian: it can only be called in "
          "transformed parameters or in another `_jacobian` function");
    CHECK(first_line_of_error(jacobian + "}\nparameters { real mu; }\n"
                                         "transformed parameters { real t = bar_jacobian(mu); }") ==
          "ok");
}

}  // namespace advi::stan
