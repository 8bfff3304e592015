#include <advi/transform/sum_to_zero.hpp>

#include <cmath>

#include <advi/graph/const_vector.hpp>

namespace advi {

Eigen::MatrixXd helmert_basis(int n) {
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(n, std::max(n - 1, 0));
    for (int j = 0; j + 1 < n; ++j) {
        const double norm = std::sqrt(static_cast<double>(j + 1) * (j + 2));
        for (int i = 0; i <= j; ++i) H(i, j) = 1 / norm;
        H(j + 1, j) = -(j + 1) / norm;
    }
    return H;
}

namespace {

NodeId basis_node(Graph& g, int n) {
    const Eigen::MatrixXd H = helmert_basis(n);
    return constant_vector(g, std::span<const double>(H.data(), static_cast<std::size_t>(H.size())),
                           Shape::matrix(n, n - 1));
}

// ---- vectors (and rows of a matrix)

bool vector_fits(Shape s, const Support&) {
    return (s.is_vector() && s.rows >= 2) || (s.is_matrix() && s.rows >= 1 && s.cols >= 2);
}
Shape vector_free(Shape s, const Support&) {
    return s.is_matrix() ? Shape::matrix(s.rows, s.cols - 1) : Shape::vector(s.rows - 1);
}
NodeId vector_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    if (shape.is_matrix()) {
        return g.apply(Op::MatMul, zeta, g.apply(Op::Transpose, basis_node(g, shape.cols)));
    }
    return g.apply(Op::MatVec, basis_node(g, shape.rows), zeta);
}
NodeId zero_logdet(Graph& g, NodeId, NodeId, const Support&) {
    return g.constant(0.0);
}
Eigen::VectorXd vector_unconstrain(const Eigen::VectorXd& theta, Shape shape, const Support&) {
    if (!shape.is_matrix())
        return helmert_basis(shape.rows).transpose() * theta;
    const Eigen::Map<const Eigen::MatrixXd> X(theta.data(), shape.rows, shape.cols);
    const Eigen::MatrixXd Z = X * helmert_basis(shape.cols);
    return Eigen::Map<const Eigen::VectorXd>(Z.data(), Z.size());
}
Eigen::VectorXd vector_value(const Eigen::VectorXd& zeta, Shape shape, const Support&) {
    if (!shape.is_matrix())
        return helmert_basis(shape.rows) * zeta;
    const Eigen::Map<const Eigen::MatrixXd> Z(zeta.data(), shape.rows, shape.cols - 1);
    const Eigen::MatrixXd X = Z * helmert_basis(shape.cols).transpose();
    return Eigen::Map<const Eigen::VectorXd>(X.data(), X.size());
}

// ---- matrices whose rows and columns sum to zero

bool matrix_fits(Shape s, const Support&) {
    return s.is_matrix() && s.rows >= 2 && s.cols >= 2;
}
Shape matrix_free(Shape s, const Support&) {
    return Shape::matrix(s.rows - 1, s.cols - 1);
}
NodeId matrix_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    const NodeId left = g.apply(Op::MatMul, basis_node(g, shape.rows), zeta);
    return g.apply(Op::MatMul, left, g.apply(Op::Transpose, basis_node(g, shape.cols)));
}
Eigen::VectorXd matrix_unconstrain(const Eigen::VectorXd& theta, Shape shape, const Support&) {
    const Eigen::Map<const Eigen::MatrixXd> X(theta.data(), shape.rows, shape.cols);
    const Eigen::MatrixXd Z = helmert_basis(shape.rows).transpose() * X * helmert_basis(shape.cols);
    return Eigen::Map<const Eigen::VectorXd>(Z.data(), Z.size());
}
Eigen::VectorXd matrix_value(const Eigen::VectorXd& zeta, Shape shape, const Support&) {
    const Eigen::Map<const Eigen::MatrixXd> Z(zeta.data(), shape.rows - 1, shape.cols - 1);
    const Eigen::MatrixXd X = helmert_basis(shape.rows) * Z * helmert_basis(shape.cols).transpose();
    return Eigen::Map<const Eigen::VectorXd>(X.data(), X.size());
}

}  // namespace

// clang-format off
const Transform kSumToZeroTransform {"sum-to-zero (Helmert basis)", "vec[K] or mat[U,K] (U zero-sum vectors as rows), K >= 2", vector_fits, vector_free, vector_constrain, zero_logdet, vector_unconstrain, vector_value};
const Transform kSumToZeroMatrixTransform {"sum-to-zero matrix (Helmert bases)", "mat[M,N] with M, N >= 2", matrix_fits, matrix_free, matrix_constrain, zero_logdet, matrix_unconstrain, matrix_value};
// clang-format on

}  // namespace advi
