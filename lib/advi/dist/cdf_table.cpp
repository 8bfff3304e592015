// The cumulative distribution functions, one row per distribution (Stan's parameterisations,
// as the density rows of distribution_table.cpp). Graph terms are written in the stable form
// of each tail: log Phi(-z) rather than log(1 - Phi(z)), log1m_exp(-u) rather than
// log(1 - exp(-u)), Cauchy's F(z) = atan2(1, -z) / pi, which keeps its relative accuracy in
// both tails where 1/2 + atan(z)/pi cancels. Piecewise CDFs (double exponential, pareto,
// uniform) blend branches whose inputs are clamped, so that the branch not taken is finite
// and a step of 0 or 1 selects it without NaN.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include <boost/math/distributions.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/dist/cdf.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/graph/ops_incomplete.hpp>
#include <advi/graph/ops_special.hpp>

namespace advi {
namespace {

using Args = std::span<const NodeId>;
using Numbers = std::span<const double>;

NodeId op(Terms& t, Op o, NodeId a, NodeId b) {
    return t.g().apply(o, a, b);
}
NodeId log_pi(Terms& t) {
    return t.c(std::log(std::numbers::pi));
}

// ---- graph terms

// normal(mu, sigma): Phi(z), z = (x - mu) / sigma
NodeId normal_z(Terms& t, NodeId x, Args a) {
    return t.div(t.sub(x, a[0]), a[1]);
}
void normal_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::LogPhi, normal_z(t, x, a)));
}
void normal_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::LogPhi, t.neg(normal_z(t, x, a))));
}
// lognormal(mu, sigma): Phi((log x - mu) / sigma)
void lognormal_lcdf(Terms& t, NodeId x, Args a) {
    normal_lcdf(t, t.f(Op::Log, x), a);
}
void lognormal_lccdf(Terms& t, NodeId x, Args a) {
    normal_lccdf(t, t.f(Op::Log, x), a);
}
// cauchy(mu, sigma): F = atan2(1, -z) / pi, 1 - F = atan2(1, z) / pi
void cauchy_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.sub(t.f(Op::Log, op(t, Op::Atan2, t.c(1), t.neg(normal_z(t, x, a)))), log_pi(t)));
}
void cauchy_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.sub(t.f(Op::Log, op(t, Op::Atan2, t.c(1), normal_z(t, x, a))), log_pi(t)));
}
// logistic(mu, sigma): F = inv_logit(z)
void logistic_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::LogInvLogit, normal_z(t, x, a)));
}
void logistic_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::LogInvLogit, t.neg(normal_z(t, x, a))));
}
// exponential(beta): 1 - F = exp(-beta x) on x >= 0
void exponential_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log1mExp, t.neg(t.mul(a[0], x))));
}
void exponential_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.neg(t.mul(a[0], x)));
}
// weibull(alpha, sigma): 1 - F = exp(-(x / sigma)^alpha)
NodeId weibull_u(Terms& t, NodeId x, Args a) {
    return t.g().apply(Op::Pow, t.div(x, a[1]), a[0]);
}
void weibull_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log1mExp, t.neg(weibull_u(t, x, a))));
}
void weibull_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.neg(weibull_u(t, x, a)));
}
// rayleigh(sigma): 1 - F = exp(-x^2 / (2 sigma^2))
NodeId rayleigh_u(Terms& t, NodeId x, Args a) {
    return t.mul(t.c(0.5), t.f(Op::Square, t.div(x, a[0])));
}
void rayleigh_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log1mExp, t.neg(rayleigh_u(t, x, a))));
}
void rayleigh_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.neg(rayleigh_u(t, x, a)));
}
// loglogistic(alpha, beta): F = 1 / (1 + (x / alpha)^-beta), so log F = -log1p_exp(-v) and
// log(1 - F) = -log1p_exp(v), v = beta log(x / alpha)
NodeId loglogistic_v(Terms& t, NodeId x, Args a) {
    return t.mul(a[1], t.sub(t.f(Op::Log, x), t.f(Op::Log, a[0])));
}
void loglogistic_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.neg(t.f(Op::Log1pExp, t.neg(loglogistic_v(t, x, a)))));
}
void loglogistic_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.neg(t.f(Op::Log1pExp, loglogistic_v(t, x, a))));
}
// frechet(alpha, sigma): F = exp(-(x / sigma)^-alpha)
NodeId frechet_u(Terms& t, NodeId x, Args a) {
    return t.g().apply(Op::Pow, t.div(x, a[1]), t.neg(a[0]));
}
void frechet_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.neg(frechet_u(t, x, a)));
}
void frechet_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log1mExp, t.neg(frechet_u(t, x, a))));
}
// gumbel(mu, beta): F = exp(-exp(-z))
NodeId gumbel_u(Terms& t, NodeId x, Args a) {
    return t.f(Op::Exp, t.neg(normal_z(t, x, a)));
}
void gumbel_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.neg(gumbel_u(t, x, a)));
}
void gumbel_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log1mExp, t.neg(gumbel_u(t, x, a))));
}
// pareto(y_min, alpha): 1 - F = (y_min / x)^alpha on x >= y_min, 1 below: the log is
// alpha * min(0, log y_min - log x)
NodeId pareto_log_tail(Terms& t, NodeId x, Args a) {
    const NodeId d = t.sub(t.f(Op::Log, a[0]), t.f(Op::Log, x));
    return t.mul(a[1], op(t, Op::Fmin, d, t.c(0)));
}
void pareto_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log1mExp, pareto_log_tail(t, x, a)));
}
void pareto_lccdf(Terms& t, NodeId x, Args a) {
    t.add(pareto_log_tail(t, x, a));
}
// pareto_type_2(mu, lambda, alpha): 1 - F = (1 + (x - mu) / lambda)^-alpha on x >= mu
NodeId pareto2_log_tail(Terms& t, NodeId x, Args a) {
    return t.neg(t.mul(a[2], t.f(Op::Log1p, t.div(t.sub(x, a[0]), a[1]))));
}
void pareto_type_2_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log1mExp, pareto2_log_tail(t, x, a)));
}
void pareto_type_2_lccdf(Terms& t, NodeId x, Args a) {
    t.add(pareto2_log_tail(t, x, a));
}
// uniform(alpha, beta): F = (x - alpha) / (beta - alpha), clamped to [0, 1]
NodeId uniform_f(Terms& t, NodeId x, Args a) {
    const NodeId f = t.div(t.sub(x, a[0]), t.sub(a[1], a[0]));
    return op(t, Op::Fmin, op(t, Op::Fmax, f, t.c(0)), t.c(1));
}
void uniform_lcdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log, uniform_f(t, x, a)));
}
void uniform_lccdf(Terms& t, NodeId x, Args a) {
    t.add(t.f(Op::Log, t.sub(t.c(1), uniform_f(t, x, a))));
}
// double_exponential(mu, sigma): F = exp(z) / 2 for z < 0, 1 - exp(-z) / 2 for z >= 0; each
// branch on a clamped z, selected by step(z)
NodeId double_exponential_log_f(Terms& t, NodeId z) {
    const NodeId below = t.add(t.c(-std::numbers::ln2), op(t, Op::Fmin, z, t.c(0)));
    const NodeId above =
        t.f(Op::Log1p, t.mul(t.c(-0.5), t.f(Op::Exp, t.neg(op(t, Op::Fmax, z, t.c(0))))));
    const NodeId s = t.f(Op::Step, z);
    return t.add(t.mul(s, above), t.mul(t.sub(t.c(1), s), below));
}
void double_exponential_lcdf(Terms& t, NodeId x, Args a) {
    t.add(double_exponential_log_f(t, normal_z(t, x, a)));
}
void double_exponential_lccdf(Terms& t, NodeId x, Args a) {
    t.add(double_exponential_log_f(t, t.neg(normal_z(t, x, a))));
}

// skew_double_exponential(mu, sigma, tau): F = tau exp(-2 (1 - tau) (mu - y) / sigma) below
// mu, 1 - (1 - tau) exp(-2 tau (y - mu) / sigma) above; branches on clamped distances.
NodeId sde_branch(Terms& t, NodeId x, Args a, bool upper) {
    const NodeId d = t.sub(x, a[0]);
    const NodeId below = op(t, Op::Fmax, t.neg(d), t.c(0));  // mu - x where x < mu, else 0
    const NodeId above = op(t, Op::Fmax, d, t.c(0));         // x - mu where x > mu, else 0
    const NodeId tau = a[2], one_m_tau = t.sub(t.c(1), a[2]);
    const NodeId e_below = t.div(t.mul(t.c(-2), t.mul(one_m_tau, below)), a[1]);
    const NodeId e_above = t.div(t.mul(t.c(-2), t.mul(tau, above)), a[1]);
    // log P(X <= x) and log P(X > x) on each side
    const NodeId lower_below = t.add(t.f(Op::Log, tau), e_below);
    const NodeId lower_above = t.f(Op::Log1p, t.neg(t.mul(one_m_tau, t.f(Op::Exp, e_above))));
    const NodeId upper_below = t.f(Op::Log1p, t.neg(t.mul(tau, t.f(Op::Exp, e_below))));
    const NodeId upper_above = t.add(t.f(Op::Log1p, t.neg(tau)), e_above);
    const NodeId s = t.f(Op::Step, d);
    const NodeId b = upper ? upper_below : lower_below, c = upper ? upper_above : lower_above;
    return t.add(t.mul(s, c), t.mul(t.sub(t.c(1), s), b));
}
void skew_double_exponential_lcdf(Terms& t, NodeId x, Args a) {
    t.add(sde_branch(t, x, a, false));
}
void skew_double_exponential_lccdf(Terms& t, NodeId x, Args a) {
    t.add(sde_branch(t, x, a, true));
}
// exp_mod_normal(mu, sigma, lambda): F = Phi(z) - exp(r), r = -lambda (x - mu)
// + (lambda sigma)^2 / 2 + log Phi(z - lambda sigma), z = (x - mu) / sigma; so log F =
// log_diff_exp(log Phi(z), r) and log(1 - F) = log_sum_exp(log Phi(-z), r).
NodeId emn_r(Terms& t, NodeId x, Args a, NodeId z) {
    const NodeId ls = t.mul(a[2], a[1]);
    return t.add(t.add(t.neg(t.mul(a[2], t.sub(x, a[0]))), t.mul(t.c(0.5), t.f(Op::Square, ls))),
                 t.f(Op::LogPhi, t.sub(z, ls)));
}
void exp_mod_normal_lcdf(Terms& t, NodeId x, Args a) {
    const NodeId z = normal_z(t, x, a);
    const NodeId lp = t.f(Op::LogPhi, z);
    t.add(t.add(lp, t.f(Op::Log1mExp, t.sub(emn_r(t, x, a, z), lp))));
}
void exp_mod_normal_lccdf(Terms& t, NodeId x, Args a) {
    const NodeId z = normal_z(t, x, a);
    const NodeId lq = t.f(Op::LogPhi, t.neg(z)), r = emn_r(t, x, a, z);
    const NodeId hi = op(t, Op::Fmax, lq, r);
    t.add(t.add(hi, t.f(Op::Log1pExp, t.neg(t.f(Op::Fabs, t.sub(lq, r))))));
}

// skew_normal(xi, omega, alpha): F = Phi(z) - 2 T(z, alpha), Owen's T (Stan's form)
void skew_normal_lcdf(Terms& t, NodeId x, Args a) {
    const NodeId z = normal_z(t, x, a);
    const NodeId T = op(t, Op::OwensT, z, a[2]);
    t.add(t.f(Op::Log, t.sub(t.f(Op::Phi, z), t.mul(t.c(2), T))));
}
void skew_normal_lccdf(Terms& t, NodeId x, Args a) {
    const NodeId z = normal_z(t, x, a);
    const NodeId T = op(t, Op::OwensT, z, a[2]);
    t.add(t.f(Op::Log, t.add(t.f(Op::Phi, t.neg(z)), t.mul(t.c(2), T))));
}

// ---- the gamma and beta families, through the regularised incomplete gamma and beta functions
// in log (ops_incomplete.hpp), differentiable in the shapes too

NodeId inc_gamma(Terms& t, NodeId a, NodeId x, Tail tail) {
    return incomplete::log_inc_gamma(
        t.g(), a, x, tail == Tail::Lower ? incomplete::Tail::Lower : incomplete::Tail::Upper);
}
NodeId inc_beta(Terms& t, NodeId a, NodeId b, NodeId x, Tail tail) {
    return incomplete::log_inc_beta(
        t.g(), a, b, x, tail == Tail::Lower ? incomplete::Tail::Lower : incomplete::Tail::Upper);
}
Tail other(Tail tail) {
    return tail == Tail::Lower ? Tail::Upper : Tail::Lower;
}
NodeId real(Terms& t, NodeId x) {
    return t.g()[x].dtype == DType::Int ? t.f(Op::ToReal, x) : x;
}
NodeId half(Terms& t, NodeId x) {
    return t.mul(t.c(0.5), x);
}
// 1 / x for x > 0, +inf for x <= 0 (the inverse families' F(x) = Q(., c / x) is 0 there)
NodeId inverse(Terms& t, NodeId x) {
    return t.div(t.c(1), op(t, Op::Fmax, x, t.c(0)));
}

// gamma(alpha, beta): F = P(alpha, beta x)
template <Tail T>
void gamma_tail(Terms& t, NodeId x, Args a) {
    t.add(inc_gamma(t, a[0], t.mul(a[1], x), T));
}
// inv_gamma(alpha, beta): F = Q(alpha, beta / x)
template <Tail T>
void inv_gamma_tail(Terms& t, NodeId x, Args a) {
    t.add(inc_gamma(t, a[0], t.mul(a[1], inverse(t, x)), other(T)));
}
// chi_square(nu): F = P(nu / 2, x / 2)
template <Tail T>
void chi_square_tail(Terms& t, NodeId x, Args a) {
    t.add(inc_gamma(t, half(t, a[0]), half(t, x), T));
}
// inv_chi_square(nu): F = Q(nu / 2, 1 / (2 x))
template <Tail T>
void inv_chi_square_tail(Terms& t, NodeId x, Args a) {
    t.add(inc_gamma(t, half(t, a[0]), half(t, inverse(t, x)), other(T)));
}
// scaled_inv_chi_square(nu, s): F = Q(nu / 2, nu s^2 / (2 x))
template <Tail T>
void scaled_inv_chi_square_tail(Terms& t, NodeId x, Args a) {
    const NodeId c = half(t, t.mul(a[0], t.f(Op::Square, a[1])));
    t.add(inc_gamma(t, half(t, a[0]), t.mul(c, inverse(t, x)), other(T)));
}
// beta(a, b): F = I_x(a, b)
template <Tail T>
void beta_tail(Terms& t, NodeId x, Args a) {
    t.add(inc_beta(t, a[0], a[1], x, T));
}
// student_t(nu, mu, sigma): with u = (x - mu) / sigma, the tail beyond |u| is
// h = I_{nu / (nu + u^2)}(nu / 2, 1 / 2) / 2; F = h for u < 0 and 1 - h above, so that each tail
// is h on one side of mu and log1m_exp(log h) on the other.
template <Tail T>
void student_t_tail(Terms& t, NodeId x, Args a) {
    const NodeId u = normal_z(t, x, std::span(a).subspan(1));
    const NodeId nu = a[0];
    const NodeId w = t.div(nu, t.add(nu, t.f(Op::Square, u)));
    const NodeId log_h =
        t.add(t.c(-std::numbers::ln2), inc_beta(t, half(t, nu), t.c(0.5), w, Tail::Lower));
    const NodeId log_rest = t.f(Op::Log1mExp, log_h);
    const NodeId above = t.f(Op::Step, u);  // u >= 0
    t.add(T == Tail::Lower ? t.g().apply(Op::Select, above, log_rest, log_h)
                           : t.g().apply(Op::Select, above, log_h, log_rest));
}

// The discrete rows at an integer n: log P(N <= n) and log P(N > n), -inf or 0 outside the
// support. Each branch gets arguments clamped into its domain, so that the one not taken is
// finite and adds 0, not NaN, to the gradient.
NodeId below_support(Terms& t, NodeId n, NodeId inside, Tail tail) {  // n < 0
    const double outside = tail == Tail::Lower ? -INFINITY : 0.0;
    return t.g().apply(Op::Select, t.f(Op::Step, n), inside, t.c(outside));
}
NodeId above_support(Terms& t, NodeId n, NodeId top, NodeId inside, Tail tail) {  // n >= top
    const double outside = tail == Tail::Lower ? 0.0 : -INFINITY;
    return t.g().apply(Op::Select, t.f(Op::Step, t.sub(n, top)), t.c(outside), inside);
}
// poisson(lambda): P(N <= n) = Q(n + 1, lambda)
template <Tail T>
void poisson_tail(Terms& t, NodeId n, Args a) {
    const NodeId shape = t.add(op(t, Op::Fmax, n, t.c(0)), t.c(1));
    t.add(below_support(t, n, inc_gamma(t, shape, a[0], other(T)), T));
}
// bernoulli(theta): P(N <= 0) = 1 - theta
template <Tail T>
void bernoulli_tail(Terms& t, NodeId n, Args a) {
    const NodeId at_zero = T == Tail::Lower ? t.f(Op::Log1p, t.neg(a[0])) : t.f(Op::Log, a[0]);
    t.add(below_support(t, n, above_support(t, n, t.c(1), at_zero, T), T));
}
// binomial(N, theta): P(X <= n) = I_{1 - theta}(N - n, n + 1) for 0 <= n < N
template <Tail T>
void binomial_tail(Terms& t, NodeId n, Args a) {
    const NodeId size = real(t, a[0]);
    const NodeId k = op(t, Op::Fmin, op(t, Op::Fmax, n, t.c(0)), t.sub(size, t.c(1)));
    const NodeId first = op(t, Op::Fmax, t.sub(size, k), t.c(1));
    const NodeId second = t.add(op(t, Op::Fmax, k, t.c(0)), t.c(1));
    const NodeId inside = inc_beta(t, first, second, t.sub(t.c(1), a[1]), T);
    t.add(below_support(t, n, above_support(t, n, size, inside, T), T));
}
// neg_binomial_2(mu, phi): P(X <= n) = I_{phi / (mu + phi)}(phi, n + 1)
template <Tail T>
void neg_binomial_2_tail(Terms& t, NodeId n, Args a) {
    const NodeId p = t.div(a[1], t.add(a[0], a[1]));
    const NodeId inside = inc_beta(t, a[1], t.add(op(t, Op::Fmax, n, t.c(0)), t.c(1)), p, T);
    t.add(below_support(t, n, inside, T));
}
// neg_binomial(alpha, beta): P(X <= n) = I_{beta / (1 + beta)}(alpha, n + 1)
template <Tail T>
void neg_binomial_tail(Terms& t, NodeId n, Args a) {
    const NodeId p = t.div(a[1], t.add(t.c(1), a[1]));
    const NodeId inside = inc_beta(t, a[0], t.add(op(t, Op::Fmax, n, t.c(0)), t.c(1)), p, T);
    t.add(below_support(t, n, inside, T));
}
// beta_proportion(mu, kappa): the beta CDF of (mu kappa, (1 - mu) kappa)
template <Tail T>
void beta_proportion_tail(Terms& t, NodeId x, Args a) {
    t.add(inc_beta(t, t.mul(a[0], a[1]), t.mul(t.sub(t.c(1), a[0]), a[1]), x, T));
}
// yule_simon(alpha): P(X > n) = n B(n, alpha + 1) for n >= 1, 1 below
template <Tail T>
void yule_simon_tail(Terms& t, NodeId n, Args a) {
    const NodeId m = op(t, Op::Fmax, n, t.c(1));
    const NodeId b = t.add(a[0], t.c(1));
    const NodeId log_upper =
        t.add(t.f(Op::Log, m),
              t.sub(t.add(t.f(Op::Lgamma, m), t.f(Op::Lgamma, b)), t.f(Op::Lgamma, t.add(m, b))));
    const NodeId inside = T == Tail::Upper ? log_upper : t.f(Op::Log1mExp, log_upper);
    t.add(below_support(t, t.sub(n, t.c(1)), inside, T));
}
// discrete_range(lower, upper): F = (n - lower + 1) / (upper - lower + 1), clamped to [0, 1]
NodeId discrete_range_f(Terms& t, NodeId n, Args a) {
    const NodeId lo = real(t, a[0]), hi = real(t, a[1]);
    const NodeId f = t.div(t.add(t.sub(n, lo), t.c(1)), t.add(t.sub(hi, lo), t.c(1)));
    return op(t, Op::Fmin, op(t, Op::Fmax, f, t.c(0)), t.c(1));
}
template <Tail T>
void discrete_range_tail(Terms& t, NodeId n, Args a) {
    const NodeId f = discrete_range_f(t, n, a);
    t.add(t.f(Op::Log, T == Tail::Lower ? f : t.sub(t.c(1), f)));
}

// ---- finite sums of the mass function: beta_binomial and beta_neg_binomial, whose CDFs have
// no closed form in the ops. Their counts are ints known before the fit (the Stan lowering makes
// them constants of the graph), so that P(X <= n) is the sum over k = 0..max n of the mass at k,
// the terms beyond each element's n (or its N) masked out; log_sum_exp'd one term at a time as
// acc + log1p_exp(term - acc), which is finite and exact in the gradient at ties.

// Above this many terms the graph would be too large: refused.
constexpr double kMaxSumTerms = 10'000;

double known_max(const Graph& g, NodeId x, std::string_view row, std::string_view what) {
    NodeId id = x;
    while (g[id].op == Op::ToReal) id = g[id].in[0];
    double top = -INFINITY;
    if (const auto v = g.const_value(id)) {
        top = *v;
    } else if (g[id].op == Op::ConstVector) {
        for (double v : constant_vector_values(g[id].index)) top = std::max(top, v);
    } else {
        throw ModelError(fmt::format(
            "{}'s CDF: its {} must be known before the fit (the CDF is a finite sum of the mass "
            "function up to it)",
            row, what));
    }
    if (top > kMaxSumTerms) {
        throw ModelError(fmt::format(
            "{}'s CDF at {} = {} is not supported yet: advi sums the mass function term by term "
            "and stops at {} terms",
            row, what, top, kMaxSumTerms));
    }
    return top;
}
// acc <- log(e^acc + e^term) where `keep` is 1, acc where it is 0
NodeId add_masked(Terms& t, NodeId acc, NodeId term, NodeId keep) {
    const NodeId sum = t.add(acc, t.f(Op::Log1pExp, t.sub(term, acc)));
    return t.g().apply(Op::Select, keep, sum, acc);
}
// log of the sum over k = 0..n of e^term(k), every element's n at most `top`
template <class Term>
NodeId log_sum_to(Terms& t, NodeId n, double top, Term term) {
    NodeId acc = term(t.c(0));
    for (double k = 1; k <= top; ++k)
        acc = add_masked(t, acc, term(t.c(k)), t.f(Op::Step, t.sub(n, t.c(k))));
    return acc;
}

// beta_binomial(N, alpha, beta): the mass at k is C(N, k) B(k + alpha, N - k + beta) /
// B(alpha, beta). P(X <= n) sums k = 0..n, P(X > n) sums k = n + 1..N (each in the tail it is
// small in, not as 1 minus the other); n < 0 and n >= N are the support's ends.
template <Tail T>
void beta_binomial_tail(Terms& t, NodeId n, Args a) {
    const NodeId size = real(t, a[0]);
    auto term = [&](NodeId k) {  // k clamped to N: masked beyond it
        const NodeId kk = op(t, Op::Fmin, k, size);
        const NodeId lchoose = t.sub(t.f(Op::Lgamma, t.add(size, t.c(1))),
                                     t.add(t.f(Op::Lgamma, t.add(kk, t.c(1))),
                                           t.f(Op::Lgamma, t.add(t.sub(size, kk), t.c(1)))));
        const NodeId x = t.add(kk, a[1]), y = t.add(t.sub(size, kk), a[2]);
        return t.add(lchoose, t.sub(t.add(t.f(Op::Lgamma, x), t.f(Op::Lgamma, y)),
                                    t.f(Op::Lgamma, t.add(x, y))));
    };
    const NodeId lbeta = t.sub(t.add(t.f(Op::Lgamma, a[1]), t.f(Op::Lgamma, a[2])),
                               t.f(Op::Lgamma, t.add(a[1], a[2])));
    NodeId inside;
    if (T == Tail::Lower) {
        const double top = std::min(known_max(t.g(), n, "beta_binomial", "variate"),
                                    known_max(t.g(), a[0], "beta_binomial", "N"));
        inside = log_sum_to(t, n, top, [&](NodeId k) { return term(k); });
        // terms k <= n, and k <= N: n >= N is the top of the support, selected below
    } else {
        const double top = known_max(t.g(), a[0], "beta_binomial", "N");
        // k from n + 1 (clamped into [0, N]) to N
        const NodeId first = op(t, Op::Fmin, t.add(op(t, Op::Fmax, n, t.c(-1)), t.c(1)), size);
        NodeId acc = term(first);
        for (double k = 1; k <= top; ++k) {
            const NodeId keep = t.mul(t.f(Op::Step, t.sub(t.c(k), t.add(n, t.c(2)))),
                                      t.f(Op::Step, t.sub(size, t.c(k))));
            acc = add_masked(t, acc, term(t.c(k)), keep);
        }
        inside = acc;
    }
    t.add(below_support(t, n, above_support(t, n, size, t.sub(inside, lbeta), T), T));
}
// beta_neg_binomial(r, alpha, beta): the mass at k is B(k + r, alpha + beta) / B(r, alpha)
// Gamma(k + beta) / (k! Gamma(beta)); P(X <= n) the sum over k = 0..n, P(X > n) = 1 - P(X <= n).
template <Tail T>
void beta_neg_binomial_tail(Terms& t, NodeId n, Args a) {
    const double top = known_max(t.g(), n, "beta_neg_binomial", "variate");
    const NodeId ab = t.add(a[1], a[2]);
    auto term = [&](NodeId k) {
        const NodeId x = t.add(k, a[0]);
        return t.sub(t.add(t.sub(t.f(Op::Lgamma, x), t.f(Op::Lgamma, t.add(x, ab))),
                           t.f(Op::Lgamma, t.add(k, a[2]))),
                     t.f(Op::Lgamma, t.add(k, t.c(1))));
    };
    // the constant: lgamma(alpha + beta) - lbeta(r, alpha) - lgamma(beta)
    const NodeId constant =
        t.sub(t.sub(t.f(Op::Lgamma, ab), t.sub(t.add(t.f(Op::Lgamma, a[0]), t.f(Op::Lgamma, a[1])),
                                               t.f(Op::Lgamma, t.add(a[0], a[1])))),
              t.f(Op::Lgamma, a[2]));
    const NodeId lower = t.add(log_sum_to(t, n, top, term), constant);
    t.add(below_support(t, n, T == Tail::Lower ? lower : t.f(Op::Log1mExp, lower), T));
}

// von_mises(mu, kappa): Stan's CDF on [-pi, pi] (graph/ops_special.hpp)
template <Tail T>
void von_mises_tail(Terms& t, NodeId x, Args a) {
    t.add(special::von_mises_log_cdf(t.g(), x, a[0], a[1], T == Tail::Upper));
}

// ---- numbers (Boost.Math)

template <class Dist>
double tail_of(const Dist& d, double x, Tail tail) {
    return tail == Tail::Lower ? boost::math::cdf(d, x)
                               : boost::math::cdf(boost::math::complement(d, x));
}
// For distributions on [lo, inf): below lo, P(X <= x) = 0.
template <class Dist>
double above(const Dist& d, double lo, double x, Tail tail) {
    if (x < lo || (x == lo && !std::isfinite(x)))
        return tail == Tail::Lower ? 0.0 : 1.0;
    if (std::isinf(x))
        return tail == Tail::Lower ? 1.0 : 0.0;
    return tail_of(d, x, tail);
}
using boost::math::normal_distribution;

double normal_p(double x, Numbers a, Tail tail) {
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    return tail_of(normal_distribution<>(a[0], a[1]), x, tail);
}
double lognormal_p(double x, Numbers a, Tail tail) {
    return above(boost::math::lognormal_distribution<>(a[0], a[1]), 0.0, x, tail);
}
double cauchy_p(double x, Numbers a, Tail tail) {
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    return tail_of(boost::math::cauchy_distribution<>(a[0], a[1]), x, tail);
}
double logistic_p(double x, Numbers a, Tail tail) {
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    return tail_of(boost::math::logistic_distribution<>(a[0], a[1]), x, tail);
}
double exponential_p(double x, Numbers a, Tail tail) {
    return above(boost::math::exponential_distribution<>(a[0]), 0.0, x, tail);
}
double weibull_p(double x, Numbers a, Tail tail) {
    return above(boost::math::weibull_distribution<>(a[0], a[1]), 0.0, x, tail);
}
double rayleigh_p(double x, Numbers a, Tail tail) {
    return above(boost::math::rayleigh_distribution<>(a[0]), 0.0, x, tail);
}
double loglogistic_p(double x, Numbers a, Tail tail) {  // F = 1 / (1 + (x / alpha)^-beta)
    if (x <= 0)
        return tail == Tail::Lower ? 0.0 : 1.0;
    const double v = a[1] * std::log(x / a[0]);
    return 1 / (1 + std::exp(tail == Tail::Lower ? -v : v));
}
double frechet_p(double x, Numbers a, Tail tail) {  // F = exp(-(x / sigma)^-alpha)
    if (x <= 0)
        return tail == Tail::Lower ? 0.0 : 1.0;
    const double u = std::pow(x / a[1], -a[0]);
    return tail == Tail::Lower ? std::exp(-u) : -std::expm1(-u);
}
double gumbel_p(double x, Numbers a, Tail tail) {
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    return tail_of(boost::math::extreme_value_distribution<>(a[0], a[1]), x, tail);
}
double pareto_p(double x, Numbers a, Tail tail) {
    return above(boost::math::pareto_distribution<>(a[0], a[1]), a[0], x, tail);
}
double pareto_type_2_p(double x, Numbers a, Tail tail) {  // 1 - F = (1 + (x - mu)/lambda)^-alpha
    if (x <= a[0])
        return tail == Tail::Lower ? 0.0 : 1.0;
    const double log_tail = -a[2] * std::log1p((x - a[0]) / a[1]);
    return tail == Tail::Lower ? -std::expm1(log_tail) : std::exp(log_tail);
}
double uniform_p(double x, Numbers a, Tail tail) {
    const double f = std::clamp((x - a[0]) / (a[1] - a[0]), 0.0, 1.0);
    return tail == Tail::Lower ? f : 1 - f;
}
double double_exponential_p(double x, Numbers a, Tail tail) {
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    return tail_of(boost::math::laplace_distribution<>(a[0], a[1]), x, tail);
}
double skew_double_exponential_p(double x, Numbers a, Tail tail) {
    const double mu = a[0], sigma = a[1], tau = a[2];
    if (x < mu) {
        const double f = tau * std::exp(-2 * (1 - tau) * (mu - x) / sigma);
        return tail == Tail::Lower ? f : 1 - f;
    }
    const double q = (1 - tau) * std::exp(-2 * tau * (x - mu) / sigma);
    return tail == Tail::Lower ? 1 - q : q;
}
double exp_mod_normal_p(double x, Numbers a, Tail tail) {
    const double mu = a[0], sigma = a[1], lambda = a[2];
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    const double z = (x - mu) / sigma, ls = lambda * sigma;
    const normal_distribution<> n01;
    const double r =
        std::exp(-lambda * (x - mu) + 0.5 * ls * ls + std::log(boost::math::cdf(n01, z - ls)));
    return tail == Tail::Lower ? boost::math::cdf(n01, z) - r
                               : boost::math::cdf(boost::math::complement(n01, z)) + r;
}
double student_t_p(double x, Numbers a, Tail tail) {
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    return tail_of(boost::math::students_t_distribution<>(a[0]), (x - a[1]) / a[2], tail);
}
double gamma_p(double x, Numbers a, Tail tail) {  // shape alpha, rate beta
    return above(boost::math::gamma_distribution<>(a[0], 1 / a[1]), 0.0, x, tail);
}
double inv_gamma_p(double x, Numbers a, Tail tail) {  // shape alpha, scale beta
    return above(boost::math::inverse_gamma_distribution<>(a[0], a[1]), 0.0, x, tail);
}
double chi_square_p(double x, Numbers a, Tail tail) {
    return above(boost::math::chi_squared_distribution<>(a[0]), 0.0, x, tail);
}
double inv_chi_square_p(double x, Numbers a, Tail tail) {
    return above(boost::math::inverse_chi_squared_distribution<>(a[0]), 0.0, x, tail);
}
double scaled_inv_chi_square_p(double x, Numbers a, Tail tail) {
    return above(boost::math::inverse_chi_squared_distribution<>(a[0], a[1] * a[1]), 0.0, x, tail);
}
double beta_p(double x, Numbers a, Tail tail) {
    if (x <= 0)
        return tail == Tail::Lower ? 0.0 : 1.0;
    if (x >= 1)
        return tail == Tail::Lower ? 1.0 : 0.0;
    return tail_of(boost::math::beta_distribution<>(a[0], a[1]), x, tail);
}
double skew_normal_p(double x, Numbers a, Tail tail) {
    if (std::isinf(x))
        return (x > 0) == (tail == Tail::Lower) ? 1.0 : 0.0;
    return tail_of(boost::math::skew_normal_distribution<>(a[0], a[1], a[2]), x, tail);
}
// Discrete rows: P(X <= n) and P(X > n) at integer n.
template <class Dist>
double discrete(const Dist& d, double n, double hi, Tail tail) {
    if (n < 0)
        return tail == Tail::Lower ? 0.0 : 1.0;
    if (n >= hi)
        return tail == Tail::Lower ? 1.0 : 0.0;
    return tail_of(d, std::floor(n), tail);
}
double poisson_p(double n, Numbers a, Tail tail) {
    return discrete(boost::math::poisson_distribution<>(a[0]), n, INFINITY, tail);
}
double bernoulli_p(double n, Numbers a, Tail tail) {
    return discrete(boost::math::bernoulli_distribution<>(a[0]), n, 1, tail);
}
double binomial_p(double n, Numbers a, Tail tail) {
    return discrete(boost::math::binomial_distribution<>(a[0], a[1]), n, a[0], tail);
}
double neg_binomial_p(double n, Numbers a, Tail tail) {  // shape alpha, inverse scale beta
    const double alpha = a[0], beta = a[1];
    return discrete(boost::math::negative_binomial_distribution<>(alpha, beta / (1 + beta)), n,
                    INFINITY, tail);
}
double beta_proportion_p(double x, Numbers a, Tail tail) {
    const double shapes[] = {a[0] * a[1], (1 - a[0]) * a[1]};
    return beta_p(x, shapes, tail);
}
double yule_simon_p(double n, Numbers a, Tail tail) {  // P(X > n) = n B(n, alpha + 1)
    const double upper = n < 1 ? 1.0 : std::floor(n) * boost::math::beta(std::floor(n), a[0] + 1);
    return tail == Tail::Lower ? 1 - upper : upper;
}
double discrete_range_p(double n, Numbers a, Tail tail) {
    const double f = std::clamp((std::floor(n) - a[0] + 1) / (a[1] - a[0] + 1), 0.0, 1.0);
    return tail == Tail::Lower ? f : 1 - f;
}
double neg_binomial_2_p(double n, Numbers a, Tail tail) {  // mean mu, dispersion phi
    const double mu = a[0], phi = a[1];
    return discrete(boost::math::negative_binomial_distribution<>(phi, phi / (mu + phi)), n,
                    INFINITY, tail);
}

// The finite sums above, in doubles.
double log_sum(const std::vector<double>& terms) {
    double top = -INFINITY;
    for (double v : terms) top = std::max(top, v);
    double s = 0;
    for (double v : terms) s += std::exp(v - top);
    return top + std::log(s);
}
double beta_binomial_p(double n, Numbers a, Tail tail) {
    const double size = a[0], alpha = a[1], beta = a[2];
    if (n < 0)
        return tail == Tail::Lower ? 0.0 : 1.0;
    if (n >= size)
        return tail == Tail::Lower ? 1.0 : 0.0;
    const double lb = std::lgamma(alpha) + std::lgamma(beta) - std::lgamma(alpha + beta);
    std::vector<double> terms;
    const double m = std::floor(n);
    for (double k = tail == Tail::Lower ? 0 : m + 1; k <= (tail == Tail::Lower ? m : size); ++k) {
        terms.push_back(std::lgamma(size + 1) - std::lgamma(k + 1) - std::lgamma(size - k + 1) +
                        std::lgamma(k + alpha) + std::lgamma(size - k + beta) -
                        std::lgamma(size + alpha + beta) - lb);
    }
    return std::exp(log_sum(terms));
}
double beta_neg_binomial_p(double n, Numbers a, Tail tail) {
    const double r = a[0], alpha = a[1], beta = a[2];
    if (n < 0)
        return tail == Tail::Lower ? 0.0 : 1.0;
    std::vector<double> terms;
    for (double k = 0; k <= std::floor(n); ++k) {
        terms.push_back(std::lgamma(k + r) + std::lgamma(alpha + beta) -
                        std::lgamma(k + r + alpha + beta) - std::lgamma(r) - std::lgamma(alpha) +
                        std::lgamma(r + alpha) + std::lgamma(k + beta) - std::lgamma(k + 1) -
                        std::lgamma(beta));
    }
    const double lower = std::exp(log_sum(terms));
    return tail == Tail::Lower ? lower : 1 - lower;
}
double von_mises_p(double x, Numbers a, Tail tail) {
    return special::von_mises_cdf(x, a[0], a[1], tail == Tail::Upper);
}

// clang-format off
const CdfInfo kCdfs[] = {
    {"normal",                normal_lcdf,             normal_lccdf,             normal_p},
    {"lognormal",             lognormal_lcdf,          lognormal_lccdf,          lognormal_p},
    {"cauchy",                cauchy_lcdf,             cauchy_lccdf,             cauchy_p},
    {"logistic",              logistic_lcdf,           logistic_lccdf,           logistic_p},
    {"exponential",           exponential_lcdf,        exponential_lccdf,        exponential_p},
    {"weibull",               weibull_lcdf,            weibull_lccdf,            weibull_p},
    {"frechet",               frechet_lcdf,            frechet_lccdf,            frechet_p},
    {"rayleigh",              rayleigh_lcdf,           rayleigh_lccdf,           rayleigh_p},
    {"loglogistic",           loglogistic_lcdf,        loglogistic_lccdf,        loglogistic_p},
    {"gumbel",                gumbel_lcdf,             gumbel_lccdf,             gumbel_p},
    {"pareto",                pareto_lcdf,             pareto_lccdf,             pareto_p},
    {"pareto_type_2",         pareto_type_2_lcdf,      pareto_type_2_lccdf,      pareto_type_2_p},
    {"uniform",               uniform_lcdf,            uniform_lccdf,            uniform_p},
    {"double_exponential",    double_exponential_lcdf, double_exponential_lccdf, double_exponential_p},
    {"skew_double_exponential", skew_double_exponential_lcdf, skew_double_exponential_lccdf, skew_double_exponential_p},
    {"exp_mod_normal",        exp_mod_normal_lcdf,     exp_mod_normal_lccdf,     exp_mod_normal_p},
    {"skew_normal",           skew_normal_lcdf,        skew_normal_lccdf,        skew_normal_p},
    // through the incomplete gamma and beta functions
    {"student_t",             student_t_tail<Tail::Lower>,  student_t_tail<Tail::Upper>,  student_t_p},
    {"gamma",                 gamma_tail<Tail::Lower>,      gamma_tail<Tail::Upper>,      gamma_p},
    {"inv_gamma",             inv_gamma_tail<Tail::Lower>,  inv_gamma_tail<Tail::Upper>,  inv_gamma_p},
    {"chi_square",            chi_square_tail<Tail::Lower>, chi_square_tail<Tail::Upper>, chi_square_p},
    {"inv_chi_square",        inv_chi_square_tail<Tail::Lower>, inv_chi_square_tail<Tail::Upper>, inv_chi_square_p},
    {"scaled_inv_chi_square", scaled_inv_chi_square_tail<Tail::Lower>, scaled_inv_chi_square_tail<Tail::Upper>, scaled_inv_chi_square_p},
    {"beta",                  beta_tail<Tail::Lower>,       beta_tail<Tail::Upper>,       beta_p},
    {"poisson",               poisson_tail<Tail::Lower>,    poisson_tail<Tail::Upper>,    poisson_p},
    {"bernoulli",             bernoulli_tail<Tail::Lower>,  bernoulli_tail<Tail::Upper>,  bernoulli_p},
    {"binomial",              binomial_tail<Tail::Lower>,   binomial_tail<Tail::Upper>,   binomial_p},
    {"neg_binomial_2",        neg_binomial_2_tail<Tail::Lower>, neg_binomial_2_tail<Tail::Upper>, neg_binomial_2_p},
    {"neg_binomial",          neg_binomial_tail<Tail::Lower>, neg_binomial_tail<Tail::Upper>, neg_binomial_p},
    {"beta_proportion",       beta_proportion_tail<Tail::Lower>, beta_proportion_tail<Tail::Upper>, beta_proportion_p},
    {"yule_simon",            yule_simon_tail<Tail::Lower>, yule_simon_tail<Tail::Upper>, yule_simon_p},
    {"discrete_range",        discrete_range_tail<Tail::Lower>, discrete_range_tail<Tail::Upper>, discrete_range_p},
    // finite sums of the mass function, the variate (and beta_binomial's N) known before the fit
    {"beta_binomial",         beta_binomial_tail<Tail::Lower>, beta_binomial_tail<Tail::Upper>, beta_binomial_p},
    {"beta_neg_binomial",     beta_neg_binomial_tail<Tail::Lower>, beta_neg_binomial_tail<Tail::Upper>, beta_neg_binomial_p},
    {"von_mises",             von_mises_tail<Tail::Lower>,  von_mises_tail<Tail::Upper>,  von_mises_p},
};
// clang-format on

}  // namespace

std::span<const CdfInfo> cdfs() {
    return kCdfs;
}

const CdfInfo* find_cdf(std::string_view name) {
    for (const CdfInfo& c : kCdfs) {
        if (c.name == name)
            return &c;
    }
    return nullptr;
}

bool cdf_sums_mass(std::string_view name) {
    return name == "beta_binomial" || name == "beta_neg_binomial";
}

bool has_graph_cdf(std::string_view name, Tail tail) {
    const CdfInfo* c = find_cdf(name);
    return c != nullptr && (tail == Tail::Lower ? c->log_cdf : c->log_ccdf) != nullptr;
}

NodeId log_cdf(Graph& g, const DistInfo& d, NodeId x, std::span<const NodeId> args, Tail tail,
               bool elementwise) {
    const CdfInfo* c = find_cdf(d.name);
    const auto f = c == nullptr ? nullptr : tail == Tail::Lower ? c->log_cdf : c->log_ccdf;
    if (f == nullptr) {
        throw ModelError(fmt::format("{}: no {} of values that depend on the latent variables",
                                     d.name, tail == Tail::Lower ? "lcdf" : "lccdf"));
    }
    Terms t(g, broadcast_of(g, d, x, args), false, elementwise);
    const NodeId xr = g[x].dtype == DType::Int ? g.apply(Op::ToReal, x) : x;
    f(t, xr, args);
    return t.total();
}

}  // namespace advi
