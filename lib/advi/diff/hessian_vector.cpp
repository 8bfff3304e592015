// Reverse over reverse.
#include <advi/diff/hessian_vector.hpp>

#include <map>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/diff/reverse.hpp>

namespace advi {
namespace {

// "grad mu" -> "mu": the name of the latent an output of differentiate() belongs to.
std::string_view latent_of(std::string_view grad_output) {
    constexpr std::string_view prefix = "grad ";
    return grad_output.substr(0, prefix.size()) == prefix ? grad_output.substr(prefix.size())
                                                          : grad_output;
}

}  // namespace

Graph hessian_vector_graph(const Graph& gradient, int dim) {
    if (!gradient.output("lp"))
        throw InternalError("hessian_vector_graph: the gradient graph has no output `lp`");
    for (NodeId id = 0; id < gradient.size(); ++id) {
        const Node& n = gradient[id];
        if (n.op == Op::Zeta && n.index + n.shape.size() > dim) {
            throw InternalError(fmt::format("hessian_vector_graph: zeta slice {}:{} outside {}",
                                            n.index, n.index + n.shape.size(), dim));
        }
    }
    // s = sum over the gradient's outputs of <grad, v>, v read at the output's offset + dim.
    Graph g = gradient;
    std::vector<Graph::Output> grads;
    NodeId s = kNoNode;
    for (const Graph::Output& o : gradient.outputs()) {
        if (o.offset < 0)
            continue;
        grads.push_back(o);
        const Shape shape = gradient[o.id].shape;
        const NodeId v = g.leaf(Op::Zeta, shape, DType::Real, dim + o.offset,
                                fmt::format("v {}", latent_of(o.name)));
        const NodeId term = g.apply(Op::Sum, g.apply(Op::Mul, o.id, v));
        s = s == kNoNode ? term : g.apply(Op::Add, s, term);
    }
    if (s == kNoNode)
        s = g.constant(0.0);
    // Differentiate s by zeta only: the Zeta leaves below dim.
    Adjoints r = reverse_pass(g, s, [dim](const Node& z) { return z.index < dim; });
    Graph& out = r.graph;
    // The H v of each gradient output: the adjoints of the Zeta leaves at its offset and shape
    // (zero where lp does not read that slice of zeta).
    std::map<std::tuple<std::int64_t, int, int>, NodeId> hv_of;  // (offset, rows, cols)
    for (NodeId id = 0; id < g.size(); ++id) {
        const Node& n = g[id];
        if (n.op != Op::Zeta || n.index >= dim || r.adj[id] == kNoNode)
            continue;
        const auto key = std::make_tuple(n.index, n.shape.rows, n.shape.cols);
        const auto it = hv_of.find(key);
        hv_of[key] = it == hv_of.end() ? r.adj[id] : out.apply(Op::Add, it->second, r.adj[id]);
    }
    out.clear_outputs();
    out.set_output("lp", *gradient.output("lp"));
    for (const Graph::Output& o : grads) out.set_output(o.name, o.id, o.offset);
    for (const Graph::Output& o : grads) {
        const Shape shape = gradient[o.id].shape;
        const auto it = hv_of.find({o.offset, shape.rows, shape.cols});
        const NodeId hv = it != hv_of.end() ? it->second : out.constant(0.0, shape);
        if (out[hv].shape != shape) {
            throw InternalError(fmt::format("hessian_vector_graph: H v of `{}` is {}, not {}",
                                            o.name, out[hv].shape.str(), shape.str()));
        }
        out.set_output(fmt::format("hv {}", latent_of(o.name)), hv, dim + o.offset);
    }
    return std::move(out);
}

HessianVectorStages split_hessian_vector(const Graph& hv, int dim, int first_slot) {
    const int n = hv.size();
    // Reads v: a Zeta leaf at or past dim, or a node that reads one.
    std::vector<bool> direction(n, false);
    for (NodeId id = 0; id < n; ++id) {
        const Node& node = hv[id];
        bool d = node.op == Op::Zeta && node.index >= dim;
        for (int k = 0; k < node.arity(); ++k) d = d || direction[node.in[k]];
        direction[id] = d;
    }
    const std::vector<bool> live = live_nodes(hv);
    HessianVectorStages s;
    // The boundary: values of the point stage (variable, not reading v) that the direction
    // stage reads. Values of data alone stay in the direction graph, once per data there.
    std::vector<int> slot(n, -1);
    std::vector<NodeId> boundary;
    auto cross = [&](NodeId x) {
        if (direction[x] || !hv.is_variable(x) || slot[x] >= 0)
            return;
        slot[x] = static_cast<int>(boundary.size());
        boundary.push_back(x);
    };
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id] || !direction[id])
            continue;
        for (int k = 0; k < hv[id].arity(); ++k) cross(hv[id].in[k]);
    }
    for (const Graph::Output& o : hv.outputs()) {
        if (o.offset >= dim)
            cross(o.id);  // an H v that does not read v (a model linear in that coordinate)
    }
    Graph point = hv;
    point.clear_outputs();
    for (const Graph::Output& o : hv.outputs()) {
        if (o.offset < dim)
            point.set_output(o.name, o.id, o.offset);
    }
    for (std::size_t j = 0; j < boundary.size(); ++j) {
        const NodeId x = boundary[j];
        point.set_output(fmt::format("point {}", j), x);  // kept in place, not copied
        s.boundary.push_back(hv[x].shape);
        s.names.push_back(fmt::format("point value %{} ({})", x, op_name(hv[x].op)));
        s.boundary_size += hv[x].shape.size();
    }
    s.point = rebuild(point);

    Graph d;
    std::vector<NodeId> map(n, kNoNode);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id])
            continue;
        if (slot[id] >= 0) {
            map[id] = d.leaf(Op::Data, hv[id].shape, DType::Real, first_slot + slot[id],
                             s.names[static_cast<std::size_t>(slot[id])]);
            continue;
        }
        if (!direction[id] && hv.is_variable(id))
            continue;  // the point stage's alone
        Node node = hv[id];
        for (int k = 0; k < node.arity(); ++k) node.in[k] = map[node.in[k]];
        if (node.arity() == 0 && node.op != Op::Const) {
            map[id] = d.leaf(node.op, node.shape, node.dtype,
                             node.op == Op::Zeta ? node.index - dim : node.index, hv.label(id));
        } else {
            map[id] = d.intern(node);
        }
    }
    for (const Graph::Output& o : hv.outputs()) {
        if (o.offset >= dim)
            d.set_output(o.name, map[o.id], o.offset - dim);
    }
    s.direction = rebuild(d);
    return s;
}

}  // namespace advi
