// theta = zeta / |zeta|. The map has no Jacobian determinant (R^K onto the sphere); Stan adds
// -r^2 / 2, a standard normal on zeta, whose radius then integrates to a constant and whose
// direction is uniform: the density of theta is unchanged.
#include "unit_vector.hpp"

namespace advi {
namespace {

bool vector_2(Shape s) { return s.is_vector() && s.rows >= 2; }
Shape same_shape(Shape s) { return s; }

NodeId unit_vector_constrain(Graph& g, NodeId z, Shape, const Support&) {
    return g.apply(Op::Div, z, g.apply(Op::Sqrt, g.apply(Op::Dot, z, z)));
}

NodeId unit_vector_logdet(Graph& g, NodeId z, NodeId, const Support&) {
    return g.apply(Op::Mul, g.constant(-0.5), g.apply(Op::Dot, z, z));
}

// T: the unit vector itself (radius 1) is one of its preimages.
Eigen::VectorXd unit_vector_unconstrain(const Eigen::VectorXd& x, Shape, const Support&) {
    return x;
}
Eigen::VectorXd unit_vector_value(const Eigen::VectorXd& z, Shape, const Support&) {
    return z / z.norm();
}

}  // namespace

const Transform kUnitVectorTransform{"unit-vector", "vec[K] with K >= 2", vector_2, same_shape,
                                     unit_vector_constrain, unit_vector_logdet,
                                     unit_vector_unconstrain, unit_vector_value};

}  // namespace advi
