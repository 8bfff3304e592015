#include <advi/graph/ops_sort.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi::sort_ops {
namespace {

NodeId make(Graph& g, Op op, NodeId key, NodeId v, Order order) {
    Node n;
    n.op = op;
    n.in = {key, v, kNoNode};
    n.index = static_cast<int>(order);
    return g.intern(n);
}

// The 0-based order that sorts the key, stable (ties keep their positions). NaN sorts last
// ascending (and first descending), so that the permutation is always one.
std::vector<int> order_of(const View& key, std::int64_t order) {
    const int n = key.size();
    auto at = [&](int i) { return key.x != nullptr ? key.x[i] : static_cast<double>(key.i[i]); };
    std::vector<int> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    auto less = [&](int a, int b) {
        const double x = at(a), y = at(b);
        if (std::isnan(x) || std::isnan(y))
            return !std::isnan(x) && std::isnan(y);
        return x < y;
    };
    if (order == 0)
        std::stable_sort(p.begin(), p.end(), less);
    else
        std::stable_sort(p.begin(), p.end(), [&](int a, int b) { return less(b, a); });
    return p;
}

void require_vector(const Graph& g, NodeId id, std::string_view op, std::string_view what) {
    if (!g[id].shape.is_vector()) {
        throw ShapeError(
            fmt::format("{}: the {} must be a vector, got {}", op, what, g[id].shape.str()));
    }
}

}  // namespace

NodeId sort_gather(Graph& g, NodeId key, NodeId v, Order order) {
    return make(g, Op::SortGather, key, v, order);
}
NodeId sort_scatter(Graph& g, NodeId key, NodeId v, Order order) {
    return make(g, Op::SortScatter, key, v, order);
}
NodeId arg_sort(Graph& g, NodeId key, Order order) {
    return make(g, Op::ArgSort, key, kNoNode, order);
}

Shape permute_shape(const Graph& g, const Node& n) {
    require_vector(g, n.in[0], op_name(n.op), "key");
    require_vector(g, n.in[1], op_name(n.op), "values");
    if (g[n.in[0]].shape != g[n.in[1]].shape) {
        throw ShapeError(fmt::format("{}: key {} and values {} differ in length", op_name(n.op),
                                     g[n.in[0]].shape.str(), g[n.in[1]].shape.str()));
    }
    if (g[n.in[1]].dtype != DType::Real)
        throw ShapeError(fmt::format("{}: the values must be reals", op_name(n.op)));
    return g[n.in[1]].shape;
}
Shape arg_sort_shape(const Graph& g, const Node& n) {
    require_vector(g, n.in[0], "arg_sort", "key");
    return g[n.in[0]].shape;
}

void gather_kernel(const KernelArgs& a) {
    const std::vector<int> p = order_of(a.in[0], a.node->index);
    for (std::size_t j = 0; j < p.size(); ++j) a.out[j] = a.in[1].x[p[j]];
}
void scatter_kernel(const KernelArgs& a) {
    const std::vector<int> p = order_of(a.in[0], a.node->index);
    for (std::size_t j = 0; j < p.size(); ++j) a.out[p[j]] = a.in[1].x[j];
}
void arg_sort_kernel(const KernelArgs& a) {
    const std::vector<int> p = order_of(a.in[0], a.node->index);
    for (std::size_t j = 0; j < p.size(); ++j) a.out[j] = p[j] + 1.0;
}

void adj_gather(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const Node n = g[y];
    if (g.is_variable(n.in[1]))
        c[1] = sort_scatter(g, n.in[0], adj, static_cast<Order>(n.index));
}
void adj_scatter(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const Node n = g[y];
    if (g.is_variable(n.in[1]))
        c[1] = sort_gather(g, n.in[0], adj, static_cast<Order>(n.index));
}

}  // namespace advi::sort_ops
