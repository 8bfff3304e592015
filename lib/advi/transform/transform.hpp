// The transform table: for each support (and positive-transform choice) the shapes it applies
// to, the unconstrained shape, T^-1 (zeta -> theta) and log|det J_T^-1| as graph fragments,
// and T and T^-1 numerically (initial values, round trips, tests).
#pragma once

#include <string_view>

#include <Eigen/Core>

#include <advi/graph/graph.hpp>
#include <advi/graph/ops_constrain.hpp>

#include <advi/transform/support.hpp>

namespace advi {

struct Transform {
    std::string_view name;
    // The constrained shapes it applies to, for messages ("mat[K,K] with K >= 2").
    std::string_view shapes;
    bool (*fits)(Shape s, const Support& support);
    // Shape of the unconstrained coordinates for a variable of constrained shape `s`.
    Shape (*unconstrained_shape)(Shape s, const Support& support);
    // theta = T^-1(zeta) of shape `shape`, built into g. Expression arguments of `s` are
    // nodes of g.
    NodeId (*constrain)(Graph& g, NodeId zeta, Shape shape, const Support& s);
    // log|det J_T^-1(zeta)| summed to a scalar (for unit_vector: -|zeta|^2 / 2, see
    // unit_vector.cpp); `theta` is the node constrain() made.
    NodeId (*log_abs_det_jacobian)(Graph& g, NodeId zeta, NodeId theta, const Support& s);
    // T on values: theta (column-major, of shape `shape`) -> zeta. Throws ModelError when
    // the support's arguments are expressions.
    Eigen::VectorXd (*unconstrain)(const Eigen::VectorXd& theta, Shape shape, const Support& s);
    // T^-1 on values.
    Eigen::VectorXd (*constrain_value)(const Eigen::VectorXd& zeta, Shape shape, const Support& s);
};

[[nodiscard]] const Transform& transform_for(const Support& s, PositiveTransform t);

// ShapeError unless `shape` fits the support: "support cov_matrix needs mat[K,K] with K >= 1, got
// mat[2,3]"; per-element arguments must have one value per element.
void check_support_shape(const Support& s, Shape shape);

// Row helpers: a transform that fits every shape; one whose free shape is its shape.
inline bool fits_any_shape(Shape, const Support&) {
    return true;
}
inline Shape same_shape(Shape s, const Support&) {
    return s;
}

// Row helpers of a transform whose T^-1 is the fused op of kernels M (graph/ops_constrain.hpp):
// the shapes it fits, its free shape, T^-1 as that op.
template <class M>
bool fused_fits(Shape s, const Support&) {
    return M::input_shape(s).has_value();
}
template <class M>
Shape fused_free(Shape s, const Support&) {
    return M::input_shape(s).value_or(s);
}
template <class M>
NodeId fused_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    return fused::Op1<M>::build(g, zeta, shape);
}

// Fragment helpers. The node of a support argument for a variable of shape `shape`: a
// constant, a constant vector, or the expression's node (already in g).
[[nodiscard]] NodeId support_arg_node(Graph& g, const SupportArg& a, Shape shape);
// The sum of x over a variable of shape `shape` (a scalar x counts once per element).
[[nodiscard]] NodeId sum_over(Graph& g, NodeId x, Shape shape);
// For the row-wise supports (simplex, ordered, unit_vector over mat[U,K]): f applied to x,
// of shape `shape`, once if a vector, else to each row, the results (of length `out_cols`)
// the rows of a column-major U x out_cols matrix.
[[nodiscard]] Eigen::VectorXd map_rows(const Eigen::VectorXd& x, Shape shape, int out_cols,
                                       Eigen::VectorXd (*f)(const Eigen::VectorXd&));
// A ModelError for numeric transforms of supports with expression arguments.
[[noreturn]] void numeric_needs_constants(const Support& s);

}  // namespace advi
