// log F and log G of the Wiener first passage (ops_wiener_cdf.hpp): the two series on
// second-order dual numbers in (u, w, c), the choice between them, and the component ops.
#include <advi/graph/ops_wiener_cdf.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <advi/graph/component_ops.hpp>
#include <advi/graph/dual2.hpp>

namespace advi::wiener {
namespace {

using D = Dual2<3>;  // in (u, w, c)

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = std::numbers::pi;
// A series stops when the terms left out are below e^-kTail of its sum.
constexpr double kTail = 40;
// More terms than any argument a series is chosen for needs: a failure, reported as NaN.
constexpr int kMaxTerms = 1'000'000;
// F = P - G (or G = P - F) is used only where the difference keeps all but about a bit of P's
// digits; otherwise the other series gives the tail directly.
constexpr double kMaxCancellingRatio = 0.5;

// log M(x), Mills' ratio M(x) = Phi(-x) / phi(x), with M' = x M - 1:
// (log M)' = x - 1/M, (log M)'' = 1 + (x - 1/M) / M.
D log_mills(const D& x) {
    const double xv = x.v;
    double log_m = 0, inv_m = 0, slope = 0;
    if (xv > 5) {
        // Laplace's continued fraction 1/M = x + 1/(x + 2/(x + 3/(x + ...))); its tail
        // q = 1/M - x directly, so that the slope -q has no cancellation.
        double t = xv;
        for (int n = 120; n >= 2; --n) t = xv + n / t;
        const double q = 1 / t;
        inv_m = xv + q;
        log_m = -std::log(inv_m);
        slope = -q;
    } else {
        log_m = std::log(0.5 * std::erfc(xv / std::numbers::sqrt2)) + 0.5 * xv * xv +
                0.5 * std::log(2 * kPi);
        inv_m = std::exp(-log_m);
        slope = xv - inv_m;
    }
    return chain(x, log_m, slope, 1 + slope * inv_m);
}

// lsc(z) = log(sinh z / z), even, analytic: its Taylor series near 0, where the closed form
// cancels.
D log_sinhc(const D& z) {
    const double a = std::fabs(z.v);
    if (a < 0.1) {
        const D s = z * z;
        return s * (1.0 / 6 +
                    s * (-1.0 / 180 + s * (1.0 / 2835 + s * (-1.0 / 37800 + s * (1.0 / 467775)))));
    }
    const double sign = z.v < 0 ? -1 : 1;
    const double e = std::exp(-2 * a);  // sinh a = e^a (1 - e) / 2
    const double value = a - std::log(2 * a) + std::log1p(-e);
    const double coth = (1 + e) / (1 - e);
    const double csch_sq = 4 * e / ((1 - e) * (1 - e));
    return chain(z, value, sign * (coth - 1 / a), 1 / (a * a) - csch_sq);
}

// log P(w, c) = -cw + log(1 - w) + lsc(c (1 - w)) - lsc(c)
D log_p(const D& w, const D& c) {
    const D one_minus_w = 1.0 - w;
    return -(c * w) + log(one_minus_w) + log_sinhc(c * one_minus_w) - log_sinhc(c);
}

// log F by the small-time series.
D small_time(const D& u, const D& w, const D& c) {
    const D root_u = sqrt(u), cu = c * u;
    const D inv_root_u = reciprocal(root_u), half_inv_u = 0.5 * reciprocal(u);
    // past the peak of the drift's factor the terms fall geometrically
    const double past_peak = std::ceil(std::fabs(c.v) * u.v / 2) + 1;
    double shift = 0;
    D sum;
    for (int k = 0; k < kMaxTerms; ++k) {
        const D r1 = 2.0 * k + w, r2 = (2.0 * k + 2) - w;
        const D log_phi1 = -(r1 * r1 * half_inv_u), log_phi2 = -(r2 * r2 * half_inv_u);
        const std::array<D, 4> terms = {log_phi1 + log_mills((r1 + cu) * inv_root_u),
                                        log_phi1 + log_mills((r1 - cu) * inv_root_u),
                                        log_phi2 + log_mills((r2 - cu) * inv_root_u),
                                        log_phi2 + log_mills((r2 + cu) * inv_root_u)};
        if (k == 0)
            shift = std::max(terms[0].v, terms[1].v);
        sum = sum + exp(terms[0] - shift) + exp(terms[1] - shift) - exp(terms[2] - shift) -
              exp(terms[3] - shift);
        double largest = -kInf;
        for (const D& t : terms) largest = std::max(largest, t.v);
        if (k >= past_peak && largest - shift < std::log(std::fabs(sum.v)) - kTail) {
            return (shift - 0.5 * std::log(2 * kPi)) + (log(sum) - c * w - 0.5 * (c * cu));
        }
    }
    return D(kNaN);
}

// log G by the large-time series, with K terms.
double large_time_terms(double u) {
    return std::max(1.0, std::ceil(std::sqrt(1 + 2 * (kTail + 5) / (kPi * kPi * u))));
}
D large_time(const D& u, const D& w, const D& c) {
    const double terms = large_time_terms(u.v);
    const D c_sq = c * c;
    D sum;
    for (double k = 1; k <= terms; ++k) {
        const double k_pi = k * kPi;
        sum = sum +
              k * (sin(k_pi * w) * exp((-(k * k - 1) * kPi * kPi / 2) * u)) / (c_sq + k_pi * k_pi);
    }
    return std::log(2 * kPi) + (log(sum) - c * w - 0.5 * (c_sq * u) - (kPi * kPi / 2) * u);
}

double small_time_terms(double u, double c) {
    // past the drift's peak, then until (2k)^2 / (2u) passes the tail
    return std::ceil(std::fabs(c) * u / 2 + std::sqrt(kTail * u / 2)) + 1;
}

// One tail from the series `s`: directly, or as P minus the other tail.
D by_series(CdfSeries s, const D& u, const D& w, const D& c, CdfTail tail) {
    const bool direct = (s == CdfSeries::Small) == (tail == CdfTail::Lower);
    const D value = s == CdfSeries::Small ? small_time(u, w, c) : large_time(u, w, c);
    if (direct)
        return value;
    const D lp = log_p(w, c);
    return lp + log1m_exp(value - lp);
}

D log_cdf(double uv, double wv, double cv, CdfTail tail) {
    if (std::isnan(uv) || !std::isfinite(cv) || !(wv > 0 && wv < 1))
        return D(kNaN);
    const D u = D::input(uv, 0), w = D::input(wv, 1), c = D::input(cv, 2);
    if (uv <= 0)
        return tail == CdfTail::Lower ? D(-kInf) : log_p(w, c);
    if (uv == kInf)
        return tail == CdfTail::Lower ? log_p(w, c) : D(-kInf);
    CdfSeries s =
        small_time_terms(uv, cv) <= large_time_terms(uv) ? CdfSeries::Small : CdfSeries::Large;
    const bool direct = (s == CdfSeries::Small) == (tail == CdfTail::Lower);
    if (!direct) {
        // the other tail from this series: keep it only if P minus it does not cancel
        const D other = s == CdfSeries::Small ? small_time(u, w, c) : large_time(u, w, c);
        const D lp = log_p(w, c);
        if (other.v - lp.v <= std::log(kMaxCancellingRatio))
            return lp + log1m_exp(other - lp);
        s = s == CdfSeries::Small ? CdfSeries::Large : CdfSeries::Small;
    }
    return s == CdfSeries::Small ? small_time(u, w, c) : large_time(u, w, c);
}

CdfTail tail_of(int aux) {
    return aux == 0 ? CdfTail::Lower : CdfTail::Upper;
}

}  // namespace

std::array<double, 10> log_first_passage_cdf(double u, double w, double c, CdfTail tail) {
    const D r = log_cdf(u, w, c, tail);
    std::array<double, 10> out{};
    for (int k = 0; k < 10; ++k) out[static_cast<std::size_t>(k)] = r.component(k);
    return out;
}

double log_first_passage_cdf_by(CdfSeries s, double u, double w, double c, CdfTail tail) {
    return by_series(s, D(u), D(w), D(c), tail).v;
}

double log_lower_probability(double w, double c) {
    return log_p(D(w), D(c)).v;
}

NodeId log_first_passage_cdf(Graph& g, NodeId u, NodeId w, NodeId c, CdfTail tail) {
    return component_ops::make(g, Op::WienerLogCdf, {u, w, c}, 0, static_cast<int>(tail));
}

void cdf_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(a, 0, [](std::array<double, 3> x, int aux) {
        return log_first_passage_cdf(x[0], x[1], x[2], tail_of(aux));
    });
}
void cdf_hessian_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(a, 4, [](std::array<double, 3> x, int aux) {
        return log_first_passage_cdf(x[0], x[1], x[2], tail_of(aux));
    });
}
void adj_cdf(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    component_ops::adjoint<3>(g, y, adj, c, Op::WienerLogCdfHessian);
}

}  // namespace advi::wiener
