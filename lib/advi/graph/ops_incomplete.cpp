// log P(a, x), log Q(a, x), log I_x(a, b) and log(1 - I_x(a, b)) on second-order dual numbers
// (ops_incomplete.hpp), the kernels that take one component of them per element, and the
// adjoint rules that chain value -> gradient -> Hessian.
#include <advi/graph/ops_incomplete.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/component_ops.hpp>
#include <advi/graph/dual2.hpp>
#include <advi/graph/graph.hpp>

namespace advi::incomplete {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
// Where a series or a continued fraction stops: its last term or factor changed no component by
// more than this (relative to the value; the derivatives' terms carry powers of log n, which
// the margin below 2^-52 absorbs).
constexpr double kEps = 1e-17;
// Far beyond the iterations any argument needs (about sqrt of the largest shape); more is a
// failure to converge, reported as NaN.
constexpr int kMaxIterations = 1'000'000;
// Lentz's guard against a zero denominator.
constexpr double kTiny = 1e-300;

template <int N>
bool converged(const Dual2<N>& step, const Dual2<N>& total) {
    const double scale = std::fabs(total.v) + total.derivative_size();
    return std::fabs(step.v) <= kEps * scale && step.derivative_size() <= kEps * scale;
}
// For the factor `del` that multiplies the continued fraction `h` and tends to 1: log h moves
// by del - 1 and its derivatives by del's, against derivatives of log h of size
// h.derivative_size() / h.v. (1 itself is not exact below 2^-52: a tolerance of a few ulps.)
constexpr double kFactorEps = 1e-15;
template <int N>
bool converged_factor(const Dual2<N>& del, const Dual2<N>& h) {
    return std::fabs(del.v - 1) <= kFactorEps &&
           del.derivative_size() <= kFactorEps * (1 + h.derivative_size() / std::fabs(h.v));
}
template <int N>
void guard(Dual2<N>& d) {
    if (std::fabs(d.v) < kTiny)
        d.v = kTiny;
}

// ---- incomplete gamma

// log P(a, x) = a log x - x - lgamma(a + 1) + log sum_n x^n / ((a + 1) ... (a + n)), x < a + 1
template <int N>
Dual2<N> log_p_series(const Dual2<N>& a, const Dual2<N>& x) {
    Dual2<N> term(1.0), sum(1.0);
    for (int n = 1; n < kMaxIterations; ++n) {
        term = term * x / (a + static_cast<double>(n));
        sum = sum + term;
        if (converged(term, sum))
            return a * log(x) - x - lgamma(a + 1.0) + log(sum);
    }
    return Dual2<N>(kNaN);
}

// log Q(a, x) = a log x - x - lgamma(a) + log CF, x >= a + 1, CF = 1 / (x + 1 - a -
// 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))) by the modified Lentz method
template <int N>
Dual2<N> log_q_fraction(const Dual2<N>& a, const Dual2<N>& x) {
    Dual2<N> b = x + 1.0 - a;
    Dual2<N> c(1 / kTiny);
    Dual2<N> d = reciprocal(b);
    Dual2<N> h = d;
    for (int i = 1; i < kMaxIterations; ++i) {
        const Dual2<N> an = -static_cast<double>(i) * (static_cast<double>(i) - a);
        b = b + 2.0;
        d = an * d + b;
        guard(d);
        c = b + an / c;
        guard(c);
        d = reciprocal(d);
        const Dual2<N> del = d * c;
        h = h * del;
        if (converged_factor(del, h))
            return a * log(x) - x - lgamma(a) + log(h);
    }
    return Dual2<N>(kNaN);
}

Dual2<2> log_inc_gamma_dual(double av, double xv, Tail tail) {
    const auto a = Dual2<2>::input(av, 0), x = Dual2<2>::input(xv, 1);
    const bool lower = tail == Tail::Lower;
    if (xv <= 0)
        return Dual2<2>(lower ? -kInf : 0.0);
    if (xv == kInf)
        return Dual2<2>(lower ? 0.0 : -kInf);
    if (xv < av + 1) {
        const Dual2<2> lp = log_p_series(a, x);
        return lower ? lp : log1m_exp(lp);
    }
    const Dual2<2> lq = log_q_fraction(a, x);
    return lower ? log1m_exp(lq) : lq;
}

// ---- incomplete beta

// The continued fraction of I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) CF, which converges fast
// for x < (a + 1) / (a + b + 2) (Lentz; the even and odd steps of Numerical Recipes' betacf)
template <int N>
Dual2<N> log_i_fraction(const Dual2<N>& a, const Dual2<N>& b, const Dual2<N>& x,
                        const Dual2<N>& one_minus_x) {
    const Dual2<N> qab = a + b, qap = a + 1.0, qam = a - 1.0;
    Dual2<N> c(1.0);
    Dual2<N> d = 1.0 - qab * x / qap;
    guard(d);
    d = reciprocal(d);
    Dual2<N> h = d;
    for (int m = 1; m < kMaxIterations; ++m) {
        const double md = m, m2 = 2.0 * m;
        Dual2<N> aa = md * (b - md) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        guard(d);
        c = 1.0 + aa / c;
        guard(c);
        d = reciprocal(d);
        h = h * d * c;
        aa = -((a + md) * (qab + md) * x) / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        guard(d);
        c = 1.0 + aa / c;
        guard(c);
        d = reciprocal(d);
        const Dual2<N> del = d * c;
        h = h * del;
        if (converged_factor(del, h)) {
            const Dual2<N> lbeta = lgamma(a) + lgamma(b) - lgamma(a + b);
            return a * log(x) + b * log(one_minus_x) - log(a) - lbeta + log(h);
        }
    }
    return Dual2<N>(kNaN);
}

Dual2<3> log_inc_beta_dual(double av, double bv, double xv, Tail tail) {
    const auto a = Dual2<3>::input(av, 0), b = Dual2<3>::input(bv, 1);
    const auto x = Dual2<3>::input(xv, 2);
    const bool lower = tail == Tail::Lower;
    if (xv <= 0)
        return Dual2<3>(lower ? -kInf : 0.0);
    if (xv >= 1)
        return Dual2<3>(lower ? 0.0 : -kInf);
    const Dual2<3> one_minus_x = 1.0 - x;
    if (xv * (av + bv + 2) < av + 1) {
        const Dual2<3> li = log_i_fraction(a, b, x, one_minus_x);
        return lower ? li : log1m_exp(li);
    }
    // 1 - I_x(a, b) = I_{1-x}(b, a)
    const Dual2<3> lu = log_i_fraction(b, a, one_minus_x, x);
    return lower ? log1m_exp(lu) : lu;
}

template <std::size_t K, int N>
std::array<double, K> components(const Dual2<N>& r) {
    std::array<double, K> out{};
    for (std::size_t k = 0; k < K; ++k) out[k] = r.component(static_cast<int>(k));
    return out;
}

Tail tail_of(int aux) {
    return aux == 0 ? Tail::Lower : Tail::Upper;
}

}  // namespace

std::array<double, 6> log_inc_gamma(double a, double x, Tail tail) {
    if (!(a > 0) || std::isnan(x))
        return {kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
    return components<6>(log_inc_gamma_dual(a, x, tail));
}

std::array<double, 10> log_inc_beta(double a, double b, double x, Tail tail) {
    if (!(a > 0) || !(b > 0) || std::isnan(x)) {
        std::array<double, 10> nan{};
        nan.fill(kNaN);
        return nan;
    }
    return components<10>(log_inc_beta_dual(a, b, x, tail));
}

NodeId log_inc_gamma(Graph& g, NodeId a, NodeId x, Tail tail) {
    return component_ops::make(g, Op::LogIncGamma, {a, x, kNoNode}, 0, static_cast<int>(tail));
}
NodeId log_inc_beta(Graph& g, NodeId a, NodeId b, NodeId x, Tail tail) {
    return component_ops::make(g, Op::LogIncBeta, {a, b, x}, 0, static_cast<int>(tail));
}

// Component `index` of the value-and-gradient (kernel) or of the Hessian (offset 1 + N).
void gamma_kernel(const KernelArgs& a) {
    component_ops::kernel<2>(a, 0, [](std::array<double, 2> x, int aux) {
        return log_inc_gamma(x[0], x[1], tail_of(aux));
    });
}
void gamma_hessian_kernel(const KernelArgs& a) {
    component_ops::kernel<2>(a, 3, [](std::array<double, 2> x, int aux) {
        return log_inc_gamma(x[0], x[1], tail_of(aux));
    });
}
void beta_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(a, 0, [](std::array<double, 3> x, int aux) {
        return log_inc_beta(x[0], x[1], x[2], tail_of(aux));
    });
}
void beta_hessian_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(a, 4, [](std::array<double, 3> x, int aux) {
        return log_inc_beta(x[0], x[1], x[2], tail_of(aux));
    });
}

void adj_gamma(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    component_ops::adjoint<2>(g, y, adj, c, Op::LogIncGammaHessian);
}
void adj_beta(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    component_ops::adjoint<3>(g, y, adj, c, Op::LogIncBetaHessian);
}

}  // namespace advi::incomplete
