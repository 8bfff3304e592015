// Distributions as user functions: `advi::normal(mu, sigma)` names a row of the
// distribution table with its arguments, for Model::param (a prior) or Model::observe.
#pragma once

#include <vector>

#include <advi/dist/distribution.hpp>

#include <advi/cpp/expr.hpp>

namespace advi {

struct Dist {
    const DistInfo* info = nullptr;
    std::vector<Arg> args;
};

// A distribution of the table by name, with its arguments.
[[nodiscard]] Dist dist(std::string_view name, std::vector<Arg> args);

// clang-format off
// The improper flat prior: a latent whose density is given by other terms (observe on an
// expression of it, target_add).
[[nodiscard]] inline Dist flat()                                { return dist("flat", {}); }
[[nodiscard]] inline Dist normal(Arg mu, Arg sigma)             { return dist("normal", {mu, sigma}); }
[[nodiscard]] inline Dist lognormal(Arg mu, Arg sigma)          { return dist("lognormal", {mu, sigma}); }
[[nodiscard]] inline Dist cauchy(Arg mu, Arg sigma)             { return dist("cauchy", {mu, sigma}); }
[[nodiscard]] inline Dist student_t(Arg nu, Arg mu, Arg sigma)  { return dist("student_t", {nu, mu, sigma}); }
[[nodiscard]] inline Dist gamma(Arg alpha, Arg beta)            { return dist("gamma", {alpha, beta}); }
[[nodiscard]] inline Dist inv_gamma(Arg alpha, Arg beta)        { return dist("inv_gamma", {alpha, beta}); }
[[nodiscard]] inline Dist weibull(Arg alpha, Arg sigma)         { return dist("weibull", {alpha, sigma}); }
[[nodiscard]] inline Dist exponential(Arg beta)                 { return dist("exponential", {beta}); }
[[nodiscard]] inline Dist beta(Arg a, Arg b)                    { return dist("beta", {a, b}); }
[[nodiscard]] inline Dist uniform(Arg a, Arg b)                 { return dist("uniform", {a, b}); }
[[nodiscard]] inline Dist poisson(Arg lambda)                   { return dist("poisson", {lambda}); }
[[nodiscard]] inline Dist poisson_log(Arg alpha)                { return dist("poisson_log", {alpha}); }
[[nodiscard]] inline Dist bernoulli(Arg theta)                  { return dist("bernoulli", {theta}); }
[[nodiscard]] inline Dist bernoulli_logit(Arg alpha)            { return dist("bernoulli_logit", {alpha}); }
// N: a number or integer data (a scalar, or a vector of the variate's shape)
[[nodiscard]] inline Dist binomial(Arg N, Arg theta)            { return dist("binomial", {N, theta}); }
[[nodiscard]] inline Dist binomial_logit(Arg N, Arg alpha)      { return dist("binomial_logit", {N, alpha}); }
[[nodiscard]] inline Dist beta_binomial(Arg N, Arg alpha, Arg beta) { return dist("beta_binomial", {N, alpha, beta}); }
[[nodiscard]] inline Dist neg_binomial_2(Arg mu, Arg phi)       { return dist("neg_binomial_2", {mu, phi}); }
[[nodiscard]] inline Dist neg_binomial_2_log(Arg eta, Arg phi)  { return dist("neg_binomial_2_log", {eta, phi}); }
[[nodiscard]] inline Dist double_exponential(Arg mu, Arg sigma) { return dist("double_exponential", {mu, sigma}); }
[[nodiscard]] inline Dist logistic(Arg mu, Arg sigma)           { return dist("logistic", {mu, sigma}); }
[[nodiscard]] inline Dist gumbel(Arg mu, Arg beta)              { return dist("gumbel", {mu, beta}); }
[[nodiscard]] inline Dist skew_normal(Arg xi, Arg omega, Arg alpha) { return dist("skew_normal", {xi, omega, alpha}); }
[[nodiscard]] inline Dist chi_square(Arg nu)                    { return dist("chi_square", {nu}); }
[[nodiscard]] inline Dist inv_chi_square(Arg nu)                { return dist("inv_chi_square", {nu}); }
[[nodiscard]] inline Dist scaled_inv_chi_square(Arg nu, Arg sigma) { return dist("scaled_inv_chi_square", {nu, sigma}); }
[[nodiscard]] inline Dist frechet(Arg alpha, Arg sigma)         { return dist("frechet", {alpha, sigma}); }
[[nodiscard]] inline Dist pareto(Arg y_min, Arg alpha)          { return dist("pareto", {y_min, alpha}); }
[[nodiscard]] inline Dist pareto_type_2(Arg mu, Arg lambda, Arg alpha) { return dist("pareto_type_2", {mu, lambda, alpha}); }
[[nodiscard]] inline Dist von_mises(Arg mu, Arg kappa)          { return dist("von_mises", {mu, kappa}); }
[[nodiscard]] inline Dist rayleigh(Arg sigma)                   { return dist("rayleigh", {sigma}); }
[[nodiscard]] inline Dist loglogistic(Arg alpha, Arg beta)      { return dist("loglogistic", {alpha, beta}); }
// response times: boundary separation, non-decision time, bias, drift, and the inter-trial
// variabilities of the drift (sd), the bias (range) and the non-decision time (range)
[[nodiscard]] inline Dist wiener(Arg alpha, Arg tau, Arg beta, Arg delta, Arg sv = 0.0, Arg sw = 0.0, Arg st0 = 0.0) { return dist("wiener", {alpha, tau, beta, delta, sv, sw, st0}); }
// Multivariate (lib/advi/dist/multivariate.hpp): y is vec[K] or mat[N,K] with one draw per row;
// categories are 0-based integer data (Stan's 1..K minus one).
[[nodiscard]] inline Dist multi_normal(Arg mu, Arg Sigma)       { return dist("multi_normal", {mu, Sigma}); }
[[nodiscard]] inline Dist multi_normal_cholesky(Arg mu, Arg L)  { return dist("multi_normal_cholesky", {mu, L}); }
[[nodiscard]] inline Dist dirichlet(Arg alpha)                  { return dist("dirichlet", {alpha}); }
[[nodiscard]] inline Dist categorical(Arg theta)                { return dist("categorical", {theta}); }
[[nodiscard]] inline Dist categorical_logit(Arg beta)           { return dist("categorical_logit", {beta}); }
[[nodiscard]] inline Dist ordered_logistic(Arg eta, Arg c)      { return dist("ordered_logistic", {eta, c}); }
[[nodiscard]] inline Dist lkj_corr_cholesky(Arg eta)            { return dist("lkj_corr_cholesky", {eta}); }
[[nodiscard]] inline Dist lkj_corr(Arg eta)                     { return dist("lkj_corr", {eta}); }
[[nodiscard]] inline Dist wishart(Arg nu, Arg S)                { return dist("wishart", {nu, S}); }
[[nodiscard]] inline Dist inv_wishart(Arg nu, Arg S)            { return dist("inv_wishart", {nu, S}); }
// Over a Cholesky factor L_W of a covariance matrix, given the Cholesky factor L_S of the scale
[[nodiscard]] inline Dist wishart_cholesky(Arg nu, Arg L_S)     { return dist("wishart_cholesky", {nu, L_S}); }
[[nodiscard]] inline Dist inv_wishart_cholesky(Arg nu, Arg L_S) { return dist("inv_wishart_cholesky", {nu, L_S}); }
// clang-format on

}  // namespace advi
