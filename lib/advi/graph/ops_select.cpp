#include <advi/graph/ops_select.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi::select_ops {

Shape select_shape(const Graph& g, const Node& n) {
    Shape out = Shape::scalar();
    for (int k = 0; k < 3; ++k) {
        const Shape& s = g[n.in[k]].shape;
        if (s.is_scalar())
            continue;
        if (!out.is_scalar() && s != out) {
            throw ShapeError(fmt::format("select: inputs of shapes {} and {}", out.str(), s.str()));
        }
        out = s;
    }
    return out;
}

void select_kernel(const KernelArgs& a) {
    const int n = a.out_size();
    auto at = [](const View& v, int i) {
        const int k = v.size() == 1 ? 0 : i;
        return v.x != nullptr ? v.x[k] : static_cast<double>(v.i[k]);
    };
    for (int i = 0; i < n; ++i) a.out[i] = at(a.in[0], i) != 0.0 ? at(a.in[1], i) : at(a.in[2], i);
}

void adj_select(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const NodeId cond = g[y].in[0];
    const NodeId zero = g.constant(0.0);
    c[1] = g.apply(Op::Select, cond, adj, zero);
    c[2] = g.apply(Op::Select, cond, zero, adj);
}

}  // namespace advi::select_ops
