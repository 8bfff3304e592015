// Stan's ODE solvers (ode_solvers.hpp, lower_ode.cpp) against the closed-form solution written
// out by hand, each interface; conditions on parameters (if, ?:, return on both sides) against
// the same model written with step(); and the errors, each naming the call.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

std::unique_ptr<LoweredProgram> lower_text(const std::string& program,
                                           const std::string& json = "{}") {
    return lower(parse_program(program, "m.stan"), read_json_data(json, "d.json"));
}

void check_same(const std::string& a, const std::string& b, double tol,
                const std::string& json = "{}") {
    INFO(a << "\nagainst\n" << b);
    const auto la = lower_text(a, json);
    const auto lb = lower_text(b, json);
    advi::test::check_same_density(la->model().spec(), lb->model().spec(), tol);
}

// y' = -k y from y(0) = 2: y(t) = 2 exp(-k t); the density reads y at 0.5, 1 and 2.
const std::string kClosedForm = R"(
parameters { real<lower=0> k; }
model {
  k ~ lognormal(0, 1);
  target += 2 * exp(-k * 0.5) - 2 * (2 * exp(-k)) + 0.5 * (2 * exp(-k * 2));
}
)";

std::string variadic(const std::string& call) {
    return R"(
functions {
  vector decay(real t, vector y, real k, int unused, vector scale) {
    return -k * y .* scale;
  }
}
transformed data { array[3] real ts = {0.5, 1.0, 2.0}; }
parameters { real<lower=0> k; }
model {
  array[3] vector[1] y = )" +
           call + R"(;
  k ~ lognormal(0, 1);
  target += y[1, 1] - 2 * y[2, 1] + 0.5 * y[3][1];
}
)";
}

TEST_CASE("ode_rk45 and the other variadic solvers give the closed-form solution and gradient",
          "[stan][ode]") {
    check_same(variadic("ode_rk45_tol(decay, [2.0]', 0, ts, 1e-12, 1e-12, 100000, k, 3, [1.0]')"),
               kClosedForm, 1e-8);
    check_same(variadic("ode_ckrk_tol(decay, [2.0]', 0, ts, 1e-12, 1e-12, 100000, k, 3, [1.0]')"),
               kClosedForm, 1e-8);
    check_same(variadic("ode_adjoint_tol_ctl(decay, [2.0]', 0, ts, 1e-12, [1e-12]', 1e-8, "
                        "[1e-8]', 1e-8, 1e-8, 100000, 150, 1, 2, 2, k, 3, [1.0]')"),
               kClosedForm, 1e-8);
    for (const std::string f : {"ode_rk45", "ode_ckrk", "ode_adams", "ode_bdf"})
        check_same(variadic(f + "(decay, [2.0]', 0, ts, k, 3, [1.0]')"), kClosedForm, 1e-4);
}

TEST_CASE("integrate_ode_rk45: arrays, theta, x_r and x_i, with and without tolerances",
          "[stan][ode]") {
    const std::string program = R"(
functions {
  array[] real decay(real t, array[] real y, array[] real theta, array[] real x_r,
                     array[] int x_i) {
    return {-theta[1] * y[1] * x_r[x_i[1]]};
  }
}
data { real t0; array[3] real ts; }
transformed data { array[2] real x_r = {5.0, 1.0}; array[1] int x_i = {2}; }
parameters { real<lower=0> k; }
model {
  array[3, 1] real y = CALL;
  k ~ lognormal(0, 1);
  target += y[1, 1] - 2 * y[2, 1] + 0.5 * y[3, 1];
}
)";
    const std::string json = R"({"t0": 0, "ts": [0.5, 1, 2]})";
    auto with = [&](const std::string& call) {
        std::string p = program;
        p.replace(p.find("CALL"), 4, call);
        return p;
    };
    check_same(with("integrate_ode_rk45(decay, {2.0}, t0, ts, {k}, x_r, x_i, 1e-12, 1e-12, 1e5)"),
               kClosedForm, 1e-8, json);
    check_same(with("integrate_ode_bdf(decay, {2.0}, t0, ts, {k}, x_r, x_i)"), kClosedForm, 1e-4,
               json);
}

TEST_CASE("a condition on a parameter: both sides computed, values selected", "[stan][ode]") {
    const std::string head = "parameters { vector[3] x; }\n";
    check_same(head +
                   "model { real a = 1; if (x[1] > 0) a = square(x[1]); else if (x[2] <= 0) "
                   "a = -x[1]; else a = x[3]; target += a; }",
               head +
                   "model { target += step(x[1]) * square(x[1]) + (1 - step(x[1])) * "
                   "(step(-x[2]) * -x[1] + (1 - step(-x[2])) * x[3]); }",
               1e-12);
    check_same(head + "model { target += x[1] < x[2] && !(x[3] >= 0) ? x[1] : x[2]; }",
               head +
                   "model { real c = (1 - step(x[1] - x[2])) * (1 - step(x[3])); "
                   "target += c * x[1] + (1 - c) * x[2]; }",
               1e-12);
    check_same("functions { real f(real y) { if (y > 0) return y^2; else return -y; } }\n" + head +
                   "model { target += f(x[1]); }",
               head + "model { target += step(x[1]) * x[1]^2 - (1 - step(x[1])) * x[1]; }", 1e-12);
    // an element assigned on one side: the whole vector selected
    check_same(head + "model { vector[3] v = x; if (x[1] > 0) v[2] = 5; target += sum(v); }",
               head +
                   "model { target += x[1] + x[3] + step(x[1]) * 5 + (1 - step(x[1])) * x[2]; "
                   "}",
               1e-12);
}

TEST_CASE("a condition on a parameter around target terms: each side's terms where it is taken",
          "[stan][ode]") {
    const std::string head = "data { vector[2] y; }\nparameters { vector[3] x; }\n";
    const std::string json = R"({"y": [0.3, -1.2]})";
    check_same(head +
                   "model { if (x[1] > 0) y ~ normal(x[2], 1); else { target += -square(x[3]); "
                   "y ~ normal(x[3], 2); } }",
               head +
                   "model { target += step(x[1]) * normal_lpdf(y | x[2], 1) + (1 - step(x[1])) * "
                   "(-square(x[3]) + normal_lpdf(y | x[3], 2)); }",
               1e-12, json);
    // nested, with an else-if
    check_same(head +
                   "model { if (x[1] > 0) { if (x[2] > 0) target += x[3]; } else if (x[3] < 1) "
                   "target += 2 * x[2]; }",
               head +
                   "model { target += step(x[1]) * step(x[2]) * x[3] + (1 - step(x[1])) * (1 - "
                   "step(x[3] - 1)) * 2 * x[2]; }",
               1e-12, json);
}

// Assigned on one side only: the other side leaves Stan's unassigned value (NaN; an int, the
// smallest int), so the density is NaN where that side is taken, as in Stan.
TEST_CASE("a condition on a parameter that assigns on one side only", "[stan][ode]") {
    const auto low =
        lower_text("parameters { real x; } model { real a; if (x > 0) a = 1; target += a; }");
    advi::Program p = compile(low->model().spec());
    Eigen::VectorXd z(1), g(1);
    z << 0.5;
    CHECK(p.run(z, g) == Approx(1.0));
    z << -0.5;
    CHECK(std::isnan(p.run(z, g)));
}

TEST_CASE("the errors of ODE calls and of conditions on parameters name what is wrong",
          "[stan][ode]") {
    auto error_of = [](const std::string& program) {
        try {
            (void)lower_text(program);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string f = "functions { vector f(real t, vector y, real k) { return -k * y; } }\n";
    CHECK_THAT(error_of(f + "parameters { real k; } model { array[1] vector[1] y = ode_rk45(f, "
                            "[1.0]', 0, {k}, k); }"),
               Catch::Contains("the output times that depend on parameters are not supported yet"));
    CHECK_THAT(error_of(f + "parameters { real k; } model { array[1] vector[1] y = ode_rk45(f, "
                            "[1.0]', 2, {1.0}, k); }"),
               Catch::Contains("initial time"));
    CHECK_THAT(error_of(f + "parameters { real k; } model { array[1] vector[1] y = ode_rk45(f, "
                            "[1.0]', 0, {1.0}, [1.0]'); }"),
               Catch::Contains("ode_rk45 solves a function (real, vector, <the remaining "
                               "arguments' types>) => vector; `f` is (real, vector, real)"));
    CHECK_THAT(error_of(f + "parameters { real k; } model { array[1] vector[1] y = ode_rk45(f, "
                            "{1.0}, 0, {1.0}, k); }"),
               Catch::Contains("ode_rk45 takes (f, vector, real, array[] real, ...)"));
    CHECK_THAT(error_of(f + "parameters { real k; } model { array[1] vector[1] y = "
                            "ode_adjoint_tol_ctl(f, [1.0]', 0, {1.0}, 1e-6, [1e-6, 1e-6]', 1e-6, "
                            "[1e-6]', 1e-6, 1e-6, 1000, 150, 1, 2, 2, k); }"),
               Catch::Contains("abs_tol_forward has 2 elements for a state of 1"));
    CHECK_THAT(error_of("functions { real g(real y) { if (y > 0) return y; return -y; } }\n"
                        "parameters { real x; } model { target += g(x); }"),
               Catch::Contains("a `return` on one side only"));
}

}  // namespace
}  // namespace advi::stan
