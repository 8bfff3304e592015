// The flat gradient program: the graph's nodes in order as instructions over one
// preallocated arena, buffers reused once dead, data read in place, long loops split over
// a small thread pool with a fixed partition. run() allocates nothing.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/slots.hpp>
#include <advi/graph/graph.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

class ThreadPool;

class Program {
public:
    Program() = default;
    Program(const Program& other);
    Program& operator=(const Program& other);
    Program(Program&&) noexcept = default;
    Program& operator=(Program&&) noexcept = default;
    ~Program() = default;

    // Compiles a graph over Zeta leaves (reading `input_dim` inputs) and Data leaves (slots
    // of `data`). Outputs: an optional scalar "lp", returned by run(); every output with
    // an offset is written into run()'s output vector of size `output_dim`; the others stay
    // in their buffers (output_buffer).
    // `threads`: how many threads run() uses for long loops (0: the hardware's). `dump`:
    // print the passes that ADVI_DUMP names (aliases, loops, schedule, liveness, slots).
    [[nodiscard]] static Program compile(const Graph& g, std::vector<DataSlot> data, int input_dim,
                                         int output_dim, int threads = 0, bool dump = false);

    [[nodiscard]] int dim() const { return input_dim_; }
    [[nodiscard]] int output_dim() const { return output_dim_; }

    // Evaluates the program at `zeta`: returns "lp" (0 if the graph has none) and writes
    // the other outputs into `out` (resized only if it has the wrong size).
    // The results are bit-identical from run to run and across thread counts: long loops
    // and products split into parts chosen from their sizes alone, combined in part order.
    double run(const Eigen::VectorXd& zeta, Eigen::VectorXd& out);
    // The name the ADVI engine expects of a target.
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) {
        return run(zeta, grad);
    }

    // Where the value of output `name` is after run(): an output without an offset is not
    // copied into run()'s vector but kept there, for another program to read in place. Valid
    // until the next run(), set_threads() (which reallocates the arena) or copy.
    [[nodiscard]] const double* output_buffer(std::string_view name) const;

    // Recomputes the nodes that depend on data only (they run once, at compile time):
    // call after changing the values of bound data in place.
    void reload_data();

    // The number of threads run() uses (0: the hardware's). It changes the speed, never a
    // bit of the results.
    void set_threads(int threads);
    [[nodiscard]] int threads() const { return threads_; }

    // The instruction listing with arena slots; see README "Reading a printed program".
    [[nodiscard]] std::string str() const;
    [[nodiscard]] std::size_t arena_bytes() const { return arena_.size() * sizeof(double); }
    // What the arena would need without reuse: the sum of every computed node's size.
    [[nodiscard]] std::size_t node_bytes() const { return node_bytes_; }
    // Bytes of bound data that one run reads (data read only by the once-per-data
    // prologue does not count): with run time, the effective memory bandwidth.
    [[nodiscard]] std::size_t data_bytes_per_run() const { return data_bytes_per_run_; }
    [[nodiscard]] int instruction_count() const { return static_cast<int>(body_.size()); }
    [[nodiscard]] int prologue_count() const { return static_cast<int>(prologue_.size()); }

private:
    friend struct EmitSteps;  // emit.cpp: rewrites of a loop's steps
    friend Program emit(const Slots& slots, std::vector<DataSlot> data, int input_dim,
                        int output_dim, int threads);
    using Ref = BufferRef;
    // How a fused step reads an input within a block: a scalar as it is; a full-size
    // operand at the block's offset; a whole operand (a gather's source); a temporary.
    // Rows: the block's rows of a whole matrix operand (a row block of a matrix-vector
    // product), read in place with the matrix's own column stride. RepCols, RepRows: the
    // input of a rep_cols or rep_rows step that copies nothing, read run by run.
    enum class Kind : std::uint8_t { Scalar, Sliced, Whole, Temp, Rows, RepCols, RepRows };
    // What a step of a loop does with its block: keeps it in a block temporary (a member
    // read only by later steps), stores it into its full buffer, adds its sum to a
    // running total, scatter-adds it, or adds the block's rows of A' r to a vector (the
    // adjoint of a matrix-vector product, accumulated while the rows are in cache).
    // A repeat whose reader reads its input in runs (Kind::RepCols, RepRows) is Role::InPlace:
    // the step stays in the listing and does nothing.
    enum class Role : std::uint8_t { Temp, Store, Sum, ScatterAdd, RowsTVec, InPlace };
    struct Instr {
        Kernel kernel = nullptr;
        NodeId id = kNoNode;  // the node it computes (index into nodes_)
        Ref out;
        std::array<Ref, 3> in;
        int arity = 0;
        int group = -1;  // >= 0: runs groups_[group] instead of `kernel`
        // A long plain instruction: how it splits into parts (by output columns, or by
        // shared inner columns with per-part partial results summed in part order), and
        // into how many (set by bind() from the operands' sizes; 1: not split).
        ThreadSplit split = ThreadSplit::None;
        int parts = 1;
        // A step of a loop: its op's kernel on the block, or an index-mapped read of a whole
        // operand computed here from the block's offset (RepCols, RepRows, Embed, Fill,
        // RowsMatVec).
        LoopForm form = LoopForm::None;
        std::array<Kind, 3> kind{};
        Role role = Role::Store;
        std::int64_t slot = 0;  // Sum: its running total; ScatterAdd: offset in the partials
        int rep_rows = 0;       // an input read as Kind::RepCols or RepRows: the repeat's rows
        KernelArgs args;        // bound at bind(): pointers into the arena and data
        bool scratch = false;   // args.scratch points at the scratch region
        Fold scalar = nullptr;  // set by bind() for elementwise ops on real scalars
    };
    // A loop: one or more trees (roots with their members) over the same n values, run
    // block by block so that intermediates stay in cache (kLoopBlock values each) instead of
    // full buffers, and every operand is read once per block for all the trees. Blocks
    // are split into parts, runs of blocks_per_part blocks chosen from n and the work per
    // value alone (never the thread count), which threads take as they come free.
    struct Group {
        int n = 0;
        int block = 0;                     // values per block: min(kLoopBlock, n)
        std::vector<Instr> steps;          // in order; each root follows its members
        int sums = 0;                      // steps with Role::Sum
        std::int64_t scatter_doubles = 0;  // one part's partial scatter-add results
        int parts = 1;                     // the partition, set by bind()
        int work = 1;  // operations per value (1 + the columns of matrices read by rows)
        int blocks_per_part = 0;
    };
    // A matrix product with fewer multiply-adds than this runs on one thread.
    static constexpr double kMinFlopsPerPart = 1 << 17;
    struct OutputCopy {
        std::string name;
        Ref from;
        int offset = 0;
    };

    // Lays out the arena for threads_ and points every instruction at its operands.
    void bind();
    void exec(std::vector<Instr>& code);
    void exec_plain(const Instr& ins);
    // A loop step with a repeat read in place (rep_rows > 0), on block [b, b + len): one
    // kernel call per run of the repeat.
    void run_by_repeat_runs(const Instr& st, const KernelArgs& block, int b, int len,
                            double* temps) const;
    void exec_group(const Group& group, int part, int thread);
    // Runs task for parts [0, parts): on the pool, or one after another on one thread.
    // (task has ThreadPool::Task's signature.)
    void run_parts(int parts, void (*task)(void* context, int part, int thread), void* context);
    static void group_task(void* context, int part, int thread);
    static void split_task(void* context, int part, int thread);
    void bind_instr(Instr& ins);
    [[nodiscard]] View view(const Ref& r) const;
    [[nodiscard]] double* out_ptr(const Ref& r);
    [[nodiscard]] std::string ref_str(const Ref& r) const;
    [[nodiscard]] int effective_threads() const;

    std::vector<Node> nodes_;          // attributes for kernels, and for printing
    std::vector<std::string> labels_;  // leaf labels, for printing
    std::vector<DataSlot> data_;
    std::vector<Instr> prologue_;  // data-only nodes: once at compile and reload_data()
    std::vector<Instr> body_;      // every run
    std::vector<Group> groups_;
    std::vector<OutputCopy> outputs_;
    Ref lp_;
    bool has_lp_ = false;
    std::vector<double> arena_;
    // Arena layout: [persistent | transient | input | block temps x threads |
    // partial results of parts 1.. | running sums x parts | kernel scratch].
    std::size_t persistent_ = 0;  // doubles held by constants and data-only nodes
    std::size_t transient_ = 0;
    std::size_t block_doubles_ = 0;    // one thread's block temporaries
    std::size_t partial_doubles_ = 0;  // the partial results of parts 1.. of any one loop or split
    std::size_t input_base_ = 0;
    std::size_t block_base_ = 0;
    std::size_t partial_base_ = 0;
    std::size_t sums_base_ = 0;
    std::size_t sums_per_part_ = 0;    // the most Role::Sum steps of any loop
    std::size_t scratch_doubles_ = 0;  // the largest scratch of any kernel (one at a time)
    std::size_t scratch_base_ = 0;
    std::size_t node_bytes_ = 0;
    std::size_t data_bytes_per_run_ = 0;
    int input_dim_ = 0;
    int output_dim_ = 0;
    int threads_ = 0;
    ThreadPool* pool_ = nullptr;
};

}  // namespace advi
