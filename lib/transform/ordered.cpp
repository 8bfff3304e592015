// Ordered vectors as Stan: increments exp(zeta_k) > 0 summed. The Jacobian is lower
// triangular with diagonal (1, exp(zeta_1), ...), so log|J| = sum_{k>=1} zeta_k (ordered)
// or sum_k zeta_k (positive_ordered).
#include "ordered.hpp"

#include <cmath>
#include <vector>

#include "const_vector.hpp"
#include "fused.hpp"

namespace advi {

std::optional<Shape> OrderedKernels::input_shape(Shape theta) {
    if (!theta.is_vector() || theta.rows < 1) return std::nullopt;
    return theta;
}

void OrderedKernels::constrain(const double* zeta, int rows, int, double* theta) {
    theta[0] = zeta[0];
    for (int k = 1; k < rows; ++k) theta[k] = theta[k - 1] + std::exp(zeta[k]);
}

// theta_j depends on zeta_k for every k <= j: d zeta_k = (sum_{j>=k} g_j) times
// d theta_k / d zeta_k's own factor (1 for k = 0, exp(zeta_k) after).
void OrderedKernels::vjp(const double* zeta, const double* g, int rows, int, double* dzeta) {
    double tail = 0;
    for (int k = rows - 1; k >= 0; --k) {
        tail += g[k];
        dzeta[k] = k == 0 ? tail : tail * std::exp(zeta[k]);
    }
}

void PositiveOrderedKernels::constrain(const double* zeta, int rows, int, double* theta) {
    double acc = 0;
    for (int k = 0; k < rows; ++k) theta[k] = acc += std::exp(zeta[k]);
}

void PositiveOrderedKernels::vjp(const double* zeta, const double* g, int rows, int,
                                 double* dzeta) {
    double tail = 0;
    for (int k = rows - 1; k >= 0; --k) {
        tail += g[k];
        dzeta[k] = tail * std::exp(zeta[k]);
    }
}

namespace {

bool ordered_fits(Shape s) { return OrderedKernels::input_shape(s).has_value(); }
Shape same_shape(Shape s) { return s; }

NodeId ordered_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    return fused::Op1<OrderedKernels>::build(g, zeta, shape);
}
NodeId ordered_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    const Shape s = g[zeta].shape;
    std::vector<double> w(s.size(), 1.0);
    w[0] = 0.0;
    return g.apply(Op::Dot, constant_vector(g, w, s), zeta);
}
Eigen::VectorXd ordered_unconstrain(const Eigen::VectorXd& x, Shape, const Support&) {
    Eigen::VectorXd z(x.size());
    z[0] = x[0];
    for (Eigen::Index k = 1; k < x.size(); ++k) z[k] = std::log(x[k] - x[k - 1]);
    return z;
}
Eigen::VectorXd ordered_value(const Eigen::VectorXd& z, Shape shape, const Support&) {
    Eigen::VectorXd x(z.size());
    OrderedKernels::constrain(z.data(), shape.rows, 1, x.data());
    return x;
}

NodeId positive_ordered_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    return fused::Op1<PositiveOrderedKernels>::build(g, zeta, shape);
}
NodeId positive_ordered_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    return g.apply(Op::Sum, zeta);
}
Eigen::VectorXd positive_ordered_unconstrain(const Eigen::VectorXd& x, Shape, const Support&) {
    Eigen::VectorXd z(x.size());
    z[0] = std::log(x[0]);
    for (Eigen::Index k = 1; k < x.size(); ++k) z[k] = std::log(x[k] - x[k - 1]);
    return z;
}
Eigen::VectorXd positive_ordered_value(const Eigen::VectorXd& z, Shape shape, const Support&) {
    Eigen::VectorXd x(z.size());
    PositiveOrderedKernels::constrain(z.data(), shape.rows, 1, x.data());
    return x;
}

}  // namespace

const Transform kOrderedTransform{"ordered", OrderedKernels::needs, ordered_fits, same_shape,
                                  ordered_constrain, ordered_logdet, ordered_unconstrain,
                                  ordered_value};
const Transform kPositiveOrderedTransform{
    "positive-ordered", PositiveOrderedKernels::needs, ordered_fits, same_shape,
    positive_ordered_constrain, positive_ordered_logdet, positive_ordered_unconstrain,
    positive_ordered_value};

}  // namespace advi
