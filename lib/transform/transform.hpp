// The transform table: for each support (and positive-transform choice) the unconstrained
// shape, T^-1 (zeta -> theta) and log|det J_T^-1| as graph fragments, and T numerically.
#pragma once

#include <string_view>

#include <advi/graph/graph.hpp>

#include "support.hpp"

namespace advi {

struct Transform {
    std::string_view name;
    // Shape of the unconstrained coordinates for a variable of constrained shape `s`.
    Shape (*unconstrained_shape)(Shape s);
    // theta = T^-1(zeta), built into g.
    NodeId (*constrain)(Graph& g, NodeId zeta, const Support& s);
    // log|det J_T^-1(zeta)| summed to a scalar; `theta` is the node constrain() made.
    NodeId (*log_abs_det_jacobian)(Graph& g, NodeId zeta, NodeId theta, const Support& s);
    // T, elementwise on values: theta -> zeta (initial values, tests).
    double (*unconstrain)(double theta, const Support& s);
    // T^-1 on values (tests, and a check of the graph fragment).
    double (*constrain_value)(double zeta, const Support& s);
};

[[nodiscard]] const Transform& transform_for(const Support& s, PositiveTransform t);

}  // namespace advi
