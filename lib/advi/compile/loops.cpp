// Fusion of per-run nodes into loops: which nodes a loop computes block by block (members),
// and which roots their trees end in. The op table's `loop` column says how each op takes part.
#include <advi/compile/loops.hpp>

#include <fmt/format.h>

namespace advi {
namespace {

// Whether a step of loop form f reads input k at the block's offset (the others it reads
// whole, or by row blocks).
bool sliced_slot(LoopForm f, int k) {
    switch (f) {
        case LoopForm::Gather:
        case LoopForm::RowsTVec: return k == 1;  // the indices; the block of r
        case LoopForm::RowsMatVec:
        case LoopForm::RepCols:
        case LoopForm::RepRows:
        case LoopForm::TileRows:
        case LoopForm::Fill:
        case LoopForm::Embed: return false;
        case LoopForm::None:
        case LoopForm::Elementwise:
        case LoopForm::Sum:
        case LoopForm::ScatterAdd:
        case LoopForm::RowSums:
        case LoopForm::TileSum:
        case LoopForm::ColSums: break;
    }
    return true;
}

// The questions fusion asks of a node, over the graph and its aliases.
struct Fusion {
    const Graph& g;
    const Aliases& a;

    // The node's loop form where it fits this node (the op table's `loop_fits`), else None.
    [[nodiscard]] LoopForm form(NodeId id) const {
        const Node& node = g[id];
        const LoopFits fits = op_info(node.op).loop_fits;
        const LoopForm f = loop_form(node.op);
        return f != LoopForm::None && fits != nullptr && !fits(g, node) ? LoopForm::None : f;
    }
    // A matrix whose row blocks a loop can read in place: a whole buffer with its rows as the
    // column stride (data, zeta, a computed matrix, or whole columns of one).
    [[nodiscard]] bool rows_operand(NodeId m) const {
        return g[m].shape.cols > 1 && (!a.alias[m] || g[m].shape.rows == g[a.source[m]].shape.rows);
    }
    // Whether a loop can compute the node block by block, as a member or a storing root.
    [[nodiscard]] bool blockwise(NodeId id) const {
        const Node& node = g[id];
        if (!g.is_variable(id) || node.arity() == 0 || a.alias[id] || node.shape.size() < 2)
            return false;
        switch (form(id)) {
            case LoopForm::Elementwise:
            case LoopForm::Gather:
            case LoopForm::RepCols:
            case LoopForm::RepRows:
            case LoopForm::TileRows:
            case LoopForm::Fill:
            case LoopForm::Embed: return true;
            case LoopForm::RowsMatVec: return rows_operand(node.in[0]);
            case LoopForm::None:
            case LoopForm::Sum:
            case LoopForm::ScatterAdd:
            case LoopForm::RowsTVec:
            case LoopForm::RowSums:
            case LoopForm::TileSum:
            case LoopForm::ColSums: break;
        }
        return false;
    }
    // Whether a loop can compute the node by accumulating over its values (a root only).
    [[nodiscard]] bool accumulates(NodeId r) const {
        if (!g.is_variable(r))
            return false;
        switch (form(r)) {
            case LoopForm::Sum:
            case LoopForm::ScatterAdd:
            case LoopForm::RowSums:
            case LoopForm::TileSum:
            case LoopForm::ColSums: return true;
            case LoopForm::RowsTVec: return rows_operand(g[r].in[0]);
            default: return false;
        }
    }
};

}  // namespace

NodeId Loops::values_of(NodeId in) const {
    const Graph& g = *aliases->graph;
    const NodeId src = aliases->source[in];
    return aliases->alias[in] && aliases->start[in] == 0 &&
                   g[src].shape.size() == g[in].shape.size()
               ? src
               : in;
}

int Loops::length(NodeId r) const {
    const Graph& g = *aliases->graph;
    const Node& node = g[r];
    switch (loop_form(node.op)) {
        case LoopForm::RowsTVec: return g[node.in[0]].shape.rows;
        case LoopForm::Sum:
        case LoopForm::ScatterAdd:
        case LoopForm::RowSums:
        case LoopForm::TileSum:
        case LoopForm::ColSums: return g[node.in[0]].shape.size();
        default: return node.shape.size();
    }
}

bool Loops::reads_rows(NodeId m, int k) const {
    const LoopForm f = loop_form((*aliases->graph)[m].op);
    return k == 0 && (f == LoopForm::RowsMatVec || f == LoopForm::RowsTVec);
}

bool Loops::reads_sliced(NodeId m, int k, int len) const {
    const Graph& g = *aliases->graph;
    return g[g[m].in[k]].shape.size() == len && sliced_slot(loop_form(g[m].op), k);
}

Loops fuse_loops(const Aliases& a) {
    const Graph& g = *a.graph;
    const int n = g.size();
    const Fusion f{g, a};
    Loops l;
    l.aliases = &a;

    // A member is a per-run node computed block by block inside its one reader's loop: the
    // reader reads it at the block's offset, as an elementwise op or member of the same size,
    // or as the sum, scatter-add or A' r at the root of the loop.
    // A whole-size reshape is no reader: its readers read its source (values_of).
    std::vector<int> readers(n, 0);
    std::vector<NodeId> reader(n, kNoNode);
    for (NodeId id = 0; id < n; ++id) {
        if (!a.live[id] || l.values_of(id) != id)
            continue;
        for (int k = 0; k < g[id].arity(); ++k) {
            const NodeId in = l.values_of(g[id].in[k]);
            if (reader[in] != id) {
                ++readers[in];
                reader[in] = id;
            }
        }
    }
    std::vector<bool> is_output(n, false);
    for (const auto& o : g.outputs()) is_output[l.values_of(o.id)] = true;
    auto takes = [&](NodeId r, NodeId id) {
        if (!(f.blockwise(r) || f.accumulates(r)) || l.length(r) != g[id].shape.size())
            return false;
        for (int k = 0; k < g[r].arity(); ++k) {
            if (l.values_of(g[r].in[k]) == id && !sliced_slot(loop_form(g[r].op), k))
                return false;
        }
        return true;
    };
    l.member.assign(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (a.live[id] && f.blockwise(id) && !is_output[id] && readers[id] == 1)
            l.member[id] = takes(reader[id], id);
    }
    l.root.assign(n, kNoNode);
    for (NodeId id = n - 1; id >= 0; --id) {
        if (l.member[id])
            l.root[id] = l.member[reader[id]] ? l.root[reader[id]] : reader[id];
    }
    l.members.resize(n);
    for (NodeId id = 0; id < n; ++id) {
        if (l.member[id])
            l.members[l.root[id]].push_back(id);
    }
    // Loop roots: blockwise ops, sums over vectors, scatter-adds from data indices and A' r
    // (so that they split over threads and share loops), and any node with members.
    l.loop_root.assign(n, false);
    for (NodeId id = 0; id < n; ++id) {
        l.loop_root[id] = a.live[id] && !l.member[id] &&
                          (f.blockwise(id) || f.accumulates(id) || !l.members[id].empty());
    }
    return l;
}

std::string Loops::str() const {
    const Graph& g = *aliases->graph;
    std::string s;
    for (NodeId id = 0; id < g.size(); ++id) {
        if (!loop_root[id] || aliases->alias[id])
            continue;
        s += fmt::format("  %{} {} = {}", id, g[id].shape.str(), op_name(g[id].op));
        if (!members[id].empty()) {
            s += " <-";
            for (NodeId m : members[id]) s += fmt::format(" %{}", m);
        }
        s += '\n';
    }
    return s.empty() ? "  (none)\n" : s;
}

}  // namespace advi
