// Scalar special functions of the op table (Stan's names): step, fabs, fmin, fmax, sin, cos,
// tanh, tan, asin, acos, atan, atan2, hypot, fmod, sinh, cosh, asinh, atanh, tgamma, floor, ceil,
// round, trunc, cbrt,
// erf, erfc, Phi, log_Phi, log1m_exp, lmultiply, log I0 and I1/I0, and polygamma(n, x) (not a Stan
// function: the derivatives of digamma and trigamma). Their rows live in op_table.cpp; the scalar
// functors, kernels and adjoint rules live here.
#pragma once

#include <array>
#include <cmath>

#include <advi/graph/node.hpp>
#include <advi/graph/op.hpp>

namespace advi {

class Graph;

namespace math {

// Numerically stable scalar forms; each says in ops_math.cpp why it is stable.
double phi_cdf(double x);              // Phi(x) = P(Z <= x), relative accuracy in the lower tail
double log_phi_cdf(double x);          // log Phi(x), finite down to x = -1e150
double log1m_exp(double x);            // log(1 - e^x), x < 0
double log_bessel_i0(double x);        // log I0(x) without overflow for large |x|
double bessel_i1_over_i0(double x);    // I1(x) / I0(x) without overflow for large |x|
double lmultiply(double x, double y);  // x log y, with 0 log 0 = 0 (Stan)
double polygamma(double n, double x);
// Bessel functions of integer order v: J_v(x), Y_v(x) (x > 0), I_v(x), K_v(x) (x > 0), Stan's
// bessel_first_kind, bessel_second_kind, modified_bessel_first_kind and _second_kind; NaN
// for an order that is not a whole number.
double bessel_j(double v, double x);
double bessel_y(double v, double x);
double bessel_i(double v, double x);
double bessel_k(double v, double x);
double owens_t(double h, double a);  // Owen's T(h, a) (Boost.Math), NaN where undefined
double lambert_w0(double x);         // the principal branch of W (x e^x inverted), x >= -1/e
double lambert_wm1(double x);        // the lower branch W <= -1, -1/e <= x < 0
double inv_erfc(double x);           // the inverse of erfc, x in [0, 2]  //
                                     // d^n/dx^n digamma(x) for an integer order n >= 0

// One functor per op, `f(x, y)` as op_table.cpp's templates expect (y unused for unary).
// The one-line ones are inline so that the loops in op_table.cpp's kernels inline them.
// clang-format off
struct StepF { static double f(double x, double) { return x < 0 ? 0.0 : 1.0; } };
struct FabsF { static double f(double x, double) { return std::fabs(x); } };
struct SinF { static double f(double x, double) { return std::sin(x); } };
struct CosF { static double f(double x, double) { return std::cos(x); } };
struct TanhF { static double f(double x, double) { return std::tanh(x); } };
struct CbrtF { static double f(double x, double) { return std::cbrt(x); } };
struct ErfF { static double f(double x, double) { return std::erf(x); } };
struct ErfcF { static double f(double x, double) { return std::erfc(x); } };
struct PhiF { static double f(double x, double) { return phi_cdf(x); } };
struct LogPhiF { static double f(double x, double) { return log_phi_cdf(x); } };
struct Log1mExpF { static double f(double x, double) { return log1m_exp(x); } };
struct LogBesselI0F { static double f(double x, double) { return log_bessel_i0(x); } };
struct BesselI1OverI0F { static double f(double x, double) { return bessel_i1_over_i0(x); } };
struct TanF { static double f(double x, double) { return std::tan(x); } };
struct AsinF { static double f(double x, double) { return std::asin(x); } };
struct AcosF { static double f(double x, double) { return std::acos(x); } };
struct AtanF { static double f(double x, double) { return std::atan(x); } };
struct SinhF { static double f(double x, double) { return std::sinh(x); } };
struct CoshF { static double f(double x, double) { return std::cosh(x); } };
struct AsinhF { static double f(double x, double) { return std::asinh(x); } };
struct AtanhF { static double f(double x, double) { return std::atanh(x); } };
struct TgammaF { static double f(double x, double) { return std::tgamma(x); } };
struct FloorF { static double f(double x, double) { return std::floor(x); } };
struct CeilF { static double f(double x, double) { return std::ceil(x); } };
struct RoundF { static double f(double x, double) { return std::round(x); } };
struct TruncF { static double f(double x, double) { return std::trunc(x); } };
struct FminF { static double f(double x, double y) { return std::fmin(x, y); } };
struct FmaxF { static double f(double x, double y) { return std::fmax(x, y); } };
struct LmultiplyF { static double f(double x, double y) { return lmultiply(x, y); } };
struct Atan2F { static double f(double x, double y) { return std::atan2(x, y); } };
struct HypotF { static double f(double x, double y) { return std::hypot(x, y); } };
struct FmodF { static double f(double x, double y) { return std::fmod(x, y); } };
struct LambertW0F { static double f(double x, double) { return lambert_w0(x); } };
struct LambertWm1F { static double f(double x, double) { return lambert_wm1(x); } };
struct InvErfcF { static double f(double x, double) { return inv_erfc(x); } };
struct OwensTF { static double f(double h, double a) { return owens_t(h, a); } };
struct PolygammaF { static double f(double n, double x) { return polygamma(n, x); } };
struct BesselJF { static double f(double v, double x) { return bessel_j(v, x); } };
struct BesselYF { static double f(double v, double x) { return bessel_y(v, x); } };
struct BesselIF { static double f(double v, double x) { return bessel_i(v, x); } };
struct BesselKF { static double f(double v, double x) { return bessel_k(v, x); } };
// clang-format on

// Adjoint rules (signature of OpInfo::adjoint); derivations beside each in ops_math.cpp.
using Contrib = std::array<NodeId, 3>;
void adj_step(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_fabs(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_sin(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_cos(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tanh(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tan(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_asin(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_acos(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_atan(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_sinh(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_cosh(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_asinh(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_atanh(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tgamma(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_floor(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_ceil(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_round(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_trunc(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_cbrt(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_erf(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_erfc(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_phi(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_phi(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log1m_exp(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_bessel_i0(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_bessel_i1_over_i0(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_fmin(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_fmax(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_lmultiply(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_atan2(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_hypot(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_fmod(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_owens_t(Graph& g, NodeId y, NodeId adj, Contrib& c);
// (both branches: dW = dx / (x + e^W))
void adj_lambert_w0(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_inv_erfc(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_polygamma(Graph& g, NodeId y, NodeId adj, Contrib& c);
// The derivatives in x are Bessel functions of the neighbouring orders: J' = (J_{v-1} -
// J_{v+1}) / 2, Y' likewise, I' = (I_{v-1} + I_{v+1}) / 2, K' = -(K_{v-1} + K_{v+1}) / 2, so
// the chain of rules is closed; the order is a constant.
void adj_bessel(Graph& g, NodeId y, NodeId adj, Contrib& c);
// d trigamma(x) = polygamma(2, x) dx: trigamma's rule lives here beside polygamma's.
void adj_trigamma(Graph& g, NodeId y, NodeId adj, Contrib& c);

}  // namespace math
}  // namespace advi
