// Liveness over the schedule's units; a read through an alias is a read of its source.
#include <advi/compile/liveness.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace advi {

Liveness liveness(const Schedule& s) {
    const Loops& l = *s.loops;
    const Aliases& a = *l.aliases;
    const Graph& g = *a.graph;
    const int n = g.size();
    Liveness v;
    v.schedule = &s;
    // Last use of every buffer (outputs stay alive to the end).
    const int end_of_run = static_cast<int>(s.units.size());
    v.last_use.assign(n, -1);
    for (NodeId id = 0; id < n; ++id) {
        if (s.unit_of[id] < 0 && !l.member[id])
            continue;  // not computed
        for (int k = 0; k < g[id].arity(); ++k) {
            const NodeId in = a.source[g[id].in[k]];
            v.last_use[in] = std::max(v.last_use[in], s.position(id));
        }
    }
    for (const auto& o : g.outputs()) v.last_use[a.source[o.id]] = end_of_run;
    // Data-only nodes read by per-run nodes or outputs must survive between runs.
    v.kept.assign(n, false);
    for (const auto& o : g.outputs()) v.kept[a.source[o.id]] = true;
    std::vector<bool> slot_read;  // per data slot
    std::vector<bool> data_only_read(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (!a.live[id] || a.alias[id] || !g.is_variable(id))
            continue;
        for (int k = 0; k < g[id].arity(); ++k) {
            const NodeId in = a.source[g[id].in[k]];
            v.kept[in] = true;
            const Node& x = g[in];
            if (x.op == Op::Data) {
                if (x.index < 0)
                    continue;  // unbound: the slots pass names it
                const auto slot = static_cast<std::size_t>(x.index);
                if (slot >= slot_read.size())
                    slot_read.resize(slot + 1, false);
                if (slot_read[slot])
                    continue;
                slot_read[slot] = true;
                v.data_bytes_per_run += static_cast<std::size_t>(x.shape.size()) *
                                        (x.dtype == DType::Int ? sizeof(int) : sizeof(double));
            } else if (!g.is_variable(in) && x.op != Op::Const && op_info(x.op).kernel != nullptr &&
                       !data_only_read[in]) {
                // a value computed from data once (to_real of counts, lgamma(y + 1)) is read
                // like data
                data_only_read[in] = true;
                v.data_bytes_per_run += static_cast<std::size_t>(x.shape.size()) * sizeof(double);
            }
        }
    }
    return v;
}

std::string Liveness::str() const {
    const Graph& g = *schedule->loops->aliases->graph;
    const int end_of_run = static_cast<int>(schedule->units.size());
    std::string s;
    for (NodeId id = 0; id < g.size(); ++id) {
        if (last_use[id] < 0)
            continue;
        s += fmt::format("  %{} {}: last read {}{}\n", id, g[id].shape.str(),
                         last_use[id] == end_of_run ? std::string("at the end (an output)")
                                                    : fmt::format("in unit {}", last_use[id]),
                         kept[id] && !g.is_variable(id) && op_info(g[id].op).kernel != nullptr
                             ? " (kept between runs)"
                             : "");
    }
    s += fmt::format("  data read per run: {} bytes\n", data_bytes_per_run);
    return s;
}

}  // namespace advi
