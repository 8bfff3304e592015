// Simplification: constant folding, algebraic identities (x*1, x+0, x*0, --x, ...),
// broadcast elimination, and dead-node removal; interning merges what becomes equal.
#pragma once

#include <advi/graph/graph.hpp>

namespace advi {

[[nodiscard]] Graph simplify(const Graph& g);

}  // namespace advi
