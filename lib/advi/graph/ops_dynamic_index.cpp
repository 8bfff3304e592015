#include <advi/graph/ops_dynamic_index.hpp>

#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi::dyn_index {
namespace {

// The shift of the positions for runtime index i, or -1 where i is outside 1..extent (or not
// a whole number: NaN from a failed computation).
std::int64_t shift(const KernelArgs& a) {
    const double i = a.in[2].x[0];
    const std::int64_t extent = a.node->aux;
    if (!(i >= 1 && i <= static_cast<double>(extent)) || i != std::floor(i))
        return -1;
    return a.node->index * (static_cast<std::int64_t>(i) - 1);
}

void check_inputs(const Graph& g, const Node& n, std::string_view what) {
    const Node& idx = g[n.in[1]];
    const Node& i = g[n.in[2]];
    if (idx.dtype != DType::Int)
        throw ShapeError(fmt::format("{}: the positions must be integer data", what));
    if (!i.shape.is_scalar() || i.dtype != DType::Real)
        throw ShapeError(fmt::format("{}: the runtime index must be a real scalar", what));
    if (n.index < 0 || n.aux < 0)
        throw ShapeError(fmt::format("{}: negative stride or extent", what));
}

Node make(Op op, NodeId v, NodeId idx, NodeId i, int stride, int extent, double fill) {
    Node n;
    n.op = op;
    n.in = {v, idx, i};
    n.index = stride;
    n.aux = extent;
    n.value = fill;
    return n;
}

}  // namespace

NodeId gather(Graph& g, NodeId x, NodeId idx, NodeId i, int stride, int extent, double fill) {
    return g.intern(make(Op::DynGather, x, idx, i, stride, extent, fill));
}

NodeId scatter(Graph& g, NodeId v, NodeId idx, NodeId i, int stride, int extent, double fill,
               Shape shape) {
    Node n = make(Op::DynScatter, v, idx, i, stride, extent, fill);
    n.shape = shape;
    return g.intern(n);
}

Shape gather_shape(const Graph& g, const Node& n) {
    check_inputs(g, n, "dyn_gather");
    if (g[n.in[0]].dtype != DType::Real)
        throw ShapeError("dyn_gather: the values must be reals");
    return g[n.in[1]].shape;
}

Shape scatter_shape(const Graph& g, const Node& n) {
    check_inputs(g, n, "dyn_scatter");
    if (g[n.in[0]].shape.size() != g[n.in[1]].shape.size())
        throw ShapeError("dyn_scatter: the values and the positions must have one length");
    return n.shape;
}

void gather_kernel(const KernelArgs& a) {
    const int m = a.out_size();
    const int n = a.in[0].size();
    const std::int64_t s = shift(a);
    for (int k = 0; k < m; ++k) {
        const std::int64_t j = s < 0 ? -1 : a.in[1].i[k] + s;
        a.out[k] = j >= 0 && j < n ? a.in[0].x[j] : a.node->value;
    }
}

void scatter_kernel(const KernelArgs& a) {
    const int n = a.out_size();
    const int m = a.in[0].size();
    const std::int64_t s = shift(a);
    for (int k = 0; k < n; ++k) a.out[k] = s < 0 ? a.node->value : 0.0;
    if (s < 0)
        return;
    for (int k = 0; k < m; ++k) {
        const std::int64_t j = a.in[1].i[k] + s;
        if (j >= 0 && j < n)
            a.out[j] += a.in[0].x[k];
    }
}

// out = x[p(i)]: dx = scatter of the adjoint to p(i) (nothing where i is out of range)
void adj_gather(Graph& gr, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const Node& n = gr[y];
    const NodeId x = n.in[0], idx = n.in[1], i = n.in[2];
    const auto stride = static_cast<int>(n.index), extent = static_cast<int>(n.aux);
    if (gr.is_variable(x))
        c[0] = scatter(gr, adj, idx, i, stride, extent, 0.0, gr[x].shape);
}
// out = v placed at p(i): dv = the adjoint read at p(i) (0 where i is out of range)
void adj_scatter(Graph& gr, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const Node& n = gr[y];
    const NodeId v = n.in[0], idx = n.in[1], i = n.in[2];
    const auto stride = static_cast<int>(n.index), extent = static_cast<int>(n.aux);
    if (gr.is_variable(v))
        c[0] = gather(gr, adj, idx, i, stride, extent, 0.0);
}

}  // namespace advi::dyn_index
