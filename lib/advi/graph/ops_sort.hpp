// Sorting values that may depend on the parameters (Stan's sort_asc, sort_desc, sort_indices_*,
// and what is built on them). The order is piecewise constant in the values, so sorting is a
// permutation that the values choose, and a permutation is linear:
//
//   sort_gather(key, v)    out[j] = v[p[j]], p the order that sorts key (stable; attribute
//                          `index`: 0 ascending, 1 descending); sort_asc(x) = sort_gather(x, x)
//   sort_scatter(key, v)   out[p[j]] = v[j], the inverse permutation
//   arg_sort(key)          p + 1: the 1-based positions in sorted order (sort_indices_*)
//
// Each of sort_gather and sort_scatter is the other's adjoint in v, so both are differentiable to
// any order; the key gets no adjoint (the order does not change under a small enough
// perturbation of distinct values), and arg_sort none at all. Keys and values are vectors of
// one length.
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi {

class Graph;

namespace sort_ops {

enum class Order { Ascending = 0, Descending = 1 };

[[nodiscard]] NodeId sort_gather(Graph& g, NodeId key, NodeId v, Order order);
[[nodiscard]] NodeId sort_scatter(Graph& g, NodeId key, NodeId v, Order order);
[[nodiscard]] NodeId arg_sort(Graph& g, NodeId key, Order order);

Shape permute_shape(const Graph& g, const Node& n);
Shape arg_sort_shape(const Graph& g, const Node& n);
void gather_kernel(const KernelArgs& a);
void scatter_kernel(const KernelArgs& a);
void arg_sort_kernel(const KernelArgs& a);
void adj_gather(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
void adj_scatter(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace sort_ops
}  // namespace advi
