// Symbolic reverse mode, once per model: walk the nodes in reverse topological order from
// the log density, apply each op's adjoint rule, accumulate with `add`.
#pragma once

#include <advi/graph/graph.hpp>

namespace advi {

// The graph extended with the gradient of its scalar output `of` with respect to every
// Zeta leaf: one output "grad" per leaf, placed at the leaf's offset into zeta. The
// result is not simplified (see simplify()).
[[nodiscard]] Graph differentiate(const Graph& g, std::string_view of = "lp");

}  // namespace advi
