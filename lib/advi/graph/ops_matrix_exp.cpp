#include <advi/graph/ops_matrix_exp.hpp>

#include <algorithm>
#include <limits>

#include <Eigen/Core>
#include <fmt/format.h>
#include <unsupported/Eigen/MatrixFunctions>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi::matrix_exp_ops {

Shape matrix_exp_shape(const Graph& g, const Node& n) {
    const Shape& s = g[n.in[0]].shape;
    if (s.is_scalar())
        return s;  // a 1 x 1 matrix held as a scalar: exp
    if (!s.is_matrix() || s.rows != s.cols)
        throw ShapeError(
            fmt::format("matrix_exp: argument `A` must be a square matrix, got {}", s.str()));
    return s;
}

// The kernel allocates Eigen's workspace, as the eigendecompositions' do.
void matrix_exp_kernel(const KernelArgs& a) {
    const int n = a.out_rows;
    const Eigen::Map<const Eigen::MatrixXd> A(a.in[0].x, n, n);
    Eigen::Map<Eigen::MatrixXd> out(a.out, n, n);
    if (!A.allFinite()) {
        out.setConstant(std::numeric_limits<double>::quiet_NaN());
        return;
    }
    out = A.exp();
}

void adj_matrix_exp(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const NodeId A = g[y].in[0];
    const Shape s = g[A].shape;
    const int n = s.is_scalar() ? 1 : s.rows;
    const Shape square = Shape::matrix(n, n);
    const NodeId At = s.is_scalar() ? linalg::reshape(g, A, square) : g.apply(Op::Transpose, A);
    const NodeId G = s.is_scalar() ? linalg::reshape(g, adj, square) : adj;
    const NodeId top = g.apply(Op::AppendCol, At, G);
    const NodeId bottom = g.apply(Op::AppendCol, g.constant(0.0, square), At);
    const NodeId big = g.apply(Op::MatrixExp, g.apply(Op::AppendRow, top, bottom));
    const NodeId L = linalg::block(g, big, 0, n, square);
    c[0] = s.is_scalar() ? linalg::reshape(g, L, s) : L;
}

}  // namespace advi::matrix_exp_ops
