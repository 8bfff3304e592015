// The flat gradient program: the graph's nodes in order as instructions over one
// preallocated arena, buffers reused once dead, data read in place. run() allocates nothing.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/graph/graph.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

class Program {
public:
    Program() = default;

    // Compiles a graph over Zeta leaves (reading `input_dim` inputs) and Data leaves (slots
    // of `data`). Outputs: an optional scalar "lp", returned by run(); every output with
    // an offset is written into run()'s output vector of size `output_dim`.
    [[nodiscard]] static Program compile(const Graph& g, std::vector<DataSlot> data,
                                         int input_dim, int output_dim);

    [[nodiscard]] int dim() const { return input_dim_; }
    [[nodiscard]] int output_dim() const { return output_dim_; }

    // Evaluates the program at `zeta`: returns "lp" (0 if the graph has none) and writes
    // the other outputs into `out` (resized only if it has the wrong size).
    double run(const Eigen::VectorXd& zeta, Eigen::VectorXd& out);
    // The name the ADVI engine expects of a target.
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) {
        return run(zeta, grad);
    }

    // Recomputes the nodes that depend on data only (they run once, at compile time):
    // call after changing the values of bound data in place.
    void reload_data();

    // The instruction listing with arena slots; see README "Reading a printed program".
    [[nodiscard]] std::string str() const;
    [[nodiscard]] std::size_t arena_bytes() const { return arena_.size() * sizeof(double); }
    // What the arena would need without reuse: the sum of every computed node's size.
    [[nodiscard]] std::size_t node_bytes() const { return node_bytes_; }
    [[nodiscard]] int instruction_count() const { return static_cast<int>(body_.size()); }
    [[nodiscard]] int prologue_count() const { return static_cast<int>(prologue_.size()); }

private:
    // Where an instruction's operand lives.
    struct Ref {
        // Arena: the persistent region (constants, data-only values); Transient: the per-run
        // region, slots reused by liveness; Block: a fused group's block temporaries.
        enum class Src : std::uint8_t { None, Arena, Transient, Block, Input, Extern };
        Src src = Src::None;
        std::int64_t offset = 0;
        const double* real = nullptr;
        const int* ints = nullptr;
        int rows = 1;
        int cols = 1;
    };
    struct Instr {
        Kernel kernel = nullptr;
        NodeId id = kNoNode;  // the node it computes (index into nodes_)
        Ref out;
        std::array<Ref, 3> in;
        int arity = 0;
        int group = -1;  // >= 0: runs groups_[group] instead of `kernel`
    };
    // A fused group: a tree of elementwise nodes over n values whose intermediates have no
    // other reader, run block by block so that intermediates stay in cache (kBlock values
    // each) instead of full buffers; the root is elementwise, or a sum of the tree.
    struct Group {
        int n = 0;
        int block = 0;  // values per block: min(kBlock, n)
        bool sum_root = false;
        std::vector<Instr> steps;  // members in order; the last is the root
    };
    static constexpr int kBlock = 512;
    struct OutputCopy {
        std::string name;
        Ref from;
        int offset = 0;
    };

    void exec(const std::vector<Instr>& code, const double* zeta);
    void exec_group(const Group& group, const Ref& out, const double* zeta);
    [[nodiscard]] View view(const Ref& r, const double* zeta) const;
    [[nodiscard]] double* out_ptr(const Ref& r);
    [[nodiscard]] std::string ref_str(const Ref& r) const;

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
    std::size_t persistent_ = 0;  // arena doubles held by constants and data-only nodes
    std::size_t block_base_ = 0;  // where the block temporaries start
    std::size_t node_bytes_ = 0;
    int input_dim_ = 0;
    int output_dim_ = 0;
};

}  // namespace advi
