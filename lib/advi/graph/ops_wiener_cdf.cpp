// log F and log G of the Wiener first passage (ops_wiener_cdf.hpp): the two series on
// second-order dual numbers in (u, w, c), the choice between them, and the component ops.
#include <advi/graph/ops_wiener_cdf.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <unordered_map>

#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/component_ops.hpp>
#include <advi/graph/dual2.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi::wiener {
namespace {

using D = Dual2<3>;   // in (u, w, c)
using D4 = Dual2<4>;  // in (u, w, m, s): with drift variability

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

struct QuadratureRule64 {
    std::array<double, 64> x{}, log_w{};
};

// log M(x), Mills' ratio M(x) = Phi(-x) / phi(x), with M' = x M - 1:
// (log M)' = x - 1/M, (log M)'' = 1 + (x - 1/M) / M.
template <int N>
Dual2<N> log_mills(const Dual2<N>& x) {
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
template <int N>
Dual2<N> log_sinhc(const Dual2<N>& z) {
    const double a = std::fabs(z.v);
    if (a < 0.1) {
        const Dual2<N> s = z * z;
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
template <int N>
Dual2<N> log_p(const Dual2<N>& w, const Dual2<N>& c) {
    const Dual2<N> one_minus_w = 1.0 - w;
    return -(c * w) + log(one_minus_w) + log_sinhc(c * one_minus_w) - log_sinhc(c);
}

// log F by the small-time series.
template <int N>
Dual2<N> small_time(const Dual2<N>& u, const Dual2<N>& w, const Dual2<N>& c) {
    using D = Dual2<N>;
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
template <int N>
Dual2<N> large_time(const Dual2<N>& u, const Dual2<N>& w, const Dual2<N>& c) {
    using D = Dual2<N>;
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
template <int N>
Dual2<N> by_series(CdfSeries s, const Dual2<N>& u, const Dual2<N>& w, const Dual2<N>& c,
                   CdfTail tail) {
    using D = Dual2<N>;
    const bool direct = (s == CdfSeries::Small) == (tail == CdfTail::Lower);
    const D value = s == CdfSeries::Small ? small_time(u, w, c) : large_time(u, w, c);
    if (direct)
        return value;
    const D lp = log_p(w, c);
    return lp + log1m_exp(value - lp);
}

// log F or log G of (u, w, c), carried on dual numbers in whatever inputs u, w and c are
// functions of.
template <int N>
Dual2<N> log_cdf_of(const Dual2<N>& u, const Dual2<N>& w, const Dual2<N>& c, CdfTail tail) {
    using D = Dual2<N>;
    const double uv = u.v, wv = w.v, cv = c.v;
    if (std::isnan(uv) || !std::isfinite(cv) || !(wv > 0 && wv < 1))
        return D(kNaN);
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

D log_cdf(double uv, double wv, double cv, CdfTail tail) {
    return log_cdf_of(D::input(uv, 0), D::input(wv, 1), D::input(cv, 2), tail);
}

// ---- With drift variability: the drift c normal(m, s), F and G averaged over it.

// log Phi(z): (log Phi)' = l = phi / Phi, (log Phi)'' = -l (z + l); far below 0 by Mills' ratio,
// Phi(z) = phi(z) M(-z).
template <int N>
Dual2<N> log_Phi(const Dual2<N>& z) {
    if (z.v < -5)
        return log_mills(-z) - 0.5 * (z * z) - 0.5 * std::log(2 * kPi);
    const double p = 0.5 * std::erfc(-z.v / std::numbers::sqrt2);
    const double l = std::exp(-0.5 * z.v * z.v) / std::sqrt(2 * kPi) / p;
    return chain(z, std::log(p), l, -l * (z.v + l));
}

// log F averaged over the drift, from the small-time series: written with Phi rather than
// Mills' ratio, each image term is e^{b c} Phi(p c + q) in the drift c (b = r - w, p = -sqrt u,
// q = -r / sqrt u; and b = -(r + w), p = sqrt u, q = -r / sqrt u), whose mean over normal(m, s)
// is exact: E[e^{b c} Phi(p c + q)] = e^{b m + b^2 s^2 / 2} Phi((p (m + b s^2) + q) /
// sqrt(1 + p^2 s^2)). Term by term, then, F averaged is a series of the same form (s = 0 gives
// the series above); its terms fall as e^{-r^2 / (2u)} past the drift's peak.
template <int N>
Dual2<N> small_time_sv(const Dual2<N>& u, const Dual2<N>& w, const Dual2<N>& m, const Dual2<N>& s) {
    using D = Dual2<N>;
    const D s2 = s * s;
    const D scale = reciprocal(sqrt(u) * sqrt(1.0 + u * s2));
    auto e1 = [&](const D& r) {
        const D b = r - w;
        return b * m + 0.5 * (b * b * s2) + log_Phi(-((u * (m + b * s2) + r) * scale));
    };
    auto e2 = [&](const D& r) {
        const D b = -(r + w);
        return b * m + 0.5 * (b * b * s2) + log_Phi((u * (m + b * s2) - r) * scale);
    };
    const double past_peak = std::ceil(std::fabs(m.v) * u.v / 2) + 1;
    double shift = 0;
    D sum;
    for (int k = 0; k < kMaxTerms; ++k) {
        const D r1 = 2.0 * k + w, r2 = (2.0 * k + 2) - w;
        const std::array<D, 4> terms = {e1(r1), e2(r1), e1(r2), e2(r2)};
        double largest = -kInf;
        for (const D& t : terms) largest = std::max(largest, t.v);
        if (k == 0) {
            shift = largest;
        } else if (largest > shift + 500) {  // terms still rising: keep the sum in range
            sum = sum * std::exp(shift - largest);
            shift = largest;
        }
        sum = sum + exp(terms[0] - shift) + exp(terms[1] - shift) - exp(terms[2] - shift) -
              exp(terms[3] - shift);
        if (k >= past_peak && largest - shift < std::log(std::fabs(sum.v)) - kTail)
            return shift + log(sum);
    }
    return D(kNaN);
}

// log P averaged over the drift: F averaged at a time U late enough that what is left, G(U),
// is below e^-kTail of it. G(U) <= (2 / pi) e^{-pi^2 U / 2} E[e^{-cw - c^2 U / 2}] (1 + 1e-2)
// for U >= 1 (the large-time series with sin <= 1 and c^2 + k^2 pi^2 >= k^2 pi^2), and the
// mean is (1 + s^2 U)^{-1/2} e^{(s^2 w^2 - 2 m w - m^2 U) / (2 (1 + s^2 U))}.
// `floor` is a lower bound of log P (log F at an earlier time), or -inf if none is known: then
// F is computed at each candidate time.
template <int N>
Dual2<N> log_p_sv(const Dual2<N>& w, const Dual2<N>& m, const Dual2<N>& s, double from,
                  double floor = -kInf) {
    using D = Dual2<N>;
    auto bound = [&](double U) {
        const double s2u = s.v * s.v * U;
        return std::log(2 / kPi * 1.01) - kPi * kPi * U / 2 - 0.5 * std::log1p(s2u) +
               (s.v * s.v * w.v * w.v - 2 * m.v * w.v - m.v * m.v * U) / (2 * (1 + s2u));
    };
    double U = std::max(from, 2.0);
    if (floor > -kInf) {
        // the bound alone decides: it falls below floor - kTail at some U (it is at most
        // quadratic in U's square root, falling linearly)
        for (int tries = 0; tries < 400 && !(bound(U) < floor - kTail); ++tries) U *= 1.25;
        return small_time_sv(D(U), w, m, s);
    }
    for (int tries = 0; tries < 200; ++tries, U *= 1.5) {
        const D f = small_time_sv(D(U), w, m, s);
        if (std::isnan(f.v) || bound(U) < f.v - kTail)
            return f;
    }
    return D(kNaN);
}

// Gauss-Hermite rule of 64 points for the weight e^{-x^2} (Golub-Welsch), computed once.
const QuadratureRule64& hermite() {
    static const QuadratureRule64 rule = [] {
        constexpr int n = 64;
        Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, n);
        for (int k = 1; k < n; ++k) J(k, k - 1) = J(k - 1, k) = std::sqrt(k / 2.0);
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(J);
        QuadratureRule64 r;
        for (int k = 0; k < n; ++k) {
            r.x[static_cast<std::size_t>(k)] = eig.eigenvalues()[k];
            const double v0 = eig.eigenvectors()(0, k);
            r.log_w[static_cast<std::size_t>(k)] = std::log(std::sqrt(kPi) * v0 * v0);
        }
        return r;
    }();
    return rule;
}

// log G averaged over the drift, far in the upper tail (G below 1e-3 of P, where P - F would
// cancel): the mean of G(u | c) over normal(m, s) by Gauss-Hermite around the peak of the
// integrand, log G(u | c) being close to -cw - c^2 u / 2 there (the large-time series' lead),
// which with the normal's log density is a normal of precision u + 1/s^2.
template <int N>
Dual2<N> upper_tail_sv(const Dual2<N>& u, const Dual2<N>& w, const Dual2<N>& m, const Dual2<N>& s) {
    using D = Dual2<N>;
    if (s.v == 0)
        return log_cdf_of(u, w, m, CdfTail::Upper);
    const D inv_s2 = reciprocal(s * s);
    const D precision = u + inv_s2;
    const D centre = (m * inv_s2 - w) / precision;
    const D spread = std::numbers::sqrt2 * reciprocal(sqrt(precision));
    const QuadratureRule64& rule = hermite();
    std::array<D, 64> terms;
    double largest = -kInf;
    for (std::size_t j = 0; j < terms.size(); ++j) {
        const D c = centre + spread * rule.x[j];
        const D z = (c - m) / s;
        terms[j] = (rule.log_w[j] + rule.x[j] * rule.x[j] - 0.5 * std::log(2 * kPi)) + log(spread) -
                   log(s) - 0.5 * (z * z) + log_cdf_of(u, w, c, CdfTail::Upper);
        if (!std::isnan(terms[j].v))
            largest = std::max(largest, terms[j].v);
    }
    D sum;
    for (const D& t : terms) sum = sum + exp(t - largest);
    return largest + log(sum);
}

D4 log_cdf_sv(double uv, double wv, double mv, double sv, CdfTail tail) {
    if (std::isnan(uv) || !std::isfinite(mv) || !std::isfinite(sv) || sv < 0 || !(wv > 0 && wv < 1))
        return D4(kNaN);
    const D4 u = D4::input(uv, 0), w = D4::input(wv, 1), m = D4::input(mv, 2), s = D4::input(sv, 3);
    if (uv <= 0)
        return tail == CdfTail::Lower ? D4(-kInf) : log_p_sv(w, m, s, 2.0);
    if (uv == kInf)
        return tail == CdfTail::Lower ? log_p_sv(w, m, s, 2.0) : D4(-kInf);
    const D4 f = small_time_sv(u, w, m, s);
    if (tail == CdfTail::Lower)
        return f;
    // (F at the later of u and 2 bounds log P from below, F rising with time)
    const double floor = uv >= 2 ? f.v : small_time_sv(D4(2.0), w, m, s).v;
    const D4 lp = log_p_sv(w, m, s, uv, std::isnan(floor) ? -kInf : floor);
    if (f.v - lp.v <= std::log1p(-1e-3))
        return lp + log1m_exp(f - lp);
    return upper_tail_sv(u, w, m, s);
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

std::array<double, 15> log_first_passage_cdf_sv(double u, double w, double m, double s,
                                                CdfTail tail) {
    const D4 r = log_cdf_sv(u, w, m, s, tail);
    std::array<double, 15> out{};
    for (int k = 0; k < 15; ++k) out[static_cast<std::size_t>(k)] = r.component(k);
    return out;
}

// The drift's mean and sd go in as one input, [m; s] flattened (the ops have three inputs);
// every input has the result's shape.
NodeId log_first_passage_cdf_sv(Graph& g, NodeId u, NodeId w, NodeId m, NodeId s, CdfTail tail) {
    Shape out = Shape::scalar();
    for (const NodeId x : {u, w, m, s}) {
        const Shape& sx = g[x].shape;
        if (sx.is_scalar())
            continue;
        if (!out.is_scalar() && sx != out) {
            throw ShapeError(
                fmt::format("wiener_log_cdf_sv: inputs of shapes {} and {}", out.str(), sx.str()));
        }
        out = sx;
    }
    auto full = [&](NodeId x) { return g[x].shape == out ? x : g.broadcast(x, out); };
    const Shape flat = Shape::vector(out.size());
    const NodeId ms = g.apply(Op::AppendRow, linalg::reshape(g, full(m), flat),
                              linalg::reshape(g, full(s), flat));
    return component_ops::make(g, Op::WienerLogCdfSv, {full(u), full(w), ms}, 0,
                               static_cast<int>(tail));
}

Shape cdf_sv_shape(const Graph& g, const Node& n) {
    const Shape& u = g[n.in[0]].shape;
    if (g[n.in[1]].shape != u || g[n.in[2]].shape.size() != 2 * u.size()) {
        throw ShapeError(
            fmt::format("{}: inputs of shapes {}, {} and {} (u, w of one shape, "
                        "then [m; s] of twice its size)",
                        op_name(n.op), u.str(), g[n.in[1]].shape.str(), g[n.in[2]].shape.str()));
    }
    return u;
}

namespace {
// The 15 components of one element, remembered: a gradient reads the value and its four
// derivatives, a Hessian-vector product more, each a node of its own that would otherwise sum
// the same series again (per thread; emptied when full).
struct SvKey {
    std::array<double, 4> x;
    int tail;
    bool operator==(const SvKey&) const = default;
};
struct SvKeyHash {
    std::size_t operator()(const SvKey& k) const {
        std::size_t h = static_cast<std::size_t>(k.tail);
        for (double v : k.x) h = h * 1000003u ^ std::hash<double>()(v);
        return h;
    }
};
const std::array<double, 15>& sv_remembered(const SvKey& key) {
    thread_local std::unordered_map<SvKey, std::array<double, 15>, SvKeyHash> memo;
    if (auto it = memo.find(key); it != memo.end())
        return it->second;
    if (memo.size() >= (1u << 16))
        memo.clear();
    return memo
        .emplace(key, log_first_passage_cdf_sv(key.x[0], key.x[1], key.x[2], key.x[3],
                                               tail_of(key.tail)))
        .first->second;
}
void sv_components(const KernelArgs& a, int offset) {
    const auto k = static_cast<std::size_t>(a.node->index + offset);
    const int tail = static_cast<int>(a.node->aux);
    const int n = a.out_size();
    for (int i = 0; i < n; ++i) {
        const SvKey key{
            {a.in[0].x[i], a.in[1].x[i], a.in[2].x[i], a.in[2].x[n + i]},
            tail
        };
        a.out[i] = sv_remembered(key)[k];
    }
}
}  // namespace

void cdf_sv_kernel(const KernelArgs& a) {
    sv_components(a, 0);
}
void cdf_sv_hessian_kernel(const KernelArgs& a) {
    sv_components(a, 5);
}
void adj_cdf_sv(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const Node n = g[y];  // a copy: interning below may move the node
    const std::array<NodeId, 3> in = n.in;
    const int component = static_cast<int>(n.index);
    const int aux = static_cast<int>(n.aux);
    auto partial = [&](int j) {
        return component == 0
                   ? component_ops::make(g, Op::WienerLogCdfSv, in, 1 + j, aux)
                   : component_ops::make(
                         g, Op::WienerLogCdfSvHessian, in,
                         D4::at(std::min(component - 1, j), std::max(component - 1, j)), aux);
    };
    for (int j = 0; j < 2; ++j) {
        if (g.is_variable(in[j]))
            c[j] = adjoint_terms::mul(g, adj, partial(j));
    }
    if (g.is_variable(in[2])) {
        const Shape flat = Shape::vector(g[y].shape.size());
        const NodeId dm = linalg::reshape(g, adjoint_terms::mul(g, adj, partial(2)), flat);
        const NodeId ds = linalg::reshape(g, adjoint_terms::mul(g, adj, partial(3)), flat);
        c[2] = g.apply(Op::AppendRow, dm, ds);
    }
}

}  // namespace advi::wiener
