// Stick-breaking: the simplex transform of Stan's reference manual ("Unit simplex").
#include <advi/transform/simplex.hpp>

#include <cmath>
#include <vector>

#include <advi/graph/ops_linalg.hpp>

#include <advi/graph/const_vector.hpp>
#include <advi/graph/ops_constrain.hpp>

namespace advi {

namespace {

// The Jacobian of (zeta_0..zeta_{K-2}) -> (theta_0..theta_{K-2}) is lower triangular with
// diagonal s_k w_k (1 - w_k), and log s_k = sum_{i<k} log(1 - w_i), so
//   log|J| = sum_k [log w_k + (K - 1 - k) log(1 - w_k)],  w_k = logit^-1(a_k),
// a sum of elementwise terms whose gradient the existing ops provide. For U rows the same
// sum over all of them: the shifts repeated down the rows, the weights applied to the
// column sums, so that the fragment has as many nodes for any U.
NodeId simplex_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    const Shape s = g[zeta].shape;
    const int n = s.is_matrix() ? s.cols : s.rows;  // K - 1
    std::vector<double> shift(n), weight(n);
    for (int k = 0; k < n; ++k) {
        shift[k] = -std::log(static_cast<double>(n - k));
        weight[k] = n - k;
    }
    const Shape v = Shape::vector(n);
    if (s.is_matrix()) {
        const NodeId a =
            g.apply(Op::Add, zeta, linalg::rep_rows(g, constant_vector(g, shift, v), s.rows));
        const NodeId log_w = g.apply(Op::Sum, g.apply(Op::LogInvLogit, a));
        const NodeId log_1mw = g.apply(Op::LogInvLogit, g.apply(Op::Neg, a));
        return g.apply(
            Op::Add, log_w,
            g.apply(Op::Dot, constant_vector(g, weight, v), g.apply(Op::ColSums, log_1mw)));
    }
    const NodeId a = g.apply(Op::Add, zeta, constant_vector(g, shift, s));
    const NodeId log_w = g.apply(Op::Sum, g.apply(Op::LogInvLogit, a));
    const NodeId log_1mw = g.apply(Op::LogInvLogit, g.apply(Op::Neg, a));
    return g.apply(Op::Add, log_w, g.apply(Op::Dot, constant_vector(g, weight, s), log_1mw));
}

// T: zeta_k = log(theta_k) - log(s_{k+1}) + log(K - 1 - k), s_{k+1} = sum_{j>k} theta_j
// (the logit of theta_k / s_k without forming 1 - w).
Eigen::VectorXd simplex_unconstrain_one(const Eigen::VectorXd& theta) {
    const auto K = static_cast<int>(theta.size());
    Eigen::VectorXd zeta(K - 1);
    double tail = theta[K - 1];
    for (int k = K - 2; k >= 0; --k) {
        zeta[k] = std::log(theta[k]) - std::log(tail) + std::log(K - 1.0 - k);
        tail += theta[k];
    }
    return zeta;
}

Eigen::VectorXd simplex_unconstrain(const Eigen::VectorXd& theta, Shape shape, const Support&) {
    return map_rows(theta, shape, shape.is_matrix() ? shape.cols - 1 : shape.rows - 1,
                    simplex_unconstrain_one);
}

Eigen::VectorXd simplex_value(const Eigen::VectorXd& zeta, Shape shape, const Support&) {
    Eigen::VectorXd theta(shape.size());
    const auto [rows, cols] =
        fused::Op1<SimplexKernels>::dims(shape.is_matrix(), shape.rows, shape.cols);
    SimplexKernels::constrain(zeta.data(), rows, cols, theta.data());
    return theta;
}

// Columns: the transpose of the rows' transform on the transpose (zeta is (M-1) x N).
bool columns_fit(Shape s, const Support&) {
    return s.is_matrix() && s.rows >= 2 && s.cols >= 1;
}
Shape columns_free(Shape s, const Support&) {
    return Shape::matrix(s.rows - 1, s.cols);
}
NodeId columns_constrain(Graph& g, NodeId zeta, Shape shape, const Support& s) {
    const NodeId rows = fused_constrain<SimplexKernels>(g, g.apply(Op::Transpose, zeta),
                                                        Shape::matrix(shape.cols, shape.rows), s);
    return g.apply(Op::Transpose, rows);
}
NodeId columns_logdet(Graph& g, NodeId zeta, NodeId theta, const Support& s) {
    return simplex_logdet(g, g.apply(Op::Transpose, zeta), theta, s);
}
Eigen::VectorXd transposed(const Eigen::VectorXd& x, int rows, int cols) {
    const Eigen::MatrixXd t = Eigen::Map<const Eigen::MatrixXd>(x.data(), rows, cols).transpose();
    return Eigen::Map<const Eigen::VectorXd>(t.data(), t.size());
}
Eigen::VectorXd columns_unconstrain(const Eigen::VectorXd& theta, Shape shape, const Support& s) {
    const Shape rows = Shape::matrix(shape.cols, shape.rows);
    return transposed(simplex_unconstrain(transposed(theta, shape.rows, shape.cols), rows, s),
                      shape.cols, shape.rows - 1);
}
Eigen::VectorXd columns_value(const Eigen::VectorXd& zeta, Shape shape, const Support& s) {
    const Shape rows = Shape::matrix(shape.cols, shape.rows);
    return transposed(simplex_value(transposed(zeta, shape.rows - 1, shape.cols), rows, s),
                      shape.cols, shape.rows);
}

}  // namespace

// clang-format off
const Transform kStochasticColumnsTransform {"stick-breaking simplex per column", "mat[M,N] with M >= 2 (every column a simplex)", columns_fit, columns_free, columns_constrain, columns_logdet, columns_unconstrain, columns_value};
const Transform kSimplexTransform {"stick-breaking simplex", SimplexKernels::needs, fused_fits<SimplexKernels>, fused_free<SimplexKernels>, fused_constrain<SimplexKernels>, simplex_logdet, simplex_unconstrain, simplex_value};
// clang-format on

}  // namespace advi
