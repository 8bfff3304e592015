// Vector constants in graphs (per-element bounds, affine offsets, log-Jacobian weights): a
// Node holds one double, so a ConstVector leaf names its values by an index into a
// process-wide, append-only table of interned vectors.
#pragma once

#include <span>

#include <advi/graph/graph.hpp>

namespace advi {

// A node of shape `shape` holding `values` (column-major): a Const when they are all equal
// (so that the simplifier folds it), else a ConstVector leaf. Values must number shape.size().
[[nodiscard]] NodeId constant_vector(Graph& g, std::span<const double> values, Shape shape);

// The values of a ConstVector node's index.
[[nodiscard]] std::span<const double> constant_vector_values(std::int64_t index);

// Op table entries of ConstVector.
Shape const_vector_shape(const Graph& g, const Node& n);
void const_vector_kernel(const KernelArgs& a);

}  // namespace advi
