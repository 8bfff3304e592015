// Symbolic reverse mode, once per model: walk the nodes in reverse topological order from
// the log density, apply each op's adjoint rule, accumulate with `add`.
#pragma once

#include <functional>
#include <vector>

#include <advi/graph/graph.hpp>

namespace advi {

// The graph extended with the gradient of its scalar output `of` with respect to every
// Zeta leaf: one output "grad" per leaf, placed at the leaf's offset into zeta. The
// result is not simplified (see simplify()).
[[nodiscard]] Graph differentiate(const Graph& g, std::string_view of = "lp");

// The reverse pass itself, for callers that place the adjoints themselves (the Hessian-vector
// graph, diff/hessian_vector.hpp): `graph` is g extended with the adjoint nodes, `adj[id]` the
// adjoint of g's node id with respect to the scalar node `root` (kNoNode: zero). Only Zeta
// leaves that `wrt` accepts are variables: a node that depends on no such leaf gets no
// adjoint and passes none on, however many other Zeta leaves it reads.
struct Adjoints {
    Graph graph;
    std::vector<NodeId> adj;
};
using ZetaFilter = std::function<bool(const Node& zeta_leaf)>;
[[nodiscard]] Adjoints reverse_pass(const Graph& g, NodeId root, const ZetaFilter& wrt = {});

}  // namespace advi
