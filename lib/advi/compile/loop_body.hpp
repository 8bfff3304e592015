// A loop op's body compiled from a graph (graph/ops_loop.hpp's LoopBody): a program for the next
// state and one for the body's vector-Jacobian product, whose symbolic derivative is built here
// by the same reverse pass as the model's gradient (one pass, of g . next).
#pragma once

#include <memory>
#include <vector>

#include <advi/graph/graph.hpp>
#include <advi/graph/ops_loop.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// `g` reads its inputs from Zeta leaves: the iteration t at offset 0, the state s at 1..S, the
// loop-invariant inputs p at S+1..S+P, the iteration's slice x at S+P+1..S+P+X; Data leaves
// read `data`. `next` is a node of g, vec[S + E]: the next state, then the emission. `keep_alive`
// holds whatever the data slots point into (the model the graph was built in).
struct LoopBodySizes {
    int states = 0;
    int parameters = 0;
    int slice = 0;
    int emissions = 0;
};
[[nodiscard]] std::shared_ptr<const LoopBody> compile_loop_body(
    const Graph& g, NodeId next, std::vector<DataSlot> data, LoopBodySizes sizes,
    std::shared_ptr<const void> keep_alive);

}  // namespace advi
