// The fused constrain ops: their shape checks and numeric kernels with vector-Jacobian
// products (stick-breaking simplex, ordered, Cholesky factors, L L').
#include <advi/graph/ops_constrain.hpp>

#include <cmath>
#include <new>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi::fused {

void check_input(const Graph& g, const Node& n, std::string_view op, std::string_view needs,
                 const std::optional<Shape>& expected, Shape out) {
    if (!expected) {
        throw ShapeError(fmt::format("{}: the output must be {}, got {}", op, needs, out.str()));
    }
    const Shape& in = g[n.in[0]].shape;
    if (in != *expected) {
        throw ShapeError(fmt::format("{}: an output {} needs an input {}, got {}", op, out.str(),
                                     expected->str(), in.str()));
    }
}

void check_vjp(const Graph& g, const Node& n, std::string_view op, std::string_view needs,
               const std::optional<Shape>& expected) {
    const Shape& in = g[n.in[0]].shape;
    const Shape& adj = g[n.in[1]].shape;
    if (!expected || *expected != in) {
        throw ShapeError(
            fmt::format("{} vector-Jacobian product: input {} and adjoint {} do not "
                        "match (the output must be {})",
                        op, in.str(), adj.str(), needs));
    }
}

void check_tangent(const Graph& g, const Node& n, int k, std::string_view op) {
    const Shape& in = g[n.in[0]].shape;
    const Shape& t = g[n.in[k]].shape;
    if (t != in) {
        throw ShapeError(fmt::format("{} {}: the direction must have the input's shape {}, got {}",
                                     op, op_name(n.op), in.str(), t.str()));
    }
}

// ---------------------------------------------------------------- dual numbers
// (a + a' e)(b + b' e) with e^2 = 0: each operation carries its derivative along.

Dual operator+(Dual a, Dual b) {
    return {a.v + b.v, a.d + b.d};
}
Dual operator-(Dual a, Dual b) {
    return {a.v - b.v, a.d - b.d};
}
Dual operator-(Dual a) {
    return {-a.v, -a.d};
}
Dual operator*(Dual a, Dual b) {
    return {a.v * b.v, a.d * b.v + a.v * b.d};
}
Dual operator/(Dual a, Dual b) {
    const double q = a.v / b.v;
    return {q, (a.d - q * b.d) / b.v};
}
Dual& operator+=(Dual& a, Dual b) {
    return a = a + b;
}
Dual& operator/=(Dual& a, Dual b) {
    return a = a / b;
}
Dual& operator*=(Dual& a, Dual b) {
    return a = a * b;
}
Dual exp(Dual a) {
    const double e = std::exp(a.v);
    return {e, e * a.d};
}
Dual tanh(Dual a) {
    const double t = std::tanh(a.v);
    return {t, (1 - t * t) * a.d};
}
Dual cosh(Dual a) {
    return {std::cosh(a.v), std::sinh(a.v) * a.d};
}
// w' = w (1 - w), with 1 - w = logit^-1(-x) computed without cancellation.
Dual inv_logit(Dual a) {
    const double w = inv_logit(a.v);
    return {w, w * inv_logit(-a.v) * a.d};
}

namespace {
// n duals laid out in the scratch at `at` (2 n doubles), each set to (value[i], tangent[i])
// (tangent nullptr: 0).
Dual* duals(double* at, int n, const double* value, const double* tangent) {
    for (int i = 0; i < n; ++i) {
        new (at + 2 * i)
            Dual(value != nullptr ? value[i] : 0.0, tangent != nullptr ? tangent[i] : 0.0);
    }
    return std::launder(reinterpret_cast<Dual*>(at));
}
}  // namespace

void jvp_by_duals(void (*constrain)(const Dual*, int, int, Dual*), const double* x, const double* h,
                  int n, int rows, int cols, double* out, double* scratch) {
    const int m = rows * cols;
    const Dual* xd = duals(scratch, n, x, h);
    Dual* yd = duals(scratch + 2 * n, m, nullptr, nullptr);
    constrain(xd, rows, cols, yd);
    for (int i = 0; i < m; ++i) out[i] = yd[i].d;
}

void hvp_by_duals(void (*vjp)(const Dual*, const Dual*, int, int, Dual*), const double* x,
                  const double* u, const double* h, int n, int rows, int cols, double* out,
                  double* scratch) {
    const int m = rows * cols;
    const Dual* xd = duals(scratch, n, x, h);
    const Dual* ud = duals(scratch + 2 * n, m, u, nullptr);
    Dual* dd = duals(scratch + 2 * (n + m), n, nullptr, nullptr);
    vjp(xd, ud, rows, cols, dd);
    for (int i = 0; i < n; ++i) out[i] = dd[i].d;
}

}  // namespace advi::fused

namespace advi {

using fused::Dual;
using fused::inv_logit;
using fused::log_inv_logit;
using std::cosh;
using std::exp;
using std::tanh;

// Each transform's constrain map and vector-Jacobian product are written once, over a scalar
// type T: double for the kernels, Dual for their directional derivatives (the jvp and hvp
// ops' kernels, fused::jvp_by_duals and fused::hvp_by_duals). ADVI_FUSED_KERNELS defines a
// kernel struct's four entry points from the two templates.
#define ADVI_FUSED_KERNELS(M, constrain_t, vjp_t)                                              \
    void M::constrain(const double* in, int rows, int cols, double* out) {                     \
        constrain_t<double>(in, rows, cols, out);                                              \
    }                                                                                          \
    void M::vjp(const double* in, const double* g, int rows, int cols, double* din) {          \
        vjp_t<double>(in, g, rows, cols, din);                                                 \
    }                                                                                          \
    void M::jvp(const double* in, const double* h, int n, int rows, int cols, double* out,     \
                double* scratch) {                                                             \
        fused::jvp_by_duals(constrain_t<Dual>, in, h, n, rows, cols, out, scratch);            \
    }                                                                                          \
    void M::hvp(const double* in, const double* u, const double* h, int n, int rows, int cols, \
                double* out, double* scratch) {                                                \
        fused::hvp_by_duals(vjp_t<Dual>, in, u, h, n, rows, cols, out, scratch);               \
    }

// ---------------------------------------------------------------- simplex

std::optional<Shape> SimplexKernels::input_shape(Shape theta) {
    if (theta.is_vector() && theta.rows >= 2)
        return Shape::vector(theta.rows - 1);
    if (theta.is_matrix() && theta.rows >= 1 && theta.cols >= 2) {
        return Shape::matrix(theta.rows, theta.cols - 1);
    }
    return std::nullopt;
}

namespace {

// Row u of U: zeta[u + k U], theta[u + k U]; U = 1 is the vector.
template <class T>
void simplex_constrain(const T* zeta, int rows, int cols, T* theta) {
    const int K = cols;
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        T s = 1.0;  // the stick left
        for (int k = 0; k < K - 1; ++k) {
            const T a = zeta[u + k * U] - std::log(K - 1.0 - k);
            theta[u + k * U] = s * inv_logit(a);
            s *= inv_logit(-a);  // 1 - w without cancellation when w is near 1
        }
        theta[u + (K - 1) * U] = s;
    }
}

// Reverse of the loop above, with s_k kept in dzeta[k] by a forward sweep:
//   theta_k = s_k w_k and s_{k+1} = s_k (1 - w_k) give, with S the adjoint of s_{k+1},
//   d zeta_k = s_k (g_k - S) w_k (1 - w_k)   (dw/dzeta = w (1 - w)),
//   adjoint of s_k = g_k w_k + S (1 - w_k);   S starts as g_{K-1} (theta_{K-1} = s_{K-1}).
template <class T>
void simplex_vjp(const T* zeta, const T* g, int rows, int cols, T* dzeta) {
    const int K = cols;
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        T s = 1.0;
        for (int k = 0; k < K - 1; ++k) {
            dzeta[u + k * U] = s;
            s *= inv_logit(-(zeta[u + k * U] - std::log(K - 1.0 - k)));
        }
        T S = g[u + (K - 1) * U];
        for (int k = K - 2; k >= 0; --k) {
            const T a = zeta[u + k * U] - std::log(K - 1.0 - k);
            const T w = inv_logit(a);
            const T w1 = inv_logit(-a);
            const T sk = dzeta[u + k * U];
            dzeta[u + k * U] = sk * (g[u + k * U] - S) * w * w1;
            S = g[u + k * U] * w + S * w1;
        }
    }
}

}  // namespace

ADVI_FUSED_KERNELS(SimplexKernels, simplex_constrain, simplex_vjp)

// ---------------------------------------------------------------- ordered

std::optional<Shape> OrderedKernels::input_shape(Shape theta) {
    if (theta.is_scalar() || theta.rows < 1 || theta.cols < 1)
        return std::nullopt;
    return theta;
}

namespace {

// Row u of U: zeta[u + k U], theta[u + k U]; U = 1 is the vector.
template <class T>
void ordered_constrain(const T* zeta, int rows, int cols, T* theta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        theta[u] = zeta[u];
        for (int k = 1; k < cols; ++k) {
            theta[u + k * U] = theta[u + (k - 1) * U] + exp(zeta[u + k * U]);
        }
    }
}

// theta_j depends on zeta_k for every k <= j: d zeta_k = (sum_{j>=k} g_j) times
// d theta_k / d zeta_k's own factor (1 for k = 0, exp(zeta_k) after).
template <class T>
void ordered_vjp(const T* zeta, const T* g, int rows, int cols, T* dzeta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        T tail = 0;
        for (int k = cols - 1; k >= 0; --k) {
            tail += g[u + k * U];
            dzeta[u + k * U] = k == 0 ? tail : tail * exp(zeta[u + k * U]);
        }
    }
}

template <class T>
void positive_ordered_constrain(const T* zeta, int rows, int cols, T* theta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        T acc = 0;
        for (int k = 0; k < cols; ++k) theta[u + k * U] = acc += exp(zeta[u + k * U]);
    }
}

template <class T>
void positive_ordered_vjp(const T* zeta, const T* g, int rows, int cols, T* dzeta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        T tail = 0;
        for (int k = cols - 1; k >= 0; --k) {
            tail += g[u + k * U];
            dzeta[u + k * U] = tail * exp(zeta[u + k * U]);
        }
    }
}

}  // namespace

ADVI_FUSED_KERNELS(OrderedKernels, ordered_constrain, ordered_vjp)
ADVI_FUSED_KERNELS(PositiveOrderedKernels, positive_ordered_constrain, positive_ordered_vjp)

// ---------------------------------------------------------------- cholesky_factor_corr

std::optional<Shape> CholeskyCorrKernels::input_shape(Shape theta) {
    if (!theta.is_matrix() || theta.rows != theta.cols || theta.rows < 2)
        return std::nullopt;
    return Shape::vector(theta.rows * (theta.rows - 1) / 2);
}

namespace {

template <class T>
void cholesky_corr_constrain(const T* zeta, int K, int, T* L) {
    std::fill(L, L + K * K, T(0.0));
    L[0] = 1.0;
    int pos = 0;
    for (int i = 1; i < K; ++i) {
        T r = 1.0;
        for (int j = 0; j < i; ++j, ++pos) {
            L[i + j * K] = tanh(zeta[pos]) * r;
            r /= cosh(zeta[pos]);  // sqrt(1 - tanh^2) = sech, without cancellation
        }
        L[i + i * K] = r;
    }
}

// Per row, with w = tanh, c = sech (dw/dzeta = c^2, dc/dzeta = -c w) and R the adjoint of
// r_{j+1} (starting as G(i,i)):  L(i,j) = w_j r_j, r_{j+1} = r_j c_j give
//   d zeta_j = G(i,j) r_j c_j^2 - R r_j w_j c_j,   adjoint of r_j = G(i,j) w_j + R c_j.
// r_j is kept in dzeta by a forward sweep. Entries of G above the diagonal are not read
// (those of L are constant zeros).
template <class T>
void cholesky_corr_vjp(const T* zeta, const T* g, int K, int, T* dzeta) {
    int pos = 0;
    for (int i = 1; i < K; ++i) {
        T r = 1.0;
        for (int j = 0; j < i; ++j) {
            dzeta[pos + j] = r;
            r /= cosh(zeta[pos + j]);
        }
        T R = g[i + i * K];
        for (int j = i - 1; j >= 0; --j) {
            const T w = tanh(zeta[pos + j]);
            const T c = 1.0 / cosh(zeta[pos + j]);
            const T rj = dzeta[pos + j];
            const T G = g[i + j * K];
            dzeta[pos + j] = G * rj * c * c - R * rj * w * c;
            R = G * w + R * c;
        }
        pos += i;
    }
}

}  // namespace

ADVI_FUSED_KERNELS(CholeskyCorrKernels, cholesky_corr_constrain, cholesky_corr_vjp)

// ---------------------------------------------------------------- cholesky_factor_cov

std::optional<Shape> CholeskyCovKernels::input_shape(Shape theta) {
    if (!theta.is_matrix() || theta.cols < 1 || theta.rows < theta.cols)
        return std::nullopt;
    const int M = theta.rows, N = theta.cols;
    return Shape::vector(N * (N + 1) / 2 + (M - N) * N);
}

namespace {

template <class T>
void cholesky_cov_constrain(const T* zeta, int M, int N, T* L) {
    std::fill(L, L + M * N, T(0.0));
    int pos = 0;
    for (int m = 0; m < M; ++m) {
        const int last = std::min(m, N - 1);
        for (int n = 0; n <= last; ++n, ++pos) {
            L[m + n * M] = m == n ? exp(zeta[pos]) : zeta[pos];
        }
    }
}

template <class T>
void cholesky_cov_vjp(const T* zeta, const T* g, int M, int N, T* dzeta) {
    int pos = 0;
    for (int m = 0; m < M; ++m) {
        const int last = std::min(m, N - 1);
        for (int n = 0; n <= last; ++n, ++pos) {
            dzeta[pos] = m == n ? g[m + n * M] * exp(zeta[pos]) : g[m + n * M];
        }
    }
}

}  // namespace

ADVI_FUSED_KERNELS(CholeskyCovKernels, cholesky_cov_constrain, cholesky_cov_vjp)

// ---------------------------------------------------------------- L L'

std::optional<Shape> LowerTriSelfTransposeKernels::input_shape(Shape out) {
    if (!out.is_matrix() || out.rows != out.cols || out.rows < 1)
        return std::nullopt;
    return out;
}

namespace {

template <class T>
void lower_tri_self_transpose(const T* L, int K, int, T* out) {
    for (int j = 0; j < K; ++j) {
        for (int i = j; i < K; ++i) {
            T s = 0;
            for (int k = 0; k <= j; ++k) s += L[i + k * K] * L[j + k * K];
            out[i + j * K] = s;
            out[j + i * K] = s;
        }
    }
}

// Omega = T T' with T = tril(L): <G, dT T' + T dT'> = <(G + G') T, dT>, so
// dL = tril((G + G') T): dL(i,j) = sum_{k>=j} (G(i,k) + G(k,i)) T(k,j) for j <= i.
template <class T>
void lower_tri_self_transpose_vjp(const T* L, const T* g, int K, int, T* dL) {
    for (int j = 0; j < K; ++j) {
        for (int i = 0; i < K; ++i) {
            if (i < j) {
                dL[i + j * K] = 0.0;
                continue;
            }
            T s = 0;
            for (int k = j; k < K; ++k) s += (g[i + k * K] + g[k + i * K]) * L[k + j * K];
            dL[i + j * K] = s;
        }
    }
}

}  // namespace

ADVI_FUSED_KERNELS(LowerTriSelfTransposeKernels, lower_tri_self_transpose,
                   lower_tri_self_transpose_vjp)

}  // namespace advi
