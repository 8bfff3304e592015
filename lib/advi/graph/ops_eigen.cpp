#include <advi/graph/ops_eigen.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi::eigen_ops {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const Shape& square(const Graph& g, const Node& n) {
    const Shape& s = g[n.in[0]].shape;
    if (!s.is_matrix() || s.rows != s.cols)
        throw ShapeError(fmt::format("{}: argument `A` must be a square matrix, got {}",
                                     op_name(n.op), s.str()));
    return s;
}

// The solver of A's lower triangle (n = the output's rows; the upper triangle is not read, as
// cholesky_decompose's), or false where A is not finite. The kernels allocate the solver's
// workspace, as the ODE ones do.
bool solve(const KernelArgs& a, Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>& es) {
    const int n = a.out_rows;
    const Eigen::Map<const Eigen::MatrixXd> A(a.in[0].x, n, n);
    if (!A.allFinite())
        return false;
    es.compute(A);
    return es.info() == Eigen::Success;
}

// S (symmetric) onto A's lower triangle: 2 S_ij below the diagonal, S_ii on it, 0 above.
NodeId lower_fold(Graph& g, NodeId S, int n) {
    std::vector<double> w(static_cast<std::size_t>(n) * n, 0.0);
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) w[static_cast<std::size_t>(i + n * j)] = i == j ? 1 : 2;
    return g.apply(Op::Mul, S, constant_vector(g, w, Shape::matrix(n, n)));
}

NodeId symmetric_part(Graph& g, NodeId M) {
    return g.apply(Op::Mul, g.constant(0.5), g.apply(Op::Add, M, g.apply(Op::Transpose, M)));
}

NodeId other(Graph& g, NodeId y, Op op) {
    Node n;
    n.op = op;
    n.in = {g[y].in[0], kNoNode, kNoNode};
    return g.intern(n);
}

}  // namespace

Shape eigenvalues_sym_shape(const Graph& g, const Node& n) {
    return Shape::vector(square(g, n).rows);
}
Shape eigenvectors_sym_shape(const Graph& g, const Node& n) {
    return square(g, n);
}

void eigenvalues_sym_kernel(const KernelArgs& a) {
    const int n = a.out_rows;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(n);
    if (!solve(a, es)) {
        std::fill(a.out, a.out + n, kNaN);
        return;
    }
    Eigen::Map<Eigen::VectorXd>(a.out, n) = es.eigenvalues();
}

void eigenvectors_sym_kernel(const KernelArgs& a) {
    const int n = a.out_rows;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(n);
    if (!solve(a, es)) {
        std::fill(a.out, a.out + a.out_size(), kNaN);
        return;
    }
    Eigen::Map<Eigen::MatrixXd>(a.out, n, n) = es.eigenvectors();
}

void adj_eigenvalues_sym(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const int n = g[y].shape.rows;
    const NodeId V = other(g, y, Op::EigenvectorsSym);
    const NodeId M = g.apply(Op::MatMul, g.apply(Op::MatMul, V, g.apply(Op::DiagMatrix, adj)),
                             g.apply(Op::Transpose, V));
    c[0] = lower_fold(g, symmetric_part(g, M), n);
}

void adj_eigenvectors_sym(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const int n = g[y].shape.rows;
    const NodeId lambda = other(g, y, Op::EigenvaluesSym);
    // D_ij = lambda_j - lambda_i, 1 on the diagonal; F = (1 - I) o (1 / D)
    const NodeId column = linalg::rep_cols(g, lambda, n);  // (i, j) -> lambda_i
    const NodeId identity = g.apply(Op::DiagMatrix, g.constant(1.0, Shape::vector(n)));
    const NodeId D =
        g.apply(Op::Add, g.apply(Op::Sub, g.apply(Op::Transpose, column), column), identity);
    const NodeId off = g.apply(Op::Sub, g.constant(1.0, Shape::matrix(n, n)), identity);
    const NodeId F = g.apply(Op::Div, off, D);
    const NodeId Vt = g.apply(Op::Transpose, y);
    const NodeId inner = g.apply(Op::Mul, F, g.apply(Op::MatMul, Vt, adj));
    const NodeId M = g.apply(Op::MatMul, g.apply(Op::MatMul, y, inner), Vt);
    c[0] = lower_fold(g, symmetric_part(g, M), n);
}

}  // namespace advi::eigen_ops
