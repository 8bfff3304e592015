// Data subsampling (paper section 4.3; Hoffman et al. 2013): the model is written over one
// minibatch of B rows, and each gradient step fills its data slots with B rows drawn
// without replacement from the full data of N rows. Every term of log p that reads those
// slots is scaled by N / B, so each gradient is an unbiased estimate of the full-data one.
// That is right when such a term is a sum over the minibatch's rows, as a likelihood of
// independent rows is; a term that couples rows (a sum inside a log, say) is refused: the
// target checks, at two points, that the log density of batches [a; b], [c; b], [a; d], [c; d]
// (halves of rows swapped) satisfies lp(ab) - lp(cb) - lp(ad) + lp(cd) = 0, which holds for
// every sum of per-row terms (the terms that read no rows cancel) and fails where rows
// interact.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/program.hpp>
#include <advi/model/model_spec.hpp>

#include <advi/engine/options.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/target.hpp>
#include <advi/fit/row_buffers.hpp>

namespace advi {

// A minibatch fit's output draws get full-data log densities (MinibatchTarget::use_full_data)
// while the draws times the full data's values (rows x columns of every subsampled slot) are at
// most this many: about 10 s of a pass for every one of 1000 draws on a model of a few
// operations per value.
inline constexpr double kFullDataPassBudget = 2e8;
// The data values (rows x columns) that one ELBO estimate reads at most over its draws: the
// evaluation set is all N rows up to it. The ELBO selects among q's iterate averages, so an
// evaluation batch of B rows biases q towards that batch's posterior by about sqrt(N / B) of the
// full posterior's sds (measured: sigma 3 sds off with B = 100 of N = 4000).
inline constexpr double kEvaluationValues = 2e7;

class MinibatchTarget final : public Target {
public:
    // Checks each source against its slot (it exists; reals or ints as the slot; the slot
    // holds B rows of the source's columns; every source has the same N >= B rows) and
    // names the first that does not fit.
    MinibatchTarget(const ModelSpec& model, const std::vector<MinibatchData>& sources,
                    std::uint64_t seed, int threads,
                    MinibatchDraw scheme = MinibatchDraw::Independent, int elbo_samples = 100);
    MinibatchTarget(const MinibatchTarget&) = delete;  // the program reads the buffers
    MinibatchTarget& operator=(const MinibatchTarget&) = delete;

    int dim() const override { return program_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        return program_.run(zeta, grad);
    }
    void next_minibatch() override;
    void use_evaluation_batch() override;
    // The ELBO's log densities: over the evaluation set (all N rows where kEvaluationValues
    // allows, so that the ELBO and the q it selects are the full data's; else as many rows as
    // it allows, scaled to N), a pass in batches of B for the draws together (about E / B + 2
    // batch evaluations per draw). After use_full_data(): over all N rows (the output draws).
    void log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) override;
    [[nodiscard]] std::size_t evaluation_rows() const { return evaluation_set_.size(); }
    void use_full_data() { full_data_ = true; }

    [[nodiscard]] int batch_rows() const { return batch_rows_; }
    [[nodiscard]] Eigen::Index full_rows() const { return full_rows_; }
    // The scaled model over the minibatch buffers, and its gradient program.
    [[nodiscard]] const ModelSpec& spec() const { return spec_; }
    [[nodiscard]] Program& program() { return program_; }

private:
    void draw(std::vector<int>& rows);       // the evaluation batch: B rows without replacement
    void draw_next(std::vector<int>& rows);  // a gradient's batch, by `scheme_`
    void load(const std::vector<int>& rows);
    // c + N / |set| (sum over the set's rows of the row terms), from batches of B.
    void rows_pass(const std::vector<int>& set, const Eigen::MatrixXd& zetas, Eigen::VectorXd& out);

    RowBuffers rows_;
    int batch_rows_ = 0;
    Eigen::Index full_rows_ = 0;
    ModelSpec spec_;
    Program program_;
    Rng rng_;
    MinibatchDraw scheme_ = MinibatchDraw::Independent;
    std::vector<int> permutation_;  // of 0..N-1; its first B entries are the last draw
    std::size_t epoch_next_ = 0;    // Epochs: the first row of the next batch in permutation_
    std::vector<int> batch_;
    std::vector<int> evaluation_;      // the fixed batch (its first B rows of evaluation_set_)
    std::vector<int> evaluation_set_;  // the ELBO's rows
    std::vector<int> all_rows_;        // 0..N-1
    bool evaluation_loaded_ = false;
    double scale_ = 1.0;  // N / B, a data slot of the program
    bool full_data_ = false;
};

}  // namespace advi
