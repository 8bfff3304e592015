#include <advi/graph/ops_scan.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi::scan_ops {

namespace {

void require_vector(const Graph& g, const Node& n, int k, bool scalar_ok) {
    const Shape& s = g[n.in[k]].shape;
    if (g[n.in[k]].dtype != DType::Real || s.cols != 1 || (!scalar_ok && s.is_scalar())) {
        throw ShapeError(fmt::format("{}: input {} must be a real vector{}, got {}", op_name(n.op),
                                     k, scalar_ok ? " or scalar" : "", s.str()));
    }
}

}  // namespace

Shape linear_scan_shape(const Graph& g, const Node& n) {
    require_vector(g, n, 0, true);
    require_vector(g, n, 1, false);
    const Shape& b = g[n.in[1]].shape;
    const Shape& a = g[n.in[0]].shape;
    if (!a.is_scalar() && a != b) {
        throw ShapeError(fmt::format("linear_scan: a is {} but b is {}", a.str(), b.str()));
    }
    if (!g[n.in[2]].shape.is_scalar())
        throw ShapeError("linear_scan: x0 must be a scalar");
    return b;
}

Shape linear_scan_reverse_shape(const Graph& g, const Node& n) {
    require_vector(g, n, 0, true);
    require_vector(g, n, 1, false);
    return g[n.in[1]].shape;
}

void linear_scan_kernel(const KernelArgs& k) {
    const int T = k.out_size();
    const double* a = k.in[0].x;
    const bool scalar_a = k.in[0].size() == 1;
    const double* b = k.in[1].x;
    double x = k.in[2].x[0];
    for (int t = 0; t < T; ++t) k.out[t] = x = a[scalar_a ? 0 : t] * x + b[t];
}

void linear_scan_reverse_kernel(const KernelArgs& k) {
    const int T = k.out_size();
    const double* a = k.in[0].x;
    const bool scalar_a = k.in[0].size() == 1;
    const double* g = k.in[1].x;
    double lambda = 0.0;
    for (int t = T - 1; t >= 0; --t) {
        const double next = t + 1 < T ? a[scalar_a ? 0 : t + 1] * lambda : 0.0;
        k.out[t] = lambda = g[t] + next;
    }
}

// y = scan(a, b, x0), G = dL/dy: lambda = reverse scan of G; dL/db = lambda;
// dL/da[t] = lambda[t] x[t-1]; dL/dx0 = a[0] lambda[0].
void adj_linear_scan(Graph& g, NodeId y, NodeId G, std::array<NodeId, 3>& c) {
    const NodeId a = g[y].in[0], x0 = g[y].in[2];
    const int T = g[y].shape.rows;
    const NodeId lambda = g.apply(Op::LinearScanReverse, a, G);
    c[1] = lambda;
    NodeId x_prev = linalg::reshape(g, x0, Shape::vector(1));
    if (T > 1) {
        x_prev = g.apply(Op::AppendRow, x_prev, linalg::block(g, y, 0, 0, Shape::vector(T - 1)));
    }
    const NodeId da = g.apply(Op::Mul, lambda, x_prev);
    c[0] = g[a].shape.is_scalar() ? g.apply(Op::Sum, da) : da;
    const NodeId lambda0 =
        linalg::reshape(g, linalg::block(g, lambda, 0, 0, Shape::vector(1)), Shape::scalar());
    const NodeId a0 =
        g[a].shape.is_scalar()
            ? a
            : linalg::reshape(g, linalg::block(g, a, 0, 0, Shape::vector(1)), Shape::scalar());
    c[2] = g.apply(Op::Mul, a0, lambda0);
}

// lambda = scan_reverse(a, G): lambda[t] = G[t] + a[t+1] lambda[t+1], H = dL/dlambda.
// lambda is linear in G, lambda = R G with R upper triangular, R[t][s] = a[t+1] ... a[s]; so
// G_bar = R' H, mu[s] = sum_{t<=s} a[t+1] ... a[s] H[t], the forward scan
// mu[s] = a[s] mu[s-1] + H[s] from mu[-1] = 0. mu[t] is also the whole adjoint of lambda[t]
// (lambda[t] reaches lambda[t-1] with weight a[t]), and a[t+1] enters only lambda[t], with
// weight lambda[t+1]: a_bar[t+1] = mu[t] lambda[t+1], a_bar[0] = 0 (a[0] is never read).
void adj_linear_scan_reverse(Graph& g, NodeId y, NodeId H, std::array<NodeId, 3>& c) {
    const NodeId a = g[y].in[0];
    const int T = g[y].shape.rows;
    const NodeId mu = g.apply(Op::LinearScan, a, H, g.constant(0.0));
    c[1] = mu;
    if (!g.is_variable(a))
        return;
    NodeId mu_prev = g.constant(0.0, Shape::vector(1));
    if (T > 1) {
        mu_prev = g.apply(Op::AppendRow, mu_prev, linalg::block(g, mu, 0, 0, Shape::vector(T - 1)));
    }
    const NodeId da = g.apply(Op::Mul, mu_prev, y);
    c[0] = g[a].shape.is_scalar() ? g.apply(Op::Sum, da) : da;
}

}  // namespace advi::scan_ops
