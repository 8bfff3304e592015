// One copy of each long repeat per reader (repeats.hpp).
#include <advi/compile/repeats.hpp>

namespace advi {
namespace {

// A long repeat of a computed value, or a whole-size reshape of one.
bool long_repeat(const Graph& g, NodeId id) {
    const Node& n = g[id];
    if (!g.is_variable(id))
        return false;  // once per data: computed once anyway
    if (n.op == Op::Reshape)
        return long_repeat(g, n.in[0]);
    return (n.op == Op::RepRows || n.op == Op::RepCols) && n.shape.rows >= kMinRepeatRun;
}

}  // namespace

Graph repeats_per_reader(const Graph& g) {
    const int n = g.size();
    const std::vector<bool> live = live_nodes(g);
    std::vector<int> readers(n, 0);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id])
            continue;
        const Node& node = g[id];
        for (int k = 0; k < node.arity(); ++k) {
            // A node reading the same input twice is one reader (one copy serves both).
            bool seen = false;
            for (int j = 0; j < k; ++j) seen = seen || node.in[j] == node.in[k];
            if (!seen)
                ++readers[node.in[k]];
        }
    }
    for (const auto& o : g.outputs()) ++readers[o.id];
    bool shared = false;
    for (NodeId id = 0; id < n && !shared; ++id)
        shared = live[id] && readers[id] > 1 && long_repeat(g, id);
    if (!shared)
        return g;

    // Rebuilt (the pass skeleton: live nodes in order, inputs remapped); a shared repeat's
    // first reader (and the outputs) reads the original, every other reader a copy of its
    // own, numbered by `aux` (1, 2, ... over the whole graph) so that interning keeps the
    // copies apart. A reshape of a repeat is copied with it.
    std::vector<bool> taken(n, false);  // the original has its reader
    int next_copy = 0;
    auto copy_of = [](auto&& self, Graph& out, NodeId original, int copy) -> NodeId {
        Node node = out[original];  // a copy: interning below may move the nodes
        if (node.op == Op::Reshape)
            node.in[0] = self(self, out, node.in[0], copy);
        else
            node.aux = copy;
        return out.intern(node);
    };
    Graph out = rebuild(g, [&](Graph& o, const Node& remapped, NodeId id) {
        Node node = remapped;
        for (int k = 0; k < node.arity(); ++k) {
            const NodeId in = g[id].in[k];
            int same = -1;  // an earlier slot of this reader that reads it: the same node
            for (int j = 0; j < k && same < 0; ++j) same = g[id].in[j] == in ? j : -1;
            if (same >= 0) {
                node.in[k] = node.in[same];
                continue;
            }
            if (readers[in] < 2 || !long_repeat(g, in))
                continue;
            if (taken[in])
                node.in[k] = copy_of(copy_of, o, remapped.in[k], ++next_copy);
            taken[in] = true;
        }
        return o.intern(node);
    });
    return out;
}

}  // namespace advi
