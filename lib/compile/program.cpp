// Compilation of a graph into a Program: classify nodes (input, data, data-only, per-run),
// compute each buffer's last use, and give dead buffers' arena slots to later nodes.
#include "program.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include <advi/graph/error.hpp>

namespace advi {

Program Program::compile(const Graph& g, std::vector<DataSlot> data, int input_dim,
                         int output_dim) {
    Program p;
    p.data_ = std::move(data);
    p.input_dim_ = input_dim;
    p.output_dim_ = output_dim;
    const int n = g.size();
    const std::vector<bool> live = live_nodes(g);
    p.nodes_.resize(n);
    p.labels_.resize(n);
    for (NodeId id = 0; id < n; ++id) {
        p.nodes_[id] = g[id];
        p.labels_[id] = g.label(id);
    }

    // Last use of every node (outputs stay alive to the end).
    std::vector<int> last_use(n, -1);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id]) continue;
        for (int k = 0; k < g[id].arity(); ++k) last_use[g[id].in[k]] = id;
    }
    for (const auto& o : g.outputs()) last_use[o.id] = n;
    // Data-only nodes read by per-run nodes or outputs must survive between runs.
    std::vector<bool> kept(n, false);
    for (const auto& o : g.outputs()) kept[o.id] = true;
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id] || !g.is_variable(id)) continue;
        for (int k = 0; k < g[id].arity(); ++k) kept[g[id].in[k]] = true;
    }

    std::vector<Ref> refs(n);
    // Persistent slots (constants, data-only nodes) come first in the arena; per-run
    // slots after them, reused by liveness: a free list of (size -> offsets).
    std::size_t persistent = 0;
    std::size_t transient = 0;
    std::multimap<int, std::int64_t> free_slots;
    std::vector<bool> transient_slot(n, false);
    auto alloc_transient = [&](int size) -> std::int64_t {
        auto it = free_slots.lower_bound(size);  // best fit: the smallest free slot that fits
        if (it != free_slots.end()) {
            const int have = it->first;
            const std::int64_t off = it->second;
            free_slots.erase(it);
            if (have > size) free_slots.emplace(have - size, off + size);  // keep the rest
            return off;
        }
        const auto off = static_cast<std::int64_t>(transient);
        transient += static_cast<std::size_t>(size);
        return off;
    };

    for (NodeId id = 0; id < n; ++id) {
        if (!live[id]) continue;
        const Node& node = g[id];
        Ref& r = refs[id];
        r.rows = node.shape.rows;
        r.cols = node.shape.cols;
        const int size = node.shape.size();
        switch (node.op) {
            case Op::Zeta:
                if (node.index < 0 || node.index + size > input_dim) {
                    throw InternalError(fmt::format("zeta slice {}:{} outside an input of {}",
                                                    node.index, node.index + size, input_dim));
                }
                r.src = Ref::Src::Input;
                r.offset = node.index;
                continue;
            case Op::Data: {
                if (node.index < 0 || node.index >= static_cast<std::int64_t>(p.data_.size())) {
                    throw InternalError(fmt::format("data slot {} is not bound", node.index));
                }
                const DataSlot& d = p.data_[node.index];
                if (d.shape != node.shape || d.dtype != node.dtype) {
                    throw InternalError(fmt::format("data slot `{}` is {} but the graph reads {}",
                                                    d.name, d.shape.str(), node.shape.str()));
                }
                r.src = Ref::Src::Extern;
                r.real = d.real;
                r.ints = d.ints;
                continue;
            }
            case Op::Param:
                throw InternalError(fmt::format(
                    "param `{}` reached the compiler: constrain the graph first", g.label(id)));
            default: break;
        }
        r.src = Ref::Src::Arena;
        Instr ins;
        ins.kernel = op_info(node.op).kernel;
        ins.id = id;
        ins.arity = node.arity();
        for (int k = 0; k < ins.arity; ++k) ins.in[k] = refs[node.in[k]];
        p.node_bytes_ += static_cast<std::size_t>(size) * sizeof(double);
        // Data-only nodes run once per data (the prologue). Those the per-run code or an
        // output reads keep a persistent slot; the rest are scratch, whose slots come from
        // the per-run region: the prologue never runs while per-run values are live.
        const bool once = !g.is_variable(id);
        if (once && kept[id]) {
            r.offset = static_cast<std::int64_t>(persistent);
            persistent += static_cast<std::size_t>(size);
        } else {
            r.offset = alloc_transient(size);
            transient_slot[id] = true;
        }
        ins.out = r;
        (once ? p.prologue_ : p.body_).push_back(ins);
        // Inputs whose last use is this node are dead now; their slots serve later nodes.
        for (int k = 0; k < ins.arity; ++k) {
            const NodeId in = node.in[k];
            if (transient_slot[in] && last_use[in] == id) {
                bool repeated = false;
                for (int j = 0; j < k; ++j) repeated = repeated || node.in[j] == in;
                if (!repeated) free_slots.emplace(g[in].shape.size(), refs[in].offset);
            }
        }
    }

    // Per-run offsets were relative to the end of the persistent region.
    auto shift = [&](Ref& r, NodeId id) {
        if (r.src == Ref::Src::Arena && transient_slot[id]) r.offset += static_cast<std::int64_t>(persistent);
    };
    for (NodeId id = 0; id < n; ++id) {
        if (live[id]) shift(refs[id], id);
    }
    for (auto& ins : p.body_) {
        ins.out = refs[ins.id];
        for (int k = 0; k < ins.arity; ++k) ins.in[k] = refs[g[ins.id].in[k]];
    }
    for (auto& ins : p.prologue_) {
        ins.out = refs[ins.id];
        for (int k = 0; k < ins.arity; ++k) ins.in[k] = refs[g[ins.id].in[k]];
    }
    p.persistent_ = persistent;
    p.arena_.assign(persistent + transient, 0.0);

    for (const auto& o : g.outputs()) {
        if (o.name == "lp") {
            if (!g[o.id].shape.is_scalar()) throw InternalError("output lp is not a scalar");
            p.lp_ = refs[o.id];
            p.has_lp_ = true;
        } else if (o.offset >= 0) {
            if (o.offset + g[o.id].shape.size() > output_dim) {
                throw InternalError(fmt::format("output `{}` does not fit in {} values", o.name,
                                                output_dim));
            }
            p.outputs_.push_back({o.name, refs[o.id], o.offset});
        }
    }
    p.reload_data();
    return p;
}

View Program::view(const Ref& r, const double* zeta) const {
    View v;
    v.rows = r.rows;
    v.cols = r.cols;
    switch (r.src) {
        case Ref::Src::Arena: v.x = arena_.data() + r.offset; break;
        case Ref::Src::Input: v.x = zeta + r.offset; break;
        case Ref::Src::Extern:
            v.x = r.real;
            v.i = r.ints;
            break;
        case Ref::Src::None: break;
    }
    return v;
}

void Program::exec(const std::vector<Instr>& code, const double* zeta) {
    KernelArgs a;
    for (const Instr& ins : code) {
        for (int k = 0; k < ins.arity; ++k) a.in[k] = view(ins.in[k], zeta);
        a.out = arena_.data() + ins.out.offset;
        a.out_rows = ins.out.rows;
        a.out_cols = ins.out.cols;
        a.node = &nodes_[ins.id];
        ins.kernel(a);
    }
}

void Program::reload_data() { exec(prologue_, nullptr); }

double Program::run(const Eigen::VectorXd& zeta, Eigen::VectorXd& out) {
    if (zeta.size() != input_dim_) {
        throw DataError(fmt::format("program input: expected {} unconstrained values, got {}",
                                    input_dim_, zeta.size()));
    }
    if (out.size() != output_dim_) out.resize(output_dim_);
    exec(body_, zeta.data());
    out.setZero();
    for (const OutputCopy& o : outputs_) {
        const View v = view(o.from, zeta.data());
        std::copy(v.x, v.x + v.size(), out.data() + o.offset);
    }
    return has_lp_ ? view(lp_, zeta.data()).x[0] : 0.0;
}

std::string Program::ref_str(const Ref& r) const {
    switch (r.src) {
        case Ref::Src::Arena: return fmt::format("@{}", r.offset);
        case Ref::Src::Input: return fmt::format("zeta[{}]", r.offset);
        case Ref::Src::Extern: return "data";
        case Ref::Src::None: break;
    }
    return "?";
}

std::string Program::str() const {
    std::string s = fmt::format(
        "program: {} instructions per run, {} once per data; arena {} doubles ({} bytes, "
        "{} persistent) for {} bytes of node values\n",
        body_.size(), prologue_.size(), arena_.size(), arena_bytes(), persistent_, node_bytes_);
    auto line = [&](const Instr& ins) {
        const Node& n = nodes_[ins.id];
        std::string rhs(op_name(n.op));
        if (n.op == Op::Const) rhs += fmt::format(" {}", n.value);
        for (int k = 0; k < ins.arity; ++k) {
            const NodeId in = n.in[k];
            rhs += fmt::format(" %{}", in);
            if (!labels_[in].empty()) rhs += fmt::format("({})", labels_[in]);
        }
        return fmt::format("  {:>8} %{} {} = {}\n", ref_str(ins.out), ins.id, n.shape.str(), rhs);
    };
    s += "once per data:\n";
    for (const auto& ins : prologue_) s += line(ins);
    s += "every run:\n";
    for (const auto& ins : body_) s += line(ins);
    s += "outputs:\n";
    if (has_lp_) s += fmt::format("  lp <- {}\n", ref_str(lp_));
    for (const auto& o : outputs_) {
        s += fmt::format("  out[{}:{}] <- {} ({})\n", o.offset, o.offset + o.from.rows * o.from.cols,
                         ref_str(o.from), o.name);
    }
    return s;
}

}  // namespace advi
