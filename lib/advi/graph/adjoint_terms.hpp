// The words adjoint rules are written in (op_table.cpp, ops_math.cpp): a node's k-th input, a
// constant, and the arithmetic ops, each interned into the graph being differentiated.
#pragma once

#include <advi/graph/graph.hpp>

namespace advi::adjoint_terms {

inline NodeId in(const Graph& gr, NodeId self, int k) {
    return gr[self].in[k];
}
inline NodeId num(Graph& gr, double v) {
    return gr.constant(v);
}
inline NodeId add(Graph& gr, NodeId a, NodeId b) {
    return gr.apply(Op::Add, a, b);
}
inline NodeId sub(Graph& gr, NodeId a, NodeId b) {
    return gr.apply(Op::Sub, a, b);
}
inline NodeId mul(Graph& gr, NodeId a, NodeId b) {
    return gr.apply(Op::Mul, a, b);
}
inline NodeId div(Graph& gr, NodeId a, NodeId b) {
    return gr.apply(Op::Div, a, b);
}
inline NodeId neg(Graph& gr, NodeId a) {
    return gr.apply(Op::Neg, a);
}

}  // namespace advi::adjoint_terms
