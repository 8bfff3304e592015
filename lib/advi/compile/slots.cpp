// Arena slots: a best-fit free list over the per-run region, walked in program order.
#include <advi/compile/slots.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

std::string BufferRef::str(std::size_t persistent) const {
    switch (src) {
        case Src::Arena: return fmt::format("@{}", offset);
        case Src::Transient: return fmt::format("@{}", persistent + offset);
        case Src::Block: return fmt::format("block+{}", offset);
        case Src::Input: return fmt::format("zeta[{}]", offset);
        case Src::Extern: return "data";
        case Src::None: break;
    }
    return "?";
}

Slots assign_slots(const Liveness& v, const std::vector<DataSlot>& data, int input_dim) {
    const Schedule& s = *v.schedule;
    const Loops& l = *s.loops;
    const Aliases& a = *l.aliases;
    const Graph& g = *a.graph;
    const int n = g.size();
    Slots out;
    out.liveness = &v;
    std::vector<BufferRef>& refs = out.refs;
    refs.resize(n);

    // Leaves bind to memory. (A switch over the leaves that have no kernel: how each binds, to
    // the input vector or the caller's data, is the program's calling convention.)
    for (NodeId id = 0; id < n; ++id) {
        if (!a.live[id])
            continue;
        const Node& node = g[id];
        BufferRef& r = refs[id];
        r.rows = node.shape.rows;
        r.cols = node.shape.cols;
        const int size = node.shape.size();
        if (a.alias[id])
            continue;
        switch (node.op) {
            case Op::Zeta:
                if (node.index < 0 || node.index + size > input_dim) {
                    throw InternalError(fmt::format("zeta slice {}:{} outside an input of {}",
                                                    node.index, node.index + size, input_dim));
                }
                r.src = BufferRef::Src::Input;
                r.offset = node.index;
                break;
            case Op::Data: {
                if (node.index < 0 || node.index >= static_cast<std::int64_t>(data.size()))
                    throw InternalError(fmt::format("data slot {} is not bound", node.index));
                const DataSlot& d = data[node.index];
                if (d.shape != node.shape || d.dtype != node.dtype) {
                    throw InternalError(fmt::format("data slot `{}` is {} but the graph reads {}",
                                                    d.name, d.shape.str(), node.shape.str()));
                }
                r.src = BufferRef::Src::Extern;
                r.real = d.real;
                r.ints = d.ints;
                break;
            }
            case Op::Param:
                throw InternalError(fmt::format(
                    "param `{}` reached the compiler: constrain the graph first", g.label(id)));
            default: break;
        }
    }
    auto computed = [&](NodeId id) {
        return a.live[id] && !a.alias[id] && op_info(g[id].op).kernel != nullptr;
    };
    // Aliases read their source's slot at an offset; set once the source has one.
    auto resolve_aliases_of = [&](NodeId src) {
        for (NodeId id = src + 1; id < n; ++id) {
            if (!a.alias[id] || a.source[id] != src)
                continue;
            BufferRef& r = refs[id];
            const Node& node = g[id];
            r = refs[src];
            r.rows = node.shape.rows;
            r.cols = node.shape.cols;
            if (r.src == BufferRef::Src::Extern) {
                if (r.real != nullptr)
                    r.real += a.start[id];
                if (r.ints != nullptr)
                    r.ints += a.start[id];
            } else {
                r.offset += a.start[id];
            }
        }
    };
    for (NodeId id = 0; id < n; ++id) {
        if (a.live[id] && !computed(id) && !a.alias[id])
            resolve_aliases_of(id);
    }
    std::vector<bool> has_alias(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (a.alias[id])
            has_alias[a.source[id]] = true;
    }

    // Per-run slots, reused by liveness: a free list of (size -> offsets).
    std::multimap<int, std::int64_t> free_slots;
    std::vector<bool> transient_slot(n, false);
    auto alloc_transient = [&](int size) -> std::int64_t {
        auto it = free_slots.lower_bound(size);  // best fit: the smallest free slot that fits
        if (it != free_slots.end()) {
            const int have = it->first;
            const std::int64_t off = it->second;
            free_slots.erase(it);
            if (have > size)
                free_slots.emplace(have - size, off + size);  // keep the rest
            return off;
        }
        const auto off = static_cast<std::int64_t>(out.transient);
        out.transient += static_cast<std::size_t>(size);
        return off;
    };
    // A slot is freed once: steps of one loop can share an input whose last use is the
    // loop's position, and a second free would hand the slot out twice.
    std::vector<bool> released(n, false);
    auto release_inputs = [&](NodeId id, int at) {
        const Node& node = g[id];
        for (int k = 0; k < node.arity(); ++k) {
            const NodeId in = a.source[node.in[k]];
            if (!transient_slot[in] || v.last_use[in] != at || released[in])
                continue;
            released[in] = true;
            free_slots.emplace(g[in].shape.size(), refs[in].offset);
        }
    };
    // A full buffer for a node: persistent for data-only values that runs read, else a
    // transient slot (the prologue never runs while per-run values are live, so its
    // scratch shares the per-run region).
    auto place = [&](NodeId id) {
        BufferRef& r = refs[id];
        const int size = g[id].shape.size();
        out.node_bytes += static_cast<std::size_t>(size) * sizeof(double);
        if (!g.is_variable(id) && v.kept[id]) {
            r.src = BufferRef::Src::Arena;
            r.offset = static_cast<std::int64_t>(out.persistent);
            out.persistent += static_cast<std::size_t>(size);
        } else {
            r.src = BufferRef::Src::Transient;
            r.offset = alloc_transient(size);
            transient_slot[id] = true;
        }
        if (has_alias[id])
            resolve_aliases_of(id);
    };
    auto need_scratch = [&](NodeId id) {
        if (const ScratchRule rule = op_info(g[id].op).scratch) {
            out.scratch_doubles =
                std::max(out.scratch_doubles, static_cast<std::size_t>(rule(g, g[id])));
        }
    };

    // Data-only units first: the prologue runs before every run, so loops may read its
    // values wherever they are scheduled.
    for (int pass = 0; pass < 2; ++pass) {
        for (int u = 0; u < static_cast<int>(s.units.size()); ++u) {
            const bool once = !s.units[u].loop && !g.is_variable(s.units[u].roots.front());
            if (once == (pass == 0))
                out.order.push_back(u);
        }
    }
    std::vector<int> unread(n, 0);  // a block temporary's readers still to come
    for (const int u : out.order) {
        const Unit& unit = s.units[u];
        if (!unit.loop) {
            const NodeId id = unit.roots.front();
            place(id);
            need_scratch(id);
            release_inputs(id, u);
            continue;
        }
        // Full buffers first for every tree's root that needs one; block temporaries (members,
        // roots read only within the loop) are reused within the loop: a block is free once its
        // last reader (a later step) has been given its own.
        for (NodeId r : unit.roots) {
            if (!s.temp[r])
                place(r);
        }
        std::vector<std::int64_t> free_blocks;
        std::int64_t blocks = 0;
        for (NodeId m : unit.steps) {
            if (s.temp[m]) {
                unread[m] = s.reads[m];
                out.node_bytes += static_cast<std::size_t>(g[m].shape.size()) * sizeof(double);
                refs[m].src = BufferRef::Src::Block;
                refs[m].rows = g[m].shape.rows;
                refs[m].cols = g[m].shape.cols;
                if (free_blocks.empty()) {
                    refs[m].offset = blocks++ * unit.block;
                } else {
                    refs[m].offset = free_blocks.back();
                    free_blocks.pop_back();
                }
                if (has_alias[m])  // a reshape between the member and its reader
                    resolve_aliases_of(m);
            }
            for (int k = 0; k < g[m].arity(); ++k) {  // a step frees its members' blocks
                const NodeId in = l.values_of(g[m].in[k]);
                bool repeated = false;
                for (int j = 0; j < k; ++j) repeated = repeated || l.values_of(g[m].in[j]) == in;
                if (s.temp[in] && !repeated && --unread[in] == 0)
                    free_blocks.push_back(refs[in].offset);
            }
            need_scratch(m);
        }
        out.block_doubles =
            std::max(out.block_doubles, static_cast<std::size_t>(blocks * unit.block));
        for (NodeId m : unit.steps) release_inputs(m, u);
    }
    return out;
}

std::string Slots::str() const {
    const Schedule& s = *liveness->schedule;
    const Graph& g = *s.loops->aliases->graph;
    std::string t = fmt::format(
        "  {} doubles persistent, {} transient, {} of block temporaries per thread, {} of "
        "scratch; {} bytes of node values\n",
        persistent, transient, block_doubles, scratch_doubles, node_bytes);
    for (const int u : order) {
        const Unit& unit = s.units[u];
        for (NodeId id : unit.loop ? unit.steps : unit.roots)
            t += fmt::format("  %{} {} {}\n", id, g[id].shape.str(), refs[id].str(persistent));
    }
    return t;
}

}  // namespace advi
