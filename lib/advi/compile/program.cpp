// Compilation of a graph into a Program: classify nodes (input, data, data-only, per-run,
// alias), group elementwise and index-mapped trees into fused loops, compute each buffer's
// last use, and give dead buffers' arena slots to later nodes.
#include <advi/compile/program.hpp>

#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>

#include <advi/compile/thread_pool.hpp>

namespace advi {

namespace {

// A loop over fewer values than this per thread runs on one thread: below it, waking a
// worker costs more than the work.
constexpr int kMinValuesPerPart = 16384;
// A matrix product with fewer multiply-adds than this runs on one thread.
constexpr double kMinFlopsPerPart = 1 << 17;
// Doubles of a matrix's row block that a loop reading it in place keeps in cache (256 KiB).
constexpr int kRowBlockDoubles = 1 << 15;

// Whether a node's value is a contiguous run of its input's values (a vector slice, a
// range of whole columns, a reshape), so that it can alias the input instead of copying.
// Returns the start offset, or -1.
std::int64_t alias_start(const Graph& g, NodeId id) {
    const Node& n = g[id];
    if (n.op == Op::Reshape)
        return 0;
    if (n.op != Op::Block)
        return -1;
    const Shape& in = g[n.in[0]].shape;
    // Whole columns, or a run within one column.
    if (n.shape.rows == in.rows || n.shape.cols == 1) {
        return n.index + n.aux * static_cast<std::int64_t>(in.rows);
    }
    return -1;
}

// Rows [b, b + len) of a column-major matrix, in place.
using RowBlock = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

// Whether an embed places its input as one contiguous run of its output.
bool contiguous_embed(const Graph& g, NodeId id) {
    const Node& n = g[id];
    const Shape& in = g[n.in[0]].shape;
    return n.op == Op::Embed && (in.rows == n.shape.rows || (in.cols == 1 && n.shape.cols == 1));
}

}  // namespace

Program::Program(const Program& other)
    : nodes_(other.nodes_),
      labels_(other.labels_),
      data_(other.data_),
      prologue_(other.prologue_),
      body_(other.body_),
      groups_(other.groups_),
      outputs_(other.outputs_),
      lp_(other.lp_),
      has_lp_(other.has_lp_),
      arena_(other.arena_),
      persistent_(other.persistent_),
      transient_(other.transient_),
      block_doubles_(other.block_doubles_),
      partial_doubles_(other.partial_doubles_),
      input_base_(other.input_base_),
      block_base_(other.block_base_),
      partial_base_(other.partial_base_),
      sums_base_(other.sums_base_),
      sums_per_part_(other.sums_per_part_),
      scratch_doubles_(other.scratch_doubles_),
      scratch_base_(other.scratch_base_),
      node_bytes_(other.node_bytes_),
      data_bytes_per_run_(other.data_bytes_per_run_),
      input_dim_(other.input_dim_),
      output_dim_(other.output_dim_),
      threads_(other.threads_),
      pool_(other.pool_) {
    // The copy's instructions must point into its own arena.
    for (auto& ins : prologue_) bind_instr(ins);
    for (auto& ins : body_) bind_instr(ins);
    for (auto& gr : groups_)
        for (auto& st : gr.steps) bind_instr(st);
}

Program& Program::operator=(const Program& other) {
    if (this != &other) {
        Program copy(other);
        *this = std::move(copy);
    }
    return *this;
}

Program Program::compile(const Graph& g, std::vector<DataSlot> data, int input_dim, int output_dim,
                         int threads) {
    Program p;
    p.data_ = std::move(data);
    p.input_dim_ = input_dim;
    p.output_dim_ = output_dim;
    p.threads_ = std::max(threads, 0);
    const int n = g.size();
    const std::vector<bool> live = live_nodes(g);
    p.nodes_.resize(n);
    p.labels_.resize(n);
    for (NodeId id = 0; id < n; ++id) {
        p.nodes_[id] = g[id];
        p.labels_[id] = g.label(id);
    }

    // Aliases: a node whose value is a contiguous run of another's is no instruction; it
    // reads the other's buffer at an offset. `source` resolves chains of aliases.
    std::vector<NodeId> source(n);
    std::vector<std::int64_t> start(n, 0);
    std::vector<bool> alias(n, false);
    for (NodeId id = 0; id < n; ++id) {
        source[id] = id;
        if (!live[id] || g[id].arity() == 0)
            continue;
        const std::int64_t s = alias_start(g, id);
        if (s < 0)
            continue;
        alias[id] = true;
        source[id] = source[g[id].in[0]];
        start[id] = start[g[id].in[0]] + s;
    }

    // Fusion. A member is a per-run node computed block by block inside its one reader's
    // loop: an elementwise op, a gather from data indices, or an index-mapped read
    // (rep_cols, rep_rows, broadcast, contiguous embed). Its reader reads it at the
    // block's offset: an elementwise op or member of the same size, or the sum or
    // scatter-add at the root of the loop.
    std::vector<int> readers(n, 0);
    std::vector<NodeId> reader(n, kNoNode);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id])
            continue;
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
    // A matrix whose row blocks a loop can read in place: a whole buffer with its rows as
    // the column stride (data, zeta, a computed matrix, or whole columns of one).
    auto rows_operand = [&](NodeId a) {
        const NodeId src = source[a];
        return g[a].shape.cols > 1 && (!alias[a] || g[a].shape.rows == g[src].shape.rows);
    };
    // A' r accumulated block by block over the rows of A, in the loop that computes r.
    auto rows_tvec_root = [&](NodeId r) {
        return g[r].op == Op::MatTVec && g.is_variable(r) && rows_operand(g[r].in[0]) &&
               g[r].in[0] != g[r].in[1];
    };
    auto loop_op = [&](NodeId id) {
        const Node& node = g[id];
        if (!g.is_variable(id) || node.arity() == 0 || alias[id] || node.shape.size() < 2) {
            return false;
        }
        switch (node.op) {
            case Op::Gather:
                return g[node.in[1]].op == Op::Data && node.shape.cols == 1;
            case Op::MatVec:
                return rows_operand(node.in[0]);
            case Op::RepCols:
            case Op::RepRows:
            case Op::Broadcast:
                return true;
            case Op::Embed:
                return contiguous_embed(g, id);
            default:
                return op_info(node.op).elementwise;
        }
    };
    // Whether input slot k of a loop op is read at the block's offset.
    auto sliced_slot = [&](NodeId r, int k) {
        switch (g[r].op) {
            case Op::Gather:
                return k == 1;
            case Op::MatVec:
                return false;  // rows of the matrix, the whole vector
            case Op::MatTVec:
                return k == 1;  // the block of r
            case Op::RepCols:
            case Op::RepRows:
            case Op::Broadcast:
            case Op::Embed:
                return false;
            default:
                return true;
        }
    };
    auto scatter_root = [&](NodeId r) {
        return g[r].op == Op::ScatterAdd && g.is_variable(r) && g[g[r].in[1]].op == Op::Data &&
               g[r].shape.cols == 1;
    };
    std::vector<bool> internal(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id] || !loop_op(id) || is_output[id] || readers[id] != 1)
            continue;
        const NodeId r = reader[id];
        const int size = g[id].shape.size();
        bool ok = false;
        if (loop_op(r) && g[r].shape.size() == size) {
            ok = true;
            for (int k = 0; k < g[r].arity(); ++k)
                ok = ok && (g[r].in[k] != id || sliced_slot(r, k));
        } else if (g[r].op == Op::Sum && g.is_variable(r)) {
            ok = true;
        } else if (scatter_root(r)) {
            ok = g[r].in[0] == id && g[r].in[1] != id;
        } else if (rows_tvec_root(r)) {
            ok = g[r].in[1] == id;
        }
        internal[id] = ok;
    }
    std::vector<NodeId> root(n, kNoNode);
    for (NodeId id = n - 1; id >= 0; --id) {
        if (internal[id])
            root[id] = internal[reader[id]] ? root[reader[id]] : reader[id];
    }
    std::vector<std::vector<NodeId>> members(n);
    for (NodeId id = 0; id < n; ++id) {
        if (internal[id])
            members[root[id]].push_back(id);
    }
    auto computed = [&](NodeId id) {
        const Op op = g[id].op;
        return live[id] && !alias[id] && op != Op::Zeta && op != Op::Data && op != Op::Param;
    };
    // Loop roots: elementwise and index-mapped ops, sums over vectors and scatter-adds
    // from data indices (so that they split over threads and share loops), and any node
    // with members.
    auto loop_root = [&](NodeId id) {
        if (!g.is_variable(id) || internal[id])
            return false;
        const Node& node = g[id];
        return loop_op(id) || !members[id].empty() || scatter_root(id) || rows_tvec_root(id) ||
               (node.op == Op::Sum && g[node.in[0]].shape.size() >= 2);
    };
    auto loop_length = [&](NodeId id) {
        const Node& node = g[id];
        if (rows_tvec_root(id))
            return g[node.in[0]].shape.rows;
        return node.op == Op::Sum || node.op == Op::ScatterAdd ? g[node.in[0]].shape.size()
                                                               : node.shape.size();
    };
    // Whether step m (a member or root of a loop over `len` values) reads input k at the
    // block's offset.
    auto reads_rows = [&](NodeId m, int k) {
        return k == 0 && (g[m].op == Op::MatVec || g[m].op == Op::MatTVec);
    };
    auto reads_sliced = [&](NodeId m, int k, int len) {
        const NodeId in = g[m].in[k];
        const bool root_reads_len = g[m].op == Op::Sum || g[m].op == Op::ScatterAdd;
        return g[in].shape.size() == len && (root_reads_len || sliced_slot(m, k));
    };

    // The schedule: units in order, each a plain node or a loop of one or more trees.
    // A loop tree joins the last loop over the same n when everything it reads is ready
    // where that loop runs: data-only values, values computed before that loop, or values
    // that loop stores, read at the same index. The loop then computes both trees in one
    // pass over memory.
    struct Unit {
        std::vector<NodeId> roots;  // a plain node: its one id
        bool loop = false;
        int n = 0;
    };
    std::vector<Unit> units;
    std::vector<int> unit_of(n, -1);
    std::vector<bool> stored_root(n, false);  // a loop root whose full buffer is written
    std::map<int, int> last_loop;  // loop length -> the last loop unit over that many values
    auto can_join = [&](int u, NodeId r) {
        const int len = units[u].n;
        std::vector<NodeId> steps = members[r];
        steps.push_back(r);
        for (NodeId m : steps) {
            for (int k = 0; k < g[m].arity(); ++k) {
                const NodeId x = g[m].in[k];
                if (internal[x] && root[x] == r)
                    continue;
                const NodeId xs = source[x];
                if (!g.is_variable(xs) || g[xs].op == Op::Zeta)
                    continue;
                if (unit_of[xs] >= 0 && unit_of[xs] < u)
                    continue;
                if (unit_of[xs] == u && x == xs && stored_root[xs] && reads_sliced(m, k, len)) {
                    continue;
                }
                return false;
            }
        }
        return true;
    };
    for (NodeId id = 0; id < n; ++id) {
        if (!computed(id) || internal[id])
            continue;
        if (!loop_root(id)) {
            unit_of[id] = static_cast<int>(units.size());
            units.push_back({{id}, false, 0});
            continue;
        }
        const int len = loop_length(id);
        auto same_n = last_loop.find(len);
        if (same_n != last_loop.end() && can_join(same_n->second, id)) {
            units[same_n->second].roots.push_back(id);
            unit_of[id] = same_n->second;
        } else {
            last_loop[len] = static_cast<int>(units.size());
            unit_of[id] = static_cast<int>(units.size());
            units.push_back({{id}, true, len});
        }
        stored_root[id] = g[id].op != Op::Sum && g[id].op != Op::ScatterAdd;
    }
    // The position at which a node's value is read: its unit's.
    auto position = [&](NodeId id) { return unit_of[internal[id] ? root[id] : id]; };

    // Last use of every buffer (outputs stay alive to the end); a read through an alias
    // is a read of its source.
    const int end_of_run = static_cast<int>(units.size());
    std::vector<int> last_use(n, -1);
    for (NodeId id = 0; id < n; ++id) {
        if (!computed(id))
            continue;
        for (int k = 0; k < g[id].arity(); ++k) {
            const NodeId in = source[g[id].in[k]];
            last_use[in] = std::max(last_use[in], position(id));
        }
    }
    for (const auto& o : g.outputs()) last_use[source[o.id]] = end_of_run;
    // Data-only nodes read by per-run nodes or outputs must survive between runs.
    std::vector<bool> kept(n, false);
    for (const auto& o : g.outputs()) kept[source[o.id]] = true;
    std::vector<bool> data_read(p.data_.size(), false), data_only_read(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id] || alias[id] || !g.is_variable(id))
            continue;
        for (int k = 0; k < g[id].arity(); ++k) {
            const NodeId in = source[g[id].in[k]];
            kept[in] = true;
            if (g[in].op == Op::Data && !data_read[g[in].index]) {
                data_read[g[in].index] = true;
                const auto& d = p.data_[g[in].index];
                p.data_bytes_per_run_ += static_cast<std::size_t>(d.shape.size()) *
                                         (d.dtype == DType::Int ? sizeof(int) : sizeof(double));
            } else if (computed(in) && !g.is_variable(in) && g[in].op != Op::Const &&
                       !data_only_read[in]) {
                // a value computed from data once (to_real of counts, lgamma(y + 1)) is
                // read like data
                data_only_read[in] = true;
                p.data_bytes_per_run_ +=
                    static_cast<std::size_t>(g[in].shape.size()) * sizeof(double);
            }
        }
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
            if (have > size)
                free_slots.emplace(have - size, off + size);  // keep the rest
            return off;
        }
        const auto off = static_cast<std::int64_t>(transient);
        transient += static_cast<std::size_t>(size);
        return off;
    };
    // A slot is freed once: steps of one loop can share an input whose last use is the
    // loop's position, and a second free would hand the slot out twice.
    std::vector<bool> released(n, false);
    auto release_inputs = [&](NodeId id, int at) {
        const Node& node = g[id];
        for (int k = 0; k < node.arity(); ++k) {
            const NodeId in = source[node.in[k]];
            if (!transient_slot[in] || last_use[in] != at || released[in])
                continue;
            released[in] = true;
            free_slots.emplace(g[in].shape.size(), refs[in].offset);
        }
    };
    std::size_t scratch = 0;
    auto make_instr = [&](NodeId id) {
        Instr ins;
        ins.kernel = op_info(g[id].op).kernel;
        if (const ScratchRule rule = op_info(g[id].op).scratch) {
            ins.scratch = true;
            scratch = std::max(scratch, static_cast<std::size_t>(rule(g, g[id])));
        }
        ins.id = id;
        ins.arity = g[id].arity();
        for (int k = 0; k < ins.arity; ++k) ins.in[k] = refs[g[id].in[k]];
        ins.out = refs[id];
        return ins;
    };
    auto step_access = [&](NodeId id) {
        switch (g[id].op) {
            case Op::RepCols:
                return Access::RepCols;
            case Op::RepRows:
                return Access::RepRows;
            case Op::Embed:
                return Access::Embed;
            case Op::Broadcast:
                return Access::Fill;
            case Op::MatVec:
                return Access::RowsMatVec;
            default:
                return Access::Kernel;
        }
    };
    // Refs of leaves and aliases (aliases follow their sources, which come first).
    for (NodeId id = 0; id < n; ++id) {
        if (!live[id])
            continue;
        const Node& node = g[id];
        Ref& r = refs[id];
        r.rows = node.shape.rows;
        r.cols = node.shape.cols;
        const int size = node.shape.size();
        if (alias[id])
            continue;
        switch (node.op) {
            case Op::Zeta:
                if (node.index < 0 || node.index + size > input_dim) {
                    throw InternalError(fmt::format("zeta slice {}:{} outside an input of {}",
                                                    node.index, node.index + size, input_dim));
                }
                r.src = Ref::Src::Input;
                r.offset = node.index;
                break;
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
                break;
            }
            case Op::Param:
                throw InternalError(fmt::format(
                    "param `{}` reached the compiler: constrain the graph first", g.label(id)));
            default:
                break;
        }
    }
    auto resolve_aliases_of = [&](NodeId src) {
        // Aliases read their source's slot at an offset; set once the source has one.
        for (NodeId id = src + 1; id < n; ++id) {
            if (!alias[id] || source[id] != src)
                continue;
            Ref& r = refs[id];
            const Node& node = g[id];
            r = refs[src];
            r.rows = node.shape.rows;
            r.cols = node.shape.cols;
            if (r.src == Ref::Src::Extern) {
                if (r.real != nullptr)
                    r.real += start[id];
                if (r.ints != nullptr)
                    r.ints += start[id];
            } else {
                r.offset += start[id];
            }
        }
    };
    for (NodeId id = 0; id < n; ++id) {
        if (live[id] && !computed(id) && !alias[id])
            resolve_aliases_of(id);
    }
    std::vector<bool> has_alias(n, false);
    for (NodeId id = 0; id < n; ++id) {
        if (alias[id])
            has_alias[source[id]] = true;
    }
    // A full buffer for a node: persistent for data-only values that runs read, else a
    // transient slot (the prologue never runs while per-run values are live, so its
    // scratch shares the per-run region).
    auto place = [&](NodeId id) {
        Ref& r = refs[id];
        const int size = g[id].shape.size();
        p.node_bytes_ += static_cast<std::size_t>(size) * sizeof(double);
        if (!g.is_variable(id) && kept[id]) {
            r.src = Ref::Src::Arena;
            r.offset = static_cast<std::int64_t>(persistent);
            persistent += static_cast<std::size_t>(size);
        } else {
            r.src = Ref::Src::Transient;
            r.offset = alloc_transient(size);
            transient_slot[id] = true;
        }
        if (has_alias[id])
            resolve_aliases_of(id);
    };

    // Data-only units first: the prologue runs before every run, so loops may read its
    // values wherever they are scheduled.
    std::vector<int> unit_order;
    for (int pass = 0; pass < 2; ++pass) {
        for (int u = 0; u < static_cast<int>(units.size()); ++u) {
            const bool once = !units[u].loop && !g.is_variable(units[u].roots.front());
            if (once == (pass == 0))
                unit_order.push_back(u);
        }
    }
    for (const int u : unit_order) {
        const Unit& unit = units[u];
        if (!unit.loop) {
            const NodeId id = unit.roots.front();
            const Node& node = g[id];
            place(id);
            const bool once = !g.is_variable(id);
            Instr ins = make_instr(id);
            if (!once) {
                // Long matrix products split over threads by columns.
                const Shape& a = g[node.in[0]].shape;
                const double flops = static_cast<double>(a.size()) *
                                     (node.arity() > 1 ? g[node.in[1]].shape.cols : 1);
                if (flops >= 2 * kMinFlopsPerPart) {
                    switch (node.op) {
                        case Op::MatMul:
                        case Op::MatTMul:
                        case Op::MatTVec:
                            ins.split = Split::OutCols;
                            break;
                        case Op::MatVec:
                        case Op::MatMulT:
                            ins.split = Split::InnerSum;
                            break;
                        default:
                            break;
                    }
                }
            }
            (once ? p.prologue_ : p.body_).push_back(ins);
            release_inputs(id, u);
            continue;
        }
        Group group;
        group.n = unit.n;
        group.block = std::min(kBlock, group.n);
        // A loop that reads row blocks of a matrix takes fewer rows per block, so that a
        // block of the widest matrix (read once for A v, again for A' r) stays in L2.
        for (NodeId r : unit.roots) {
            std::vector<NodeId> steps = members[r];
            steps.push_back(r);
            for (NodeId m : steps) {
                if (!reads_rows(m, 0))
                    continue;
                const int cols = g[g[m].in[0]].shape.cols;
                const int rows = std::clamp(kRowBlockDoubles / std::max(cols, 1), 32, kBlock);
                group.block = std::min(group.block, rows / 8 * 8);
                group.work += cols;
            }
        }
        // Full buffers first for every tree's root; members get block temporaries, reused
        // within the loop: a member's block is free once its one reader (a later step) has
        // been given its own.
        for (NodeId r : unit.roots) place(r);
        std::vector<std::int64_t> free_blocks;
        std::int64_t blocks = 0;
        std::vector<NodeId> order;
        for (NodeId r : unit.roots) {
            for (NodeId m : members[r]) {
                p.node_bytes_ += static_cast<std::size_t>(g[m].shape.size()) * sizeof(double);
                refs[m].src = Ref::Src::Block;
                refs[m].rows = g[m].shape.rows;
                refs[m].cols = g[m].shape.cols;
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
                    if (internal[in] && !repeated)
                        free_blocks.push_back(refs[in].offset);
                }
                order.push_back(m);
            }
            for (int k = 0; k < g[r].arity(); ++k) {  // the root frees its members' blocks
                const NodeId in = g[r].in[k];
                bool repeated = false;
                for (int j = 0; j < k; ++j) repeated = repeated || g[r].in[j] == in;
                if (internal[in] && !repeated)
                    free_blocks.push_back(refs[in].offset);
            }
            order.push_back(r);
        }
        block_doubles = std::max(block_doubles, static_cast<std::size_t>(blocks * group.block));
        for (NodeId m : order) {
            Instr st = make_instr(m);
            st.access = step_access(m);
            for (int k = 0; k < st.arity; ++k) {
                const NodeId in = g[m].in[k];
                st.kind[k] = internal[in]                  ? Kind::Temp
                             : reads_rows(m, k)            ? Kind::Rows
                             : g[in].shape.size() == 1     ? Kind::Scalar
                             : reads_sliced(m, k, group.n) ? Kind::Sliced
                                                           : Kind::Whole;
            }
            if (internal[m]) {
                st.role = Role::Temp;
            } else if (g[m].op == Op::Sum) {
                st.role = Role::Sum;
                st.slot = group.sums++;
            } else if (g[m].op == Op::ScatterAdd || g[m].op == Op::MatTVec) {
                st.role = g[m].op == Op::ScatterAdd ? Role::ScatterAdd : Role::RowsTVec;
                st.slot = group.scatter_doubles;
                group.scatter_doubles += g[m].shape.size();
            } else {
                st.role = Role::Store;
            }
            group.steps.push_back(st);
        }
        Instr ins = make_instr(unit.roots.front());
        ins.kernel = nullptr;
        ins.group = static_cast<int>(p.groups_.size());
        p.groups_.push_back(std::move(group));
        p.body_.push_back(ins);
        for (NodeId m : order) release_inputs(m, u);
    }

    p.persistent_ = persistent;
    p.transient_ = transient;
    p.block_doubles_ = block_doubles;
    p.scratch_doubles_ = scratch;

    for (const auto& o : g.outputs()) {
        if (o.name == "lp") {
            if (!g[o.id].shape.is_scalar())
                throw InternalError("output lp is not a scalar");
            p.lp_ = refs[o.id];
            p.has_lp_ = true;
        } else if (o.offset >= 0) {
            if (o.offset + g[o.id].shape.size() > output_dim) {
                throw InternalError(
                    fmt::format("output `{}` does not fit in {} values", o.name, output_dim));
            }
            p.outputs_.push_back({o.name, refs[o.id], o.offset});
        }
    }
    p.bind();
    return p;
}

int Program::effective_threads() const {
    return threads_ > 0 ? threads_ : ThreadPool::hardware_threads();
}

void Program::set_threads(int threads) {
    threads_ = std::max(threads, 0);
    bind();
}

void Program::bind() {
    const int t = effective_threads();
    pool_ = t > 1 ? &ThreadPool::shared(t) : nullptr;
    partial_doubles_ = 0;
    for (auto& gr : groups_) {
        const int blocks = (gr.n + gr.block - 1) / gr.block;
        const int parts = std::clamp(
            static_cast<int>(static_cast<std::int64_t>(gr.n) * gr.work / kMinValuesPerPart), 1, t);
        gr.blocks_per_part = (blocks + parts - 1) / parts;
        gr.parts = (blocks + gr.blocks_per_part - 1) / gr.blocks_per_part;
        if (gr.parts > 1) {
            partial_doubles_ =
                std::max(partial_doubles_, static_cast<std::size_t>(gr.scatter_doubles));
        }
        sums_per_part_ = std::max(sums_per_part_, static_cast<std::size_t>(gr.sums));
    }
    for (const auto& ins : body_) {
        if (ins.split == Split::InnerSum) {
            partial_doubles_ =
                std::max(partial_doubles_, static_cast<std::size_t>(ins.out.rows) * ins.out.cols);
        }
    }
    if (t == 1)
        partial_doubles_ = 0;
    input_base_ = persistent_ + transient_;
    block_base_ = input_base_ + static_cast<std::size_t>(input_dim_);
    partial_base_ = block_base_ + block_doubles_ * t;
    sums_base_ = partial_base_ + partial_doubles_ * (t - 1);
    scratch_base_ = sums_base_ + sums_per_part_ * t;
    // Refused before allocating: one arena holds every node's value of one evaluation.
    require_memory("the compiled program (the values of one evaluation of its nodes)",
                   static_cast<std::int64_t>(scratch_base_ + scratch_doubles_));
    arena_.assign(scratch_base_ + scratch_doubles_, 0.0);
    for (auto& ins : prologue_) bind_instr(ins);
    for (auto& ins : body_) bind_instr(ins);
    for (auto& gr : groups_)
        for (auto& st : gr.steps) bind_instr(st);
    reload_data();
}

void Program::bind_instr(Instr& ins) {
    KernelArgs& a = ins.args;
    for (int k = 0; k < ins.arity; ++k) a.in[k] = view(ins.in[k]);
    a.out = ins.out.src == Ref::Src::Block ? nullptr : out_ptr(ins.out);
    a.out_rows = ins.out.rows;
    a.out_cols = ins.out.cols;
    a.node = &nodes_[ins.id];
    a.scratch = ins.scratch ? arena_.data() + scratch_base_ : nullptr;
    // A scalar elementwise op on real scalars runs its scalar function directly: models
    // with many scalar parameters (hyperpriors, transforms) run chains of these, where the
    // kernel's size and broadcasting logic would cost more than the arithmetic.
    ins.scalar = nullptr;
    const OpInfo& info = op_info(nodes_[ins.id].op);
    if (info.elementwise && info.fold != nullptr && ins.arity >= 1 && ins.arity <= 2 &&
        a.out_size() == 1 && ins.out.src != Ref::Src::Block && nodes_[ins.id].op != Op::ToReal) {
        bool reals = true;
        for (int k = 0; k < ins.arity; ++k)
            reals = reals && a.in[k].x != nullptr && a.in[k].i == nullptr && a.in[k].size() == 1;
        if (reals)
            ins.scalar = info.fold;
    }
}

View Program::view(const Ref& r) const {
    View v;
    v.rows = r.rows;
    v.cols = r.cols;
    double* base = const_cast<double*>(arena_.data());
    switch (r.src) {
        case Ref::Src::Arena:
            v.x = base + r.offset;
            break;
        case Ref::Src::Transient:
            v.x = base + persistent_ + r.offset;
            break;
        case Ref::Src::Input:
            v.x = base + input_base_ + r.offset;
            break;
        case Ref::Src::Extern:
            v.x = r.real;
            v.i = r.ints;
            break;
        case Ref::Src::Block:  // per thread: resolved when the group runs
        case Ref::Src::None:
            break;
    }
    return v;
}

double* Program::out_ptr(const Ref& r) {
    switch (r.src) {
        case Ref::Src::Arena:
            return arena_.data() + r.offset;
        case Ref::Src::Transient:
            return arena_.data() + persistent_ + r.offset;
        default:
            break;
    }
    throw InternalError("an instruction writes outside the arena");
}

namespace {
struct GroupContext {
    Program* program;
    const void* group;
};
struct SplitContext {
    Program* program;
    const void* ins;
    int parts;
};
}  // namespace

void Program::group_task(void* context, int part) {
    auto* c = static_cast<GroupContext*>(context);
    c->program->exec_group(*static_cast<const Group*>(c->group), part);
}

void Program::split_task(void* context, int part) {
    auto* c = static_cast<SplitContext*>(context);
    Program& p = *c->program;
    const Instr& ins = *static_cast<const Instr*>(c->ins);
    KernelArgs a = ins.args;
    // Column range of this part: in1's columns (products by output columns), or the
    // inner columns shared by in0 and in1 (in1's rows for a matrix-vector product).
    auto range = [&](int cols, int& c0, int& c1) {
        c0 = static_cast<int>(static_cast<std::int64_t>(cols) * part / c->parts);
        c1 = static_cast<int>(static_cast<std::int64_t>(cols) * (part + 1) / c->parts);
    };
    int c0 = 0;
    int c1 = 0;
    switch (p.nodes_[ins.id].op) {
        case Op::MatMul:
        case Op::MatTMul:
            range(a.in[1].cols, c0, c1);
            a.in[1].x += static_cast<std::int64_t>(c0) * a.in[1].rows;
            a.in[1].cols = c1 - c0;
            a.out += static_cast<std::int64_t>(c0) * a.out_rows;
            a.out_cols = c1 - c0;
            break;
        case Op::MatTVec:
            range(a.in[0].cols, c0, c1);
            a.in[0].x += static_cast<std::int64_t>(c0) * a.in[0].rows;
            a.in[0].cols = c1 - c0;
            a.out += c0;
            a.out_rows = c1 - c0;
            break;
        case Op::MatVec:
            range(a.in[0].cols, c0, c1);
            a.in[0].x += static_cast<std::int64_t>(c0) * a.in[0].rows;
            a.in[0].cols = c1 - c0;
            a.in[1].x += c0;
            a.in[1].rows = c1 - c0;
            if (part > 0)
                a.out = p.arena_.data() + p.partial_base_ + (part - 1) * p.partial_doubles_;
            break;
        case Op::MatMulT:
            range(a.in[0].cols, c0, c1);
            a.in[0].x += static_cast<std::int64_t>(c0) * a.in[0].rows;
            a.in[0].cols = c1 - c0;
            a.in[1].x += static_cast<std::int64_t>(c0) * a.in[1].rows;
            a.in[1].cols = c1 - c0;
            if (part > 0)
                a.out = p.arena_.data() + p.partial_base_ + (part - 1) * p.partial_doubles_;
            break;
        default:
            throw InternalError("split of an op that does not split");
    }
    ins.kernel(a);
}

void Program::exec_plain(const Instr& ins) {
    const int t = pool_ != nullptr ? pool_->size() : 1;
    if (ins.split == Split::None || t == 1) {
        ins.kernel(ins.args);
        return;
    }
    const View& a0 = ins.args.in[0];
    const View& a1 = ins.args.in[1];
    const int cols =
        (ins.split == Split::OutCols && a0.cols != 1 && nodes_[ins.id].op != Op::MatTVec) ? a1.cols
                                                                                          : a0.cols;
    const double flops = static_cast<double>(a0.size()) * (ins.arity > 1 ? a1.cols : 1);
    const int parts = std::clamp(static_cast<int>(flops / kMinFlopsPerPart), 1, std::min(t, cols));
    if (parts == 1) {
        ins.kernel(ins.args);
        return;
    }
    SplitContext c{this, &ins, parts};
    pool_->run(parts, &Program::split_task, &c);
    if (ins.split == Split::InnerSum) {
        const int size = ins.args.out_size();
        double* out = ins.args.out;
        for (int part = 1; part < parts; ++part) {
            const double* partial = arena_.data() + partial_base_ + (part - 1) * partial_doubles_;
            for (int i = 0; i < size; ++i) out[i] += partial[i];
        }
    }
}

void Program::exec(std::vector<Instr>& code) {
    for (const Instr& ins : code) {
        if (ins.scalar != nullptr) {
            const KernelArgs& a = ins.args;
            a.out[0] = ins.scalar(a.in[0].x[0], ins.arity > 1 ? a.in[1].x[0] : 0.0);
            continue;
        }
        if (ins.group < 0) {
            exec_plain(ins);
            continue;
        }
        const Group& gr = groups_[ins.group];
        const int parts = pool_ != nullptr ? gr.parts : 1;
        if (parts == 1) {
            exec_group(gr, 0);
        } else {
            GroupContext c{this, &gr};
            pool_->run(parts, &Program::group_task, &c);
        }
        // Partial results combine in part order: the same bits for the same partition.
        for (const Instr& st : gr.steps) {
            if (st.role == Role::Sum) {
                double total = 0.0;
                for (int part = 0; part < parts; ++part) {
                    total += arena_[sums_base_ + part * sums_per_part_ + st.slot];
                }
                st.args.out[0] = total;
            } else if (st.role == Role::ScatterAdd || st.role == Role::RowsTVec) {
                const int size = st.args.out_size();
                for (int part = 1; part < parts; ++part) {
                    const double* partial =
                        arena_.data() + partial_base_ + (part - 1) * partial_doubles_ + st.slot;
                    for (int i = 0; i < size; ++i) st.args.out[i] += partial[i];
                }
            }
        }
    }
}

void Program::exec_group(const Group& group, int part) {
    // Every step sees the block [b, b + len) of its full-size operands; scalars and whole
    // operands as they are; intermediates live in this thread's kBlock-sized temporaries.
    const int span = group.blocks_per_part * group.block;
    const int begin = part * span;
    const int end = std::min(group.n, begin + span);
    double* temps = arena_.data() + block_base_ + part * block_doubles_;
    double* sums = arena_.data() + sums_base_ + part * sums_per_part_;
    double* partials =
        part > 0 ? arena_.data() + partial_base_ + (part - 1) * partial_doubles_ : nullptr;
    for (const Instr& st : group.steps) {
        if (st.role == Role::Sum)
            sums[st.slot] = 0.0;
        if (st.role == Role::ScatterAdd || st.role == Role::RowsTVec) {
            double* target = part == 0 ? st.args.out : partials + st.slot;
            std::fill(target, target + st.args.out_size(), 0.0);
        }
    }
    for (int b = begin; b < end; b += group.block) {
        const int len = std::min(group.block, end - b);
        for (const Instr& st : group.steps) {
            KernelArgs a = st.args;
            for (int k = 0; k < st.arity; ++k) {
                View& v = a.in[k];
                switch (st.kind[k]) {
                    case Kind::Scalar:
                    case Kind::Whole:
                        break;
                    case Kind::Sliced:
                        if (v.x != nullptr)
                            v.x += b;
                        if (v.i != nullptr)
                            v.i += b;
                        v.rows = len;
                        v.cols = 1;
                        break;
                    case Kind::Temp:
                        v.x = temps + st.in[k].offset;
                        v.rows = len;
                        v.cols = 1;
                        break;
                    case Kind::Rows:
                        v.x += b;
                        break;  // rows [b, b + len), stride v.rows
                }
            }
            switch (st.role) {
                case Role::Sum: {
                    double partial = 0.0;
                    a.out = &partial;
                    a.out_rows = a.out_cols = 1;
                    st.kernel(a);
                    sums[st.slot] += partial;
                    continue;
                }
                case Role::ScatterAdd: {
                    const int size = st.args.out_size();
                    double* target = part == 0 ? st.args.out : partials + st.slot;
                    const double* u = a.in[0].x;
                    const int* idx = a.in[1].i;
                    for (int t = 0; t < len; ++t) {
                        const int j = idx[t];
                        if (j < 0 || j >= size) {
                            throw DataError(fmt::format("index {} at position {} is outside 0..{}",
                                                        j, b + t, size - 1));
                        }
                        target[j] += u[t];
                    }
                    continue;
                }
                case Role::RowsTVec: {  // target += A(b:b+len, :)' r(b:b+len)
                    const View& A = a.in[0];
                    Eigen::Map<Eigen::VectorXd> target(part == 0 ? st.args.out : partials + st.slot,
                                                       A.cols);
                    target.noalias() +=
                        RowBlock(A.x, len, A.cols, Eigen::OuterStride<>(A.rows)).transpose() *
                        Eigen::Map<const Eigen::VectorXd>(a.in[1].x, len);
                    continue;
                }
                case Role::Temp:
                    a.out = temps + st.out.offset;
                    break;
                case Role::Store:
                    a.out = st.args.out + b;
                    break;
            }
            a.out_rows = len;
            a.out_cols = 1;
            double* out = a.out;
            const double* v = a.in[0].x;
            switch (st.access) {
                case Access::Kernel:
                    st.kernel(a);
                    break;
                case Access::RepCols: {
                    const int rows = st.args.out_rows;  // out(i, j) = v(i)
                    int i = b % rows;
                    for (int t = 0; t < len; ++t) {
                        out[t] = v[i];
                        if (++i == rows)
                            i = 0;
                    }
                    break;
                }
                case Access::RepRows: {
                    const int rows = st.args.out_rows;  // out(i, j) = v(j)
                    int i = b % rows;
                    int j = b / rows;
                    for (int t = 0; t < len; ++t) {
                        out[t] = v[j];
                        if (++i == rows) {
                            i = 0;
                            ++j;
                        }
                    }
                    break;
                }
                case Access::Embed: {
                    const Node& node = nodes_[st.id];
                    const std::int64_t s =
                        node.index + node.aux * static_cast<std::int64_t>(node.shape.rows);
                    const std::int64_t m = st.args.in[0].size();
                    for (int t = 0; t < len; ++t) {
                        const std::int64_t at = b + t - s;
                        out[t] = at >= 0 && at < m ? v[at] : 0.0;
                    }
                    break;
                }
                case Access::Fill:
                    std::fill(out, out + len, v[0]);
                    break;
                case Access::RowsMatVec: {  // out = A(b:b+len, :) x
                    const View& A = a.in[0];
                    Eigen::Map<Eigen::VectorXd>(out, len).noalias() =
                        RowBlock(A.x, len, A.cols, Eigen::OuterStride<>(A.rows)) *
                        Eigen::Map<const Eigen::VectorXd>(a.in[1].x, A.cols);
                    break;
                }
            }
        }
    }
}

void Program::reload_data() {
    for (const Instr& ins : prologue_) ins.kernel(ins.args);
}

double Program::run(const Eigen::VectorXd& zeta, Eigen::VectorXd& out) {
    if (zeta.size() != input_dim_) {
        throw DataError(fmt::format("program input: expected {} unconstrained values, got {}",
                                    input_dim_, zeta.size()));
    }
    if (out.size() != output_dim_)
        out.resize(output_dim_);
    if (input_dim_ > 0)
        std::memcpy(arena_.data() + input_base_, zeta.data(), sizeof(double) * input_dim_);
    exec(body_);
    out.setZero();
    for (const OutputCopy& o : outputs_) {
        const View v = view(o.from);
        std::copy(v.x, v.x + v.size(), out.data() + o.offset);
    }
    return has_lp_ ? view(lp_).x[0] : 0.0;
}

std::string Program::ref_str(const Ref& r) const {
    switch (r.src) {
        case Ref::Src::Arena:
            return fmt::format("@{}", r.offset);
        case Ref::Src::Transient:
            return fmt::format("@{}", persistent_ + r.offset);
        case Ref::Src::Block:
            return fmt::format("block+{}", r.offset);
        case Ref::Src::Input:
            return fmt::format("zeta[{}]", r.offset);
        case Ref::Src::Extern:
            return "data";
        case Ref::Src::None:
            break;
    }
    return "?";
}

std::string Program::str() const {
    const int t = pool_ != nullptr ? pool_->size() : 1;
    std::string s = fmt::format(
        "program: {} instructions per run ({} fused groups), {} once per data; arena {} doubles "
        "({} bytes, {} persistent) for {} bytes of node values; {} thread{}\n",
        body_.size(), groups_.size(), prologue_.size(), arena_.size(), arena_bytes(), persistent_,
        node_bytes_, t, t == 1 ? "" : "s");
    auto line = [&](const Instr& ins, const char* note) {
        const Node& n = nodes_[ins.id];
        std::string rhs(op_name(n.op));
        if (n.op == Op::Const)
            rhs += fmt::format(" {}", n.value);
        for (int k = 0; k < ins.arity; ++k) {
            const NodeId in = n.in[k];
            rhs += fmt::format(" %{}", in);
            if (!labels_[in].empty())
                rhs += fmt::format("({})", labels_[in]);
        }
        return fmt::format("  {:>8} %{} {} = {}{}\n", ref_str(ins.out), ins.id, n.shape.str(), rhs,
                           note);
    };
    s += "once per data:\n";
    for (const auto& ins : prologue_) s += line(ins, "");
    s += "every run:\n";
    for (const auto& ins : body_) {
        if (ins.group < 0) {
            s += line(ins, ins.split == Split::None      ? ""
                           : ins.split == Split::OutCols ? "  [split by columns]"
                                                         : "  [split, partial sums]");
            continue;
        }
        // A fused group prints its steps, indented, under a header with its length.
        const Group& gr = groups_[ins.group];
        s += fmt::format("  loop over {} values in blocks of {}{}:\n", gr.n, gr.block,
                         gr.parts > 1 && t > 1 ? fmt::format(", {} parts", gr.parts) : "");
        for (const auto& st : gr.steps) {
            s += "  " + line(st, st.role == Role::Sum              ? "  (summed)"
                                 : st.role == Role::ScatterAdd     ? "  (scatter-added)"
                                 : st.role == Role::RowsTVec       ? "  (row blocks accumulated)"
                                 : st.access == Access::RowsMatVec ? "  (by row blocks)"
                                                                   : "");
        }
    }
    s += "outputs:\n";
    if (has_lp_)
        s += fmt::format("  lp <- {}\n", ref_str(lp_));
    for (const auto& o : outputs_) {
        s += fmt::format("  out[{}:{}] <- {} ({})\n", o.offset,
                         o.offset + o.from.rows * o.from.cols, ref_str(o.from), o.name);
    }
    return s;
}

}  // namespace advi
