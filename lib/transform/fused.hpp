// Fused transform ops: a constrain map computed by one kernel, whose adjoint rule is a second
// op, its vector-Jacobian product; both generated from one struct of numeric kernels.
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <string_view>

#include <advi/graph/graph.hpp>

namespace advi::fused {

// The shape rules' checks (ShapeError naming the op, the expected and the actual shapes).
void check_input(const Graph& g, const Node& n, std::string_view op, std::string_view needs,
                 const std::optional<Shape>& expected, Shape out);
void check_vjp(const Graph& g, const Node& n, std::string_view op, std::string_view needs,
               const std::optional<Shape>& expected);

// M provides:
//   name, needs (the output shapes it supports, for messages), op and vjp_op;
//   input_shape(Shape out) -> std::optional<Shape>: the input shape for an output shape, or
//     nothing when the output shape is not supported;
//   constrain(const double* in, int rows, int cols, double* out): out (rows x cols) = f(in);
//   vjp(const double* in, const double* g, int rows, int cols, double* din): din = J' g.
//   optionally output_shape(Shape in) -> Shape; else the constrain node's shape is the output
//     shape, set by the builder (build()).
//   optionally `static constexpr bool rowwise = true`: the op maps vectors, a vec[K] as one
//     and a mat[U,K] as U rows at once (Stan's array[U] of them); the kernels then take
//     (rows, cols) = (U, K), U = 1 for a vector, element k of row u at u + k U. The kind of
//     the node's shape tells the two apart (a mat[U,1] is U vectors of length 1).
template <class M>
struct Op1 {
    static constexpr bool kRowwise = requires { M::rowwise; };
    // The (rows, cols) the kernels see for rows x cols values of a matrix (or not).
    static std::array<int, 2> dims(bool matrix, int rows, int cols) {
        if constexpr (kRowwise) {
            if (!matrix) return {1, rows * cols};
        }
        return {rows, cols};
    }
    static bool is_matrix(const Node* node) { return node != nullptr && node->shape.is_matrix(); }
    static Shape shape(const Graph& g, const Node& n) {
        // An op whose output shape follows from its input (M::output_shape) needs no proto
        // shape, so that Graph::apply builds it.
        Shape out = n.shape;
        if constexpr (requires { M::output_shape(Shape{}); }) out = M::output_shape(g[n.in[0]].shape);
        check_input(g, n, M::name, M::needs, M::input_shape(out), out);
        return out;
    }
    static void kernel(const KernelArgs& a) {
        const auto [rows, cols] = dims(is_matrix(a.node), a.out_rows, a.out_cols);
        M::constrain(a.in[0].x, rows, cols, a.out);
    }
    // d(out) = J d(in): the input's adjoint is J' applied to the output's, one op.
    static void adjoint(Graph& g, NodeId self, NodeId adj, std::array<NodeId, 3>& c) {
        c[0] = g.apply(M::vjp_op, g[self].in[0], adj);
    }
    static Shape vjp_shape(const Graph& g, const Node& n) {
        check_vjp(g, n, M::name, M::needs, M::input_shape(g[n.in[1]].shape));
        return g[n.in[0]].shape;
    }
    static void vjp_kernel(const KernelArgs& a) {
        // The vjp node has the input's shape, of the same kind as the output's.
        const auto [rows, cols] = dims(is_matrix(a.node), a.in[1].rows, a.in[1].cols);
        M::vjp(a.in[0].x, a.in[1].x, rows, cols, a.out);
    }
    static NodeId build(Graph& g, NodeId in, Shape out) {
        Node n;
        n.op = M::op;
        n.shape = out;
        n.in = {in, kNoNode, kNoNode};
        return g.intern(n);
    }
};

// Scalar helpers of the kernels, stable in both tails.
inline double inv_logit(double x) {
    if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}
inline double log1p_exp(double x) {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
inline double log_inv_logit(double x) { return -log1p_exp(-x); }

}  // namespace advi::fused
