// The fused constrain ops of the structured supports (simplex, ordered, Cholesky factors):
// a constrain map computed by one kernel, whose adjoint rule is a second op, its
// vector-Jacobian product; both generated (Op1) from one struct of numeric kernels. The
// transforms that use them (lib/advi/transform/) add the log-Jacobians and numeric T.
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
// Input k (a direction in the input space) must have input 0's shape.
void check_tangent(const Graph& g, const Node& n, int k, std::string_view op);

// A number and its derivative along one direction, for the second-order kernels.
struct Dual {
    double v = 0;
    double d = 0;
    Dual(double value = 0, double tangent = 0) : v(value), d(tangent) {}  // NOLINT: implicit
};
// The directional derivatives of a constrain map (jvp) and of its vector-Jacobian product in
// the point (hvp), through their kernels run on dual numbers held in the scratch.
void jvp_by_duals(void (*constrain)(const Dual*, int, int, Dual*), const double* x, const double* h,
                  int n, int rows, int cols, double* out, double* scratch);
void hvp_by_duals(void (*vjp)(const Dual*, const Dual*, int, int, Dual*), const double* x,
                  const double* u, const double* h, int n, int rows, int cols, double* out,
                  double* scratch);

// M provides:
//   name, needs (the output shapes it supports, for messages), op and vjp_op;
//   input_shape(Shape out) -> std::optional<Shape>: the input shape for an output shape, or
//     nothing when the output shape is not supported;
//   constrain(const double* in, int rows, int cols, double* out): out (rows x cols) = f(in);
//   vjp(const double* in, const double* g, int rows, int cols, double* din): din = J' g.
//   jvp_op, hvp_op and, for the second order (n: the input's size; scratch: jvp_scratch and
//   hvp_scratch doubles):
//   jvp(in, h, n, rows, cols, out, scratch): out = J h, the directional derivative of f;
//   hvp(in, u, h, n, rows, cols, out, scratch): out = sum_o u_o (d^2 f_o / d in^2) h, the
//     directional derivative of vjp(in, u) in `in` along h.
//   ops_constrain.cpp writes constrain and vjp once over a scalar type and gets jvp and hvp by
//   running them on dual numbers.
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
            if (!matrix)
                return {1, rows * cols};
        }
        return {rows, cols};
    }
    static bool is_matrix(const Node* node) { return node != nullptr && node->shape.is_matrix(); }
    static Shape shape(const Graph& g, const Node& n) {
        // An op whose output shape follows from its input (M::output_shape) needs no proto
        // shape, so that Graph::apply builds it.
        Shape out = n.shape;
        if constexpr (requires { M::output_shape(Shape{}); })
            out = M::output_shape(g[n.in[0]].shape);
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
    // Second order. vjp(x, u) = J(x)' u is linear in u and, with H the adjoint of its value,
    //   <H, J(x)' du> = <J(x) H, du>:  u_bar = J(x) H, the jvp op;
    //   d<H, J(x)' u>/dx = sum_o u_o Hess(f_o)(x) H:  x_bar, the hvp op.
    static void vjp_adjoint(Graph& g, NodeId self, NodeId adj, std::array<NodeId, 3>& c) {
        const NodeId x = g[self].in[0];
        const NodeId u = g[self].in[1];
        if (g.is_variable(u))
            c[1] = build_jvp(g, x, adj, g[u].shape);
        if (g.is_variable(x))
            c[0] = g.apply(M::hvp_op, x, u, adj);
    }
    // jvp(x, h) = J(x) h with adjoint K: <K, J(x) dh> = <J(x)' K, dh>, so h_bar = vjp(x, K);
    // d<K, J(x) h>/dx = sum_o K_o Hess(f_o)(x) h, so x_bar = hvp(x, K, h). The rules close:
    // only the hvp op has none (it is the third derivative, which a Hessian-vector product,
    // the second differentiation, never differentiates).
    static void jvp_adjoint(Graph& g, NodeId self, NodeId adj, std::array<NodeId, 3>& c) {
        const NodeId x = g[self].in[0];
        const NodeId h = g[self].in[1];
        if (g.is_variable(h))
            c[1] = g.apply(M::vjp_op, x, adj);
        if (g.is_variable(x))
            c[0] = g.apply(M::hvp_op, x, adj, h);
    }
    static Shape jvp_shape(const Graph& g, const Node& n) {
        const Shape out = shape(g, n);
        check_tangent(g, n, 1, M::name);
        return out;
    }
    static Shape hvp_shape(const Graph& g, const Node& n) {
        const Shape in = vjp_shape(g, n);
        check_tangent(g, n, 2, M::name);
        return in;
    }
    static void jvp_kernel(const KernelArgs& a) {
        const auto [rows, cols] = dims(is_matrix(a.node), a.out_rows, a.out_cols);
        M::jvp(a.in[0].x, a.in[1].x, a.in[0].size(), rows, cols, a.out, a.scratch);
    }
    static void hvp_kernel(const KernelArgs& a) {
        const auto [rows, cols] = dims(is_matrix(a.node), a.in[1].rows, a.in[1].cols);
        M::hvp(a.in[0].x, a.in[1].x, a.in[2].x, a.in[0].size(), rows, cols, a.out, a.scratch);
    }
    // Dual numbers (two doubles) for the input and the output, and for hvp the cotangent.
    static std::int64_t jvp_scratch(const Graph& g, const Node& n) {
        return 2 * (static_cast<std::int64_t>(g[n.in[0]].shape.size()) + n.shape.size());
    }
    static std::int64_t hvp_scratch(const Graph& g, const Node& n) {
        return 2 *
               (2 * static_cast<std::int64_t>(g[n.in[0]].shape.size()) + g[n.in[1]].shape.size());
    }
    // The jvp's value has the constrained shape, which the input does not always determine.
    static NodeId build_jvp(Graph& g, NodeId x, NodeId h, Shape out) {
        Node n;
        n.op = M::jvp_op;
        n.shape = out;
        n.in = {x, h, kNoNode};
        return g.intern(n);
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
    if (x >= 0)
        return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}
inline double log1p_exp(double x) {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
inline double log_inv_logit(double x) {
    return -log1p_exp(-x);
}

}  // namespace advi::fused

namespace advi {

// theta_k = s_k w_k, w_k = logit^-1(zeta_k - log(K - 1 - k)), s_0 = 1, s_{k+1} = s_k (1 - w_k),
// theta_{K-1} = s_{K-1}. The offset log(K - 1 - k) makes zeta = 0 the centre of the simplex.
// Row-wise (Op1): the kernels take (rows, K), zeta of rows x (K - 1), theta rows x K.
struct SimplexKernels {
    static constexpr std::string_view name = "simplex_constrain";
    static constexpr std::string_view needs = "vec[K] or mat[U,K] (U simplexes as rows), K >= 2";
    static constexpr bool rowwise = true;
    static constexpr Op op = Op::SimplexConstrain;
    static constexpr Op vjp_op = Op::SimplexConstrainVjp;
    static constexpr Op jvp_op = Op::SimplexConstrainJvp;
    static constexpr Op hvp_op = Op::SimplexConstrainHvp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* theta);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
    static void jvp(const double* in, const double* h, int n, int rows, int cols, double* out,
                    double* scratch);
    static void hvp(const double* in, const double* u, const double* h, int n, int rows, int cols,
                    double* out, double* scratch);
};

// ordered: theta_0 = zeta_0, theta_k = theta_{k-1} + exp(zeta_k).
// Row-wise (Op1): the kernels take (rows, K), row u's element k at u + k rows.
struct OrderedKernels {
    static constexpr std::string_view name = "ordered_constrain";
    static constexpr std::string_view needs = "vec[K] or mat[U,K] (U vectors as rows), K >= 1";
    static constexpr bool rowwise = true;
    static constexpr Op op = Op::OrderedConstrain;
    static constexpr Op vjp_op = Op::OrderedConstrainVjp;
    static constexpr Op jvp_op = Op::OrderedConstrainJvp;
    static constexpr Op hvp_op = Op::OrderedConstrainHvp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* theta);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
    static void jvp(const double* in, const double* h, int n, int rows, int cols, double* out,
                    double* scratch);
    static void hvp(const double* in, const double* u, const double* h, int n, int rows, int cols,
                    double* out, double* scratch);
};

// positive_ordered: theta_0 = exp(zeta_0), theta_k = theta_{k-1} + exp(zeta_k).
struct PositiveOrderedKernels {
    static constexpr std::string_view name = "positive_ordered_constrain";
    static constexpr std::string_view needs = OrderedKernels::needs;
    static constexpr bool rowwise = true;
    static constexpr Op op = Op::PositiveOrderedConstrain;
    static constexpr Op vjp_op = Op::PositiveOrderedConstrainVjp;
    static constexpr Op jvp_op = Op::PositiveOrderedConstrainJvp;
    static constexpr Op hvp_op = Op::PositiveOrderedConstrainHvp;
    static std::optional<Shape> input_shape(Shape theta) {
        return OrderedKernels::input_shape(theta);
    }
    static void constrain(const double* zeta, int rows, int cols, double* theta);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
    static void jvp(const double* in, const double* h, int n, int rows, int cols, double* out,
                    double* scratch);
    static void hvp(const double* in, const double* u, const double* h, int n, int rows, int cols,
                    double* out, double* scratch);
};

// cholesky_factor_corr (K x K) from K(K-1)/2 coordinates, row i of L from zeta_{i,0..i-1}:
// w = tanh(zeta), L(i,j) = w_j r_j, r_0 = 1, r_{j+1} = r_j sqrt(1 - w_j^2), L(i,i) = r_i
// (each row stick-breaks the unit sphere, so rows have unit norm).
struct CholeskyCorrKernels {
    static constexpr std::string_view name = "cholesky_corr_constrain";
    static constexpr std::string_view needs = "mat[K,K] with K >= 2";
    static constexpr Op op = Op::CholeskyCorrConstrain;
    static constexpr Op vjp_op = Op::CholeskyCorrConstrainVjp;
    static constexpr Op jvp_op = Op::CholeskyCorrConstrainJvp;
    static constexpr Op hvp_op = Op::CholeskyCorrConstrainHvp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* L);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
    static void jvp(const double* in, const double* h, int n, int rows, int cols, double* out,
                    double* scratch);
    static void hvp(const double* in, const double* u, const double* h, int n, int rows, int cols,
                    double* out, double* scratch);
};

// cholesky_factor_cov (M x N, M >= N) from N(N+1)/2 + (M-N)N coordinates: row by row, the
// strict lower part of row m < N then its diagonal exp(zeta), then the rows below N.
struct CholeskyCovKernels {
    static constexpr std::string_view name = "cholesky_cov_constrain";
    static constexpr std::string_view needs = "mat[M,N] with M >= N >= 1";
    static constexpr Op op = Op::CholeskyCovConstrain;
    static constexpr Op vjp_op = Op::CholeskyCovConstrainVjp;
    static constexpr Op jvp_op = Op::CholeskyCovConstrainJvp;
    static constexpr Op hvp_op = Op::CholeskyCovConstrainHvp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* L);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
    static void jvp(const double* in, const double* h, int n, int rows, int cols, double* out,
                    double* scratch);
    static void hvp(const double* in, const double* u, const double* h, int n, int rows, int cols,
                    double* out, double* scratch);
};

// Omega = tril(L) tril(L)' of a square matrix (entries above the diagonal are not read).
struct LowerTriSelfTransposeKernels {
    static constexpr std::string_view name = "lower_tri_self_transpose";
    static constexpr std::string_view needs = "mat[K,K]";
    static constexpr Op op = Op::LowerTriSelfTranspose;
    static constexpr Op vjp_op = Op::LowerTriSelfTransposeVjp;
    static constexpr Op jvp_op = Op::LowerTriSelfTransposeJvp;
    static constexpr Op hvp_op = Op::LowerTriSelfTransposeHvp;
    static std::optional<Shape> input_shape(Shape out);
    static Shape output_shape(Shape in) { return in; }
    static void constrain(const double* L, int rows, int cols, double* out);
    static void vjp(const double* L, const double* g, int rows, int cols, double* dL);
    static void jvp(const double* in, const double* h, int n, int rows, int cols, double* out,
                    double* scratch);
    static void hvp(const double* in, const double* u, const double* h, int n, int rows, int cols,
                    double* out, double* scratch);
};

}  // namespace advi
