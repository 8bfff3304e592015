// Aliases: contiguous slices and reshapes read their source's buffer at an offset.
#include <advi/compile/aliases.hpp>

#include <fmt/format.h>

namespace advi {

Aliases find_aliases(const Graph& g) {
    const int n = g.size();
    Aliases a;
    a.graph = &g;
    a.live = live_nodes(g);
    a.alias.assign(n, false);
    a.source.resize(n);
    a.start.assign(n, 0);
    for (NodeId id = 0; id < n; ++id) {
        a.source[id] = id;
        const Node& node = g[id];
        const AliasRule rule = op_info(node.op).alias;
        if (!a.live[id] || node.arity() == 0 || rule == nullptr)
            continue;
        const std::int64_t s = rule(g, node);
        if (s < 0)
            continue;
        a.alias[id] = true;
        a.source[id] = a.source[node.in[0]];
        a.start[id] = a.start[node.in[0]] + s;
    }
    return a;
}

std::string Aliases::str() const {
    const Graph& g = *graph;
    std::string s;
    for (NodeId id = 0; id < g.size(); ++id) {
        if (alias[id]) {
            s += fmt::format("  %{} {} = %{} +{}\n", id, g[id].shape.str(), source[id], start[id]);
        }
    }
    return s.empty() ? "  (none)\n" : s;
}

}  // namespace advi
