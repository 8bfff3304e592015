// The distributions, one row each, with full normalising constants (Stan's
// parameterisations). Each builder adds elementwise terms; Terms sums them.
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <advi/dist/distribution.hpp>
#include <advi/dist/multivariate.hpp>
#include <advi/dist/wiener.hpp>

namespace advi {
namespace {

using Args = std::span<const NodeId>;
constexpr double kLogPi = 1.1447298858494002;        // log(pi)
constexpr double kHalfLog2Pi = 0.91893853320467274;  // log(2 pi) / 2

Support real(const Graph&, Args) {
    return Support::real();
}
Support positive(const Graph&, Args) {
    return Support::positive();
}
Support unit(const Graph&, Args) {
    return Support::interval(0, 1);
}
Support none(const Graph&, Args) {
    return Support::real();
}
Support uniform_support(const Graph& g, Args a) {
    auto lo = g.const_value(a[0]);
    auto hi = g.const_value(a[1]);
    if (!lo || !hi) {
        throw ModelError(
            "uniform: a prior with non-constant bounds needs its support declared "
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
void uniform(Terms& t, NodeId, Args a) {
    t.add(t.neg(t.f(Op::Log, t.sub(a[1], a[0]))));
}
// flat: the improper uniform density on the reals (log density 0), for a latent whose
// density comes from other terms, as a Stan parameter without a sampling statement.
void flat(Terms&, NodeId, Args) {}
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
// bernoulli(y | theta) = y log(theta) + (1 - y) log1p(-theta), as Stan's branch on y: the
// term of the other outcome is 0 with gradient 0 even where its log is -inf (theta = 1 reached
// through parameters, a^0 b^0 in posteriordb's dogs model, at y = 1 was 0 * -inf = NaN). The
// first as lmultiply (0 log 0 = 0); in the second theta shrinks by 2^-52 where y = 1 (its
// factor is 0 there), and is exact where y = 0, keeping log1p's digits for a small theta.
void bernoulli(Terms& t, NodeId y, Args a) {
    t.add(t.g().apply(Op::Lmultiply, y, a[0]));
    const NodeId shrunk = t.mul(a[0], t.sub(t.c(1), t.mul(y, t.c(std::ldexp(1.0, -52)))));
    t.add(t.mul(t.sub(t.c(1), y), t.f(Op::Log1p, t.neg(shrunk))));
}
// bernoulli_logit(y | alpha) = y log logit^-1(alpha) + (1 - y) log logit^-1(-alpha)
//                            = y alpha - log(1 + exp(alpha)),
// one transcendental pass for the value and one (logit^-1) for the gradient.
void bernoulli_logit(Terms& t, NodeId y, Args a) {
    t.add(t.mul(y, a[0]));
    t.add(t.neg(t.f(Op::Log1pExp, a[0])));
}

// ---------------------------------------------------------------- counts with N, more scalar rows

NodeId apply2(Terms& t, Op op, NodeId a, NodeId b) {
    return t.g().apply(op, a, b);
}
// Integer data arguments (binomial's N) enter the arithmetic as reals.
NodeId real_arg(Terms& t, NodeId a) {
    return t.g()[a].dtype == DType::Int ? t.f(Op::ToReal, a) : a;
}
// log C(n, k) = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)
NodeId lchoose(Terms& t, NodeId n, NodeId k) {
    const NodeId one = t.c(1);
    return t.sub(t.f(Op::Lgamma, t.add(n, one)),
                 t.add(t.f(Op::Lgamma, t.add(k, one)), t.f(Op::Lgamma, t.add(t.sub(n, k), one))));
}
// log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b)
NodeId lbeta(Terms& t, NodeId a, NodeId b) {
    return t.sub(t.add(t.f(Op::Lgamma, a), t.f(Op::Lgamma, b)), t.f(Op::Lgamma, t.add(a, b)));
}

// binomial(n | N, theta) = log C(N, n) + n log(theta) + (N - n) log(1 - theta), with
// lmultiply's 0 log 0 = 0 so that theta = 0 or 1 given as data is exact at n = 0 or N.
void binomial(Terms& t, NodeId n, Args a) {
    const NodeId N = real_arg(t, a[0]);
    t.add(lchoose(t, N, n));
    t.add(apply2(t, Op::Lmultiply, n, a[1]));
    t.add(apply2(t, Op::Lmultiply, t.sub(N, n), t.sub(t.c(1), a[1])));
}
// binomial_logit(n | N, alpha) = binomial(n | N, logit^-1(alpha))
//   = log C(N, n) + n log logit^-1(alpha) + (N - n) log logit^-1(-alpha)
//   = log C(N, n) + n alpha - N log(1 + e^alpha): log1p_exp never overflows.
void binomial_logit(Terms& t, NodeId n, Args a) {
    const NodeId N = real_arg(t, a[0]);
    t.add(lchoose(t, N, n));
    t.add(t.mul(n, a[1]));
    t.add(t.neg(t.mul(N, t.f(Op::Log1pExp, a[1]))));
}
// beta_binomial(n | N, alpha, beta) = log C(N, n) + lbeta(n + alpha, N - n + beta)
//                                     - lbeta(alpha, beta)
void beta_binomial(Terms& t, NodeId n, Args a) {
    const NodeId N = real_arg(t, a[0]);
    t.add(lchoose(t, N, n));
    t.add(lbeta(t, t.add(n, a[1]), t.add(t.sub(N, n), a[2])));
    t.add(t.neg(lbeta(t, a[1], a[2])));
}
// neg_binomial_2(n | mu, phi) = lgamma(n + phi) - lgamma(n + 1) - lgamma(phi)
//     + n log(mu / (mu + phi)) + phi log(phi / (mu + phi)),
// with log(mu / (mu + phi)) = log logit^-1(d) and log(phi / (mu + phi)) = log logit^-1(-d)
// for d = log(mu) - log(phi): neither ratio is formed, so a huge phi (the Poisson limit) or
// a tiny mu loses no digits. `d` is log(mu / phi) for neg_binomial_2, eta - log(phi) for
// neg_binomial_2_log (mu = e^eta, never formed).
void neg_binomial_2_terms(Terms& t, NodeId n, NodeId d, NodeId phi) {
    t.add(t.sub(t.f(Op::Lgamma, t.add(n, phi)), t.f(Op::Lgamma, t.add(n, t.c(1)))));
    t.add(t.neg(t.f(Op::Lgamma, phi)));
    t.add(t.mul(n, t.f(Op::LogInvLogit, d)));
    t.add(t.mul(phi, t.f(Op::LogInvLogit, t.neg(d))));
}
void neg_binomial_2(Terms& t, NodeId n, Args a) {
    neg_binomial_2_terms(t, n, t.sub(t.f(Op::Log, a[0]), t.f(Op::Log, a[1])), a[1]);
}
void neg_binomial_2_log(Terms& t, NodeId n, Args a) {
    neg_binomial_2_terms(t, n, t.sub(a[0], t.f(Op::Log, a[1])), a[1]);
}
// neg_binomial(n | alpha, beta) is neg_binomial_2(n | alpha / beta, alpha): d = -log(beta)
void neg_binomial(Terms& t, NodeId n, Args a) {
    neg_binomial_2_terms(t, n, t.neg(t.f(Op::Log, a[1])), a[0]);
}
// beta_neg_binomial(n | r, alpha, beta) = lbeta(n + r, alpha + beta) - lbeta(r, alpha)
//     + lgamma(n + beta) - lgamma(n + 1) - lgamma(beta)
void beta_neg_binomial(Terms& t, NodeId n, Args a) {
    t.add(lbeta(t, t.add(n, a[0]), t.add(a[1], a[2])));
    t.add(t.neg(lbeta(t, a[0], a[1])));
    t.add(t.sub(t.f(Op::Lgamma, t.add(n, a[2])), t.f(Op::Lgamma, t.add(n, t.c(1)))));
    t.add(t.neg(t.f(Op::Lgamma, a[2])));
}
// yule_simon(n | alpha) = log(alpha) + lbeta(n, alpha + 1), n >= 1
void yule_simon(Terms& t, NodeId n, Args a) {
    t.add(t.f(Op::Log, a[0]));
    t.add(lbeta(t, n, t.add(a[0], t.c(1))));
}
// discrete_range(n | lower, upper) = -log(upper - lower + 1) on lower..upper, -inf outside
void discrete_range(Terms& t, NodeId n, Args a) {
    const NodeId lo = real_arg(t, a[0]), hi = real_arg(t, a[1]);
    t.add(t.neg(t.f(Op::Log, t.add(t.sub(hi, lo), t.c(1)))));
    const NodeId inside = t.mul(t.f(Op::Step, t.sub(n, lo)), t.f(Op::Step, t.sub(hi, n)));
    t.add(t.g().apply(Op::Select, inside, t.c(0), t.c(-INFINITY)));
}
// hypergeometric(n | N, a, b) = log C(a, n) + log C(b, N - n) - log C(a + b, N): n successes
// in N draws without replacement from a successes and b failures
void hypergeometric(Terms& t, NodeId n, Args a) {
    const NodeId N = real_arg(t, a[0]), s = real_arg(t, a[1]), f = real_arg(t, a[2]);
    t.add(lchoose(t, s, n));
    t.add(lchoose(t, f, t.sub(N, n)));
    t.add(t.neg(lchoose(t, t.add(s, f), N)));
}
// beta_proportion(y | mu, kappa) = beta(y | mu kappa, (1 - mu) kappa)
void beta_proportion(Terms& t, NodeId y, Args a) {
    const NodeId shapes[] = {t.mul(a[0], a[1]), t.mul(t.sub(t.c(1), a[0]), a[1])};
    beta(t, y, shapes);
}
// double_exponential(y | mu, sigma) = -log(2 sigma) - |y - mu| / sigma
void double_exponential(Terms& t, NodeId y, Args a) {
    t.add(t.neg(t.div(t.f(Op::Fabs, t.sub(y, a[0])), a[1])));
    t.add(t.neg(t.f(Op::Log, a[1])));
    t.add(t.c(-std::numbers::ln2));
}
// logistic(y | mu, sigma) = -z - log(sigma) - 2 log(1 + e^-z), z = (y - mu) / sigma;
// log1p_exp keeps e^-z from overflowing for z << 0.
void logistic(Terms& t, NodeId y, Args a) {
    const NodeId z = t.div(t.sub(y, a[0]), a[1]);
    t.add(t.neg(t.add(z, t.mul(t.c(2), t.f(Op::Log1pExp, t.neg(z))))));
    t.add(t.neg(t.f(Op::Log, a[1])));
}
// gumbel(y | mu, beta) = -log(beta) - z - e^-z, z = (y - mu) / beta
void gumbel(Terms& t, NodeId y, Args a) {
    const NodeId z = t.div(t.sub(y, a[0]), a[1]);
    t.add(t.neg(t.add(z, t.f(Op::Exp, t.neg(z)))));
    t.add(t.neg(t.f(Op::Log, a[1])));
}
// skew_normal(y | xi, omega, alpha) = log 2 - log(omega) - log(2 pi)/2 - z^2/2
//                                    + log Phi(alpha z), z = (y - xi) / omega.
// log_Phi stays finite where Phi(alpha z) underflows (alpha z < -38).
void skew_normal(Terms& t, NodeId y, Args a) {
    const NodeId z = t.div(t.sub(y, a[0]), a[1]);
    t.add(t.mul(t.c(-0.5), t.f(Op::Square, z)));
    t.add(t.f(Op::LogPhi, t.mul(a[2], z)));
    t.add(t.neg(t.f(Op::Log, a[1])));
    t.add(t.c(std::numbers::ln2 - kHalfLog2Pi));
}
// skew_double_exponential(y | mu, sigma, tau) = log 2 + log tau + log(1 - tau) - log sigma
//     - (2 / sigma) ((1 - tau) max(mu - y, 0) + tau max(y - mu, 0))
void skew_double_exponential(Terms& t, NodeId y, Args a) {
    const NodeId d = t.sub(y, a[0]);
    const NodeId below = t.g().apply(Op::Fmax, t.neg(d), t.c(0));
    const NodeId above = t.g().apply(Op::Fmax, d, t.c(0));
    const NodeId tau = a[2];
    const NodeId spread = t.add(t.mul(t.sub(t.c(1), tau), below), t.mul(tau, above));
    t.add(t.neg(t.div(t.mul(t.c(2), spread), a[1])));
    t.add(t.add(t.f(Op::Log, tau), t.f(Op::Log1p, t.neg(tau))));
    t.add(t.neg(t.f(Op::Log, a[1])));
    t.add(t.c(std::numbers::ln2));
}
// exp_mod_normal(y | mu, sigma, lambda) = log lambda + lambda (mu + lambda sigma^2 / 2 - y)
//     + log Phi((y - mu) / sigma - lambda sigma)   (Stan's erfc form, as log Phi: no underflow)
void exp_mod_normal(Terms& t, NodeId y, Args a) {
    const NodeId ls = t.mul(a[2], a[1]);
    t.add(t.f(Op::Log, a[2]));
    t.add(t.mul(a[2], t.sub(t.add(a[0], t.mul(t.c(0.5), t.mul(ls, a[1]))), y)));
    t.add(t.f(Op::LogPhi, t.sub(t.div(t.sub(y, a[0]), a[1]), ls)));
}
// chi_square(y | nu) = (nu/2 - 1) log y - y/2 - (nu/2) log 2 - lgamma(nu/2)
void chi_square(Terms& t, NodeId y, Args a) {
    const NodeId h = t.mul(t.c(0.5), a[0]);
    t.add(t.mul(t.sub(h, t.c(1)), t.f(Op::Log, y)));
    t.add(t.mul(t.c(-0.5), y));
    t.add(t.neg(t.add(t.mul(h, t.c(std::numbers::ln2)), t.f(Op::Lgamma, h))));
}
// inv_chi_square(y | nu) = -(nu/2) log 2 - lgamma(nu/2) - (nu/2 + 1) log y - 1/(2y)
void inv_chi_square(Terms& t, NodeId y, Args a) {
    const NodeId h = t.mul(t.c(0.5), a[0]);
    t.add(t.neg(t.mul(t.add(h, t.c(1)), t.f(Op::Log, y))));
    t.add(t.neg(t.div(t.c(0.5), y)));
    t.add(t.neg(t.add(t.mul(h, t.c(std::numbers::ln2)), t.f(Op::Lgamma, h))));
}
// scaled_inv_chi_square(y | nu, sigma) = (nu/2) log(nu/2) - lgamma(nu/2) + nu log(sigma)
//                                        - (nu/2 + 1) log y - (nu/2) sigma^2 / y
void scaled_inv_chi_square(Terms& t, NodeId y, Args a) {
    const NodeId h = t.mul(t.c(0.5), a[0]);
    t.add(t.neg(t.mul(t.add(h, t.c(1)), t.f(Op::Log, y))));
    t.add(t.neg(t.div(t.mul(h, t.f(Op::Square, a[1])), y)));
    t.add(t.mul(a[0], t.f(Op::Log, a[1])));
    t.add(t.sub(t.mul(h, t.f(Op::Log, h)), t.f(Op::Lgamma, h)));
}
// frechet(y | alpha, sigma) = log(alpha) + alpha log(sigma) - (alpha + 1) log y
//                             - (y / sigma)^-alpha, the last as exp(alpha (log sigma - log y))
void frechet(Terms& t, NodeId y, Args a) {
    const NodeId log_y = t.f(Op::Log, y);
    const NodeId log_sigma = t.f(Op::Log, a[1]);
    t.add(t.neg(t.mul(t.add(a[0], t.c(1)), log_y)));
    t.add(t.neg(t.f(Op::Exp, t.mul(a[0], t.sub(log_sigma, log_y)))));
    t.add(t.add(t.f(Op::Log, a[0]), t.mul(a[0], log_sigma)));
}
// pareto(y | y_min, alpha) = log(alpha) + alpha log(y_min) - (alpha + 1) log y on y >= y_min
void pareto(Terms& t, NodeId y, Args a) {
    t.add(t.neg(t.mul(t.add(a[1], t.c(1)), t.f(Op::Log, y))));
    t.add(t.add(t.f(Op::Log, a[1]), t.mul(a[1], t.f(Op::Log, a[0]))));
}
// pareto_type_2(y | mu, lambda, alpha) = log(alpha) - log(lambda)
//                                        - (alpha + 1) log(1 + (y - mu) / lambda) on y >= mu
void pareto_type_2(Terms& t, NodeId y, Args a) {
    t.add(t.neg(t.mul(t.add(a[2], t.c(1)), t.f(Op::Log1p, t.div(t.sub(y, a[0]), a[1])))));
    t.add(t.sub(t.f(Op::Log, a[2]), t.f(Op::Log, a[1])));
}
// von_mises(y | mu, kappa) = kappa cos(y - mu) - log(2 pi) - log I0(kappa); log_bessel_i0
// never forms I0(kappa), which overflows beyond kappa = 713.
void von_mises(Terms& t, NodeId y, Args a) {
    t.add(t.mul(a[1], t.f(Op::Cos, t.sub(y, a[0]))));
    t.add(t.neg(t.f(Op::LogBesselI0, a[1])));
    t.add(t.c(-std::log(2 * std::numbers::pi)));
}

// rayleigh(y | sigma) = log y - 2 log sigma - y^2 / (2 sigma^2)
void rayleigh(Terms& t, NodeId y, Args a) {
    t.add(t.f(Op::Log, y));
    t.add(t.mul(t.c(-2), t.f(Op::Log, a[0])));
    t.add(t.mul(t.c(-0.5), t.f(Op::Square, t.div(y, a[0]))));
}
// loglogistic(y | alpha, beta) = log beta - log alpha + (beta - 1) log(y / alpha)
//                                - 2 log(1 + (y / alpha)^beta), the last as log1p_exp
void loglogistic(Terms& t, NodeId y, Args a) {
    const NodeId log_ratio = t.sub(t.f(Op::Log, y), t.f(Op::Log, a[0]));
    t.add(t.sub(t.f(Op::Log, a[1]), t.f(Op::Log, a[0])));
    t.add(t.mul(t.sub(a[1], t.c(1)), log_ratio));
    t.add(t.mul(t.c(-2), t.f(Op::Log1pExp, t.mul(a[1], log_ratio))));
}

// Supports bounded by an argument: known only where that argument is a constant.
Support lower_by(const Graph& g, Args a, int k, std::string_view dist, std::string_view arg) {
    auto lo = g.const_value(a[k]);
    if (!lo) {
        throw ModelError(
            fmt::format("{}: with a non-constant `{}` the support is not known; "
                        "declare it explicitly",
                        dist, arg));
    }
    return Support::lower_bound(*lo);
}
Support pareto_support(const Graph& g, Args a) {
    return lower_by(g, a, 0, "pareto", "y_min");
}
Support pareto_type_2_support(const Graph& g, Args a) {
    return lower_by(g, a, 0, "pareto_type_2", "mu");
}
Support circle(const Graph&, Args) {
    return Support::interval(-std::numbers::pi, std::numbers::pi);
}

bool count(int y) {
    return y >= 0;
}
bool binary(int y) {
    return y == 0 || y == 1;
}
bool at_least_one(int y) {
    return y >= 1;
}
bool any_int(int) {
    return true;
}

using D = ArgDomain;
namespace mv = multivariate;
// clang-format off
constexpr DistInfo kDistributions[] = {
    // name              ar  argument names               domains                                  variate     support          log density      valid_int
    {"flat",            0, {},                          {},                                       DType::Real, real,            flat,            nullptr},
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
    // counts with N and more scalar rows; `N` is a number or integer data (converted inside the builder),
    // and the last column (upper_arg = 0) makes observe() check counts against it
    {"binomial",        2, {"N", "theta"},              {D::Count, D::Unit},                      DType::Int,  none,            binomial,        count, 0},
    {"binomial_logit",  2, {"N", "alpha"},              {D::Count, D::Real},                      DType::Int,  none,            binomial_logit,  count, 0},
    {"beta_binomial",   3, {"N", "alpha", "beta"},      {D::Count, D::Positive, D::Positive},     DType::Int,  none,            beta_binomial,   count, 0},
    {"neg_binomial_2",  2, {"mu", "phi"},               {D::Positive, D::Positive},               DType::Int,  none,            neg_binomial_2,  count},
    {"neg_binomial_2_log", 2, {"eta", "phi"},           {D::Real, D::Positive},                   DType::Int,  none,            neg_binomial_2_log, count},
    {"neg_binomial",    2, {"alpha", "beta"},           {D::Positive, D::Positive},               DType::Int,  none,            neg_binomial,    count},
    {"beta_neg_binomial", 3, {"r", "alpha", "beta"},    {D::Positive, D::Positive, D::Positive},  DType::Int,  none,            beta_neg_binomial, count},
    {"yule_simon",      1, {"alpha"},                   {D::Positive},                            DType::Int,  none,            yule_simon,      at_least_one},
    // (outside lower..upper the density is -inf, as Stan's, not an error)
    {"discrete_range",  2, {"lower", "upper"},          {D::Real, D::Real},                       DType::Int,  none,            discrete_range,  any_int},
    {"hypergeometric",  3, {"N", "a", "b"},             {D::Count, D::Count, D::Count},           DType::Int,  none,            hypergeometric,  count},
    {"beta_proportion", 2, {"mu", "kappa"},             {D::Unit, D::Positive},                   DType::Real, unit,            beta_proportion, nullptr},
    {"double_exponential", 2, {"mu", "sigma"},          {D::Real, D::Positive},                   DType::Real, real,            double_exponential, nullptr},
    {"logistic",        2, {"mu", "sigma"},             {D::Real, D::Positive},                   DType::Real, real,            logistic,        nullptr},
    {"gumbel",          2, {"mu", "beta"},              {D::Real, D::Positive},                   DType::Real, real,            gumbel,          nullptr},
    {"skew_normal",     3, {"xi", "omega", "alpha"},    {D::Real, D::Positive, D::Real},          DType::Real, real,            skew_normal,     nullptr},
    {"skew_double_exponential", 3, {"mu", "sigma", "tau"}, {D::Real, D::Positive, D::Unit},       DType::Real, real,            skew_double_exponential, nullptr},
    {"exp_mod_normal",  3, {"mu", "sigma", "lambda"},   {D::Real, D::Positive, D::Positive},      DType::Real, real,            exp_mod_normal,  nullptr},
    {"chi_square",      1, {"nu"},                      {D::Positive},                            DType::Real, positive,        chi_square,      nullptr},
    {"inv_chi_square",  1, {"nu"},                      {D::Positive},                            DType::Real, positive,        inv_chi_square,  nullptr},
    {"scaled_inv_chi_square", 2, {"nu", "sigma"},       {D::Positive, D::Positive},               DType::Real, positive,        scaled_inv_chi_square, nullptr},
    {"frechet",         2, {"alpha", "sigma"},          {D::Positive, D::Positive},               DType::Real, positive,        frechet,         nullptr},
    {"pareto",          2, {"y_min", "alpha"},          {D::Positive, D::Positive},               DType::Real, pareto_support,  pareto,          nullptr},
    {"pareto_type_2",   3, {"mu", "lambda", "alpha"},   {D::Real, D::Positive, D::Positive},      DType::Real, pareto_type_2_support, pareto_type_2, nullptr},
    {"von_mises",       2, {"mu", "kappa"},             {D::Real, D::NonNegative},                DType::Real, circle,          von_mises,       nullptr},
    {"rayleigh",        1, {"sigma"},                   {D::Positive},                            DType::Real, positive,        rayleigh,        nullptr},
    {"loglogistic",     2, {"alpha", "beta"},           {D::Positive, D::Positive},               DType::Real, positive,        loglogistic,     nullptr},
    {"wiener",          7, {"alpha", "tau", "beta", "delta", "sv", "sw", "st0"}, {D::Positive, D::NonNegative, D::Unit, D::Real, D::NonNegative, D::Unit, D::NonNegative}, DType::Real, wiener_support, wiener_log_density, nullptr},
    // multivariate rows (lib/advi/dist/multivariate.hpp: variates, shapes, 0-based categories)
    {"multi_normal",    2, {"mu", "Sigma"},             {D::Real, D::Real},                       DType::Real, mv::real_support, mv::multi_normal, nullptr, -1, true},
    {"multi_normal_cholesky", 2, {"mu", "L"},           {D::Real, D::Real},                       DType::Real, mv::real_support, mv::multi_normal_cholesky, nullptr, -1, true},
    {"dirichlet",       1, {"alpha"},                   {D::Positive},                            DType::Real, mv::simplex_support, mv::dirichlet, nullptr, -1, true},
    {"categorical",     1, {"theta"},                   {D::Unit},                                DType::Int,  mv::no_support, mv::categorical, mv::category, -1, true},
    {"categorical_logit", 1, {"beta"},                  {D::Real},                                DType::Int,  mv::no_support, mv::categorical_logit, mv::category, -1, true},
    {"ordered_logistic", 2, {"eta", "c"},               {D::Real, D::Real},                       DType::Int,  mv::no_support, mv::ordered_logistic, mv::category, -1, true},
    {"lkj_corr_cholesky", 1, {"eta"},                   {D::Positive},                            DType::Real, mv::cholesky_factor_corr_support, mv::lkj_corr_cholesky, nullptr, -1, true},
    {"lkj_corr",        1, {"eta"},                     {D::Positive},                            DType::Real, mv::corr_matrix_support, mv::lkj_corr, nullptr, -1, true},
    {"wishart",         2, {"nu", "S"},                 {D::Positive, D::Real},                   DType::Real, mv::cov_matrix_support, mv::wishart, nullptr, -1, true},
    {"inv_wishart",     2, {"nu", "S"},                 {D::Positive, D::Real},                   DType::Real, mv::cov_matrix_support, mv::inv_wishart, nullptr, -1, true},
    {"wishart_cholesky", 2, {"nu", "L_S"},              {D::Positive, D::Real},                   DType::Real, mv::cholesky_factor_cov_support, mv::wishart_cholesky, nullptr, -1, true},
    {"inv_wishart_cholesky", 2, {"nu", "L_S"},          {D::Positive, D::Real},                   DType::Real, mv::cholesky_factor_cov_support, mv::inv_wishart_cholesky, nullptr, -1, true},
};
// clang-format on

}  // namespace

std::span<const DistInfo> distributions() {
    return kDistributions;
}

}  // namespace advi
