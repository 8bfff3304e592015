// Symbolic reverse mode over the graph.
#include <advi/diff/reverse.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {
namespace {

// Which nodes depend on a Zeta leaf that `wrt` accepts (all of them without a filter: then
// this is Graph::is_variable, Param leaves included).
std::vector<bool> depends_on(const Graph& g, const ZetaFilter& wrt) {
    const int n = g.size();
    std::vector<bool> dep(n, false);
    for (NodeId id = 0; id < n; ++id) {
        const Node& node = g[id];
        if (!wrt) {
            dep[id] = g.is_variable(id);
        } else if (node.op == Op::Zeta) {
            dep[id] = wrt(node);
        } else {
            for (int k = 0; k < node.arity(); ++k) dep[id] = dep[id] || dep[node.in[k]];
        }
    }
    return dep;
}

}  // namespace

Adjoints reverse_pass(const Graph& g, NodeId root, const ZetaFilter& wrt) {
    if (!g[root].shape.is_scalar())
        throw InternalError(fmt::format("differentiate: node %{} is not a scalar", root));
    const std::vector<bool> variable = depends_on(g, wrt);
    Adjoints r{g, std::vector<NodeId>(g.size(), kNoNode)};
    Graph& out = r.graph;
    std::vector<NodeId>& adj = r.adj;
    adj[root] = out.constant(1.0);
    for (NodeId id = root; id >= 0; --id) {
        if (adj[id] == kNoNode || !variable[id])
            continue;
        const Node node = g[id];
        if (node.arity() == 0)
            continue;
        const OpInfo& info = op_info(node.op);
        if (info.adjoint == nullptr) {
            const std::string_view why = no_derivative_reason(node.op);
            throw ModelError(fmt::format(
                "cannot differentiate through `{}`: it has no derivative "
                "rule{}",
                info.name,
                why.empty() ? ", and a parameter flows into it" : fmt::format(" ({})", why)));
        }
        std::array<NodeId, 3> contrib{kNoNode, kNoNode, kNoNode};
        info.adjoint(out, id, adj[id], contrib);
        for (int k = 0; k < node.arity(); ++k) {
            const NodeId input = node.in[k];
            NodeId c = contrib[k];
            if (c == kNoNode || !variable[input])
                continue;
            if (out[c].shape != g[input].shape) {
                // The input was a scalar broadcast against a larger operand: its adjoint
                // is the sum over the broadcast.
                if (!g[input].shape.is_scalar()) {
                    throw InternalError(fmt::format("adjoint of {} has shape {}, input has {}",
                                                    info.name, out[c].shape.str(),
                                                    g[input].shape.str()));
                }
                c = out.apply(Op::Sum, c);
            }
            adj[input] = adj[input] == kNoNode ? c : out.apply(Op::Add, adj[input], c);
        }
    }
    return r;
}

Graph differentiate(const Graph& g, std::string_view of) {
    auto root = g.output(of);
    if (!root)
        throw InternalError(fmt::format("differentiate: the graph has no output `{}`", of));
    if (!g[*root].shape.is_scalar()) {
        throw InternalError(fmt::format("differentiate: output `{}` is not a scalar", of));
    }
    Adjoints r = reverse_pass(g, *root);
    Graph& out = r.graph;
    for (NodeId id = 0; id < g.size(); ++id) {
        if (g[id].op != Op::Zeta)
            continue;
        const NodeId grad = r.adj[id] != kNoNode ? r.adj[id] : out.constant(0.0, g[id].shape);
        const std::string& label = g.label(id);
        out.set_output(label.empty() ? fmt::format("grad zeta[{}]", g[id].index) : "grad " + label,
                       grad, static_cast<int>(g[id].index));
    }
    return std::move(out);
}

}  // namespace advi
