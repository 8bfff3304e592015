// The ADVI engine (paper Algorithm 1): eta search, stochastic gradient ascent on the ELBO
// with the adaptive step-size sequence, and the convergence rule, for any Target.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/engine/approximation.hpp>
#include <advi/engine/eta_search.hpp>
#include <advi/engine/options.hpp>
#include <advi/engine/other_mode.hpp>
#include <advi/engine/target.hpp>

namespace advi {

struct AdviResult {
    Approximation q;  // the fitted variational parameters
    // What fitted it: "ADVI" (run_advi), "DADVI" (engine/dadvi.hpp: no step size; iterations
    // are Newton-CG's).
    std::string method = "ADVI";
    // The step-size scale the iterations used, chosen or given; NaN when the eta search was
    // interrupted (no eta chosen, no iteration run: q is the initial approximation).
    double eta = 0.0;
    int iterations = 0;  // main-loop iterations run
    bool converged = false;
    std::string stop_reason;  // "relative ELBO change 0.0042 < tol_rel_obj 0.01 (mean)", ...
    std::vector<int> elbo_iterations;  // every eval_elbo iterations
    std::vector<double> elbo_trace;
    // One row per ELBO evaluation of the main loop, for `advi fit --diagnostic-file`: NaN where
    // the rule has no such number (the Auto rule's ELBO is its iterate average's, with its
    // Monte Carlo standard error and its paired gain over half a phase earlier; Stan's rule
    // has its relative changes instead).
    struct TraceRow {
        int iteration = 0;
        double seconds = 0.0;  // wall time since the main loop began
        double eta = 0.0;      // the step-size scale at the row
        double elbo = 0.0;
        double elbo_se = std::numeric_limits<double>::quiet_NaN();
        double gain = std::numeric_limits<double>::quiet_NaN();
        double rel_mean = std::numeric_limits<double>::quiet_NaN();
        double rel_median = std::numeric_limits<double>::quiet_NaN();
    };
    std::vector<TraceRow> trace;
    // The ELBO of the returned q: its last evaluation's when q has not moved since, else
    // estimated at the end (e.g. --iter 1, a fit that ran off or was interrupted between
    // evaluations); -inf when no draw of q had a finite log density.
    double elbo = -std::numeric_limits<double>::infinity();
    std::vector<double> relative_changes;
    long dropped_draws = 0;  // draws whose log density (or gradient) was not finite
    double seconds = 0.0;    // wall time
    Eigen::MatrixXd draws;   // output_samples x dim draws of zeta from q (unconstrained)
    int eta_reductions = 0;  // Robust: times eta was divided by 10 after a non-finite step
    std::vector<EtaTrial> eta_trials;     // the eta search, in the order tried (empty if off)
    bool eta_search_interrupted = false;  // a signal ended the fit during the eta search
    // Where q started (issue 19): "the mode and Hessian (...)" or "the init point (zero)".
    std::string start;
    // The start's second search for the mode, from a random point (engine/other_mode.hpp).
    OtherMode other_mode;
    // The Monte Carlo standard error of `elbo` (NaN when not estimated).
    double elbo_se = std::numeric_limits<double>::quiet_NaN();
    // What the fit cost, for the summary and the CSV trailer: log-density evaluations with a
    // gradient (gradient draws, eta search, curvature) and without (ELBO and output draws).
    long gradient_evaluations = 0;
    long value_evaluations = 0;
    // What the method found that makes its answer doubtful beyond the verdict's own statistics
    // (one sentence each; fit/verdict.hpp: each makes the fit not reliable), e.g. DADVI's
    // linear response fitting worse than the mean-field q it corrects.
    std::vector<std::string> doubts;
};

// Fits q to the target. Throws FitError when the fit cannot proceed (log density not finite
// at any draw from the initial q, every eta candidate diverged, repeated divergence), and
// FitError/ShapeError/ModelError for bad options (validate_options).
// Where q starts: engine/start.hpp (from the mode and curvature of `curvature`, the same
// density as `target` with Hessian-vector products, or of `target` when it is a
// CurvatureTarget; else from opts.init); AdviResult::start says which, and why.
[[nodiscard]] AdviResult run_advi(Target& target, const Options& opts,
                                  CurvatureTarget* curvature = nullptr);

// Throws SizeError naming the option (`elbo_samples`, `output_samples`, the full-rank family)
// whose buffers for a target of `dim` unconstrained coordinates exceed the memory budget
// (base/memory_budget.hpp). run_advi calls it before allocating anything; a caller that
// allocates before run_advi (compiling the model) calls it first.
void require_engine_memory(const Options& opts, int dim);

}  // namespace advi
