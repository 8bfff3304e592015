// The value program (compile_value) on the Stan test programs and on issue 19's mixture
// written with loops over n and k: the gradient program's log density to 1e-12 relative, at
// many points, from models lowered from Stan (constraints, ordered and simplex transforms,
// transformed parameters, gathers of loop-written code).
#include <cmath>
#include <functional>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/engine/rng.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi {
namespace {

using advi::test::read_file;

void check_same_lp(const std::string& file, const std::string& program, const std::string& json) {
    INFO(file);
    const auto lowered =
        stan::lower(stan::parse_program(program, file), read_json_data(json, "data.json"));
    const ModelSpec m = lowered->model().spec();
    Program gradient = compile(m);
    Program value = compile_value(m);
    Rng rng(11);
    Eigen::VectorXd zeta(m.zeta_dim()), grad, none;
    for (int k = 0; k < 20; ++k) {
        rng.fill_normal(zeta);
        zeta *= 0.1 * k;  // 0: the origin; up to 1.9 sd in every coordinate
        const double expected = gradient.run(zeta, grad);
        const double got = value.run(zeta, none);
        INFO("point " << k << ": value " << got << ", gradient program " << expected);
        REQUIRE(std::isfinite(expected));
        CHECK(std::abs(got - expected) <= 1e-12 * std::max(1.0, std::abs(expected)));
    }
}

std::string list(int n, const std::function<std::string(int)>& item) {
    std::string s;
    for (int i = 0; i < n; ++i) s += (i ? "," : "") + item(i);
    return s;
}

TEST_CASE("the value program gives the gradient program's lp on the Stan test programs", "[stan]") {
    const std::string dir = std::string(ADVI_SOURCE_DIR) + "/tests/dsl/stan/programs/";
    const std::string schools = R"({"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12],
                                    "sigma": [15, 10, 16, 11, 9, 11, 10, 18]})";
    for (const char* f : {"eight_schools_centered.stan", "eight_schools_noncentered.stan"})
        check_same_lp(f, read_file(dir + f), schools);
    const auto real = [](int i) { return fmt::format("{}", std::cos(1.7 * i)); };
    check_same_lp(
        "radon_varying_intercept.stan", read_file(dir + "radon_varying_intercept.stan"),
        fmt::format(R"({{"N": 40, "J": 4, "county": [{}], "x": [{}], "y": [{}]}})",
                    list(40, [](int i) { return std::to_string(1 + (i * 7) % 4); }),
                    list(40, [](int i) { return std::to_string(i % 2); }), list(40, real)));
    check_same_lp("logistic_regression.stan", read_file(dir + "logistic_regression.stan"),
                  fmt::format(R"({{"N": 30, "K": 3, "X": [{}], "y": [{}]}})",
                              list(30,
                                   [](int i) {
                                       return fmt::format("[{},{},{}]", std::sin(i), std::cos(i),
                                                          0.1 * (i % 5));
                                   }),
                              list(30, [](int i) { return std::to_string((i * 5) % 3 == 0); })));
    check_same_lp("stochastic_volatility.stan", read_file(dir + "stochastic_volatility.stan"),
                  fmt::format(R"({{"T": 50, "y": [{}]}})", list(50, real)));
    check_same_lp("mixture.stan", read_file(dir + "mixture.stan"),
                  fmt::format(R"({{"N": 60, "K": 3, "y": [{}]}})", list(60, [](int i) {
                                  return fmt::format("{}", 3.0 * std::sin(i));
                              })));
    check_same_lp(
        "gamma_poisson_factorization.stan", read_file(dir + "gamma_poisson_factorization.stan"),
        fmt::format(
            R"({{"U": 6, "I": 5, "K": 2, "a": 0.3, "b": 1.0, "y": [{}]}})", list(6, [](int u) {
                return "[" + list(5, [u](int i) { return std::to_string((u * i) % 4); }) + "]";
            })));
}

TEST_CASE("the value program of issue 19's mixture written with loops", "[stan]") {
    const std::string program = R"(
data { int<lower=1> N; int<lower=1> D; int<lower=1> K; array[N] vector[D] y; }
parameters { simplex[K] theta; array[K] vector[D] mu; array[K] vector<lower=0>[D] sigma; }
model {
  for (k in 1:K) { mu[k] ~ normal(0, 5); sigma[k] ~ lognormal(0, 1); }
  for (n in 1:N) {
    vector[K] lps;
    for (k in 1:K) lps[k] = log(theta[k]) + normal_lpdf(y[n] | mu[k], sigma[k]);
    target += log_sum_exp(lps);
  }
}
)";
    const std::string json = fmt::format(
        R"({{"N": 300, "D": 4, "K": 3, "y": [{}]}})", list(300, [](int n) {
            return "[" +
                   list(
                       4,
                       [n](int d) { return fmt::format("{}", std::sin(0.37 * n + d) * (n % 3)); }) +
                   "]";
        }));
    check_same_lp("mixture_loops.stan", program, json);
}

}  // namespace
}  // namespace advi
