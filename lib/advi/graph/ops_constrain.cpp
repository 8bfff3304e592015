// The fused constrain ops: their shape checks and numeric kernels with vector-Jacobian
// products (stick-breaking simplex, ordered, Cholesky factors, L L').
#include <advi/graph/ops_constrain.hpp>

#include <cmath>

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

}  // namespace advi::fused

namespace advi {

using fused::inv_logit;
using fused::log_inv_logit;

// ---------------------------------------------------------------- simplex

std::optional<Shape> SimplexKernels::input_shape(Shape theta) {
    if (theta.is_vector() && theta.rows >= 2)
        return Shape::vector(theta.rows - 1);
    if (theta.is_matrix() && theta.rows >= 1 && theta.cols >= 2) {
        return Shape::matrix(theta.rows, theta.cols - 1);
    }
    return std::nullopt;
}

// Row u of U: zeta[u + k U], theta[u + k U]; U = 1 is the vector.
void SimplexKernels::constrain(const double* zeta, int rows, int cols, double* theta) {
    const int K = cols;
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        double s = 1.0;  // the stick left
        for (int k = 0; k < K - 1; ++k) {
            const double a = zeta[u + k * U] - std::log(K - 1.0 - k);
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
void SimplexKernels::vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta) {
    const int K = cols;
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        double s = 1.0;
        for (int k = 0; k < K - 1; ++k) {
            dzeta[u + k * U] = s;
            s *= inv_logit(-(zeta[u + k * U] - std::log(K - 1.0 - k)));
        }
        double S = g[u + (K - 1) * U];
        for (int k = K - 2; k >= 0; --k) {
            const double a = zeta[u + k * U] - std::log(K - 1.0 - k);
            const double w = inv_logit(a);
            const double w1 = inv_logit(-a);
            const double sk = dzeta[u + k * U];
            dzeta[u + k * U] = sk * (g[u + k * U] - S) * w * w1;
            S = g[u + k * U] * w + S * w1;
        }
    }
}

// ---------------------------------------------------------------- ordered

std::optional<Shape> OrderedKernels::input_shape(Shape theta) {
    if (theta.is_scalar() || theta.rows < 1 || theta.cols < 1)
        return std::nullopt;
    return theta;
}

// Row u of U: zeta[u + k U], theta[u + k U]; U = 1 is the vector.
void OrderedKernels::constrain(const double* zeta, int rows, int cols, double* theta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        theta[u] = zeta[u];
        for (int k = 1; k < cols; ++k) {
            theta[u + k * U] = theta[u + (k - 1) * U] + std::exp(zeta[u + k * U]);
        }
    }
}

// theta_j depends on zeta_k for every k <= j: d zeta_k = (sum_{j>=k} g_j) times
// d theta_k / d zeta_k's own factor (1 for k = 0, exp(zeta_k) after).
void OrderedKernels::vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        double tail = 0;
        for (int k = cols - 1; k >= 0; --k) {
            tail += g[u + k * U];
            dzeta[u + k * U] = k == 0 ? tail : tail * std::exp(zeta[u + k * U]);
        }
    }
}

void PositiveOrderedKernels::constrain(const double* zeta, int rows, int cols, double* theta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        double acc = 0;
        for (int k = 0; k < cols; ++k) theta[u + k * U] = acc += std::exp(zeta[u + k * U]);
    }
}

void PositiveOrderedKernels::vjp(const double* zeta, const double* g, int rows, int cols,
                                 double* dzeta) {
    const std::ptrdiff_t U = rows;
    for (std::ptrdiff_t u = 0; u < U; ++u) {
        double tail = 0;
        for (int k = cols - 1; k >= 0; --k) {
            tail += g[u + k * U];
            dzeta[u + k * U] = tail * std::exp(zeta[u + k * U]);
        }
    }
}

// ---------------------------------------------------------------- cholesky_factor_corr

std::optional<Shape> CholeskyCorrKernels::input_shape(Shape theta) {
    if (!theta.is_matrix() || theta.rows != theta.cols || theta.rows < 2)
        return std::nullopt;
    return Shape::vector(theta.rows * (theta.rows - 1) / 2);
}

void CholeskyCorrKernels::constrain(const double* zeta, int K, int, double* L) {
    std::fill(L, L + K * K, 0.0);
    L[0] = 1.0;
    int pos = 0;
    for (int i = 1; i < K; ++i) {
        double r = 1.0;
        for (int j = 0; j < i; ++j, ++pos) {
            L[i + j * K] = std::tanh(zeta[pos]) * r;
            r /= std::cosh(zeta[pos]);  // sqrt(1 - tanh^2) = sech, without cancellation
        }
        L[i + i * K] = r;
    }
}

// Per row, with w = tanh, c = sech (dw/dzeta = c^2, dc/dzeta = -c w) and R the adjoint of
// r_{j+1} (starting as G(i,i)):  L(i,j) = w_j r_j, r_{j+1} = r_j c_j give
//   d zeta_j = G(i,j) r_j c_j^2 - R r_j w_j c_j,   adjoint of r_j = G(i,j) w_j + R c_j.
// r_j is kept in dzeta by a forward sweep. Entries of G above the diagonal are not read
// (those of L are constant zeros).
void CholeskyCorrKernels::vjp(const double* zeta, const double* g, int K, int, double* dzeta) {
    int pos = 0;
    for (int i = 1; i < K; ++i) {
        double r = 1.0;
        for (int j = 0; j < i; ++j) {
            dzeta[pos + j] = r;
            r /= std::cosh(zeta[pos + j]);
        }
        double R = g[i + i * K];
        for (int j = i - 1; j >= 0; --j) {
            const double w = std::tanh(zeta[pos + j]);
            const double c = 1.0 / std::cosh(zeta[pos + j]);
            const double rj = dzeta[pos + j];
            const double G = g[i + j * K];
            dzeta[pos + j] = G * rj * c * c - R * rj * w * c;
            R = G * w + R * c;
        }
        pos += i;
    }
}

// ---------------------------------------------------------------- cholesky_factor_cov

std::optional<Shape> CholeskyCovKernels::input_shape(Shape theta) {
    if (!theta.is_matrix() || theta.cols < 1 || theta.rows < theta.cols)
        return std::nullopt;
    const int M = theta.rows, N = theta.cols;
    return Shape::vector(N * (N + 1) / 2 + (M - N) * N);
}

void CholeskyCovKernels::constrain(const double* zeta, int M, int N, double* L) {
    std::fill(L, L + M * N, 0.0);
    int pos = 0;
    for (int m = 0; m < M; ++m) {
        const int last = std::min(m, N - 1);
        for (int n = 0; n <= last; ++n, ++pos) {
            L[m + n * M] = m == n ? std::exp(zeta[pos]) : zeta[pos];
        }
    }
}

void CholeskyCovKernels::vjp(const double* zeta, const double* g, int M, int N, double* dzeta) {
    int pos = 0;
    for (int m = 0; m < M; ++m) {
        const int last = std::min(m, N - 1);
        for (int n = 0; n <= last; ++n, ++pos) {
            dzeta[pos] = m == n ? g[m + n * M] * std::exp(zeta[pos]) : g[m + n * M];
        }
    }
}

// ---------------------------------------------------------------- L L'

std::optional<Shape> LowerTriSelfTransposeKernels::input_shape(Shape out) {
    if (!out.is_matrix() || out.rows != out.cols || out.rows < 1)
        return std::nullopt;
    return out;
}

void LowerTriSelfTransposeKernels::constrain(const double* L, int K, int, double* out) {
    for (int j = 0; j < K; ++j) {
        for (int i = j; i < K; ++i) {
            double s = 0;
            for (int k = 0; k <= j; ++k) s += L[i + k * K] * L[j + k * K];
            out[i + j * K] = s;
            out[j + i * K] = s;
        }
    }
}

// Omega = T T' with T = tril(L): <G, dT T' + T dT'> = <(G + G') T, dT>, so
// dL = tril((G + G') T): dL(i,j) = sum_{k>=j} (G(i,k) + G(k,i)) T(k,j) for j <= i.
void LowerTriSelfTransposeKernels::vjp(const double* L, const double* g, int K, int, double* dL) {
    for (int j = 0; j < K; ++j) {
        for (int i = 0; i < K; ++i) {
            if (i < j) {
                dL[i + j * K] = 0.0;
                continue;
            }
            double s = 0;
            for (int k = j; k < K; ++k) s += (g[i + k * K] + g[k + i * K]) * L[k + j * K];
            dL[i + j * K] = s;
        }
    }
}

}  // namespace advi
