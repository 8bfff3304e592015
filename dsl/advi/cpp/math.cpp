// Scalar functions of the DSL: ops intern one node through Model::apply (which converts
// integer data to real); compositions are built from the operators and other functions.
#include <advi/cpp/math.hpp>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <advi/cpp/model.hpp>

namespace advi {
namespace {

Expr unary(Op op, const Expr& x) {
    return x.model().apply(op, x);
}
using detail::binary;
// The second argument as an expression of a's model (a number becomes a constant).
Expr expr_of(const Expr& a, const Arg& b) {
    Model& m = a.model();
    return m.wrap(m.resolve(b));
}
Expr expr_of(double a, const Expr& b) {
    Model& m = b.model();
    return m.wrap(m.resolve(a));
}

}  // namespace

Expr step(const Expr& x) {
    return unary(Op::Step, x);
}
Expr fabs(const Expr& x) {
    return unary(Op::Fabs, x);
}
Expr abs(const Expr& x) {
    return unary(Op::Fabs, x);
}
Expr sin(const Expr& x) {
    return unary(Op::Sin, x);
}
Expr cos(const Expr& x) {
    return unary(Op::Cos, x);
}
Expr tanh(const Expr& x) {
    return unary(Op::Tanh, x);
}
Expr cbrt(const Expr& x) {
    return unary(Op::Cbrt, x);
}
Expr erf(const Expr& x) {
    return unary(Op::Erf, x);
}
Expr erfc(const Expr& x) {
    return unary(Op::Erfc, x);
}
Expr Phi(const Expr& x) {
    return unary(Op::Phi, x);
}
Expr log_Phi(const Expr& x) {
    return unary(Op::LogPhi, x);
}
Expr log1m_exp(const Expr& x) {
    return unary(Op::Log1mExp, x);
}
Expr log_bessel_i0(const Expr& x) {
    return unary(Op::LogBesselI0, x);
}
Expr digamma(const Expr& x) {
    return unary(Op::Digamma, x);
}
Expr trigamma(const Expr& x) {
    return unary(Op::Trigamma, x);
}
Expr fmin(const Expr& x, const Arg& y) {
    return binary(Op::Fmin, x, y);
}
Expr fmin(double x, const Expr& y) {
    return binary(Op::Fmin, x, y);
}
Expr fmax(const Expr& x, const Arg& y) {
    return binary(Op::Fmax, x, y);
}
Expr fmax(double x, const Expr& y) {
    return binary(Op::Fmax, x, y);
}
Expr lmultiply(const Expr& x, const Arg& y) {
    return binary(Op::Lmultiply, x, y);
}
Expr lmultiply(double x, const Expr& y) {
    return binary(Op::Lmultiply, x, y);
}

// log1p(-x) keeps the digits of a small x that 1 - x would round away.
Expr log1m(const Expr& x) {
    return log1p(-x);
}
Expr inv(const Expr& x) {
    return 1.0 / x;
}
Expr inv_sqrt(const Expr& x) {
    return 1.0 / sqrt(x);
}
Expr inv_square(const Expr& x) {
    return 1.0 / square(x);
}
// log(x) - log1p(-x) rather than log(x / (1 - x)): near 0 log1p(-x) keeps x's digits, near 1
// 1 - x is exact (Sterbenz) inside log1p.
Expr logit(const Expr& x) {
    return log(x) - log1p(-x);
}
// log(1 - logit^-1(x)) = log logit^-1(-x): no cancellation in 1 - logit^-1(x) for large x.
Expr log1m_inv_logit(const Expr& x) {
    return log_inv_logit(-x);
}
// 1 - exp(-exp(x)) = -expm1(-exp(x)): exact where exp(x) is tiny (x very negative).
Expr inv_cloglog(const Expr& x) {
    return -expm1(-exp(x));
}
// Stan's logistic approximation of Phi: logit^-1(0.07056 x^3 + 1.5976 x), factored as
// x (0.07056 x^2 + 1.5976).
Expr Phi_approx(const Expr& x) {
    return inv_logit(x * (0.07056 * square(x) + 1.5976));
}
Expr log2(const Expr& x) {
    return log(x) / std::numbers::ln2;
}
Expr log10(const Expr& x) {
    return log(x) / std::numbers::ln10;
}
Expr exp2(const Expr& x) {
    return exp(x * std::numbers::ln2);
}

// log(e^x - e^y) = x + log(1 - e^(y - x)): never forms e^x (no overflow), and log1m_exp is
// stable for y - x near 0 and far below.
Expr log_diff_exp(const Expr& x, const Arg& y) {
    return x + log1m_exp(expr_of(x, y) - x);
}
Expr log_diff_exp(double x, const Expr& y) {
    return log_diff_exp(expr_of(x, y), y);
}
// log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b). Its derivatives digamma(a) -
// digamma(a + b) follow from lgamma's rule. (For a, b both above ~1e7 the three terms cancel
// to a few digits; the densities here do not reach that range.)
Expr lbeta(const Expr& a, const Arg& b) {
    const Expr be = expr_of(a, b);
    return lgamma(a) + lgamma(be) - lgamma(a + be);
}
Expr lbeta(double a, const Expr& b) {
    return lbeta(expr_of(a, b), b);
}
// log C(n, k) = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1).
Expr lchoose(const Expr& n, const Arg& k) {
    const Expr ke = expr_of(n, k);
    return lgamma(n + 1.0) - lgamma(ke + 1.0) - lgamma(n - ke + 1.0);
}
Expr lchoose(double n, const Expr& k) {
    return lchoose(expr_of(n, k), k);
}
// log Gamma_k(x) = k (k - 1) / 4 log(pi) + sum_{j=1..k} lgamma(x + (1 - j) / 2).
Expr lmgamma(int k, const Expr& x) {
    if (k < 1)
        throw ModelError(fmt::format("lmgamma: the dimension `k` must be at least 1, got {}", k));
    Expr total = lgamma(x);
    for (int j = 2; j <= k; ++j) total = total + lgamma(x + (1.0 - j) / 2);
    return total + k * (k - 1) / 4.0 * std::log(std::numbers::pi);
}

}  // namespace advi
