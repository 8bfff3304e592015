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
//
// Control variates (Options::control_variates; SVRG, Johnson and Zhang 2013; for stochastic
// gradients of a posterior, Baker et al. 2019): each gradient's batch noise is cancelled by the
// same batch's noise at an anchor point a, whose full-data gradient G(a) is known from a pass
// over all rows: g(zeta) - g(a) + G(a) has the mean of g(zeta), and its noise is that of the
// rows' gradients' differences between zeta and a, which vanishes as q concentrates near a.
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
// evaluation set of E rows biases q towards that set's posterior by about sqrt(N / E - 1) of
// the full posterior's sds (measured: sigma 3 sds off with E = B = 100 of N = 4000; at N =
// 200,000, B = 1000, two values a row, the budget's former 2e7 made E = N / 2 and the means of
// ten fits 1.05 posterior sds off on average, their sds 127%; at 5e7, E = N: 0.31 and 89%, and
// with control variates 0.17 and 45% against 0.11 and 19%).
inline constexpr double kEvaluationValues = 5e7;
// Control variates: a move of the anchor to a point whose full-data log density is below the
// anchor's by more than max(10, dimension) nats waits at most this many epochs.
inline constexpr int kAnchorWaits = 4;

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
    // The batch's log density and gradient; on a gradient's batch with an anchor a (control
    // variates) the gradient is g(zeta) - (g(a) - G(a)), the batch's at zeta and a and the full
    // data's at a (G(a) from a pass in batches, g(a) once per batch). (A share c of the
    // control variate per coordinate, c = Cov(g(zeta), g(a)) / Var(g(a)) estimated from the
    // gradients before, did worse on report/minibatch/compare_draws.sh, 4000 100 and 200000
    // 1000, ten seeds: the sds' errors 0.14 and 0.77 on average against 0.11 and 0.41.)
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override;
    void next_minibatch() override;
    // With control variates on (set_control_variates): the anchor moves to q's mean before the
    // first gradient and then once per epoch of batches (N / B; a pass over the full data costs
    // as much as an epoch of batches, so a fit spends at most about a third of its evaluations
    // on anchors). (Moving it only where q's mean had moved over one of q's sds from it, rms
    // over coordinates, did a little worse: report/minibatch/compare_draws.sh 200000 1000 10
    // gave the sds' errors 0.47 on average against 0.41.)
    void offer_anchor(const Approximation& q) override;
    void set_control_variates(bool on) { control_variates_ = on; }
    // Full-data passes made for anchors (each N / B batch evaluations).
    [[nodiscard]] int anchor_passes() const { return anchor_passes_; }
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
    // With `grads` (dim x columns of zetas): the gradients of the same, alongside.
    void rows_pass(const std::vector<int>& set, const Eigen::MatrixXd& zetas, Eigen::VectorXd& out,
                   Eigen::MatrixXd* grads = nullptr);

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

    // Control variates (offer_anchor).
    bool control_variates_ = false;
    bool anchored_ = false;
    Eigen::VectorXd anchor_, anchor_grad_;  // a and G(a)
    double anchor_lp_ = 0.0;                // LP(a), the full data's log density at a
    int anchor_waits_ = 0;                  // moves refused in a row (offer_anchor)
    long batches_since_anchor_ = 0;
    int anchor_passes_ = 0;
    bool batch_at_anchor_ = false;       // d below is the loaded batch's
    Eigen::VectorXd batch_anchor_grad_;  // d = g(a) - G(a) of the loaded batch
};

}  // namespace advi
