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

}  // namespace advi
