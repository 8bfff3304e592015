// The Program: compile() as the list of the compiler's passes (aliases, loops, schedule,
// liveness, slots, emit: one file pair each), and the running of the emitted instructions
// (plain, split over threads, or loops run block by block).
#include <advi/compile/program.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>

#include <advi/compile/aliases.hpp>
#include <advi/compile/dump.hpp>
#include <advi/compile/emit.hpp>
#include <advi/compile/kernel_guard.hpp>
#include <advi/compile/liveness.hpp>
#include <advi/compile/loops.hpp>
#include <advi/compile/repeats.hpp>
#include <advi/compile/schedule.hpp>
#include <advi/compile/slots.hpp>
#include <advi/compile/thread_pool.hpp>

namespace advi {

namespace {

// Splits the values [b, b + len) of a column-major matrix of `rows` rows into runs that read
// (or write) contiguous values of a smaller source: value (i, j) of the matrix is value
// (i mod tile, j) of a source of `tile` rows (rows a multiple of tile). f(t, n, i, j) gets
// each run: block positions [t, t + n), matrix rows [i, i + n) of column j. Copies, fills
// and sums then run over whole runs (vectorised) instead of one value at a time.
template <class F>
void for_each_run(std::int64_t b, int len, int rows, int tile, F&& f) {
    int i = static_cast<int>(b % rows);
    std::int64_t j = b / rows;
    int p = i % tile;  // runs end on tile boundaries, so after the first p is 0
    for (int t = 0; t < len;) {
        const int n = std::min(len - t, tile - p);
        f(t, n, i, j);
        t += n;
        i += n;
        p = 0;
        if (i == rows) {
            i = 0;
            ++j;
        }
    }
}

// The sum of n values, in four interleaved partial sums (fixed by position, not by address:
// the same bits whichever thread's buffer holds them), so that additions do not wait on each
// other.
double sum_run(const double* u, int n) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int t = 0;
    for (; t + 4 <= n; t += 4) {
        s0 += u[t];
        s1 += u[t + 1];
        s2 += u[t + 2];
        s3 += u[t + 3];
    }
    for (; t < n; ++t) s0 += u[t];
    return (s0 + s1) + (s2 + s3);
}

// A loop over fewer values than this per part runs as one part: below it, waking a worker
// costs more than the work.
constexpr int kMinValuesPerPart = 16384;
// The most parts of one loop or product (so one loop keeps at most this many threads busy):
// each part costs its partial results' memory and their addition.
constexpr int kMaxParts = 16;
// Adding the parts' partial results (scatter-adds, A' r, partial products) costs at most
// this share of the work itself (writing them costs about as much again).
constexpr double kCombineShare = 1.0 / 64;
// A product split by output columns gives each part at least this many columns: every part
// packs (copies) the whole left operand again, one value per multiply-add of a column, so
// this bounds the copying to 1/32 of the work (1 thread runs every part too).
constexpr int kMinColsPerPart = 32;

// How many parts a loop or a product splits into: from its sizes only, never from the
// thread count, so that every partial result, and their sum in part order, has the same bits
// on any number of threads (1 thread runs the same parts one after another). `work`:
// operations; `most`: parts the shape allows; `partial_doubles`: one part's partial results
// to be added (0: parts write disjoint outputs). A power of two, so that common thread counts
// share the parts evenly.
int part_count(double work, double min_work_per_part, int most, double partial_doubles) {
    double parts = work / min_work_per_part;
    if (partial_doubles > 0)
        parts = std::min(parts, 1 + work * kCombineShare / partial_doubles);
    parts = std::min({parts, static_cast<double>(kMaxParts), static_cast<double>(most)});
    int p = 1;
    while (2 * p <= parts) p *= 2;
    return p;
}
// Rows [b, b + len) of a column-major matrix, in place.
using RowBlock = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

// ADVI_DUMP's header for a pass, then its listing.
template <class Pass>
void show(bool dump, std::string_view name, const Pass& pass) {
    if (dump && dump_wanted(name))
        std::cerr << "# after " << name << "\n" << pass.str();
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

// The compiler: a straight list of passes, each a value printed for ADVI_DUMP.
Program Program::compile(const Graph& g, std::vector<DataSlot> data, int input_dim, int output_dim,
                         int threads, bool dump) {
    // Each long repeat's reader gets its own copy (read in runs, not stored); the passes then
    // run on that graph, which is `g` itself where no repeat is shared.
    const Graph copied = repeats_per_reader(g);
    show(dump, "repeats", copied);
    const Aliases aliases = find_aliases(copied);
    show(dump, "aliases", aliases);
    const Loops loops = fuse_loops(aliases);
    show(dump, "loops", loops);
    const Schedule units = schedule(loops);
    show(dump, "schedule", units);
    const Liveness live = liveness(units);
    show(dump, "liveness", live);
    const Slots slots = assign_slots(live, data, input_dim);
    show(dump, "slots", slots);
    return emit(slots, std::move(data), input_dim, output_dim, threads);
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
    sums_per_part_ = 0;
    int sum_parts = 1;
    for (auto& gr : groups_) {
        const int blocks = gr.block > 0 ? (gr.n + gr.block - 1) / gr.block : 0;
        const int parts = part_count(static_cast<double>(gr.n) * gr.work, kMinValuesPerPart, blocks,
                                     static_cast<double>(gr.scatter_doubles));
        // a loop over no values (a size-0 vector) is one part of no blocks
        gr.blocks_per_part = std::max(1, (blocks + parts - 1) / parts);
        gr.parts = std::max(1, (blocks + gr.blocks_per_part - 1) / gr.blocks_per_part);
        partial_doubles_ =
            std::max(partial_doubles_, static_cast<std::size_t>(gr.parts - 1) *
                                           static_cast<std::size_t>(gr.scatter_doubles));
        sums_per_part_ = std::max(sums_per_part_, static_cast<std::size_t>(gr.sums));
        sum_parts = std::max(sum_parts, gr.parts);
    }
    for (auto& ins : body_) {
        ins.parts = 1;
        if (ins.split == ThreadSplit::None)
            continue;
        // The operands' shapes as the kernel sees them (as bound views).
        const Ref& a0 = ins.in[0];
        const Ref& a1 = ins.in[ins.arity > 1 ? 1 : 0];
        // Multiply-adds: A B and A' B read each of A's values once per column of B; A B'
        // once per row of B; A x and A' x once.
        const int per_value = ins.arity < 2                         ? 1
                              : ins.split == ThreadSplit::InnerSumT ? a1.rows
                                                                    : a1.cols;
        const double flops = static_cast<double>(a0.rows) * a0.cols * per_value;
        const bool out_cols = ins.split == ThreadSplit::OutCols && a0.cols != 1;
        const int most = out_cols ? a1.cols / kMinColsPerPart : a0.cols;
        const bool partial_sums =
            ins.split == ThreadSplit::InnerSum || ins.split == ThreadSplit::InnerSumT;
        const auto out_size = static_cast<std::size_t>(ins.out.rows) * ins.out.cols;
        ins.parts = part_count(flops, kMinFlopsPerPart, most,
                               partial_sums ? static_cast<double>(out_size) : 0.0);
        if (partial_sums)
            partial_doubles_ = std::max(partial_doubles_, (ins.parts - 1) * out_size);
    }
    input_base_ = persistent_ + transient_;
    block_base_ = input_base_ + static_cast<std::size_t>(input_dim_);
    partial_base_ = block_base_ + block_doubles_ * t;
    sums_base_ = partial_base_ + partial_doubles_;
    scratch_base_ = sums_base_ + sums_per_part_ * sum_parts;
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
    // kernel's size and broadcasting logic would cost more than the arithmetic. (Integer
    // data, which to_real reads, has no real view and takes the kernel.)
    ins.scalar = nullptr;
    const OpInfo& info = op_info(nodes_[ins.id].op);
    if (info.elementwise && info.fold != nullptr && ins.arity >= 1 && ins.arity <= 2 &&
        a.out_size() == 1 && ins.out.src != Ref::Src::Block) {
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
        case Ref::Src::Arena: v.x = base + r.offset; break;
        case Ref::Src::Transient: v.x = base + persistent_ + r.offset; break;
        case Ref::Src::Input: v.x = base + input_base_ + r.offset; break;
        case Ref::Src::Extern:
            v.x = r.real;
            v.i = r.ints;
            break;
        case Ref::Src::Block:  // per thread: resolved when the group runs
        case Ref::Src::None: break;
    }
    return v;
}

double* Program::out_ptr(const Ref& r) {
    switch (r.src) {
        case Ref::Src::Arena: return arena_.data() + r.offset;
        case Ref::Src::Transient: return arena_.data() + persistent_ + r.offset;
        default: break;
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
};
}  // namespace

void Program::group_task(void* context, int part, int thread) {
    auto* c = static_cast<GroupContext*>(context);
    c->program->exec_group(*static_cast<const Group*>(c->group), part, thread);
}

void Program::split_task(void* context, int part, int /*thread*/) {
    auto* c = static_cast<SplitContext*>(context);
    Program& p = *c->program;
    const Instr& ins = *static_cast<const Instr*>(c->ins);
    KernelArgs a = ins.args;
    // Column range of this part: in1's columns (products by output columns), or the
    // inner columns shared by in0 and in1 (in1's rows for a matrix-vector product).
    auto range = [&](int cols, int& c0, int& c1) {
        c0 = static_cast<int>(static_cast<std::int64_t>(cols) * part / ins.parts);
        c1 = static_cast<int>(static_cast<std::int64_t>(cols) * (part + 1) / ins.parts);
    };
    // Parts after the first write their partial products to slots of their own.
    double* partial =
        p.arena_.data() + p.partial_base_ + static_cast<std::int64_t>(part - 1) * a.out_size();
    int c0 = 0;
    int c1 = 0;
    switch (ins.split) {
        case ThreadSplit::OutCols:
            range(a.in[1].cols, c0, c1);
            a.in[1].x += static_cast<std::int64_t>(c0) * a.in[1].rows;
            a.in[1].cols = c1 - c0;
            a.out += static_cast<std::int64_t>(c0) * a.out_rows;
            a.out_cols = c1 - c0;
            break;
        case ThreadSplit::OutRows:
            range(a.in[0].cols, c0, c1);
            a.in[0].x += static_cast<std::int64_t>(c0) * a.in[0].rows;
            a.in[0].cols = c1 - c0;
            a.out += c0;
            a.out_rows = c1 - c0;
            break;
        case ThreadSplit::InnerSum:
            range(a.in[0].cols, c0, c1);
            a.in[0].x += static_cast<std::int64_t>(c0) * a.in[0].rows;
            a.in[0].cols = c1 - c0;
            a.in[1].x += c0;
            a.in[1].rows = c1 - c0;
            if (part > 0)
                a.out = partial;
            break;
        case ThreadSplit::InnerSumT:
            range(a.in[0].cols, c0, c1);
            a.in[0].x += static_cast<std::int64_t>(c0) * a.in[0].rows;
            a.in[0].cols = c1 - c0;
            a.in[1].x += static_cast<std::int64_t>(c0) * a.in[1].rows;
            a.in[1].cols = c1 - c0;
            if (part > 0)
                a.out = partial;
            break;
        case ThreadSplit::None: throw InternalError("split of an op that does not split");
    }
    run_kernel(ins.kernel, a);
}

void Program::run_parts(int parts, ThreadPool::Task task, void* context) {
    if (pool_ != nullptr) {
        pool_->run(parts, task, context);
        return;
    }
    for (int part = 0; part < parts; ++part) task(context, part, 0);
}

void Program::exec_plain(const Instr& ins) {
    if (ins.parts == 1) {
        run_kernel(ins.kernel, ins.args);
        return;
    }
    SplitContext c{this, &ins};
    run_parts(ins.parts, &Program::split_task, &c);
    if (ins.split == ThreadSplit::InnerSum || ins.split == ThreadSplit::InnerSumT) {
        // In part order: the same sums whichever thread computed which part.
        const int size = ins.args.out_size();
        double* out = ins.args.out;
        for (int part = 1; part < ins.parts; ++part) {
            const double* partial =
                arena_.data() + partial_base_ + static_cast<std::int64_t>(part - 1) * size;
            for (int i = 0; i < size; ++i) out[i] += partial[i];
        }
    }
}

void Program::exec(std::vector<Instr>& code) {
    for (const Instr& ins : code) {
        if (ins.scalar != nullptr) {
            const KernelArgs& a = ins.args;
            guarded(a.out, 1, [&] {
                a.out[0] = ins.scalar(a.in[0].x[0], ins.arity > 1 ? a.in[1].x[0] : 0.0);
            });
            continue;
        }
        if (ins.group < 0) {
            exec_plain(ins);
            continue;
        }
        const Group& gr = groups_[ins.group];
        const int parts = gr.parts;
        if (parts == 1) {
            exec_group(gr, 0, 0);
        } else {
            GroupContext c{this, &gr};
            run_parts(parts, &Program::group_task, &c);
        }
        // Partial results combine in part order: the same bits for the same partition,
        // which depends on the loop's sizes only.
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
                        arena_.data() + partial_base_ + (part - 1) * gr.scatter_doubles + st.slot;
                    for (int i = 0; i < size; ++i) st.args.out[i] += partial[i];
                }
            }
        }
    }
}

void Program::run_by_repeat_runs(const Instr& st, const KernelArgs& block, int b, int len,
                                 double* temps) const {
    // The block splits where the repeated operand's run changes: within a run, rep_cols reads
    // consecutive values of its input and rep_rows one value (a scalar to the kernel).
    double* out = st.role == Role::Temp ? temps + st.out.offset : st.args.out + b;
    for_each_run(b, len, st.rep_rows, st.rep_rows, [&](int t, int n, int i, std::int64_t j) {
        KernelArgs a = block;
        for (int k = 0; k < st.arity; ++k) {
            View& v = a.in[k];
            switch (st.kind[k]) {
                case Kind::Sliced:
                case Kind::Temp:
                    if (v.x != nullptr)
                        v.x += t;
                    if (v.i != nullptr)
                        v.i += t;
                    v.rows = n;
                    break;
                case Kind::RepCols:
                    v.x = st.args.in[k].x + i;
                    v.rows = n;
                    v.cols = 1;
                    break;
                case Kind::RepRows:
                    v.x = st.args.in[k].x + j;
                    v.rows = v.cols = 1;
                    break;
                case Kind::Scalar:
                case Kind::Whole:
                case Kind::Rows: break;
            }
        }
        a.out = out + t;
        a.out_rows = n;
        a.out_cols = 1;
        run_kernel(st.kernel, a);
    });
}

void Program::exec_group(const Group& group, int part, int thread) {
    // Every step sees the block [b, b + len) of its full-size operands; scalars and whole
    // operands as they are; intermediates live in this thread's block-sized temporaries
    // (written before they are read within a block, so which thread runs a part is
    // invisible); sums and accumulations go to this part's own slots.
    const int span = group.blocks_per_part * group.block;
    const int begin = part * span;
    const int end = std::min(group.n, begin + span);
    double* temps = arena_.data() + block_base_ + thread * block_doubles_;
    double* sums = arena_.data() + sums_base_ + part * sums_per_part_;
    double* partials =
        part > 0 ? arena_.data() + partial_base_ + (part - 1) * group.scatter_doubles : nullptr;
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
                    case Kind::Whole: break;
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
                    case Kind::Rows: v.x += b; break;  // rows [b, b + len), stride v.rows
                    case Kind::RepCols:
                    case Kind::RepRows: break;  // by runs, below
                }
            }
            if (st.rep_rows > 0) {
                run_by_repeat_runs(st, a, b, len, temps);
                continue;
            }
            switch (st.role) {
                case Role::InPlace: continue;
                case Role::Sum: {
                    double partial = 0.0;
                    a.out = &partial;
                    a.out_rows = a.out_cols = 1;
                    run_kernel(st.kernel, a);
                    sums[st.slot] += partial;
                    continue;
                }
                case Role::ScatterAdd: {
                    const int size = st.args.out_size();
                    double* target = part == 0 ? st.args.out : partials + st.slot;
                    const double* u = a.in[0].x;
                    if (st.form == LoopForm::RowSums) {  // target(i) += u(i, j)
                        for_each_run(b, len, size, size, [&](int t, int n, int i, std::int64_t) {
                            for (int r = 0; r < n; ++r) target[i + r] += u[t + r];
                        });
                        continue;
                    }
                    if (st.form == LoopForm::ColSums) {  // target(j) += u(i, j)
                        const int rows = st.args.in[0].rows;
                        for_each_run(b, len, rows, rows, [&](int t, int n, int, std::int64_t j) {
                            target[j] += sum_run(u + t, n);
                        });
                        continue;
                    }
                    if (st.form == LoopForm::TileSum) {  // target(i mod tile, j) += u(i, j)
                        const int tile = st.args.out_rows;
                        for_each_run(b, len, st.args.in[0].rows, tile,
                                     [&](int t, int n, int i, std::int64_t j) {
                                         double* to = target + j * tile + i % tile;
                                         for (int r = 0; r < n; ++r) to[r] += u[t + r];
                                     });
                        continue;
                    }
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
                case Role::Temp: a.out = temps + st.out.offset; break;
                case Role::Store: a.out = st.args.out + b; break;
            }
            a.out_rows = len;
            a.out_cols = 1;
            double* out = a.out;
            const double* v = a.in[0].x;
            switch (st.form) {
                case LoopForm::None:
                case LoopForm::Elementwise:
                case LoopForm::Gather:
                case LoopForm::Sum:
                case LoopForm::ScatterAdd:
                case LoopForm::RowsTVec:
                case LoopForm::RowSums:
                case LoopForm::TileSum:
                case LoopForm::ColSums: run_kernel(st.kernel, a); break;
                case LoopForm::TileRows: {  // out(i, j) = x(i mod tile, j)
                    const int tile = st.args.in[0].rows;
                    for_each_run(b, len, st.args.out_rows, tile,
                                 [&](int t, int n, int i, std::int64_t j) {
                                     std::copy_n(v + j * tile + i % tile, n, out + t);
                                 });
                    break;
                }
                case LoopForm::RepCols: {  // out(i, j) = v(i)
                    const int rows = st.args.out_rows;
                    for_each_run(b, len, rows, rows, [&](int t, int n, int i, std::int64_t) {
                        std::copy_n(v + i, n, out + t);
                    });
                    break;
                }
                case LoopForm::RepRows: {  // out(i, j) = v(j)
                    const int rows = st.args.out_rows;
                    for_each_run(b, len, rows, rows, [&](int t, int n, int, std::int64_t j) {
                        std::fill_n(out + t, n, v[j]);
                    });
                    break;
                }
                case LoopForm::Embed: {
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
                case LoopForm::Fill: std::fill(out, out + len, v[0]); break;
                case LoopForm::RowsMatVec: {  // out = A(b:b+len, :) x
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
    for (const Instr& ins : prologue_) run_kernel(ins.kernel, ins.args);
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
        if (o.offset < 0)
            continue;  // kept in its buffer (output_buffer)
        const View v = view(o.from);
        std::copy(v.x, v.x + v.size(), out.data() + o.offset);
    }
    return has_lp_ ? view(lp_).x[0] : 0.0;
}

const double* Program::output_buffer(std::string_view name) const {
    for (const OutputCopy& o : outputs_) {
        if (o.name == name)
            return view(o.from).x;
    }
    throw InternalError(fmt::format("the program has no output `{}`", name));
}

std::string Program::ref_str(const Ref& r) const {
    return r.str(persistent_);
}

std::string Program::str() const {
    const int t = pool_ != nullptr ? pool_->size() : 1;
    std::string s = fmt::format(
        "program: {} instructions per run ({} fused groups), {} once per data; arena {} doubles "
        "({} bytes, {} persistent) for {} bytes of node values; {} thread{}\n",
        body_.size(), groups_.size(), prologue_.size(), arena_.size(), arena_bytes(), persistent_,
        node_bytes_, t, t == 1 ? "" : "s");
    auto line = [&](const Instr& ins, std::string_view note) {
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
            const bool cols =
                ins.split == ThreadSplit::OutCols || ins.split == ThreadSplit::OutRows;
            s += line(ins, ins.parts == 1 ? ""
                           : cols         ? fmt::format("  [split by columns, {} parts]", ins.parts)
                                  : fmt::format("  [split, partial sums, {} parts]", ins.parts));
            continue;
        }
        // A fused group prints its steps, indented, under a header with its length.
        const Group& gr = groups_[ins.group];
        s += fmt::format("  loop over {} values in blocks of {}{}:\n", gr.n, gr.block,
                         gr.parts > 1 ? fmt::format(", {} parts", gr.parts) : "");
        for (const auto& st : gr.steps) {
            s += "  " + line(st, st.role == Role::Sum              ? "  (summed)"
                                 : st.form == LoopForm::RowSums    ? "  (added by rows)"
                                 : st.form == LoopForm::TileSum    ? "  (added by tiles)"
                                 : st.form == LoopForm::ColSums    ? "  (added by columns)"
                                 : st.role == Role::ScatterAdd     ? "  (scatter-added)"
                                 : st.role == Role::RowsTVec       ? "  (row blocks accumulated)"
                                 : st.form == LoopForm::RowsMatVec ? "  (by row blocks)"
                                 : st.role == Role::InPlace        ? "  (not copied: read in runs)"
                                                                   : "");
        }
    }
    s += "outputs:\n";
    if (has_lp_)
        s += fmt::format("  lp <- {}\n", ref_str(lp_));
    for (const auto& o : outputs_) {
        if (o.offset < 0) {
            s += fmt::format("  {} <- {} (kept in place)\n", o.name, ref_str(o.from));
            continue;
        }
        s += fmt::format("  out[{}:{}] <- {} ({})\n", o.offset,
                         o.offset + o.from.rows * o.from.cols, ref_str(o.from), o.name);
    }
    return s;
}

}  // namespace advi
