// Stick-breaking: the simplex transform of Stan's reference manual ("Unit simplex").
#include "simplex.hpp"

#include <cmath>
#include <vector>

#include "const_vector.hpp"
#include "fused.hpp"

namespace advi {

using fused::inv_logit;
using fused::log_inv_logit;

std::optional<Shape> SimplexKernels::input_shape(Shape theta) {
    if (!theta.is_vector() || theta.rows < 2) return std::nullopt;
    return Shape::vector(theta.rows - 1);
}

void SimplexKernels::constrain(const double* zeta, int rows, int, double* theta) {
    const int K = rows;
    double s = 1.0;  // the stick left
    for (int k = 0; k < K - 1; ++k) {
        const double a = zeta[k] - std::log(K - 1.0 - k);
        theta[k] = s * inv_logit(a);
        s *= inv_logit(-a);  // 1 - w without cancellation when w is near 1
    }
    theta[K - 1] = s;
}

// Reverse of the loop above, with s_k kept in dzeta[k] by a forward sweep:
//   theta_k = s_k w_k and s_{k+1} = s_k (1 - w_k) give, with S the adjoint of s_{k+1},
//   d zeta_k = s_k (g_k - S) w_k (1 - w_k)   (dw/dzeta = w (1 - w)),
//   adjoint of s_k = g_k w_k + S (1 - w_k);   S starts as g_{K-1} (theta_{K-1} = s_{K-1}).
void SimplexKernels::vjp(const double* zeta, const double* g, int rows, int, double* dzeta) {
    const int K = rows;
    double s = 1.0;
    for (int k = 0; k < K - 1; ++k) {
        dzeta[k] = s;
        s *= inv_logit(-(zeta[k] - std::log(K - 1.0 - k)));
    }
    double S = g[K - 1];
    for (int k = K - 2; k >= 0; --k) {
        const double a = zeta[k] - std::log(K - 1.0 - k);
        const double w = inv_logit(a);
        const double w1 = inv_logit(-a);
        const double sk = dzeta[k];
        dzeta[k] = sk * (g[k] - S) * w * w1;
        S = g[k] * w + S * w1;
    }
}

namespace {

Shape simplex_free(Shape s) {
    const auto in = SimplexKernels::input_shape(s);
    return in ? *in : s;
}
bool simplex_fits(Shape s) { return SimplexKernels::input_shape(s).has_value(); }

NodeId simplex_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    return fused::Op1<SimplexKernels>::build(g, zeta, shape);
}

// The Jacobian of (zeta_0..zeta_{K-2}) -> (theta_0..theta_{K-2}) is lower triangular with
// diagonal s_k w_k (1 - w_k), and log s_k = sum_{i<k} log(1 - w_i), so
//   log|J| = sum_k [log w_k + (K - 1 - k) log(1 - w_k)],  w_k = logit^-1(a_k),
// a sum of elementwise terms whose gradient the existing ops provide.
NodeId simplex_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    const int n = g[zeta].shape.rows;  // K - 1
    std::vector<double> shift(n), weight(n);
    for (int k = 0; k < n; ++k) {
        shift[k] = -std::log(static_cast<double>(n - k));
        weight[k] = n - k;
    }
    const Shape s = g[zeta].shape;
    const NodeId a = g.apply(Op::Add, zeta, constant_vector(g, shift, s));
    const NodeId log_w = g.apply(Op::Sum, g.apply(Op::LogInvLogit, a));
    const NodeId log_1mw = g.apply(Op::LogInvLogit, g.apply(Op::Neg, a));
    return g.apply(Op::Add, log_w, g.apply(Op::Dot, constant_vector(g, weight, s), log_1mw));
}

// T: zeta_k = log(theta_k) - log(s_{k+1}) + log(K - 1 - k), s_{k+1} = sum_{j>k} theta_j
// (the logit of theta_k / s_k without forming 1 - w).
Eigen::VectorXd simplex_unconstrain(const Eigen::VectorXd& theta, Shape shape, const Support&) {
    const int K = shape.rows;
    Eigen::VectorXd zeta(K - 1);
    double tail = theta[K - 1];
    for (int k = K - 2; k >= 0; --k) {
        zeta[k] = std::log(theta[k]) - std::log(tail) + std::log(K - 1.0 - k);
        tail += theta[k];
    }
    return zeta;
}

Eigen::VectorXd simplex_value(const Eigen::VectorXd& zeta, Shape shape, const Support&) {
    Eigen::VectorXd theta(shape.size());
    SimplexKernels::constrain(zeta.data(), shape.rows, shape.cols, theta.data());
    return theta;
}

}  // namespace

const Transform kSimplexTransform{"stick-breaking simplex", SimplexKernels::needs, simplex_fits,
                                  simplex_free, simplex_constrain, simplex_logdet,
                                  simplex_unconstrain, simplex_value};

}  // namespace advi
