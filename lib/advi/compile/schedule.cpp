// The schedule: units in node order; a loop tree joins the last loop over the same length when
// it can, so that one pass over memory computes both trees.
#include <advi/compile/schedule.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace advi {
namespace {

// Doubles of a matrix's row block that a loop reading it in place keeps in cache (256 KiB).
constexpr int kRowBlockDoubles = 1 << 15;

}  // namespace

int Schedule::position(NodeId id) const {
    return unit_of[loops->member[id] ? loops->root[id] : id];
}

Schedule schedule(const Loops& l) {
    const Aliases& a = *l.aliases;
    const Graph& g = *a.graph;
    const int n = g.size();
    Schedule s;
    s.loops = &l;
    s.unit_of.assign(n, -1);
    auto tree = [&](NodeId r) {
        std::vector<NodeId> steps = l.members[r];
        steps.push_back(r);
        return steps;
    };
    // A loop tree joins the last loop over the same n when everything it reads is ready where
    // that loop runs: data-only values, values computed before that loop, or values that loop
    // stores, read at the same index.
    std::vector<bool> stored_root(n, false);  // a loop root whose full buffer is written
    std::map<int, int> last_loop;  // loop length -> the last loop unit over that many values
    auto can_join = [&](int u, NodeId r) {
        const int len = s.units[u].n;
        for (NodeId m : tree(r)) {
            for (int k = 0; k < g[m].arity(); ++k) {
                const NodeId x = g[m].in[k];
                if (l.member[l.values_of(x)] && l.root[l.values_of(x)] == r)
                    continue;
                const NodeId xs = a.source[x];
                if (!g.is_variable(xs) || g[xs].op == Op::Zeta)
                    continue;
                if (s.unit_of[xs] >= 0 && s.unit_of[xs] < u)
                    continue;
                if (s.unit_of[xs] == u && x == xs && stored_root[xs] && l.reads_sliced(m, k, len))
                    continue;
                return false;
            }
        }
        return true;
    };
    for (NodeId id = 0; id < n; ++id) {
        // Leaves without a kernel (zeta, data, param) are bound to memory, not computed.
        const bool computed = a.live[id] && !a.alias[id] && op_info(g[id].op).kernel != nullptr;
        if (!computed || l.member[id])
            continue;
        if (!l.loop_root[id]) {
            s.unit_of[id] = static_cast<int>(s.units.size());
            Unit plain;
            plain.roots = {id};
            s.units.push_back(std::move(plain));
            continue;
        }
        const int len = l.length(id);
        auto same_n = last_loop.find(len);
        if (same_n != last_loop.end() && can_join(same_n->second, id)) {
            s.units[same_n->second].roots.push_back(id);
            s.unit_of[id] = same_n->second;
        } else {
            last_loop[len] = static_cast<int>(s.units.size());
            s.unit_of[id] = static_cast<int>(s.units.size());
            Unit loop;
            loop.roots = {id};
            loop.loop = true;
            loop.n = len;
            s.units.push_back(std::move(loop));
        }
        // A sum, a scatter-add or A' r (added up over the loop's row blocks) is complete only
        // after its loop: a tree that reads it cannot join that loop. (A' r counted as stored
        // until a square A larger than a block showed partial sums read as the gradient:
        // tests/compile/square_matrix_test.cpp.)
        const LoopForm form = loop_form(g[id].op);
        stored_root[id] = form != LoopForm::Sum && form != LoopForm::ScatterAdd &&
                          form != LoopForm::RowsTVec && form != LoopForm::RowSums &&
                          form != LoopForm::TileSum && form != LoopForm::ColSums;
    }
    for (Unit& unit : s.units) {
        if (!unit.loop)
            continue;
        unit.block = std::min(kLoopBlock, unit.n);
        for (NodeId r : unit.roots) {
            for (NodeId m : tree(r)) unit.steps.push_back(m);
        }
        // A loop that reads row blocks of a matrix takes fewer rows per block, so that a
        // block of the widest matrix (read once for A v, again for A' r) stays in L2.
        for (NodeId m : unit.steps) {
            if (!l.reads_rows(m, 0))
                continue;
            const int cols = g[g[m].in[0]].shape.cols;
            const int rows = std::clamp(kRowBlockDoubles / std::max(cols, 1), 32, kLoopBlock);
            unit.block = std::min(unit.block, rows / 8 * 8);
            unit.work += cols;
        }
    }
    // A stored root whose every reader is a later step of its loop reading it at the block's
    // offset needs no full buffer: its block is read before the loop moves on.
    s.temp = l.member;
    std::vector<bool> aliased(n, false), outside(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (a.live[id] && a.alias[id])
            aliased[a.source[id]] = true;
    }
    for (const auto& o : g.outputs()) outside[a.source[o.id]] = true;
    s.reads.assign(n, 0);
    for (NodeId id = 0; id < n; ++id) {
        if (!a.live[id] || a.alias[id] || (s.unit_of[id] < 0 && !l.member[id]))
            continue;
        const int u = s.position(id);
        for (int k = 0; k < g[id].arity(); ++k) {
            const NodeId x = l.values_of(g[id].in[k]);
            bool repeated = false;
            for (int j = 0; j < k; ++j) repeated = repeated || l.values_of(g[id].in[j]) == x;
            if (repeated)
                continue;
            ++s.reads[x];
            if (s.unit_of[x] < 0 || s.unit_of[x] != u || !s.units[u].loop ||
                !l.reads_sliced(id, k, s.units[u].n) || l.reads_rows(id, k))
                outside[x] = true;
        }
    }
    for (NodeId id = 0; id < n; ++id) {
        if (a.live[id] && s.unit_of[id] >= 0 && s.units[s.unit_of[id]].loop && stored_root[id] &&
            !aliased[id] && !outside[id] && s.reads[id] > 0)
            s.temp[id] = true;
    }
    return s;
}

std::string Schedule::str() const {
    const Graph& g = *loops->aliases->graph;
    std::string s;
    for (int u = 0; u < static_cast<int>(units.size()); ++u) {
        const Unit& unit = units[u];
        if (!unit.loop) {
            const NodeId id = unit.roots.front();
            s += fmt::format("  {}: %{} {} = {}{}\n", u, id, g[id].shape.str(), op_name(g[id].op),
                             g.is_variable(id) ? "" : " (once per data)");
            continue;
        }
        s += fmt::format("  {}: loop over {} values in blocks of {}:", u, unit.n, unit.block);
        for (NodeId r : unit.roots) s += fmt::format(" %{}", r);
        s += '\n';
    }
    return s.empty() ? "  (empty)\n" : s;
}

}  // namespace advi
