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

    // Fusion: an elementwise per-run node whose only reader is an elementwise per-run node
    // of the same size (or a sum of it), and which is no output, becomes an internal member
    // of its reader's group: it is computed block by block when the group's root runs.
    std::vector<int> readers(n, 0);
    std::vector<NodeId> reader(n, kNoNode);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id]) continue;
        for (int k = 0; k < g[id].arity(); ++k) {
            const NodeId in = g[id].in[k];
            if (reader[in] != id) {
                ++readers[in];
                reader[in] = id;
            }
        }
    }
    std::vector<bool> is_output(n, false);
    for (const auto& o : g.outputs()) is_output[o.id] = true;
    auto per_run_elementwise = [&](NodeId id) {
        return g.is_variable(id) && g[id].arity() > 0 && op_info(g[id].op).elementwise;
    };
    std::vector<bool> internal(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id] || !per_run_elementwise(id) || is_output[id] || readers[id] != 1) continue;
        const NodeId r = reader[id];
        const int size = g[id].shape.size();
        internal[id] = size >= 2 && ((per_run_elementwise(r) && g[r].shape.size() == size) ||
                                     (g[r].op == Op::Sum && g.is_variable(r)));
    }
    std::vector<NodeId> root(n, kNoNode);
    for (NodeId id = n - 1; id >= 0; --id) {
        if (internal[id]) root[id] = internal[reader[id]] ? root[reader[id]] : reader[id];
    }
    // The position at which a node's value is read: its own, or its group root's.
    auto position = [&](NodeId id) { return internal[id] ? root[id] : id; };

    // Last use of every node (outputs stay alive to the end).
    std::vector<int> last_use(n, -1);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id]) continue;
        for (int k = 0; k < g[id].arity(); ++k) {
            last_use[g[id].in[k]] = std::max(last_use[g[id].in[k]], position(id));
        }
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
    // Persistent slots (constants, data-only nodes) and per-run slots, reused by liveness:
    // a free list of (size -> offsets).
    std::size_t persistent = 0;
    std::size_t transient = 0;
    std::size_t block_doubles = 0;
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
    // A slot is freed once: members of one group (and the root) can share an input whose
    // last use is the group's position, and a second free would hand the slot out twice.
    std::vector<bool> released(n, false);
    auto release_inputs = [&](NodeId id, NodeId at) {
        const Node& node = g[id];
        for (int k = 0; k < node.arity(); ++k) {
            const NodeId in = node.in[k];
            if (!transient_slot[in] || last_use[in] != at || released[in]) continue;
            released[in] = true;
            free_slots.emplace(g[in].shape.size(), refs[in].offset);
        }
    };
    auto make_instr = [&](NodeId id) {
        Instr ins;
        ins.kernel = op_info(g[id].op).kernel;
        ins.id = id;
        ins.arity = g[id].arity();
        for (int k = 0; k < ins.arity; ++k) ins.in[k] = refs[g[id].in[k]];
        ins.out = refs[id];
        return ins;
    };
    std::vector<std::vector<NodeId>> members(n);
    for (NodeId id = 0; id < n; ++id) {
        if (internal[id]) members[root[id]].push_back(id);
    }

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
        p.node_bytes_ += static_cast<std::size_t>(size) * sizeof(double);
        if (internal[id]) {
            // A block temporary of its group, assigned when the root is reached.
            r.src = Ref::Src::Block;
            continue;
        }
        // Data-only nodes run once per data (the prologue). Those the per-run code or an
        // output reads keep a persistent slot; the rest are scratch, whose slots come from
        // the per-run region: the prologue never runs while per-run values are live.
        const bool once = !g.is_variable(id);
        if (once && kept[id]) {
            r.src = Ref::Src::Arena;
            r.offset = static_cast<std::int64_t>(persistent);
            persistent += static_cast<std::size_t>(size);
        } else {
            r.src = Ref::Src::Transient;
            r.offset = alloc_transient(size);
            transient_slot[id] = true;
        }
        if (members[id].empty()) {
            (once ? p.prologue_ : p.body_).push_back(make_instr(id));
            release_inputs(id, id);
            continue;
        }
        Group group;
        group.n = g[members[id].front()].shape.size();
        group.sum_root = node.op == Op::Sum;
        group.block = std::min(kBlock, group.n);
        // Block temporaries are reused within the group: a member's block is free once its
        // one reader (a later member) has its own block.
        std::vector<std::int64_t> free_blocks;
        std::int64_t blocks = 0;
        for (NodeId m : members[id]) {
            if (free_blocks.empty()) {
                refs[m].offset = blocks++ * group.block;
            } else {
                refs[m].offset = free_blocks.back();
                free_blocks.pop_back();
            }
            for (int k = 0; k < g[m].arity(); ++k) {
                const NodeId in = g[m].in[k];
                bool repeated = false;
                for (int j = 0; j < k; ++j) repeated = repeated || g[m].in[j] == in;
                if (internal[in] && !repeated) free_blocks.push_back(refs[in].offset);
            }
        }
        block_doubles = std::max(block_doubles, static_cast<std::size_t>(blocks * group.block));
        for (NodeId m : members[id]) group.steps.push_back(make_instr(m));
        group.steps.push_back(make_instr(id));
        Instr ins = make_instr(id);
        ins.kernel = nullptr;
        ins.group = static_cast<int>(p.groups_.size());
        p.groups_.push_back(std::move(group));
        p.body_.push_back(ins);
        for (NodeId m : members[id]) release_inputs(m, id);
        release_inputs(id, id);
    }

    p.persistent_ = persistent;
    p.block_base_ = persistent + transient;
    p.arena_.assign(persistent + transient + block_doubles, 0.0);

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
        case Ref::Src::Transient: v.x = arena_.data() + persistent_ + r.offset; break;
        case Ref::Src::Block: v.x = arena_.data() + block_base_ + r.offset; break;
        case Ref::Src::Input: v.x = zeta + r.offset; break;
        case Ref::Src::Extern:
            v.x = r.real;
            v.i = r.ints;
            break;
        case Ref::Src::None: break;
    }
    return v;
}

double* Program::out_ptr(const Ref& r) {
    switch (r.src) {
        case Ref::Src::Arena: return arena_.data() + r.offset;
        case Ref::Src::Transient: return arena_.data() + persistent_ + r.offset;
        case Ref::Src::Block: return arena_.data() + block_base_ + r.offset;
        default: break;
    }
    throw InternalError("an instruction writes outside the arena");
}

void Program::exec(const std::vector<Instr>& code, const double* zeta) {
    KernelArgs a;
    for (const Instr& ins : code) {
        if (ins.group >= 0) {
            exec_group(groups_[ins.group], ins.out, zeta);
            continue;
        }
        for (int k = 0; k < ins.arity; ++k) a.in[k] = view(ins.in[k], zeta);
        a.out = out_ptr(ins.out);
        a.out_rows = ins.out.rows;
        a.out_cols = ins.out.cols;
        a.node = &nodes_[ins.id];
        ins.kernel(a);
    }
}

void Program::exec_group(const Group& group, const Ref& out, const double* zeta) {
    // Every step sees the block [b, b + len) of its full-size operands; scalars broadcast
    // as they are; intermediates live in kBlock-sized temporaries.
    KernelArgs a;
    double partial = 0.0;
    double total = 0.0;
    const std::size_t last = group.steps.size() - 1;
    for (int b = 0; b < group.n; b += group.block) {
        const int len = std::min(group.block, group.n - b);
        for (std::size_t s = 0; s <= last; ++s) {
            const Instr& st = group.steps[s];
            for (int k = 0; k < st.arity; ++k) {
                View v = view(st.in[k], zeta);
                if (st.in[k].src != Ref::Src::Block && v.size() != 1) {
                    if (v.x != nullptr) v.x += b;
                    if (v.i != nullptr) v.i += b;
                }
                v.rows = v.size() == 1 && st.in[k].src != Ref::Src::Block ? 1 : len;
                v.cols = 1;
                a.in[k] = v;
            }
            a.node = &nodes_[st.id];
            if (s == last && group.sum_root) {
                a.out = &partial;
                a.out_rows = a.out_cols = 1;
                st.kernel(a);
                total += partial;
                continue;
            }
            a.out = s == last ? out_ptr(out) + b : out_ptr(st.out);
            a.out_rows = len;
            a.out_cols = 1;
            st.kernel(a);
        }
    }
    if (group.sum_root) out_ptr(out)[0] = total;
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
        case Ref::Src::Transient: return fmt::format("@{}", persistent_ + r.offset);
        case Ref::Src::Block: return fmt::format("block+{}", r.offset);
        case Ref::Src::Input: return fmt::format("zeta[{}]", r.offset);
        case Ref::Src::Extern: return "data";
        case Ref::Src::None: break;
    }
    return "?";
}

std::string Program::str() const {
    std::string s = fmt::format(
        "program: {} instructions per run ({} fused groups), {} once per data; arena {} doubles "
        "({} bytes, {} persistent) for {} bytes of node values\n",
        body_.size(), groups_.size(), prologue_.size(), arena_.size(), arena_bytes(), persistent_,
        node_bytes_);
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
    for (const auto& ins : body_) {
        if (ins.group < 0) {
            s += line(ins);
            continue;
        }
        // A fused group prints its members, indented, under a header with its length.
        const Group& gr = groups_[ins.group];
        s += fmt::format("  fused over {} values in blocks of {}{}:\n", gr.n, gr.block,
                         gr.sum_root ? ", summed" : "");
        for (const auto& st : gr.steps) s += "  " + line(&st == &gr.steps.back() ? ins : st);
    }
    s += "outputs:\n";
    if (has_lp_) s += fmt::format("  lp <- {}\n", ref_str(lp_));
    for (const auto& o : outputs_) {
        s += fmt::format("  out[{}:{}] <- {} ({})\n", o.offset, o.offset + o.from.rows * o.from.cols,
                         ref_str(o.from), o.name);
    }
    return s;
}

}  // namespace advi
