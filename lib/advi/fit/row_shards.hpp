// The full data in shards of rows (issue 23, item 4): a model written over a block of C rows
// (its row variables' slots, as for a minibatch) evaluated over all N rows, shard by shard, the
// shards' log densities, gradients and Hessian-vector products summed in shard order. The
// shards are fixed by N alone (shard_rows), and with `Ranks` (ranks/ranks.hpp) each process
// evaluates a contiguous range of them and the ranks exchange the shards' results, so that every
// rank adds the same numbers in the same order: the same seed gives the same fit, bit for bit,
// on any number of ranks. The terms that read no rows (priors, log-Jacobians, -N log sigma) are
// evaluated once, with shard 0; the model's terms that read rows must be a sum of per-row terms
// (the swap test of row_buffers.hpp refuses others).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/hessian_vector_program.hpp>
#include <advi/compile/program.hpp>
#include <advi/engine/options.hpp>
#include <advi/engine/target.hpp>
#include <advi/fit/row_buffers.hpp>
#include <advi/model/model_spec.hpp>
#include <advi/ranks/ranks.hpp>

namespace advi {

// Rows per shard: all N up to kShardRows, else at least kShardRows and at most kMaxShards
// shards. Enough rows that a shard's evaluation outweighs its overhead (its data reload), few
// enough shards that the ranks exchange little (a gradient per shard).
inline constexpr int kShardRows = 4096;
inline constexpr int kMaxShards = 256;
[[nodiscard]] int shard_rows(std::int64_t full_rows);

class RowShardTarget final : public CurvatureTarget {
public:
    // `model` is written over shard_rows(N) rows of every source (RowBuffers' checks);
    // `ranks` (nullptr: this process alone) outlives the target. With `curvature`, the
    // Hessian-vector program is compiled too, where the model has one (curvature_error()).
    // `threads` (0: the hardware's): this rank's shards are evaluated in parallel, each thread
    // with copies of the programs and buffers of its own (made on first use); a shard's result
    // does not depend on which thread computed it.
    RowShardTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                   std::uint64_t seed, int threads, Ranks* ranks, bool curvature);
    RowShardTarget(const RowShardTarget&) = delete;  // the programs read the buffers
    RowShardTarget& operator=(const RowShardTarget&) = delete;
    ~RowShardTarget() override;

    int dim() const override;
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override;
    double log_density(const Eigen::VectorXd& zeta) override;
    void log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) override;
    // A FitError without `curvature` at construction.
    double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv) override;

    [[nodiscard]] bool has_curvature() const;
    // Why there is no Hessian-vector program where one was asked for (compile_hessian_vector's
    // ModelError: an ODE solve, say); empty otherwise.
    [[nodiscard]] const std::string& curvature_error() const { return curvature_error_; }
    [[nodiscard]] int shards() const { return shards_; }
    [[nodiscard]] int shard_size() const { return shard_size_; }
    // This rank's shards: [first, last).
    [[nodiscard]] int first_shard() const { return first_; }
    [[nodiscard]] int last_shard() const { return last_; }
    // The weighted model over one shard.
    [[nodiscard]] const ModelSpec& spec() const;

    struct Lane;  // one thread's buffers, weights and programs

private:
    enum class Kind { Gradient, Value, Curvature };
    struct Request;
    static void shard_task(void* context, int part, int thread);
    // Evaluates `request` (`width` values per shard) for each of this rank's shards, on
    // threads, a short last shard corrected; gathers every shard's values from the ranks and
    // sums them in shard order into `total`.
    void reduce(Request& request, Eigen::VectorXd& total);
    // Shard k's values into `into` on `lane`.
    void evaluate_shard(Lane& lane, const Request& request, int k, double* into) const;
    Lane& lane(int thread);

    ModelSpec model_;
    std::vector<MinibatchData> sources_;
    bool curvature_wanted_ = false;
    int threads_ = 0;
    std::vector<std::unique_ptr<Lane>> lanes_;
    std::string curvature_error_;
    OneRank one_;
    Ranks* ranks_ = nullptr;
    std::int64_t full_rows_ = 0;
    int shard_size_ = 0;
    int shards_ = 0;
    int first_ = 0;
    int last_ = 0;
    std::vector<double> mine_, all_;
    std::vector<int> counts_;
};

}  // namespace advi
