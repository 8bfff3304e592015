// Scalar special functions and their adjoint rules (rows in op_table.cpp). Each scalar form
// says why it is numerically stable; each adjoint rule carries its derivation.
#include <advi/graph/ops_math.hpp>

#include <numbers>

#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/lambert_w.hpp>
#include <boost/math/special_functions/owens_t.hpp>
#include <boost/math/special_functions/polygamma.hpp>

#include <advi/base/error.hpp>
#include <advi/base/math_policy.hpp>
#include <advi/graph/adjoint_terms.hpp>
#include <advi/graph/graph.hpp>

namespace advi::math {
namespace {

constexpr double kSqrt2 = std::numbers::sqrt2;
constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log(2 pi) / 2
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kTwoOverSqrtPi = std::numbers::inv_sqrtpi * 2;
// Beyond this, I0(x) ~ e^x / sqrt(2 pi x) overflows soon (near x = 713): use the
// asymptotic expansion, whose terms are below 1e-25 after ten at x = 500.
constexpr double kBesselAsymptotic = 500;

// sum_k (-1)^k a_k(nu) x^-k of I_nu(x) ~ e^x / sqrt(2 pi x) * sum (Abramowitz-Stegun 9.7.1),
// a_k(nu) = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), for x >= kBesselAsymptotic.
double bessel_i_series(int nu, double x) {
    double term = 1.0;
    double sum = 1.0;
    for (int k = 1; k <= 10; ++k) {
        const double odd = 2.0 * k - 1;
        term *= -(4.0 * nu * nu - odd * odd) / (8.0 * k * x);
        sum += term;
    }
    return sum;
}

}  // namespace

// Phi(x) = erfc(-x / sqrt 2) / 2: erfc keeps relative accuracy in its tail, so the lower
// tail of Phi has it too (1 + erf(x / sqrt 2) would cancel to 0 below x = -8).
double phi_cdf(double x) {
    return 0.5 * std::erfc(-x / kSqrt2);
}

double log_phi_cdf(double x) {
    if (std::isnan(x))
        return x;
    // Upper half: Phi = 1 - Q with Q = erfc(x / sqrt 2) / 2 tiny; log1p(-Q) keeps Q's digits.
    if (x > 0)
        return std::log1p(-0.5 * std::erfc(x / kSqrt2));
    // Down to -20 erfc is relatively accurate and far from underflow (erfc(14) ~ 1e-88).
    if (x > -20)
        return std::log(0.5 * std::erfc(-x / kSqrt2));
    // Far tail, where erfc underflows below x = -38: Mills' ratio expansion with t = -x,
    // Phi(x) = phi(t) / t * (1 - 1/t^2 + 3/t^4 - 15/t^6 + ...). The series alternates, so
    // its error is below the first dropped term, 25!! / t^26 < 1e-20 for t >= 20.
    const double t = -x;
    const double inv_t2 = 1.0 / (t * t);
    double term = 1.0;
    double sum = 0.0;
    for (int k = 1; k <= 12; ++k) {
        term *= -(2.0 * k - 1) * inv_t2;
        sum += term;
    }
    return -0.5 * t * t - std::log(t) - kLogSqrt2Pi + std::log1p(sum);
}

// log(1 - e^x) (Maechler 2012): near 0, 1 - e^x cancels, and -expm1(x) keeps its digits;
// far below, e^x is tiny, and log1p keeps its digits. The switch at -log 2 is where the
// two forms' error bounds cross.
double log1m_exp(double x) {
    return x > -std::numbers::ln2 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x));
}

double log_bessel_i0(double x) {
    const double ax = std::fabs(x);  // I0 is even
    if (ax < kBesselAsymptotic)
        return std::log(boost::math::cyl_bessel_i(0, ax, MathPolicy()));
    // log of e^x / sqrt(2 pi x) * series, never forming e^x.
    // (log 2 pi + log x: 2 pi x overflows for x above 2.8e307)
    return ax - 0.5 * (std::log(2 * std::numbers::pi) + std::log(ax)) +
           std::log(bessel_i_series(0, ax));
}

double bessel_i1_over_i0(double x) {
    const double ax = std::fabs(x);  // I1 is odd, I0 even
    double r;
    if (ax < kBesselAsymptotic) {
        r = boost::math::cyl_bessel_i(1, ax, MathPolicy()) /
            boost::math::cyl_bessel_i(0, ax, MathPolicy());
    } else {
        r = bessel_i_series(1, ax) /
            bessel_i_series(0, ax);  // the factors e^x / sqrt(2 pi x) cancel
    }
    return std::copysign(r, x);
}

// Stan's convention 0 log 0 = 0, so that a zero count with a zero probability adds nothing.
double lmultiply(double x, double y) {
    return x == 0 && y == 0 ? 0.0 : x * std::log(y);
}

// The order is a real input of the graph (so that the op stays elementwise and folds as one
// scalar function of two): anything but a whole number in 0..1000 is outside the domain, NaN
// (the cap keeps the conversion to int defined; each differentiation adds one to the order, so
// no graph comes near it). At the poles (0 and the negative integers) NaN too, as for digamma
// and trigamma; overflow is inf under MathPolicy.
namespace {
// a whole number whose conversion to int is defined (each differentiation moves it by one)
bool whole(double v) {
    return std::fabs(v) <= 1e6 && v == std::floor(v);
}
}  // namespace
double bessel_j(double v, double x) {
    return whole(v) ? boost::math::cyl_bessel_j(static_cast<int>(v), x, MathPolicy())
                    : std::nan("");
}
double bessel_y(double v, double x) {
    return whole(v) && x > 0 ? boost::math::cyl_neumann(static_cast<int>(v), x, MathPolicy())
                             : std::nan("");
}
double bessel_i(double v, double x) {
    return whole(v) ? boost::math::cyl_bessel_i(static_cast<int>(v), x, MathPolicy())
                    : std::nan("");
}
double bessel_k(double v, double x) {
    return whole(v) && x > 0 ? boost::math::cyl_bessel_k(static_cast<int>(v), x, MathPolicy())
                             : std::nan("");
}

double polygamma(double n, double x) {
    if (!(n >= 0) || n != std::floor(n) || n > 1000)
        return std::nan("");
    if (!(x > 0) && x == std::floor(x))
        return std::nan("");
    return boost::math::polygamma(static_cast<int>(n), x, MathPolicy());
}

double owens_t(double h, double a) {
    if (std::isnan(h) || std::isnan(a))
        return std::nan("");
    return boost::math::owens_t(h, a, MathPolicy());
}

double lambert_w0(double x) {
    if (!(x >= -1 / M_E))
        return std::nan("");
    return boost::math::lambert_w0(x, MathPolicy());
}

double lambert_wm1(double x) {
    if (!(x >= -1 / M_E && x < 0))
        return std::nan("");
    return boost::math::lambert_wm1(x, MathPolicy());
}

double inv_erfc(double x) {
    if (!(x >= 0 && x <= 2))
        return std::nan("");
    return boost::math::erfc_inv(x, MathPolicy());
}

// ---------------------------------------------------------------- adjoint rules
// `y` is the node, `g` its adjoint; contributions go to c[k] for input k.

namespace {

using namespace adjoint_terms;

NodeId f(Graph& gr, Op op, NodeId a) {
    return gr.apply(op, a);
}

// c * exp(k x^2): the Gaussian kernels of erf, erfc and Phi.
NodeId gauss(Graph& gr, double c, double k, NodeId x) {
    return mul(gr, num(gr, c), f(gr, Op::Exp, mul(gr, num(gr, k), f(gr, Op::Square, x))));
}

// The adjoint of a selection between inputs 0 and 1: g to input 0 where the selector s is
// 1, to input 1 where it is 0 (only to inputs that depend on a latent).
void route(Graph& gr, NodeId self, NodeId s, NodeId g, Contrib& c) {
    if (gr.is_variable(in(gr, self, 0)))
        c[0] = mul(gr, g, s);
    if (gr.is_variable(in(gr, self, 1)))
        c[1] = mul(gr, g, sub(gr, num(gr, 1), s));
}

}  // namespace

// step is piecewise constant: its derivative is 0 wherever it exists, so nothing flows.
void adj_step(Graph&, NodeId, NodeId, Contrib&) {}
// d|x| = sign(x) dx, written 2 step(x) - 1: at the kink x = 0 this is the right derivative
// (+1), as for fmin/fmax ties below; the kink has measure zero under any density.
void adj_fabs(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId s = f(gr, Op::Step, in(gr, y, 0));
    c[0] = mul(gr, g, sub(gr, mul(gr, num(gr, 2), s), num(gr, 1)));
}
// d sin(x) = cos(x) dx
void adj_sin(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, f(gr, Op::Cos, in(gr, y, 0)));
}
// d cos(x) = -sin(x) dx
void adj_cos(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = neg(gr, mul(gr, g, f(gr, Op::Sin, in(gr, y, 0))));
}
// d tanh(x) = (1 - tanh(x)^2) dx
void adj_tanh(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, sub(gr, num(gr, 1), f(gr, Op::Square, y)));
}
// d tan(x) = (1 + tan(x)^2) dx
void adj_tan(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, add(gr, num(gr, 1), f(gr, Op::Square, y)));
}
// d asin(x) = dx / sqrt(1 - x^2)
void adj_asin(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId x = in(gr, y, 0);
    c[0] = div(gr, g, f(gr, Op::Sqrt, sub(gr, num(gr, 1), f(gr, Op::Square, x))));
}
// d acos(x) = -dx / sqrt(1 - x^2)
void adj_acos(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId x = in(gr, y, 0);
    c[0] = neg(gr, div(gr, g, f(gr, Op::Sqrt, sub(gr, num(gr, 1), f(gr, Op::Square, x)))));
}
// d atan(x) = dx / (1 + x^2)
void adj_atan(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = div(gr, g, add(gr, num(gr, 1), f(gr, Op::Square, in(gr, y, 0))));
}
// d sinh(x) = cosh(x) dx
void adj_sinh(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, f(gr, Op::Cosh, in(gr, y, 0)));
}
// d cosh(x) = sinh(x) dx
void adj_cosh(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, f(gr, Op::Sinh, in(gr, y, 0)));
}
// d asinh(x) = dx / sqrt(x^2 + 1)
void adj_asinh(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId x = in(gr, y, 0);
    c[0] = div(gr, g, f(gr, Op::Sqrt, add(gr, f(gr, Op::Square, x), num(gr, 1))));
}
// d atanh(x) = dx / (1 - x^2)
void adj_atanh(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = div(gr, g, sub(gr, num(gr, 1), f(gr, Op::Square, in(gr, y, 0))));
}
// d Gamma(x) = Gamma(x) digamma(x) dx
void adj_tgamma(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, mul(gr, y, f(gr, Op::Digamma, in(gr, y, 0))));
}
// floor, ceil, round and trunc are piecewise constant: as step, nothing flows (Stan's
// derivative, 0 wherever it exists).
void adj_floor(Graph&, NodeId, NodeId, Contrib&) {}
void adj_ceil(Graph&, NodeId, NodeId, Contrib&) {}
void adj_round(Graph&, NodeId, NodeId, Contrib&) {}
void adj_trunc(Graph&, NodeId, NodeId, Contrib&) {}
// y = x^(1/3): dy = dx / (3 y^2)
void adj_cbrt(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = div(gr, g, mul(gr, num(gr, 3), f(gr, Op::Square, y)));
}
// d erf(x) = 2/sqrt(pi) e^(-x^2) dx
void adj_erf(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, gauss(gr, kTwoOverSqrtPi, -1, in(gr, y, 0)));
}
// d erfc(x) = -2/sqrt(pi) e^(-x^2) dx
void adj_erfc(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, gauss(gr, -kTwoOverSqrtPi, -1, in(gr, y, 0)));
}
// d Phi(x) = phi(x) dx = e^(-x^2/2) / sqrt(2 pi) dx
void adj_phi(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, gauss(gr, kInvSqrt2Pi, -0.5, in(gr, y, 0)));
}
// d log Phi(x) = phi(x) / Phi(x) dx = exp(-x^2/2 - log sqrt(2 pi) - log Phi(x)) dx: in the
// log domain, so that the ratio stays finite (~ -x) where phi and Phi both underflow.
void adj_log_phi(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId x = in(gr, y, 0);
    const NodeId log_phi =
        sub(gr, mul(gr, num(gr, -0.5), f(gr, Op::Square, x)), num(gr, kLogSqrt2Pi));
    c[0] = mul(gr, g, f(gr, Op::Exp, sub(gr, log_phi, y)));
}
// d log(1 - e^x) = -e^x / (1 - e^x) dx = -dx / (e^-x - 1) = -dx / expm1(-x): expm1 keeps
// the digits of the denominator near x = 0.
void adj_log1m_exp(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = neg(gr, div(gr, g, f(gr, Op::Expm1, neg(gr, in(gr, y, 0)))));
}
// d log I0(x) = I0'(x) / I0(x) dx = I1(x) / I0(x) dx
void adj_log_bessel_i0(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, f(gr, Op::BesselI1OverI0, in(gr, y, 0)));
}
// r = I1/I0 with I0' = I1 and I1' = I0 - I1/x: r' = (I1' I0 - I1 I0') / I0^2 = 1 - r/x - r^2.
void adj_bessel_i1_over_i0(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId r_over_x = div(gr, y, in(gr, y, 0));
    c[0] = mul(gr, g, sub(gr, sub(gr, num(gr, 1), r_over_x), f(gr, Op::Square, y)));
}
// fmin(a, b): the adjoint goes to a where a <= b (step(b - a) = 1), else to b. On a tie
// it all goes to a: one of the one-sided derivatives.
void adj_fmin(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    route(gr, y, f(gr, Op::Step, sub(gr, in(gr, y, 1), in(gr, y, 0))), g, c);
}
// fmax(a, b): the adjoint goes to a where a >= b (step(a - b) = 1), else to b.
void adj_fmax(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    route(gr, y, f(gr, Op::Step, sub(gr, in(gr, y, 0), in(gr, y, 1))), g, c);
}
// y = a log b: dy = log(b) da + (a / b) db, with a / b = 0 at a = b = 0 (Stan's 0 log 0 = 0:
// binomial's (N - n) log(1 - theta) at n = N, theta = 1 is 0 with gradient 0, not 0/0). The
// denominator b + step(-|a|) step(-|b|) is b exactly everywhere else, so that the second
// derivatives (1 / b in a and b) are exact there too.
void adj_lmultiply(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId a = in(gr, y, 0);
    const NodeId b = in(gr, y, 1);
    if (gr.is_variable(a))
        c[0] = mul(gr, g, f(gr, Op::Log, b));
    if (gr.is_variable(b)) {
        auto is_zero = [&](NodeId x) { return f(gr, Op::Step, neg(gr, f(gr, Op::Fabs, x))); };
        c[1] = mul(gr, g, div(gr, a, add(gr, b, mul(gr, is_zero(a), is_zero(b)))));
    }
}

// atan2(a, b) = the angle of (b, a): d = (b da - a db) / (a^2 + b^2)
void adj_atan2(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId a = in(gr, y, 0);
    const NodeId b = in(gr, y, 1);
    const NodeId r2 = add(gr, f(gr, Op::Square, a), f(gr, Op::Square, b));
    if (gr.is_variable(a))
        c[0] = div(gr, mul(gr, g, b), r2);
    if (gr.is_variable(b))
        c[1] = neg(gr, div(gr, mul(gr, g, a), r2));
}
// hypot(a, b) = sqrt(a^2 + b^2): d = (a da + b db) / hypot
void adj_hypot(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId a = in(gr, y, 0);
    const NodeId b = in(gr, y, 1);
    if (gr.is_variable(a))
        c[0] = div(gr, mul(gr, g, a), y);
    if (gr.is_variable(b))
        c[1] = div(gr, mul(gr, g, b), y);
}
// fmod(a, b) = a - trunc(a / b) b: d = da - trunc(a / b) db (trunc piecewise constant)
void adj_fmod(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId a = in(gr, y, 0);
    const NodeId b = in(gr, y, 1);
    if (gr.is_variable(a))
        c[0] = g;
    if (gr.is_variable(b))
        c[1] = neg(gr, mul(gr, g, f(gr, Op::Trunc, div(gr, a, b))));
}

// W e^W = x: dW = dx / (x + e^W) (finite at x = 0, where W / (x (1 + W)) is 0/0)
void adj_lambert_w0(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = div(gr, g, add(gr, in(gr, y, 0), f(gr, Op::Exp, y)));
}
// erfc(y) = x: dy = -(sqrt(pi) / 2) e^(y^2) dx
void adj_inv_erfc(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, gauss(gr, -std::sqrt(M_PI) / 2, 1, y));
}
// Owen's T(h, a) = (1 / 2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx:
// dT/dh = -phi(h) erf(a h / sqrt 2) / 2, dT/da = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2))
void adj_owens_t(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId h = in(gr, y, 0);
    const NodeId a = in(gr, y, 1);
    if (gr.is_variable(h)) {
        const NodeId erf_ah = f(gr, Op::Erf, mul(gr, num(gr, M_SQRT1_2), mul(gr, a, h)));
        c[0] = mul(gr, g, mul(gr, gauss(gr, -0.5 / std::sqrt(2 * M_PI), -0.5, h), erf_ah));
    }
    if (gr.is_variable(a)) {
        const NodeId q = add(gr, num(gr, 1), f(gr, Op::Square, a));
        const NodeId e = f(gr, Op::Exp, mul(gr, num(gr, -0.5), mul(gr, f(gr, Op::Square, h), q)));
        c[1] = mul(gr, g, div(gr, e, mul(gr, num(gr, 2 * M_PI), q)));
    }
}

// d polygamma(n, x) / dx = polygamma(n + 1, x): every order's derivative is the next order,
// so the chain of rules is closed (digamma -> trigamma -> polygamma(2) -> polygamma(3) ...).
// The order is an integer: it has no derivative, and a parameter must not flow into it.
void adj_polygamma(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId n = in(gr, y, 0);
    if (gr.is_variable(n))
        throw ModelError("polygamma: the order n must be a constant, not depend on parameters");
    c[1] = mul(gr, g, gr.apply(Op::Polygamma, add(gr, n, num(gr, 1)), in(gr, y, 1)));
}
void adj_bessel(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const Op op = gr[y].op;
    const NodeId v = in(gr, y, 0), x = in(gr, y, 1);
    if (gr.is_variable(v))
        throw ModelError("a Bessel function's order must be a constant, not depend on parameters");
    const NodeId below = gr.apply(op, add(gr, v, num(gr, -1)), x);
    const NodeId above = gr.apply(op, add(gr, v, num(gr, 1)), x);
    const double sign = op == Op::BesselK ? -0.5 : 0.5;
    const NodeId sum_or_difference =
        op == Op::BesselJ || op == Op::BesselY ? sub(gr, below, above) : add(gr, below, above);
    c[1] = mul(gr, g, mul(gr, num(gr, sign), sum_or_difference));
}
void adj_trigamma(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    c[0] = mul(gr, g, gr.apply(Op::Polygamma, num(gr, 2), in(gr, y, 0)));
}

}  // namespace advi::math
