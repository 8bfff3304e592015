// log f(u | w) of the Wiener first-passage time (ops_wiener.hpp): the two series, summed on
// second-order dual numbers, and the adjoint rules that chain value -> first -> second
// derivatives.
#include <advi/graph/ops_wiener.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <advi/graph/adjoint_terms.hpp>
#include <advi/graph/dual2.hpp>
#include <advi/graph/graph.hpp>

namespace advi::wiener {
namespace {

using Dual2 = advi::Dual2<2>;  // in (u, w)

// The first term left out of either series is below e^-kTail times its leading term; the
// polynomial factors the derivatives bring (k^4 / u^4 at most) stay far below 2^-52 of the
// sums at that depth.
constexpr double kTail = 75;
constexpr double kPi = std::numbers::pi;

// Small time: f = (2 pi u^3)^(-1/2) sum_k (w + 2k) exp(-(w + 2k)^2 / (2u)), k over all integers.
// Factoring out the k = 0 exponent, exp(-w^2 / (2u)), leaves exponents -2k(k + w) / u <= 0;
// the terms k = +-(K + 1) left out are below exp(-2K(K + 1) / u).
// (In closed form: the integrator of a test asks for u = 1e300, where counting up takes forever.)
double small_time_terms(double u) {
    const double need = kTail * u / 2;  // K (K + 1) >= need
    return std::max(1.0, std::ceil((std::sqrt(1 + 4 * need) - 1) / 2));
}
Dual2 small_time(const Dual2& u, const Dual2& w, double K) {
    const Dual2 inv_u = reciprocal(u);
    Dual2 sum = w;
    for (double k = -K; k <= K; ++k) {
        if (k == 0)
            continue;
        sum = sum + (2.0 * k + w) * exp((-2.0 * k) * ((k + w) * inv_u));
    }
    return (-0.5 * std::log(2 * kPi)) + ((-1.5) * log(u) + ((-0.5) * (w * w * inv_u) + log(sum)));
}

// Large time: f = pi sum_{k >= 1} k exp(-k^2 pi^2 u / 2) sin(k pi w). Factoring out
// exp(-pi^2 u / 2) leaves exponents -(k^2 - 1) pi^2 u / 2; the term K + 1 left out is below
// exp(-((K + 1)^2 - 1) pi^2 u / 2).
double large_time_terms(double u) {
    const double need = 1 + 2 * kTail / (kPi * kPi * u);  // (K + 1)^2 >= need
    return std::max(1.0, std::ceil(std::sqrt(need) - 1));
}
Dual2 large_time(const Dual2& u, const Dual2& w, double K) {
    Dual2 sum;
    for (double kk = 1; kk <= K; ++kk) {
        sum = sum + kk * (exp((-(kk * kk - 1) * kPi * kPi / 2) * u) * sin((kk * kPi) * w));
    }
    return std::log(kPi) + ((-kPi * kPi / 2) * u + log(sum));
}

Dual2 log_f(Series s, double u, double w) {
    const Dual2 du = Dual2::input(u, 0);
    const Dual2 dw = Dual2::input(w, 1);
    return s == Series::Small ? small_time(du, dw, small_time_terms(u))
                              : large_time(du, dw, large_time_terms(u));
}

}  // namespace

double log_first_passage_by(Series s, double u, double w) {
    return log_f(s, u, w).v;
}

std::array<double, 6> log_first_passage(double u, double w) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(u) || !(w > 0 && w < 1))
        return {nan, nan, nan, nan, nan, nan};
    if (u <= 0)
        return {-std::numeric_limits<double>::infinity(), 0, 0, 0, 0, 0};
    // the series with fewer terms; the small-time one has 2K + 1
    const Series s =
        2 * small_time_terms(u) + 1 <= large_time_terms(u) ? Series::Small : Series::Large;
    const Dual2 r = log_f(s, u, w);
    return {r.v, r.d[0], r.d[1], r.h[0], r.h[1], r.h[2]};
}

using namespace adjoint_terms;

// d log f = f_u du + f_w dw; each first derivative's rule is the row of the Hessian.
void adj_log_first_passage(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId u = in(gr, y, 0), w = in(gr, y, 1);
    if (gr.is_variable(u))
        c[0] = mul(gr, g, gr.apply(Op::WienerLogFDu, u, w));
    if (gr.is_variable(w))
        c[1] = mul(gr, g, gr.apply(Op::WienerLogFDw, u, w));
}
void adj_log_first_passage_du(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId u = in(gr, y, 0), w = in(gr, y, 1);
    if (gr.is_variable(u))
        c[0] = mul(gr, g, gr.apply(Op::WienerLogFDuu, u, w));
    if (gr.is_variable(w))
        c[1] = mul(gr, g, gr.apply(Op::WienerLogFDuw, u, w));
}
void adj_log_first_passage_dw(Graph& gr, NodeId y, NodeId g, Contrib& c) {
    const NodeId u = in(gr, y, 0), w = in(gr, y, 1);
    if (gr.is_variable(u))
        c[0] = mul(gr, g, gr.apply(Op::WienerLogFDuw, u, w));
    if (gr.is_variable(w))
        c[1] = mul(gr, g, gr.apply(Op::WienerLogFDww, u, w));
}

}  // namespace advi::wiener
