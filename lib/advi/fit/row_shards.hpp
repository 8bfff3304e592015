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
#include <functional>
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
    RowShardTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                   std::uint64_t seed, int threads, Ranks* ranks, bool curvature);
    RowShardTarget(const RowShardTarget&) = delete;  // the programs read the buffers
    RowShardTarget& operator=(const RowShardTarget&) = delete;

    int dim() const override { return gradient_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override;
    double log_density(const Eigen::VectorXd& zeta) override;
    void log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) override;
    // A FitError without `curvature` at construction.
    double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv) override;

    [[nodiscard]] bool has_curvature() const { return curvature_.has_value(); }
    // Why there is no Hessian-vector program where one was asked for (compile_hessian_vector's
    // ModelError: an ODE solve, say); empty otherwise.
    [[nodiscard]] const std::string& curvature_error() const { return curvature_error_; }
    [[nodiscard]] int shards() const { return shards_; }
    [[nodiscard]] int shard_size() const { return rows_.batch_rows(); }
    // This rank's shards: [first, last).
    [[nodiscard]] int first_shard() const { return first_; }
    [[nodiscard]] int last_shard() const { return last_; }
    // The weighted model over one shard.
    [[nodiscard]] const ModelSpec& spec() const { return spec_; }

private:
    // Sets shard k's rows and weights (the terms without rows only in shard 0; `padding`: the
    // shard's first row in every place, for the correction of a short last shard) and reloads
    // the data of `program`.
    void load_shard(int k, bool padding, const std::function<void()>& reload);
    // Runs `evaluate(into)` (writing `width` values) for each of this rank's shards, a short
    // last shard corrected, gathers every shard's values from the ranks and sums them in shard
    // order into `total`.
    void reduce(int width, const std::function<void()>& reload,
                const std::function<void(double*)>& evaluate, Eigen::VectorXd& total);

    RowBuffers rows_;
    double row_weight_ = 1.0;
    double rest_weight_ = 1.0;
    ModelSpec spec_;
    Program gradient_;
    Program value_;
    std::optional<HessianVectorProgram> curvature_;
    std::string curvature_error_;
    OneRank one_;
    Ranks* ranks_ = nullptr;
    int shards_ = 0;
    int first_ = 0;
    int last_ = 0;
    std::vector<int> batch_;  // the rows loaded
    std::vector<double> mine_, all_;
    std::vector<int> counts_;
};

}  // namespace advi
