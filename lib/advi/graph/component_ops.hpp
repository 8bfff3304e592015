// Ops whose kernel computes a value with its gradient and Hessian in all of the op's inputs at
// once (on second-order dual numbers, dual2.hpp) and hands out one component per node: the
// value (attribute `index` 0), the derivative in input i (`index` 1 + i), or, in the op's
// separate Hessian op, the entry `index` of the Hessian's upper triangle, row by row. `aux` is
// the op's own variant (a tail). The value's adjoint multiplies by the gradient's nodes; a
// gradient component's adjoint by the Hessian's row; the Hessian op is the end of the chain
// (op_table.cpp's kThirdOrder). The regularised incomplete gamma and beta functions
// (ops_incomplete.hpp) and the Wiener first-passage CDF (ops_wiener_cdf.hpp) are such ops.
#pragma once

#include <algorithm>
#include <array>

#include <advi/graph/adjoint_terms.hpp>
#include <advi/graph/dual2.hpp>
#include <advi/graph/graph.hpp>

namespace advi::component_ops {

// Input i of element `element`: scalars broadcast.
inline double at(const View& v, int element) {
    const int k = v.size() == 1 ? 0 : element;
    return v.x != nullptr ? v.x[k] : static_cast<double>(v.i[k]);
}

inline NodeId make(Graph& g, Op op, std::array<NodeId, 3> in, int component, int aux) {
    Node n;
    n.op = op;
    n.in = in;
    n.index = component;
    n.aux = aux;
    return g.intern(n);
}

// The shape of the inputs that are not scalars (all the same), or a scalar; a ShapeError
// otherwise.
Shape broadcast_shape(const Graph& g, const Node& n);

// The adjoint rule of the value-and-gradient op of N inputs whose Hessian op is `hessian`.
template <int N>
void adjoint(Graph& gr, NodeId y, NodeId adj, std::array<NodeId, 3>& c, Op hessian) {
    const Node n = gr[y];  // a copy: interning below may move the node
    const std::array<NodeId, 3> in = n.in;
    const int component = static_cast<int>(n.index);
    const int aux = static_cast<int>(n.aux);
    for (int j = 0; j < N; ++j) {
        if (!gr.is_variable(in[j]))
            continue;
        const NodeId partial =
            component == 0
                ? make(gr, n.op, in, 1 + j, aux)
                : make(gr, hessian, in,
                       Dual2<N>::at(std::min(component - 1, j), std::max(component - 1, j)), aux);
        c[j] = adjoint_terms::mul(gr, adj, partial);
    }
}

// Component `index` (offset by `offset`: 0 for the value-and-gradient op, 1 + N for the
// Hessian op) of f(element inputs..., aux) for each element.
template <int N, class F>
void kernel(const KernelArgs& a, int offset, F f) {
    const auto k = static_cast<std::size_t>(a.node->index + offset);
    const int aux = static_cast<int>(a.node->aux);
    for (int i = 0; i < a.out_size(); ++i) {
        std::array<double, N> x{};
        for (int j = 0; j < N; ++j) x[j] = at(a.in[j], i);
        a.out[i] = f(x, aux)[k];
    }
}

}  // namespace advi::component_ops
