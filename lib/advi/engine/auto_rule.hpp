// The Auto rule's main loop (issue 19; after Dhaka et al. 2020 and Welandawe et al. 2024): a
// fixed step size until the iterates are stationary, their average as q, then a smaller step
// size while the average's ELBO still gains enough to be worth it.
#pragma once

#include <functional>

#include <advi/engine/approximation.hpp>
#include <advi/engine/engine.hpp>
#include <advi/engine/estimator.hpp>
#include <advi/engine/options.hpp>

namespace advi {

// The rule's constants, chosen by measurement (README, "Convergence").
struct AutoRuleSettings {
    int batches = 8;             // the iterate window is cut into this many batches for R-hat
    int batch_length = 10;       // iterates per batch at first (the window doubles as needed)
    double rhat_max = 1.1;       // stationary: every variational parameter's split-R-hat below
    double initial_scale = 1.0;  // the first phase's eta, as a fraction of the searched eta
    double decrease = 0.5;       // eta's factor at each new phase
    double min_gain = 0.1;       // nats: a decrease must raise the average's ELBO by more
    int max_grad_samples = 16;   // cap on the draws per gradient when the noise is too large
};

// Runs the main loop from q0 with step-size scale eta and fills res: q (an iterate average),
// iterations, converged, stop_reason, elbo and elbo_se (of the returned q, over the common
// draws), elbo_trace / elbo_iterations (the ELBO of each phase's average), eta_reductions.
// `monitor(iteration, q)` is called every opts.monitor_every iterations. Throws FitError as
// run_advi does when repeated non-finite steps leave nothing to back off to.
void run_auto_rule(Estimator& est, const Approximation& q0, double eta, const Options& opts,
                   const std::function<void(int, const Approximation&)>& monitor, AdviResult& res,
                   const AutoRuleSettings& settings = {});

}  // namespace advi
