// The verdict on a fit (issue 19): one line a person reads first, "reliable" or "not
// reliable: <why>", and the statistics behind it. Reliable means all of: the stopping rule
// converged (not interrupted, not max_iterations, not run off); the Pareto k-hat of the output
// draws' log importance ratios log_p__ - log_g__ is below its sample-size-dependent threshold
// min(1 - 1 / log10 S, 0.7) (Vehtari, Simpson, Gelman, Yao and Gabry, JMLR 2024), so that q
// is close enough to the posterior for importance sampling with it to estimate posterior means
// (Yao, Vehtari, Simpson and Gelman 2018, "Yes, but did it work?"); and, for K runs
// (fit_runs), that the runs agree. It reuses the output draws: no extra evaluation.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/engine/engine.hpp>
#include <advi/fit/psis.hpp>

namespace advi {

// What K independent runs of one fit say together (fit_runs in runs.hpp).
struct RunsAgreement {
    struct Run {
        std::uint64_t seed = 0;
        // The run's ELBO as mean(log_p__ - log_g__) over its output draws, and that mean's
        // Monte Carlo standard error: every run's on the same footing (S draws each).
        double elbo = 0.0;
        double elbo_se = 0.0;
        bool converged = false;
        std::string stop_reason;
    };
    std::vector<Run> runs;
    int kept = 0;  // the run kept: the largest ELBO
    // Per constrained element (ModelSpec::theta_offsets() layout), the R-hat of the runs'
    // draws, each run's output draws taken as one chain: sqrt(((n - 1) / n W + B / n) / W),
    // W the mean of the runs' variances, B / n the variance of the runs' means (Gelman and
    // Rubin). 1 when the runs' means agree to within their draws' noise; sqrt(1 + v) when the
    // runs' means scatter with variance v times q's.
    Eigen::VectorXd rhat;
    int worst = -1;                // the element with the largest R-hat (-1: none)
    std::string worst_label;       // beta[0]
    std::string worst_label_stan;  // beta[1]
    // The best run's ELBO minus the worst's, and what noise allows: kElboGap nats plus 3
    // standard errors of the difference.
    double elbo_gap = 0.0;
    double elbo_gap_allowed = 0.0;
    [[nodiscard]] double max_rhat() const;
    [[nodiscard]] bool means_agree() const;
    [[nodiscard]] bool elbos_agree() const { return elbo_gap <= elbo_gap_allowed; }
    [[nodiscard]] bool agree() const { return means_agree() && elbos_agree(); }
};

// Runs whose R-hat stays below this agree: the runs' means scatter by less than about 0.32 of
// q's sd (R-hat^2 - 1 = 0.1025), the scale at which the issue calls a mean accurate.
inline constexpr double kRunsRhatThreshold = 1.05;
// Runs whose ELBOs differ by more than this (plus 3 standard errors of the difference) did
// not reach the same optimum: a few nats, and no multiple of |ELBO|, so that an additive
// constant in the log density changes nothing.
inline constexpr double kRunsElboGap = 2.0;

struct Verdict {
    // The PSIS diagnostics of the output draws' log_p__ - log_g__ (k-hat, its threshold,
    // the ESS of the smoothed weights).
    Psis psis;
    // The final ELBO and its Monte Carlo standard error: the engine's (AdviResult::elbo and
    // elbo_se) when it gives a standard error, else the output draws' estimate, the mean of
    // log_p__ - log_g__, with sd(log_p__ - log_g__) / sqrt(S): a number and the error of that
    // number, never of another estimate.
    double elbo = 0.0;
    double elbo_se = 0.0;
    bool elbo_se_from_draws = false;
    // The output draws' ELBO estimate, mean(log_p__ - log_g__) over the finite ratios (NaN
    // with fewer than 2).
    double draws_elbo = 0.0;
    bool converged = false;
    bool interrupted = false;
    std::string stop_reason;
    std::optional<RunsAgreement> runs;
    // The start's second search for the mode (engine/other_mode.hpp): a different mode within
    // kOtherModeGap nats of the one q covers makes the fit not reliable.
    OtherMode other_mode;
    // Where PSIS vouches for the weights (k-hat below threshold), the importance-weighted
    // means estimate the posterior's: the largest distance of q's mean from them, in weighted
    // posterior sds, over the constrained elements (NaN: not measured), which element, and
    // what Monte Carlo noise allows: kMeanShift + 2 / sqrt(ESS). A q centred off by more than
    // that is not reliable however light the weights' tail (a q wider than the posterior
    // and shifted has bounded weights, a small k-hat).
    double mean_shift = std::numeric_limits<double>::quiet_NaN();
    double mean_shift_allowed = 0.0;
    std::string mean_shift_label;       // beta[0]
    std::string mean_shift_label_stan;  // beta[1]
    // The same weights' sds: the largest ratio of q's sd to the importance-weighted sd (NaN: not
    // measured), which element, and what noise allows: kSdExcess + 2 sqrt(2 / ESS). The check
    // is one-sided on purpose: a q wider than the posterior covers it, so the weights see the
    // whole posterior and their sd is trustworthy, while a q too wide has light-tailed weights
    // that k-hat passes (minibatch fits with sds 2.6 times the full data's were "reliable"
    // before it); a q too narrow cannot show the posterior's tails to the weights, and k-hat
    // is the check there.
    double sd_excess = std::numeric_limits<double>::quiet_NaN();
    double sd_excess_allowed = 0.0;
    std::string sd_excess_label;
    std::string sd_excess_label_stan;
    // The output draws were resampled by their PSIS weights (psis_resample): the diagnostics
    // above are of q's draws before resampling; `distinct_draws` of them were kept.
    bool resampled = false;
    int distinct_draws = 0;
    // The method's own doubts (AdviResult::doubts): each makes the fit not reliable.
    std::vector<std::string> doubts;

    // converged, k-hat below threshold (or log ratios constant: q exact up to a constant),
    // the runs (if any) agree, no other mode about as high was found, and no doubts.
    [[nodiscard]] bool reliable() const;
    // "reliable" or "not reliable: <why>; <why>" (labels 0- or 1-based by index_base).
    [[nodiscard]] std::string headline(int index_base = 0) const;
    // The statistics behind it, a line each, for the summary.
    [[nodiscard]] std::vector<std::string> details(int index_base = 0) const;
    // "key = value" lines for the CSV trailer (after "verdict = <headline>").
    [[nodiscard]] std::vector<std::string> trailer_lines(int index_base = 1) const;
};

// q's means may sit this many posterior sds from the importance-weighted means (plus noise)
// and still be called reliable: the "accurate" is 0.3 sd, its "off" 1 sd.
inline constexpr double kMeanShift = 0.5;
// q's sds may be this many times the importance-weighted sds (plus noise) and still be called
// reliable (mean-field's sds fall short of the posterior's, not over them, at its optimum).
inline constexpr double kSdExcess = 1.3;

// The verdict on a fit with result `r` and output draws of densities `log_p`, `log_g` (one per
// draw, every constant included; -inf log_p is a weight of 0).
[[nodiscard]] Verdict assess(const AdviResult& r, const Eigen::VectorXd& log_p,
                             const Eigen::VectorXd& log_g);

// Sets v.mean_shift from the output draws in constrained space (one row per draw, columns
// labelled by `labels` 0-based and `labels_stan` 1-based) and v.psis's weights; nothing when
// PSIS does not vouch for the weights or the ratios are constant (q exact).
void measure_mean_shift(Verdict& v, const Eigen::MatrixXd& theta_draws,
                        const std::vector<std::string>& labels,
                        const std::vector<std::string>& labels_stan);

// R-hat of one quantity over K runs, run k's draws in `draws[k]` (finite ones only): see
// RunsAgreement::rhat. NaN when fewer than 2 runs have 2 finite draws.
[[nodiscard]] double runs_rhat(const std::vector<Eigen::VectorXd>& draws);

}  // namespace advi
