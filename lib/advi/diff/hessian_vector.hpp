// The Hessian-vector graph, reverse over reverse: the gradient graph differentiated once more.
// With v an input that is not differentiated, s(zeta) = <grad lp(zeta), v> has gradient
// d s / d zeta = H(zeta) v, so one more reverse pass over the gradient graph, with the same
// adjoint rules of the op table, gives H v at about the cost of a few gradients, and no op
// needs a second (tangent) rule.
#pragma once

#include <string>
#include <vector>

#include <advi/graph/graph.hpp>

namespace advi {

// From a gradient graph over zeta of size `dim` (differentiate(): outputs "lp" and the
// gradient at offsets 0..dim-1), the graph over the input [zeta; v] of size 2 dim: v enters as
// Zeta leaves at offsets dim..2 dim-1, labelled "v <latent>", and is never a variable of the
// second pass. Outputs: "lp"; the gradient at offsets 0..dim-1 (as given); H v at offsets
// dim..2 dim-1, named "hv <latent>". Not simplified.
[[nodiscard]] Graph hessian_vector_graph(const Graph& gradient, int dim);

// The H v graph cut in two at what depends on v: the point stage, every node that reads zeta
// and not v (the forward values and the gradient), which a dense Hessian's K products at one
// point share; and the direction stage, the nodes that read v, run once per product. The
// direction graph reads the point values it needs as data slots `first_slot`, `first_slot` +
// 1, ...: the point graph's outputs "point 0", "point 1", ..., in that order, which have no
// offset (a program keeps them in its buffers, Program::output_buffer). Measured on issue
// 19's mixture: one product at a new point cost 2.5 gradients; at the same point, 1.2.
struct HessianVectorStages {
    // Over zeta (size dim): "lp", the gradient (offsets 0..dim-1), and the point values the
    // direction stage reads ("point 0", "point 1", ..., without offsets).
    Graph point;
    // Over v (size dim): H v (offsets 0..dim-1), reading the point values as data.
    Graph direction;
    std::vector<Shape> boundary;     // the point values' shapes, in slot order
    std::vector<std::string> names;  // their slot names ("point value %12 (exp)")
    int boundary_size = 0;           // their doubles in all
};
[[nodiscard]] HessianVectorStages split_hessian_vector(const Graph& hessian_vector, int dim,
                                                       int first_slot);

}  // namespace advi
