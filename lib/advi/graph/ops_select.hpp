// select(c, a, b): a where c is not 0, else b, elementwise (scalars broadcast). The lowering of a
// branch on a parameter (Stan's `if (theta > 0) ...`) merges the values each branch gives a
// variable with it. Its adjoint routes the output's adjoint to the branch taken; the branch not
// taken gets 0, which its own adjoints multiply (a NaN derivative there, as of sqrt at a
// negative number, still makes the gradient NaN: the engine reports it, nothing is silent).
#pragma once

#include <advi/graph/op.hpp>

namespace advi::select_ops {

Shape select_shape(const Graph& g, const Node& n);
void select_kernel(const KernelArgs& a);
void adj_select(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace advi::select_ops
