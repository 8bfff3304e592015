// Indexing by an integer known only per draw (an index computed from parameters, an `_rng`
// draw, the iteration of a loop op's body): the positions read are fixed offsets shifted by
// stride * (i - 1), where i is the runtime index (an integral real) and 1..extent its range.
//
//   dyn_gather(x, idx, i)    out[j] = x[idx[j] + stride (i - 1)], x read flat (column-major),
//                            out in idx's shape
//   dyn_scatter(v, idx, i)   zeros of the node's shape with v[j] added at idx[j] + stride (i - 1)
//
// Attributes: `index` the stride, `aux` the extent, `value` what an index outside 1..extent
// gives: NaN for a read the program makes (Stan rejects such a draw: the density is NaN, which
// the engine reports), 0 in the adjoints, so that the branch of a condition on a parameter that
// was not taken (whose index may be out of range) adds nothing, not NaN, to the gradient. Each
// op's adjoint is the other with fill 0, so both are differentiable to any order; the index
// itself is piecewise constant and gets no adjoint.
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi {

class Graph;

namespace dyn_index {

// out = x at the positions idx shifted by stride * (i - 1); `fill` where i is out of range.
[[nodiscard]] NodeId gather(Graph& g, NodeId x, NodeId idx, NodeId i, int stride, int extent,
                            double fill);
// `shape` zeros with v added at the shifted positions; `fill` everywhere where i is out of range.
[[nodiscard]] NodeId scatter(Graph& g, NodeId v, NodeId idx, NodeId i, int stride, int extent,
                             double fill, Shape shape);

Shape gather_shape(const Graph& g, const Node& n);
Shape scatter_shape(const Graph& g, const Node& n);
void gather_kernel(const KernelArgs& a);
void scatter_kernel(const KernelArgs& a);
void adj_gather(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
void adj_scatter(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace dyn_index
}  // namespace advi
