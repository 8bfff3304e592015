// Distributions as user functions: `advi::normal(mu, sigma)` names a row of the
// distribution table with its arguments, for Model::param (a prior) or Model::observe.
#pragma once

#include <vector>

#include <advi/dist/distribution.hpp>

#include "expr.hpp"

namespace advi {

struct Dist {
    const DistInfo* info = nullptr;
    std::vector<Arg> args;
};

// A distribution of the table by name, with its arguments.
[[nodiscard]] Dist dist(std::string_view name, std::vector<Arg> args);

// clang-format off
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
// clang-format on

}  // namespace advi
