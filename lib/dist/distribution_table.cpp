// The distributions, one row each, with full normalising constants (Stan's
// parameterisations). Each builder adds elementwise terms; Terms sums them.
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <advi/graph/error.hpp>

#include "distribution.hpp"

namespace advi {
namespace {

using Args = std::span<const NodeId>;
constexpr double kLogPi = 1.1447298858494002;      // log(pi)
constexpr double kHalfLog2Pi = 0.91893853320467274;  // log(2 pi) / 2

Support real(const Graph&, Args) { return Support::real(); }
Support positive(const Graph&, Args) { return Support::positive(); }
Support unit(const Graph&, Args) { return Support::interval(0, 1); }
Support none(const Graph&, Args) { return Support::real(); }
Support uniform_support(const Graph& g, Args a) {
    auto lo = g.const_value(a[0]);
    auto hi = g.const_value(a[1]);
    if (!lo || !hi) {
        throw ModelError("uniform: a prior with non-constant bounds needs its support declared "
                         "explicitly");
    }
    return Support::interval(*lo, *hi);
}

// normal(x | mu, sigma) = -log(sigma) - log(2 pi)/2 - ((x - mu)/sigma)^2 / 2
void normal(Terms& t, NodeId x, Args a) {
    const NodeId z = t.div(t.sub(x, a[0]), a[1]);
    t.add(t.mul(t.c(-0.5), t.f(Op::Square, z)));
    t.add(t.neg(t.f(Op::Log, a[1])));
    t.add(t.c(-kHalfLog2Pi));
}
// lognormal(x | mu, sigma) = normal(log x | mu, sigma) - log x
void lognormal(Terms& t, NodeId x, Args a) {
    const NodeId lx = t.f(Op::Log, x);
    normal(t, lx, a);
    t.add(t.neg(lx));
}
// cauchy(x | mu, sigma) = -log(pi) - log(sigma) - log(1 + ((x - mu)/sigma)^2)
void cauchy(Terms& t, NodeId x, Args a) {
    const NodeId z = t.div(t.sub(x, a[0]), a[1]);
    t.add(t.neg(t.f(Op::Log1p, t.f(Op::Square, z))));
    t.add(t.neg(t.f(Op::Log, a[1])));
    t.add(t.c(-kLogPi));
}
// student_t(x | nu, mu, sigma) = lgamma((nu+1)/2) - lgamma(nu/2) - log(nu pi)/2 - log(sigma)
//                                - (nu+1)/2 log(1 + ((x - mu)/sigma)^2 / nu)
void student_t(Terms& t, NodeId x, Args a) {
    const NodeId nu = a[0];
    const NodeId half_nu = t.mul(t.c(0.5), nu);
    const NodeId half_nu1 = t.add(half_nu, t.c(0.5));
    const NodeId z = t.div(t.sub(x, a[1]), a[2]);
    t.add(t.neg(t.mul(half_nu1, t.f(Op::Log1p, t.div(t.f(Op::Square, z), nu)))));
    t.add(t.sub(t.f(Op::Lgamma, half_nu1), t.f(Op::Lgamma, half_nu)));
    t.add(t.mul(t.c(-0.5), t.f(Op::Log, nu)));
    t.add(t.neg(t.f(Op::Log, a[2])));
    t.add(t.c(-0.5 * kLogPi));
}
// gamma(x | alpha, beta) = alpha log(beta) - lgamma(alpha) + (alpha - 1) log x - beta x
void gamma(Terms& t, NodeId x, Args a) {
    t.add(t.mul(t.sub(a[0], t.c(1)), t.f(Op::Log, x)));
    t.add(t.neg(t.mul(a[1], x)));
    t.add(t.mul(a[0], t.f(Op::Log, a[1])));
    t.add(t.neg(t.f(Op::Lgamma, a[0])));
}
// inv_gamma(x | alpha, beta) = alpha log(beta) - lgamma(alpha) - (alpha + 1) log x - beta / x
void inv_gamma(Terms& t, NodeId x, Args a) {
    t.add(t.neg(t.mul(t.add(a[0], t.c(1)), t.f(Op::Log, x))));
    t.add(t.neg(t.div(a[1], x)));
    t.add(t.mul(a[0], t.f(Op::Log, a[1])));
    t.add(t.neg(t.f(Op::Lgamma, a[0])));
}
// weibull(x | alpha, sigma) = log(alpha) - log(sigma) + (alpha - 1)(log x - log sigma)
//                             - (x / sigma)^alpha
void weibull(Terms& t, NodeId x, Args a) {
    const NodeId log_sigma = t.f(Op::Log, a[1]);
    t.add(t.mul(t.sub(a[0], t.c(1)), t.sub(t.f(Op::Log, x), log_sigma)));
    t.add(t.neg(t.g().apply(Op::Pow, t.div(x, a[1]), a[0])));
    t.add(t.sub(t.f(Op::Log, a[0]), log_sigma));
}
// exponential(x | beta) = log(beta) - beta x
void exponential(Terms& t, NodeId x, Args a) {
    t.add(t.neg(t.mul(a[0], x)));
    t.add(t.f(Op::Log, a[0]));
}
// beta(x | a, b) = (a - 1) log x + (b - 1) log(1 - x) - lbeta(a, b)
void beta(Terms& t, NodeId x, Args a) {
    t.add(t.mul(t.sub(a[0], t.c(1)), t.f(Op::Log, x)));
    t.add(t.mul(t.sub(a[1], t.c(1)), t.f(Op::Log1p, t.neg(x))));
    t.add(t.sub(t.f(Op::Lgamma, t.add(a[0], a[1])),
                t.add(t.f(Op::Lgamma, a[0]), t.f(Op::Lgamma, a[1]))));
}
// uniform(x | a, b) = -log(b - a) on (a, b); the support guarantees x inside for latents,
// and observe() checks data against it.
void uniform(Terms& t, NodeId, Args a) { t.add(t.neg(t.f(Op::Log, t.sub(a[1], a[0])))); }
// poisson(y | lambda) = y log(lambda) - lambda - lgamma(y + 1)
void poisson(Terms& t, NodeId y, Args a) {
    t.add(t.mul(y, t.f(Op::Log, a[0])));
    t.add(t.neg(a[0]));
    t.add(t.neg(t.f(Op::Lgamma, t.add(y, t.c(1)))));
}
// poisson_log(y | alpha) = poisson(y | exp(alpha)) = y alpha - exp(alpha) - lgamma(y + 1)
void poisson_log(Terms& t, NodeId y, Args a) {
    t.add(t.mul(y, a[0]));
    t.add(t.neg(t.f(Op::Exp, a[0])));
    t.add(t.neg(t.f(Op::Lgamma, t.add(y, t.c(1)))));
}
// bernoulli(y | theta) = y log(theta) + (1 - y) log(1 - theta)
void bernoulli(Terms& t, NodeId y, Args a) {
    t.add(t.mul(y, t.f(Op::Log, a[0])));
    t.add(t.mul(t.sub(t.c(1), y), t.f(Op::Log1p, t.neg(a[0]))));
}
// bernoulli_logit(y | alpha) = y log logit^-1(alpha) + (1 - y) log logit^-1(-alpha)
//                            = y alpha - log(1 + exp(alpha)),
// one transcendental pass for the value and one (logit^-1) for the gradient.
void bernoulli_logit(Terms& t, NodeId y, Args a) {
    t.add(t.mul(y, a[0]));
    t.add(t.neg(t.f(Op::Log1pExp, a[0])));
}

bool count(int y) { return y >= 0; }
bool binary(int y) { return y == 0 || y == 1; }

using D = ArgDomain;
// clang-format off
constexpr DistInfo kDistributions[] = {
    // name              ar  argument names               domains                                  variate     support          log density      valid_int
    {"normal",          2, {"mu", "sigma"},             {D::Real, D::Positive},                   DType::Real, real,            normal,          nullptr},
    {"lognormal",       2, {"mu", "sigma"},             {D::Real, D::Positive},                   DType::Real, positive,        lognormal,       nullptr},
    {"cauchy",          2, {"mu", "sigma"},             {D::Real, D::Positive},                   DType::Real, real,            cauchy,          nullptr},
    {"student_t",       3, {"nu", "mu", "sigma"},       {D::Positive, D::Real, D::Positive},      DType::Real, real,            student_t,       nullptr},
    {"gamma",           2, {"alpha", "beta"},           {D::Positive, D::Positive},               DType::Real, positive,        gamma,           nullptr},
    {"inv_gamma",       2, {"alpha", "beta"},           {D::Positive, D::Positive},               DType::Real, positive,        inv_gamma,       nullptr},
    {"weibull",         2, {"alpha", "sigma"},          {D::Positive, D::Positive},               DType::Real, positive,        weibull,         nullptr},
    {"exponential",     1, {"beta"},                    {D::Positive},                            DType::Real, positive,        exponential,     nullptr},
    {"beta",            2, {"alpha", "beta"},           {D::Positive, D::Positive},               DType::Real, unit,            beta,            nullptr},
    {"uniform",         2, {"alpha", "beta"},           {D::Real, D::Real},                       DType::Real, uniform_support, uniform,         nullptr},
    {"poisson",         1, {"lambda"},                  {D::NonNegative},                         DType::Int,  none,            poisson,         count},
    {"poisson_log",     1, {"alpha"},                   {D::Real},                                DType::Int,  none,            poisson_log,     count},
    {"bernoulli",       1, {"theta"},                   {D::Unit},                                DType::Int,  none,            bernoulli,       binary},
    {"bernoulli_logit", 1, {"alpha"},                   {D::Real},                                DType::Int,  none,            bernoulli_logit, binary},
};
// clang-format on

}  // namespace

std::span<const DistInfo> distributions() { return kDistributions; }

}  // namespace advi
