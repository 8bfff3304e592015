// theta = offset + multiplier * zeta; d theta / d zeta = multiplier elementwise, so
// log|J| = sum log multiplier (a constant unless the multiplier is an expression).
#include <advi/transform/affine.hpp>

#include <cmath>
#include <vector>

#include <advi/graph/const_vector.hpp>

namespace advi {
namespace {

NodeId affine_constrain(Graph& g, NodeId z, Shape shape, const Support& s) {
    return g.apply(Op::Add, support_arg_node(g, s.offset, shape),
                   g.apply(Op::Mul, support_arg_node(g, s.multiplier, shape), z));
}

NodeId affine_logdet(Graph& g, NodeId z, NodeId, const Support& s) {
    const Shape shape = g[z].shape;
    if (s.multiplier.is_expression()) {
        return sum_over(g, g.apply(Op::Log, support_arg_node(g, s.multiplier, shape)), shape);
    }
    double total = 0;
    for (int i = 0; i < shape.size(); ++i) total += std::log(s.multiplier.at(i));
    return g.constant(total);
}

Eigen::VectorXd affine_unconstrain(const Eigen::VectorXd& x, Shape, const Support& s) {
    if (s.has_expression())
        numeric_needs_constants(s);
    Eigen::VectorXd z(x.size());
    for (int i = 0; i < x.size(); ++i) z[i] = (x[i] - s.offset.at(i)) / s.multiplier.at(i);
    return z;
}

Eigen::VectorXd affine_value(const Eigen::VectorXd& z, Shape, const Support& s) {
    if (s.has_expression())
        numeric_needs_constants(s);
    Eigen::VectorXd x(z.size());
    for (int i = 0; i < z.size(); ++i) x[i] = s.offset.at(i) + s.multiplier.at(i) * z[i];
    return x;
}

}  // namespace

// clang-format off
const Transform kAffineTransform {"affine", "any shape", fits_any_shape, same_shape, affine_constrain, affine_logdet, affine_unconstrain, affine_value};
// clang-format on

}  // namespace advi
