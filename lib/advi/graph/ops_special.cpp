// log I_v(z), the inverse of the regularised incomplete beta function and Stan's von Mises CDF on
// second-order dual numbers (ops_special.hpp), the kernels that take one component of them per
// element, and the adjoint rules that chain value -> gradient -> Hessian.
#include <advi/graph/ops_special.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include <boost/math/special_functions/beta.hpp>

#include <advi/base/error.hpp>
#include <advi/base/math_policy.hpp>
#include <advi/graph/component_ops.hpp>
#include <advi/graph/dual2.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_incomplete.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi::special {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = std::numbers::pi;
// A series stops when its last term changed no component by more than this, relative to the
// sum's size (as ops_incomplete.cpp's).
constexpr double kEps = 1e-17;
constexpr int kMaxTerms = 1'000'000;
// inv_inc_beta's largest shapes (where a beta distribution is a normal one to 1e-6 and more)
constexpr double kMaxShape = 1e12;

template <int N>
bool converged(const Dual2<N>& step, const Dual2<N>& total) {
    const double scale = std::fabs(total.v) + total.derivative_size();
    return std::fabs(step.v) <= kEps * scale && step.derivative_size() <= kEps * scale;
}

template <int N>
Dual2<N> cos(const Dual2<N>& a) {
    return chain(a, std::cos(a.v), -std::sin(a.v), -std::cos(a.v));
}
// The standard normal CDF.
template <int N>
Dual2<N> Phi(const Dual2<N>& z) {
    const double density = std::exp(-0.5 * z.v * z.v) / std::sqrt(2 * kPi);
    return chain(z, 0.5 * std::erfc(-z.v / std::numbers::sqrt2), density, -z.v * density);
}

template <std::size_t K, int N>
std::array<double, K> components(const Dual2<N>& r) {
    std::array<double, K> out{};
    for (std::size_t k = 0; k < K; ++k) out[k] = r.component(static_cast<int>(k));
    return out;
}
template <std::size_t K>
std::array<double, K> all_nan() {
    std::array<double, K> out{};
    out.fill(kNaN);
    return out;
}

// ---- log I_v(z), v >= 0, z > 0

// Hankel's expansion, for z large against v^2: log I_v(z) = z - log(2 pi z) / 2
// + log sum_k (-1)^k a_k(v) / z^k, a_k = prod_{j <= k} (4 v^2 - (2j - 1)^2) / (k! 8^k); summed
// while its terms fall (it is asymptotic: they grow again past k ~ 2z).
template <int N>
Dual2<N> log_bessel_i_asymptotic(const Dual2<N>& v, const Dual2<N>& z) {
    const Dual2<N> mu = 4.0 * (v * v);
    Dual2<N> term(1.0), sum(1.0);
    double previous = 1;
    for (int k = 1; k < 1000; ++k) {
        const double odd = 2.0 * k - 1;
        term = term * (odd * odd - mu) / (8.0 * k * z);
        if (std::fabs(term.v) > previous)
            break;
        sum = sum + term;
        previous = std::fabs(term.v);
        if (converged(term, sum))
            break;
    }
    return z - 0.5 * log(2 * kPi * z) + log(sum);
}

// The power series, each term exp((2k + v) log(z/2) - lgamma(k + 1) - lgamma(v + k + 1)) taken
// relative to the largest (at k*, where the ratio of successive terms
// (z/2)^2 / ((k + 1)(v + k + 1)) falls through 1), so that nothing overflows.
template <int N>
Dual2<N> log_bessel_i_series(const Dual2<N>& v, const Dual2<N>& z) {
    const double vv = v.v, zv = z.v;
    const double kstar = std::max(0.0, std::floor((-(vv + 2) + std::hypot(vv, zv)) / 2));
    const double shift =
        (2 * kstar + vv) * std::log(zv / 2) - std::lgamma(kstar + 1) - std::lgamma(vv + kstar + 1);
    if (!std::isfinite(shift))
        return Dual2<N>(shift);  // the largest term's log beyond the doubles (v ~ 1e308)
    const Dual2<N> log_half_z = log(0.5 * z);
    Dual2<N> sum(0.0);
    for (int k = 0; k < kMaxTerms; ++k) {
        const double kd = k;
        const Dual2<N> term =
            exp((2 * kd + v) * log_half_z - (std::lgamma(kd + 1) + shift) - lgamma(v + (kd + 1)));
        sum = sum + term;
        if (std::isnan(sum.v))
            break;
        if (kd > kstar && converged(term, sum))
            return shift + log(sum);
    }
    return Dual2<N>(kNaN);
}

template <int N>
Dual2<N> log_bessel_i_of(const Dual2<N>& v, const Dual2<N>& z) {
    if (z.v > 30 && z.v > v.v * v.v)
        return log_bessel_i_asymptotic(v, z);
    return log_bessel_i_series(v, z);
}

// ---- von Mises

// scipy's series for the centred CDF (Stan's von_mises_cdf_series), t in [-pi, pi]
template <int N>
Dual2<N> von_mises_series(const Dual2<N>& t, const Dual2<N>& k) {
    const int p = static_cast<int>(28 + 0.5 * k.v - 100 / (k.v + 5) + 1);
    const Dual2<N> s = sin(t), c = cos(t);
    Dual2<N> sn = sin(static_cast<double>(p) * t), cn = cos(static_cast<double>(p) * t);
    Dual2<N> r(0.0), v(0.0);
    for (int n = 1; n < p; ++n) {
        const Dual2<N> sn_next = sn * c - cn * s;
        cn = cn * c + sn * s;
        sn = sn_next;
        const double m = p - n;
        r = reciprocal(2.0 * m / k + r);
        v = r * (sn / m + v);
    }
    return 0.5 + t / (2 * kPi) + v / kPi;
}
// Phi(b sin(t / 2)), b = sqrt(2 / pi) e^k / I0(k) (Stan's von_mises_cdf_normalapprox)
template <int N>
Dual2<N> von_mises_normal(const Dual2<N>& t, const Dual2<N>& k) {
    const Dual2<N> b = std::sqrt(2 / kPi) * exp(k - log_bessel_i_of(Dual2<N>(0.0), k));
    return Phi(b * sin(0.5 * t));
}
template <int N>
Dual2<N> von_mises_centered(const Dual2<N>& t, const Dual2<N>& k) {
    if (k.v < 49) {
        // Stan clamps the series' value into [0, 1] (it overshoots by rounding at t = +-pi); the
        // derivatives stay those of the series, the density there, not 0
        Dual2<N> f = von_mises_series(t, k);
        f.v = std::clamp(f.v, 0.0, 1.0);
        return f;
    }
    if (k.v < 50)
        return (50.0 - k) * von_mises_series(t, Dual2<N>(49.0)) +
               (k - 49.0) * von_mises_normal(t, Dual2<N>(50.0));
    return von_mises_normal(t, k);
}
// The unwrapped centred CDF G(t) = m + C(t - 2 pi m), t - 2 pi m in [-pi, pi): the mass of the
// periodic density over [-pi, t]. G(hi) - G(lo) for hi >= lo, in the form that keeps relative
// accuracy in either tail: C(-t) = 1 - C(t) (the density is even), so that a difference of two
// values near 1 is taken as one of two values near 0, and 1 - C(lo) as C(-lo).
template <int N>
Dual2<N> von_mises_between(const Dual2<N>& hi, const Dual2<N>& lo, const Dual2<N>& k) {
    const double m_hi = std::floor((hi.v + kPi) / (2 * kPi));
    const double m_lo = std::floor((lo.v + kPi) / (2 * kPi));
    const Dual2<N> w_hi = hi - 2 * kPi * m_hi, w_lo = lo - 2 * kPi * m_lo;
    const double dm = m_hi - m_lo;
    if (dm == 0) {
        if (w_hi.v + w_lo.v > 0)
            return von_mises_centered(-w_lo, k) - von_mises_centered(-w_hi, k);
        return von_mises_centered(w_hi, k) - von_mises_centered(w_lo, k);
    }
    // dm - 1 + C(w_hi) + (1 - C(w_lo))
    return (dm - 1) + von_mises_centered(w_hi, k) + von_mises_centered(-w_lo, k);
}
// Stan's von_mises_cdf(x | mu, k) = G(x - mu) - G(-pi - mu) (its cut and bound, in one form),
// or its complement G(pi - mu) - G(x - mu); 0 where the series' rounding makes it negative.
Dual2<3> von_mises_tail_dual(double xv, double muv, double kv, bool upper) {
    const auto x = Dual2<3>::input(xv, 0), mu = Dual2<3>::input(muv, 1);
    const auto k = Dual2<3>::input(kv, 2);
    if (xv == -kPi || xv == kPi)
        return Dual2<3>((xv == kPi) != upper ? 1.0 : 0.0);
    const Dual2<3> f =
        upper ? von_mises_between(kPi - mu, x - mu, k) : von_mises_between(x - mu, -kPi - mu, k);
    if (f.v < 0)
        return Dual2<3>(0.0);
    return f;
}

}  // namespace

std::array<double, 6> log_bessel_i(double v, double z) {
    if (!(v >= 0) || !(z >= 0) || std::isinf(v))
        return all_nan<6>();
    if (z == 0) {
        // log I_0(z) = z^2 / 4 + O(z^4); log I_v(0) = -inf for v > 0
        if (v == 0)
            return {0.0, kNaN, 0.0, kNaN, kNaN, 0.5};
        return {-kInf, 0.0, 0.0, 0.0, 0.0, 0.0};
    }
    if (z == kInf)
        return {kInf, 0.0, 0.0, 0.0, 0.0, 0.0};
    return components<6>(log_bessel_i_of(Dual2<2>::input(v, 0), Dual2<2>::input(z, 1)));
}

// x(a, b, p) solves G = log I_x(a, b) - log p = 0 (or, above p = 1/2, log(1 - I_x(a, b)) -
// log(1 - p) = 0): x_i = -G_i / G_x and x_ij = -(G_ij + G_ix x_j + G_jx x_i + G_xx x_i x_j) / G_x
// for i, j in (a, b, p), where G_p = -1 / p (1 / (1 - p)), G_pp = 1 / p^2 (1 / (1 - p)^2) and
// G_ap = G_bp = G_xp = 0.
std::array<double, 10> inv_inc_beta(double a, double b, double p) {
    if (!(a > 0) || !(b > 0) || !(p >= 0) || !(p <= 1) || std::isinf(a) || std::isinf(b))
        return all_nan<10>();
    // Boost's root finder takes minutes at shapes near the largest doubles (81 s at a = b =
    // 1e308): shapes beyond kMaxShape are refused as NaN
    if (a > kMaxShape || b > kMaxShape)
        return all_nan<10>();
    if (p == 0 || p == 1)
        return {p, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    double x = kNaN;
    try {
        x = boost::math::ibeta_inv(a, b, p, MathPolicy());
    } catch (const std::exception&) {
        // Boost's root finder gives up at extreme shapes (a = 1e308, b = 0.5): NaN, as for
        // arguments outside the domain (a kernel never throws)
        return all_nan<10>();
    }
    if (x <= 0 || x >= 1)
        return {x, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const bool upper = p > 0.5;
    const auto L = incomplete::log_inc_beta(
        a, b, x, upper ? incomplete::Tail::Upper : incomplete::Tail::Lower);
    // L: value, La, Lb, Lx, Laa, Lab, Lax, Lbb, Lbx, Lxx
    const double q = upper ? 1 - p : p;
    const double gp = upper ? 1 / q : -1 / q, gpp = 1 / (q * q);
    const double gx = L[3];
    // G's gradient in (a, b, p), its Hessian in (a, b, p), and G_ix
    const std::array<double, 3> gi = {L[1], L[2], gp};
    const double gij[3][3] = {
        {L[4], L[5], 0  },
        {L[5], L[7], 0  },
        {0,    0,    gpp}
    };
    const std::array<double, 3> gix = {L[6], L[8], 0};
    const double gxx = L[9];
    std::array<double, 3> xi{};
    for (int i = 0; i < 3; ++i) xi[i] = -gi[i] / gx;
    std::array<double, 10> out{};
    out[0] = x;
    for (int i = 0; i < 3; ++i) out[1 + i] = xi[i];
    for (int i = 0; i < 3; ++i) {
        for (int j = i; j < 3; ++j) {
            out[4 + Dual2<3>::at(i, j)] =
                -(gij[i][j] + gix[i] * xi[j] + gix[j] * xi[i] + gxx * xi[i] * xi[j]) / gx;
        }
    }
    return out;
}

std::array<double, 10> von_mises_log_cdf(double x, double mu, double kappa, bool upper) {
    if (!(x >= -kPi) || !(x <= kPi) || !std::isfinite(mu) || !(kappa > 0) || std::isinf(kappa))
        return all_nan<10>();
    const Dual2<3> f = von_mises_tail_dual(x, mu, kappa, upper);
    if (f.v <= 0)
        return {-kInf, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    return components<10>(log(f));
}

double von_mises_cdf(double x, double mu, double kappa, bool upper) {
    if (!(x >= -kPi) || !(x <= kPi) || !std::isfinite(mu) || !(kappa > 0) || std::isinf(kappa))
        return kNaN;
    return von_mises_tail_dual(x, mu, kappa, upper).v;
}

// The centred quantile: C(t) = u by bisection on [-pi, pi] (C increases), then about mu mod
// 2 pi, as Stan's von_mises_rng (values in [fmod(mu, 2 pi) - pi, fmod(mu, 2 pi) + pi]).
double von_mises_quantile(double u, double mu, double kappa) {
    if (!(u >= 0) || !(u <= 1) || !std::isfinite(mu) || !(kappa >= 0) || std::isinf(kappa))
        return kNaN;
    const double center = std::fmod(mu, 2 * kPi);
    if (kappa == 0)
        return center - kPi + 2 * kPi * u;
    double lo = -kPi, hi = kPi;
    for (int i = 0; i < 200 && hi - lo > 4e-16; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (von_mises_cdf(mid, 0.0, kappa) < u)
            lo = mid;
        else
            hi = mid;
    }
    return center + 0.5 * (lo + hi);
}

void von_mises_quantile_kernel(const KernelArgs& a) {
    for (int i = 0; i < a.out_size(); ++i) {
        a.out[i] = von_mises_quantile(component_ops::at(a.in[0], i), component_ops::at(a.in[1], i),
                                      component_ops::at(a.in[2], i));
    }
}

double hypergeometric_pfq(std::span<const double> a, std::span<const double> b, double z) {
    if (std::isnan(z))
        return kNaN;
    for (double x : a) {
        if (!std::isfinite(x))
            return kNaN;
    }
    for (double x : b) {
        if (!std::isfinite(x) || (x <= 0 && x == std::floor(x)))
            return kNaN;  // a pole
    }
    bool polynomial = false;
    for (double x : a) polynomial = polynomial || (x <= 0 && x == std::floor(x));
    // more parameters above than below: the series diverges for every z != 0, with one more
    // beyond the unit disc, unless a non-positive integer in a ends it
    if (!polynomial &&
        ((a.size() > b.size() + 1 && z != 0) || (a.size() == b.size() + 1 && std::fabs(z) > 1)))
        return kNaN;
    double term = 1, sum = 1, compensation = 0;
    for (int k = 0; k < kMaxTerms; ++k) {
        double ratio = z / (k + 1);
        for (double x : a) ratio *= x + k;
        for (double x : b) ratio /= x + k;
        term *= ratio;
        if (term == 0)
            return sum;
        // Kahan's summation: the alternating series of a negative z lose fewer digits
        const double y = term - compensation;
        const double t = sum + y;
        compensation = (t - sum) - y;
        sum = t;
        if (!std::isfinite(sum))
            return sum;
        if (std::fabs(term) <= 1e-17 * std::fabs(sum) && std::fabs(ratio) < 1)
            return sum;
    }
    return kNaN;
}

PfqDerivatives hypergeometric_pfq_derivatives(std::span<const double> a, std::span<const double> b,
                                              double z) {
    const std::size_t p = a.size(), q = b.size();
    PfqDerivatives out;
    out.value = hypergeometric_pfq(a, b, z);
    out.da.assign(p, 0);
    out.db.assign(q, 0);
    out.haa.assign(p * p, 0);
    out.hab.assign(p * q, 0);
    out.hbb.assign(q * q, 0);
    out.haz.assign(p, 0);
    out.hbz.assign(q, 0);
    bool polynomial = false;
    for (double x : a) polynomial = polynomial || (x <= 0 && x == std::floor(x));
    if (std::isnan(out.value) || polynomial) {
        for (auto* v : {&out.da, &out.db, &out.haa, &out.hab, &out.hbb, &out.haz, &out.hbz})
            std::fill(v->begin(), v->end(), kNaN);
        return out;
    }
    // term k: t = c z^k, c = prod_i (a_i)_k / prod_j (b_j)_k / k!; its derivative in a_i is
    // t S_i with S_i = sum_{m<k} 1 / (a_i + m), in b_j -t T_j, and the second derivatives
    // t (S_i S_l - [i = l] sum_{m<k} 1 / (a_i + m)^2), ...; in z, k c z^(k-1) times the same.
    std::vector<double> sa(p, 0), qa(p, 0), sb(q, 0), qb(q, 0);
    double c = 1, zk = 1, zk1 = 0;  // c_k, z^k, z^(k-1) (k = 0: no z-derivative)
    for (int k = 0; k < kMaxTerms; ++k) {
        const double t = c * zk, dt = k * c * zk1;
        double size = 1;
        for (std::size_t i = 0; i < p; ++i) {
            out.da[i] += t * sa[i];
            out.haz[i] += dt * sa[i];
            for (std::size_t l = 0; l < p; ++l)
                out.haa[i * p + l] += t * (sa[i] * sa[l] - (i == l ? qa[i] : 0));
            for (std::size_t j = 0; j < q; ++j) out.hab[i * q + j] -= t * sa[i] * sb[j];
            size = std::max(size, sa[i] * sa[i] + qa[i]);
        }
        for (std::size_t j = 0; j < q; ++j) {
            out.db[j] -= t * sb[j];
            out.hbz[j] -= dt * sb[j];
            for (std::size_t l = 0; l < q; ++l)
                out.hbb[j * q + l] += t * (sb[j] * sb[l] + (j == l ? qb[j] : 0));
            size = std::max(size, sb[j] * sb[j] + qb[j]);
        }
        // the next term
        double ratio = 1.0 / (k + 1);
        for (std::size_t i = 0; i < p; ++i) {
            ratio *= a[i] + k;
            sa[i] += 1 / (a[i] + k);
            qa[i] += 1 / ((a[i] + k) * (a[i] + k));
        }
        for (std::size_t j = 0; j < q; ++j) {
            ratio /= b[j] + k;
            sb[j] += 1 / (b[j] + k);
            qb[j] += 1 / ((b[j] + k) * (b[j] + k));
        }
        c *= ratio;
        zk1 = zk;
        zk *= z;
        if (!std::isfinite(c * zk) || !std::isfinite(out.da.empty() ? 0.0 : out.da[0]))
            break;
        // converged: this term and the next, with their weights, below rounding of the sums
        double scale = std::fabs(out.value);
        for (double v : out.da) scale += std::fabs(v);
        for (double v : out.db) scale += std::fabs(v);
        const double next = std::fabs(c) * (std::fabs(zk) + (k + 1) * std::fabs(zk1));
        if (k > 0 && std::fabs(ratio * z) < 1 &&
            (std::fabs(t) + std::fabs(dt) + next) * size * (k + 2) <= 1e-17 * scale)
            return out;
        if (c == 0)
            return out;
    }
    for (auto* v : {&out.da, &out.db, &out.haa, &out.hab, &out.hbb, &out.haz, &out.hbz})
        std::fill(v->begin(), v->end(), kNaN);
    return out;
}

NodeId hypergeometric_pfq(Graph& g, NodeId a, NodeId b, NodeId z) {
    Node n;
    n.op = Op::HypergeometricPFq;
    n.in = {a, b, z};
    return g.intern(n);
}

Shape pfq_shape(const Graph& g, const Node& n) {
    for (int k = 0; k < 2; ++k) {
        const Shape& s = g[n.in[k]].shape;
        if (!s.is_scalar() && !s.is_vector())
            throw ShapeError(fmt::format("hypergeometric_pfq: {} is {} (a vector expected)",
                                         k == 0 ? "a" : "b", s.str()));
    }
    if (!g[n.in[2]].shape.is_scalar())
        throw ShapeError(
            fmt::format("hypergeometric_pfq: z is {} (a scalar expected)", g[n.in[2]].shape.str()));
    return Shape::scalar();
}

void pfq_kernel(const KernelArgs& a) {
    auto values = [](const View& v) {
        std::vector<double> out(static_cast<std::size_t>(v.size()));
        for (int k = 0; k < v.size(); ++k)
            out[static_cast<std::size_t>(k)] = component_ops::at(v, k);
        return out;
    };
    a.out[0] = hypergeometric_pfq(values(a.in[0]), values(a.in[1]), component_ops::at(a.in[2], 0));
}

void adj_pfq(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const std::array<NodeId, 3> in = g[y].in;
    for (int k = 0; k < 2; ++k) {
        if (g.is_variable(in[k]))
            c[k] = adjoint_terms::mul(g, adj, pfq_grad(g, in[0], in[1], in[2], k));
    }
    if (!g.is_variable(in[2]))
        return;
    // d/dz pFq(a; b; z) = prod(a) / prod(b) pFq(a + 1; b + 1; z)
    const NodeId one = g.constant(1.0);
    const NodeId up =
        hypergeometric_pfq(g, g.apply(Op::Add, in[0], one), g.apply(Op::Add, in[1], one), in[2]);
    auto product = [&](NodeId v) { return g[v].shape.is_scalar() ? v : g.apply(Op::Prod, v); };
    const NodeId factor = g.apply(Op::Div, product(in[0]), product(in[1]));
    c[2] = adjoint_terms::mul(g, adj, g.apply(Op::Mul, factor, up));
}

NodeId pfq_grad(Graph& g, NodeId a, NodeId b, NodeId z, int block) {
    Node n;
    n.op = Op::HypergeometricPFqGrad;
    n.in = {a, b, z};
    n.aux = block;
    return g.intern(n);
}

Shape pfq_grad_shape(const Graph& g, const Node& n) {
    (void)pfq_shape(g, n);
    return g[n.in[n.aux == 0 ? 0 : 1]].shape;
}

namespace {
std::vector<double> values_of(const View& v) {
    std::vector<double> out(static_cast<std::size_t>(v.size()));
    for (int k = 0; k < v.size(); ++k) out[static_cast<std::size_t>(k)] = component_ops::at(v, k);
    return out;
}
}  // namespace

void pfq_grad_kernel(const KernelArgs& a) {
    const std::vector<double> av = values_of(a.in[0]), bv = values_of(a.in[1]);
    const PfqDerivatives d = hypergeometric_pfq_derivatives(av, bv, component_ops::at(a.in[2], 0));
    const std::vector<double>& g = a.node->aux == 0 ? d.da : d.db;
    for (int i = 0; i < a.out_size(); ++i) a.out[i] = g[static_cast<std::size_t>(i)];
}

// The adjoint w of the gradient block: w . H's rows through pfq_hvp(a, b, [z; w]).
void adj_pfq_grad(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const Node n = g[y];
    const std::array<NodeId, 3> in = n.in;
    auto as_vector = [&](NodeId v) {
        return g[v].shape.is_scalar() ? linalg::reshape(g, v, Shape::vector(1)) : v;
    };
    const NodeId zw = g.apply(Op::AppendRow, as_vector(in[2]), as_vector(adj));
    for (int out = 0; out < 3; ++out) {
        if (!g.is_variable(in[out]))
            continue;
        Node h;
        h.op = Op::HypergeometricPFqHvp;
        h.in = {in[0], in[1], zw};
        h.aux = 3 * n.aux + out;
        c[out] = g.intern(h);
    }
}

Shape pfq_hvp_shape(const Graph& g, const Node& n) {
    const int block = static_cast<int>(n.aux / 3), out = static_cast<int>(n.aux % 3);
    const Shape& w = g[n.in[2]].shape;
    const int expected = 1 + g[n.in[block]].shape.size();
    if (!w.is_vector() || w.size() != expected) {
        throw ShapeError(fmt::format("hypergeometric_pfq_hvp: [z; w] is {} (a vector of {})",
                                     w.str(), expected));
    }
    return out == 2 ? Shape::scalar() : g[n.in[out]].shape;
}

void pfq_hvp_kernel(const KernelArgs& a) {
    const int block = static_cast<int>(a.node->aux / 3), out = static_cast<int>(a.node->aux % 3);
    const std::vector<double> av = values_of(a.in[0]), bv = values_of(a.in[1]);
    const std::vector<double> zw = values_of(a.in[2]);
    const PfqDerivatives d = hypergeometric_pfq_derivatives(av, bv, zw[0]);
    const std::size_t p = av.size(), q = bv.size(), n = block == 0 ? p : q;
    // H(r, s) for r in the output's input, s in the block
    auto h = [&](std::size_t r, std::size_t s) {
        if (out == 2)
            return block == 0 ? d.haz[s] : d.hbz[s];
        if (out == 0)
            return block == 0 ? d.haa[r * p + s] : d.hab[r * q + s];
        return block == 0 ? d.hab[s * q + r] : d.hbb[r * q + s];
    };
    for (int r = 0; r < a.out_size(); ++r) {
        double sum = 0;
        for (std::size_t s = 0; s < n; ++s) sum += h(static_cast<std::size_t>(r), s) * zw[1 + s];
        a.out[r] = sum;
    }
}

NodeId log_bessel_i(Graph& g, NodeId v, NodeId z) {
    return component_ops::make(g, Op::LogBesselI, {v, z, kNoNode}, 0, 0);
}
NodeId inv_inc_beta(Graph& g, NodeId a, NodeId b, NodeId p) {
    return component_ops::make(g, Op::InvIncBeta, {a, b, p}, 0, 0);
}
NodeId von_mises_log_cdf(Graph& g, NodeId x, NodeId mu, NodeId kappa, bool upper) {
    return component_ops::make(g, Op::VonMisesLogCdf, {x, mu, kappa}, 0, upper ? 1 : 0);
}

void bessel_kernel(const KernelArgs& a) {
    component_ops::kernel<2>(a, 0,
                             [](std::array<double, 2> x, int) { return log_bessel_i(x[0], x[1]); });
}
void bessel_hessian_kernel(const KernelArgs& a) {
    component_ops::kernel<2>(a, 3,
                             [](std::array<double, 2> x, int) { return log_bessel_i(x[0], x[1]); });
}
void inv_inc_beta_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(
        a, 0, [](std::array<double, 3> x, int) { return inv_inc_beta(x[0], x[1], x[2]); });
}
void inv_inc_beta_hessian_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(
        a, 4, [](std::array<double, 3> x, int) { return inv_inc_beta(x[0], x[1], x[2]); });
}
void von_mises_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(a, 0, [](std::array<double, 3> x, int aux) {
        return von_mises_log_cdf(x[0], x[1], x[2], aux != 0);
    });
}
void von_mises_hessian_kernel(const KernelArgs& a) {
    component_ops::kernel<3>(a, 4, [](std::array<double, 3> x, int aux) {
        return von_mises_log_cdf(x[0], x[1], x[2], aux != 0);
    });
}

void adj_bessel(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    component_ops::adjoint<2>(g, y, adj, c, Op::LogBesselIHessian);
}
void adj_inv_inc_beta(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    component_ops::adjoint<3>(g, y, adj, c, Op::InvIncBetaHessian);
}
void adj_von_mises(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    component_ops::adjoint<3>(g, y, adj, c, Op::VonMisesLogCdfHessian);
}

}  // namespace advi::special
