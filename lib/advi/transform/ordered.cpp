// Ordered vectors as Stan: increments exp(zeta_k) > 0 summed. The Jacobian is lower
// triangular with diagonal (1, exp(zeta_1), ...), so log|J| = sum_{k>=1} zeta_k (ordered)
// or sum_k zeta_k (positive_ordered).
#include <advi/transform/ordered.hpp>

#include <cmath>
#include <vector>

#include <advi/graph/const_vector.hpp>
#include <advi/graph/ops_constrain.hpp>

namespace advi {

namespace {

// sum_{k>=1} zeta_k: over U rows, the weights (0, 1, ..., 1) applied to the column sums.
NodeId ordered_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    const Shape s = g[zeta].shape;
    const int K = s.is_matrix() ? s.cols : s.rows;
    std::vector<double> w(K, 1.0);
    w[0] = 0.0;
    if (s.is_matrix()) {
        return g.apply(Op::Dot, constant_vector(g, w, Shape::vector(K)),
                       g.apply(Op::ColSums, zeta));
    }
    return g.apply(Op::Dot, constant_vector(g, w, s), zeta);
}
Eigen::VectorXd ordered_unconstrain_one(const Eigen::VectorXd& x) {
    Eigen::VectorXd z(x.size());
    z[0] = x[0];
    for (Eigen::Index k = 1; k < x.size(); ++k) z[k] = std::log(x[k] - x[k - 1]);
    return z;
}
Eigen::VectorXd ordered_unconstrain(const Eigen::VectorXd& x, Shape shape, const Support&) {
    return map_rows(x, shape, shape.cols, ordered_unconstrain_one);
}
template <class M>
Eigen::VectorXd rowwise_value(const Eigen::VectorXd& z, Shape shape) {
    Eigen::VectorXd x(z.size());
    const auto [rows, cols] = fused::Op1<M>::dims(shape.is_matrix(), shape.rows, shape.cols);
    M::constrain(z.data(), rows, cols, x.data());
    return x;
}
Eigen::VectorXd ordered_value(const Eigen::VectorXd& z, Shape shape, const Support&) {
    return rowwise_value<OrderedKernels>(z, shape);
}

NodeId positive_ordered_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    return g.apply(Op::Sum, zeta);
}
Eigen::VectorXd positive_ordered_unconstrain_one(const Eigen::VectorXd& x) {
    Eigen::VectorXd z(x.size());
    z[0] = std::log(x[0]);
    for (Eigen::Index k = 1; k < x.size(); ++k) z[k] = std::log(x[k] - x[k - 1]);
    return z;
}
Eigen::VectorXd positive_ordered_unconstrain(const Eigen::VectorXd& x, Shape shape,
                                             const Support&) {
    return map_rows(x, shape, shape.cols, positive_ordered_unconstrain_one);
}
Eigen::VectorXd positive_ordered_value(const Eigen::VectorXd& z, Shape shape, const Support&) {
    return rowwise_value<PositiveOrderedKernels>(z, shape);
}

}  // namespace

// clang-format off
const Transform kOrderedTransform         {"ordered",          OrderedKernels::needs,         fused_fits<OrderedKernels>, same_shape, fused_constrain<OrderedKernels>,         ordered_logdet,          ordered_unconstrain,          ordered_value};
const Transform kPositiveOrderedTransform {"positive-ordered", PositiveOrderedKernels::needs, fused_fits<OrderedKernels>, same_shape, fused_constrain<PositiveOrderedKernels>, positive_ordered_logdet, positive_ordered_unconstrain, positive_ordered_value};
// clang-format on

}  // namespace advi
