// Emission: one instruction per plain unit, one group of steps per loop, then the outputs.
#include <advi/compile/emit.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/repeats.hpp>

namespace advi {
namespace {

// The elementwise ops whose kernel takes a one-value operand as a scalar against a longer
// one (binary_kernel), so that a run of rep_rows (one value) reads as that value.
bool broadcasts_scalars(Op op) {
    return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div;
}

}  // namespace

struct EmitSteps {
    using Instr = Program::Instr;
    using Kind = Program::Kind;
    using Role = Program::Role;

    // Repeats whose one reader is an elementwise step read their input in runs there: the
    // repeat's step becomes Role::InPlace and its reader's operand Kind::RepCols or RepRows, with
    // the repeat's input as the operand. One such operand per reader (its runs are the kernel
    // calls).
    static void read_repeats_in_place(Program::Group& group, const Graph& g, const Loops& l) {
        for (std::size_t r = 0; r < group.steps.size(); ++r) {
            Instr& rep = group.steps[r];
            const bool cols = rep.form == LoopForm::RepCols;
            if ((!cols && rep.form != LoopForm::RepRows) || rep.role != Role::Temp ||
                rep.kind[0] != Kind::Whole || g[rep.id].shape.rows < kMinRepeatRun)
                continue;
            for (std::size_t q = r + 1; q < group.steps.size(); ++q) {
                Instr& reader = group.steps[q];
                int slot = -1, reads = 0;
                for (int k = 0; k < reader.arity; ++k) {
                    if (reader.kind[k] == Kind::Temp && l.values_of(g[reader.id].in[k]) == rep.id) {
                        slot = k;
                        ++reads;
                    }
                }
                if (reads == 0)
                    continue;
                if (reads == 1 && reader.rep_rows == 0 && reader.form == LoopForm::Elementwise &&
                    (reader.role == Role::Temp || reader.role == Role::Store) &&
                    (cols || broadcasts_scalars(g[reader.id].op))) {
                    reader.kind[slot] = cols ? Kind::RepCols : Kind::RepRows;
                    reader.in[slot] = rep.in[0];
                    reader.rep_rows = g[rep.id].shape.rows;
                    rep.role = Role::InPlace;
                }
                break;  // a member has one reader
            }
        }
    }
};

Program emit(const Slots& slots, std::vector<DataSlot> data, int input_dim, int output_dim,
             int threads) {
    using Instr = Program::Instr;
    using Kind = Program::Kind;
    using Role = Program::Role;
    const Liveness& v = *slots.liveness;
    const Schedule& s = *v.schedule;
    const Loops& l = *s.loops;
    const Graph& g = *l.aliases->graph;
    const int n = g.size();
    const std::vector<BufferRef>& refs = slots.refs;

    Program p;
    p.data_ = std::move(data);
    p.input_dim_ = input_dim;
    p.output_dim_ = output_dim;
    p.threads_ = std::max(threads, 0);
    p.nodes_.resize(n);
    p.labels_.resize(n);
    for (NodeId id = 0; id < n; ++id) {
        p.nodes_[id] = g[id];
        p.labels_[id] = g.label(id);
    }
    p.data_bytes_per_run_ = v.data_bytes_per_run;
    p.node_bytes_ = slots.node_bytes;
    p.persistent_ = slots.persistent;
    p.transient_ = slots.transient;
    p.block_doubles_ = slots.block_doubles;
    p.scratch_doubles_ = slots.scratch_doubles;

    auto make_instr = [&](NodeId id) {
        Instr ins;
        ins.kernel = op_info(g[id].op).kernel;
        ins.scratch = op_info(g[id].op).scratch != nullptr;
        ins.id = id;
        ins.arity = g[id].arity();
        for (int k = 0; k < ins.arity; ++k) ins.in[k] = refs[g[id].in[k]];
        ins.out = refs[id];
        return ins;
    };
    for (const int u : slots.order) {
        const Unit& unit = s.units[u];
        if (!unit.loop) {
            const NodeId id = unit.roots.front();
            const Node& node = g[id];
            const bool once = !g.is_variable(id);
            Instr ins = make_instr(id);
            if (!once) {
                // Long matrix products split over threads.
                const Shape& a = g[node.in[0]].shape;
                const double flops = static_cast<double>(a.size()) *
                                     (node.arity() > 1 ? g[node.in[1]].shape.cols : 1);
                if (flops >= 2 * Program::kMinFlopsPerPart)
                    ins.split = op_info(node.op).split;
            }
            (once ? p.prologue_ : p.body_).push_back(ins);
            continue;
        }
        Program::Group group;
        group.n = unit.n;
        group.block = unit.block;
        group.work = unit.work;
        for (NodeId m : unit.steps) {
            Instr st = make_instr(m);
            const LoopForm form = loop_form(g[m].op);
            st.form = form;
            for (int k = 0; k < st.arity; ++k) {
                const NodeId in = g[m].in[k];
                st.kind[k] = s.temp[l.values_of(in)]         ? Kind::Temp
                             : l.reads_rows(m, k)            ? Kind::Rows
                             : g[in].shape.size() == 1       ? Kind::Scalar
                             : l.reads_sliced(m, k, group.n) ? Kind::Sliced
                                                             : Kind::Whole;
            }
            if (s.temp[m]) {
                st.role = Role::Temp;
            } else if (form == LoopForm::Sum) {
                st.role = Role::Sum;
                st.slot = group.sums++;
            } else if (form == LoopForm::ScatterAdd || form == LoopForm::RowsTVec ||
                       form == LoopForm::RowSums || form == LoopForm::TileSum ||
                       form == LoopForm::ColSums) {
                // Row sums add each value at its row, tile sums at its row in the tile, column
                // sums at its column: a
                // scatter-add whose index is computed from the value's position.
                st.role = form == LoopForm::RowsTVec ? Role::RowsTVec : Role::ScatterAdd;
                st.slot = group.scatter_doubles;
                group.scatter_doubles += g[m].shape.size();
            } else {
                st.role = Role::Store;
            }
            group.steps.push_back(st);
        }
        EmitSteps::read_repeats_in_place(group, g, l);
        Instr ins = make_instr(unit.roots.front());
        ins.kernel = nullptr;
        ins.group = static_cast<int>(p.groups_.size());
        p.groups_.push_back(std::move(group));
        p.body_.push_back(ins);
    }

    for (const auto& o : g.outputs()) {
        if (o.name == "lp") {
            if (!g[o.id].shape.is_scalar())
                throw InternalError("output lp is not a scalar");
            p.lp_ = refs[o.id];
            p.has_lp_ = true;
        } else {
            if (o.offset >= 0 && o.offset + g[o.id].shape.size() > output_dim) {
                throw InternalError(
                    fmt::format("output `{}` does not fit in {} values", o.name, output_dim));
            }
            p.outputs_.push_back({o.name, refs[o.id], o.offset});
        }
    }
    p.bind();
    return p;
}

}  // namespace advi
