// K independent runs of one fit (issue 19): in parallel, their agreement measured, the best
// kept. A single run cannot see that it stopped in one of several modes, or short of the
// optimum; runs from different seeds that end apart can.
#pragma once

#include <advi/engine/options.hpp>
#include <advi/fit/fit.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// Where run k (0-based) starts: run 0 at options.init (empty when none: the engine's default,
// or options.init_radius's random values), as a single fit; run
// k > 0 at that point plus a uniform draw on (-2, 2) in every unconstrained coordinate (CmdStan's
// default inits), from a stream of its seed options.seed + k. The start at the mode is
// deterministic: from one init every run would start at the same mode, and their agreement
// could not see another (measured on examples' sim/gmm small: every seed's start was the same
// local mode, 1700 nats below the truth's).
[[nodiscard]] Eigen::VectorXd run_init(const Options& options, int run, int dim);

// Fits `m` `runs` times, run k (1-based) with seed options.seed + k - 1 (wrapping at 2^64) and
// init run_init(options, k - 1, dim), so that run k is exactly the fit `fit(m, options)` with
// that seed and init gives. Runs go in parallel on
// std::threads, at most as many at once as there are threads to use (options.threads, 0: the
// hardware's), each with an equal share of those threads for its gradient program: since a fit
// has the same bits on any thread count, so do the runs. Only run 1 writes to options.log and
// calls options.monitor. Returns the run with the largest ELBO (mean of log_p__ - log_g__ over
// its output draws), its verdict holding every run's ELBO and their agreement
// (RunsAgreement: R-hat of the runs' draws per constrained element, the ELBOs' spread);
// `runs` = 1 is fit(m, options). Throws FitError for runs < 1, and the error of the first run
// (in run order) that failed, naming it.
[[nodiscard]] Fit fit_runs(const ModelSpec& m, const Options& options, int runs);

}  // namespace advi
