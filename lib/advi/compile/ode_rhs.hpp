// An ODE right-hand side compiled from a graph (graph/ops_ode.hpp's OdeRhs): two programs of
// their own, one for f and one for f with its Jacobian, whose symbolic derivative is built here
// by the same reverse pass as the model's gradient, one pass per state.
#pragma once

#include <memory>
#include <vector>

#include <advi/graph/graph.hpp>
#include <advi/graph/ops_ode.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// `g` reads its inputs from Zeta leaves: t at offset 0, y at 1..n, the differentiated inputs p
// at n+1..n+p; Data leaves read `data`. `f` is a node of g, vec[n]. `keep_alive` holds whatever
// the data slots point into (the model the graph was built in).
[[nodiscard]] std::shared_ptr<const OdeRhs> compile_ode_rhs(const Graph& g, NodeId f,
                                                            std::vector<DataSlot> data, int n,
                                                            int p,
                                                            std::shared_ptr<const void> keep_alive);

}  // namespace advi
