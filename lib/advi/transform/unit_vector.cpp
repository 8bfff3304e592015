// theta = zeta / |zeta|. The map has no Jacobian determinant (R^K onto the sphere); Stan adds
// -r^2 / 2, a standard normal on zeta, whose radius then integrates to a constant and whose
// direction is uniform: the density of theta is unchanged. A mat[U,K] is U unit vectors as
// rows (Stan's array[U] unit_vector[K]), each row divided by its own norm.
#include <advi/transform/unit_vector.hpp>

#include <advi/graph/ops_linalg.hpp>

namespace advi {
namespace {

bool vector_2(Shape s, const Support&) {
    return (s.is_vector() && s.rows >= 2) || (s.is_matrix() && s.rows >= 1 && s.cols >= 2);
}

NodeId unit_vector_constrain(Graph& g, NodeId z, Shape shape, const Support&) {
    if (shape.is_matrix()) {
        const NodeId norms = g.apply(Op::Sqrt, g.apply(Op::RowSums, g.apply(Op::Square, z)));
        return g.apply(Op::Div, z, linalg::rep_cols(g, norms, shape.cols));
    }
    return g.apply(Op::Div, z, g.apply(Op::Sqrt, g.apply(Op::Dot, z, z)));
}

NodeId unit_vector_logdet(Graph& g, NodeId z, NodeId, const Support&) {
    if (g[z].shape.is_matrix()) {
        return g.apply(Op::Mul, g.constant(-0.5), g.apply(Op::Sum, g.apply(Op::Square, z)));
    }
    return g.apply(Op::Mul, g.constant(-0.5), g.apply(Op::Dot, z, z));
}

// T: the unit vector itself (radius 1) is one of its preimages.
Eigen::VectorXd unit_vector_unconstrain(const Eigen::VectorXd& x, Shape, const Support&) {
    return x;
}
Eigen::VectorXd normalise(const Eigen::VectorXd& z) {
    return z / z.norm();
}
Eigen::VectorXd unit_vector_value(const Eigen::VectorXd& z, Shape shape, const Support&) {
    return map_rows(z, shape, shape.cols, normalise);
}

}  // namespace

// clang-format off
const Transform kUnitVectorTransform {"unit-vector", "vec[K] or mat[U,K] (U unit vectors as rows), K >= 2", vector_2, same_shape, unit_vector_constrain, unit_vector_logdet, unit_vector_unconstrain, unit_vector_value};
// clang-format on

}  // namespace advi
