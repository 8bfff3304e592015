// The Hessian-vector graph, reverse over reverse: the gradient graph differentiated once more.
// With v an input that is not differentiated, s(zeta) = <grad lp(zeta), v> has gradient
// d s / d zeta = H(zeta) v, so one more reverse pass over the gradient graph, with the same
// adjoint rules of the op table, gives H v at about the cost of a few gradients, and no op
// needs a second (tangent) rule.
#pragma once

#include <advi/graph/graph.hpp>

namespace advi {

// From a gradient graph over zeta of size `dim` (differentiate(): outputs "lp" and the
// gradient at offsets 0..dim-1), the graph over the input [zeta; v] of size 2 dim: v enters as
// Zeta leaves at offsets dim..2 dim-1, labelled "v <latent>", and is never a variable of the
// second pass. Outputs: "lp"; the gradient at offsets 0..dim-1 (as given); H v at offsets
// dim..2 dim-1, named "hv <latent>". Not simplified.
[[nodiscard]] Graph hessian_vector_graph(const Graph& gradient, int dim);

}  // namespace advi
