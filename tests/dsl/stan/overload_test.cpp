// Overloaded user functions (Stan 2.29): each call picks the overload its argument types fit
// with the fewest int-to-real promotions, in the checker and again in the lowering; user
// densities and ODE right-hand sides too; the errors name the overloads.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

std::unique_ptr<LoweredProgram> lower_text(const std::string& program) {
    return lower(parse_program(program, "m.stan"), read_json_data("{}", "d.json"));
}

void check_same(const std::string& a, const std::string& b, double tol = 1e-12) {
    INFO(a << "\nagainst\n" << b);
    advi::test::check_same_density(lower_text(a)->model().spec(), lower_text(b)->model().spec(),
                                   tol);
}

std::string error_of(const std::string& program) {
    try {
        (void)lower_text(program);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no error";
}

const std::string kParams = "parameters { vector[3] x; }\n";

}  // namespace

TEST_CASE("an overloaded user function: each call takes the overload its arguments fit",
          "[stan][overload]") {
    check_same(
        "functions { real f(real x) { return 2 * x; } real f(vector x) { return sum(x); } "
        "}\n" +
            kParams + "model { target += f(x[1]) + f(x); }",
        kParams + "model { target += 2 * x[1] + sum(x); }");
    // an int argument: the int overload, exact, over the real one, a promotion
    check_same("functions { real g(real x) { return x; } real g(int n) { return 10 * n; } }\n" +
                   kParams + "model { target += g(2) * x[1] + g(2.5) * x[2]; }",
               kParams + "model { target += 20 * x[1] + 2.5 * x[2]; }");
    // a forward declaration of one overload
    check_same(
        "functions { real h(real x); real h(vector x) { return 3 * sum(x); } "
        "real h(real x) { return -x; } }\n" +
            kParams + "model { target += h(x[1]) + h(x); }",
        kParams + "model { target += -x[1] + 3 * sum(x); }");
}

TEST_CASE("overloaded user densities and ODE right-hand sides", "[stan][overload]") {
    check_same(
        "functions { real foo_lpdf(real y, real mu) { return -square(y - mu); }\n"
        "real foo_lpdf(vector y, real mu) { return -2 * dot_self(y - mu); } }\n" +
            kParams + "model { x ~ foo(1); x[1] ~ foo(0); target += foo_lpdf(x[2] | 3); }",
        kParams +
            "model { target += -2 * dot_self(x - 1) - square(x[1]) - "
            "square(x[2] - 3); }");
    check_same(R"(
functions {
  vector decay(real t, vector y, real k) { return -k * y; }
  vector decay(real t, vector y, vector k) { return -k .* y; }
}
parameters { real<lower=0> k; }
model {
  array[1] vector[1] a = ode_rk45_tol(decay, [2.0]', 0, {1.0}, 1e-12, 1e-12, 100000, k);
  array[1] vector[1] b = ode_rk45_tol(decay, [2.0]', 0, {1.0}, 1e-12, 1e-12, 100000, [k]');
  target += a[1, 1] + b[1, 1];
}
)",
               "parameters { real<lower=0> k; } model { target += 4 * exp(-k); }", 1e-8);
}

TEST_CASE("the errors of overloads name the signatures", "[stan][overload]") {
    CHECK_THAT(error_of("functions { real f(real x) { return x; } vector f(real x) { return [x]'; "
                        "} }\n" +
                        kParams + "model { }"),
               Catch::Contains("declared again with the same arguments and another signature"));
    CHECK_THAT(error_of("functions { real f(real x) { return x; } real f(vector x) { return "
                        "sum(x); } }\n" +
                        kParams + "model { target += f(rep_matrix(x[1], 2, 2)); }"),
               Catch::Contains("f takes (real) or (vector); got (matrix)"));
    CHECK_THAT(error_of("functions { real f(int x, real y) { return y; } real f(real x, int y) "
                        "{ return x; } }\n" +
                        kParams + "model { target += f(1, 2) * x[1]; }"),
               Catch::Contains("the call of `f` with (int, int) is ambiguous"));
    CHECK_THAT(error_of("functions { vector g(real t, vector y, real k) { return -k * y; } }\n"
                        "parameters { real k; real tol; } model { array[1] vector[1] z = "
                        "ode_rk45_tol(g, [1.0]', 0, {1.0}, tol, 1e-6, 1000, k); }"),
               Catch::Contains("ode_rk45_tol: argument 5 must be data only"));
    CHECK_THAT(error_of("functions { real f(real x) { return x; } real f(real x) { return x; } "
                        "}\n" +
                        kParams + "model { }"),
               Catch::Contains("`f` is defined twice"));
}

}  // namespace advi::stan
