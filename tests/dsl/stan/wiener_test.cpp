// Stan's wiener_lpdf forms (dsl/advi/stan/functions.cpp, wiener_density): four parameters, with
// drift variability sv, with sv and a precision; each against the others and vectorised against
// a loop (the values themselves: tests/graph/wiener_test.cpp); a drift-diffusion model fitted to
// responses simulated by a random walk recovers the walk's parameters; the seven-parameter form
// with zero variabilities is the five-parameter one; wiener_lcdf_unnorm and _lccdf_unnorm make
// up the probability of the upper boundary, vectorised as loops; their forms with the
// variabilities are refused as not supported yet.
#include <cmath>
#include <random>
#include <string>

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

const std::string kData = R"({"N": 4, "rt": [0.45, 0.62, 1.3, 2.7]})";

std::string program(const std::string& model) {
    return R"(
data { int N; vector[N] rt; }
parameters {
  real<lower=0.2> alpha;
  real<lower=0, upper=0.4> tau;
  real<lower=0, upper=1> beta;
  real delta;
  real<lower=0> sv;
  vector[N] delta_n;
}
model {
  alpha ~ lognormal(0, 1); beta ~ beta(2, 2); delta ~ normal(0, 1); sv ~ normal(0, 1);
  delta_n ~ normal(delta, 1);
)" + model +
           "\n}\n";
}

void check_same(const std::string& a, const std::string& b) {
    INFO(a << "\nagainst\n" << b);
    const auto la = lower(parse_program(program(a), "a.stan"), read_json_data(kData, "d.json"));
    const auto lb = lower(parse_program(program(b), "b.stan"), read_json_data(kData, "d.json"));
    advi::test::check_same_density(la->model().spec(), lb->model().spec(), 1e-11);
}

}  // namespace

TEST_CASE("wiener_lpdf: sv = 0 is the four-parameter form, the precision changes nothing",
          "[stan][wiener]") {
    // (Stan's five- and six-argument forms take all reals or all vectors)
    const std::string four = "target += wiener_lpdf(rt | alpha, tau, beta, delta);";
    check_same(four, "for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, 0);");
    check_same(four,
               "for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, 0, 1e-4);");
    check_same(four, "rt ~ wiener(alpha, tau, beta, delta);");
    check_same("for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, sv);",
               "for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, sv, 1e-6);");
}

TEST_CASE("wiener_lpdf: vectorised forms equal loops, per-trial drifts too", "[stan][wiener]") {
    check_same("rt ~ wiener(alpha, tau, beta, delta_n);",
               "for (n in 1:N) rt[n] ~ wiener(alpha, tau, beta, delta_n[n]);");
    check_same(
        "target += wiener_lpdf(rt | rep_vector(alpha, N), rep_vector(tau, N), "
        "rep_vector(beta, N), delta_n, rep_vector(sv, N));",
        "for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta_n[n], sv);");
}

TEST_CASE("wiener: a drift-diffusion fit recovers the parameters of simulated responses",
          "[stan][wiener]") {
    // 400 trials of a Brownian motion with drift 0.8 started at 0.45 * 1.5 between 0 and 1.5,
    // Euler steps of 2e-4 (their overshoot of the boundaries shortens times by about
    // 0.58 sqrt(dt) / drift-scale, well inside the tolerances below), plus tau = 0.3
    const double alpha = 1.5, tau = 0.3, beta = 0.45, delta = 0.8, dt = 2e-4;
    std::mt19937_64 rng(3);
    std::normal_distribution<double> z;
    std::string rt, resp;
    double min_rt = 1e9;
    for (int n = 0; n < 400; ++n) {
        double x = beta * alpha, t = 0;
        while (x > 0 && x < alpha) {
            x += delta * dt + std::sqrt(dt) * z(rng);
            t += dt;
        }
        min_rt = std::min(min_rt, t + tau);
        rt += fmt::format("{}{}", n == 0 ? "" : ", ", t + tau);
        resp += fmt::format("{}{}", n == 0 ? "" : ", ", x >= alpha ? 1 : 0);
    }
    const std::string json = fmt::format(R"({{"N": 400, "rt": [{}], "resp": [{}]}})", rt, resp);
    const std::string text = R"(
data { int N; vector[N] rt; array[N] int resp; }
parameters {
  real<lower=0.1> alpha;
  real<lower=0, upper=min(rt)> tau;
  real<lower=0, upper=1> beta;
  real delta;
}
model {
  alpha ~ lognormal(0, 1);
  delta ~ normal(0, 2);
  for (n in 1:N) {
    if (resp[n] == 1)
      rt[n] ~ wiener(alpha, tau, beta, delta);
    else
      rt[n] ~ wiener(alpha, tau, 1 - beta, -delta);
  }
}
)";
    const auto low = lower(parse_program(text, "ddm.stan"), read_json_data(json, "ddm.json"));
    const Fit fit = advi::fit(low->model().spec(), {.family = Family::FullRank, .seed = 1});
    // within 3 posterior sds of the truth (the posterior sds are 0.01 to 0.09 here)
    for (const auto& [name, truth] : {
             std::pair{"alpha", alpha},
             std::pair{"tau",   tau  },
             std::pair{"beta",  beta },
             std::pair{"delta", delta}
    }) {
        const Eigen::VectorXd d = fit.draws(name);
        const double mean = d.mean();
        const double sd = std::sqrt((d.array() - mean).square().mean());
        INFO(name << ": mean " << mean << " sd " << sd << " truth " << truth);
        CHECK(std::abs(mean - truth) < 3 * sd);
        CHECK(sd < 0.15);
    }
}

TEST_CASE("wiener_lpdf: the seven-parameter form, zero variabilities the five-parameter one",
          "[stan][wiener]") {
    check_same("for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, sv);",
               "for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, sv, 0, 0);");
    check_same("for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, sv, 0, 0);",
               "for (n in 1:N) target += wiener_lpdf(rt[n] | alpha, tau, beta, delta, sv, 0, 0, "
               "1e-5);");
    // sw and st0: lowered (values: tests/dist/wiener_test.cpp)
    const std::string text =
        program("target += wiener_lpdf(rt[1] | alpha, tau, beta, delta, sv, 0.1, 0.1);");
    CHECK(lower(parse_program(text, "m.stan"), read_json_data(kData, "d.json")) != nullptr);
}

TEST_CASE("wiener_lcdf_unnorm and wiener_lccdf_unnorm make up P(upper boundary)",
          "[stan][wiener]") {
    // P(upper) = (1 - e^(-2 delta beta alpha)) / (1 - e^(-2 delta alpha))
    const std::string p_upper = "log(expm1(-2 * delta * beta * alpha) / expm1(-2 * delta * alpha))";
    for (const char* precision : {"", ", 1e-6"}) {
        const std::string args = fmt::format("alpha, tau, beta, delta{}", precision);
        check_same(fmt::format("for (n in 1:N) target += log_sum_exp(wiener_lcdf_unnorm(rt[n], "
                               "{0}), wiener_lccdf_unnorm(rt[n], {0}));",
                               args),
                   "target += N * (" + p_upper + ");");
    }
    check_same(
        "target += wiener_lcdf_unnorm(rt, rep_vector(alpha, N), rep_vector(tau, N), "
        "rep_vector(beta, N), delta_n);",
        "for (n in 1:N) target += wiener_lcdf_unnorm(rt[n], alpha, tau, beta, delta_n[n]);");
    // with the variabilities: the forms of eight and nine arguments; sv, sw, st0 of 0 are the
    // form without them
    check_same(
        "for (n in 1:N) target += wiener_lccdf_unnorm(rt[n], alpha, tau, beta, delta, 0, "
        "0, 0);",
        "for (n in 1:N) target += wiener_lccdf_unnorm(rt[n], alpha, tau, beta, delta);");
    check_same(
        "for (n in 1:N) target += wiener_lcdf_unnorm(rt[n], alpha, tau, beta, delta, sv, "
        "0.1, 0.1, 1e-6);",
        "for (n in 1:N) target += wiener_lcdf_unnorm(rt[n], alpha, tau, beta, delta, sv, "
        "0.1, 0.1);");
}

TEST_CASE("log_cdf_unnorm is wiener's only", "[stan][wiener]") {
    advi::Model m;
    const advi::Expr x = m.param("x", advi::normal(0, 1));
    CHECK_THROWS_WITH(m.log_cdf_unnorm(x, advi::normal(0, 1), advi::Tail::Lower),
                      Catch::Contains("normal: no unnormalised distribution function"));
}

}  // namespace advi::stan
