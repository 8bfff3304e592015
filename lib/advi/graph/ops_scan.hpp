// A first-order linear recurrence as one op: x[t] = a[t] x[t-1] + b[t] for t = 0..T-1 with
// x[-1] = x0 (a a vector or a scalar). The Stan front end lowers loops such as
// `h[t] += phi * (h[t-1] - mu)` to it instead of unrolling them. Its adjoint is the same
// recurrence run backwards: lambda[t] = g[t] + a[t+1] lambda[t+1].
#pragma once

#include <advi/graph/op.hpp>

namespace advi::scan_ops {

Shape linear_scan_shape(const Graph& g, const Node& n);          // (a, b, x0) -> b's shape
Shape linear_scan_reverse_shape(const Graph& g, const Node& n);  // (a, g) -> g's shape
void linear_scan_kernel(const KernelArgs& a);
void linear_scan_reverse_kernel(const KernelArgs& a);
void adj_linear_scan(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
void adj_linear_scan_reverse(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace advi::scan_ops
