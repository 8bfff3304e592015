// The Auto rule's main loop (issue 19; after Dhaka et al. 2020 and Welandawe et al. 2024): a
// fixed step size until the average of the iterates stops improving, that average as q, then
// a smaller step size while a phase still gains enough to be worth it; "converged" also needs
// q's location and scale to pass the gradient-only optimality checks (runaway.hpp).
#pragma once

#include <functional>

#include <advi/engine/approximation.hpp>
#include <advi/engine/engine.hpp>
#include <advi/engine/estimator.hpp>
#include <advi/engine/options.hpp>

namespace advi {

// The rule's constants, chosen by measurement (README, "Convergence").
struct AutoRuleSettings {
    double decrease = 0.5;       // eta's factor at each new phase
    double plateau_gain = 0.02;  // nats: the phase average's gain over the one half a phase
                                 // earlier at or below this (or within 2 MCSE): a plateau
    double min_gain = 0.05;      // nats: a phase that gains less over the best so far ends the fit
    // A later phase that has gained over diminishing_from x min_gain over the best q before it
    // also ends when its last half gains under `diminishing` of that (auto_rule.cpp).
    double diminishing = 0.05;
    double diminishing_from = 100.0;
    int max_grad_samples = 16;  // cap on the draws per gradient when phases lose to noise
};

// Runs the main loop from q0 with step-size scale eta and fills res: q (an iterate average),
// iterations, converged, stop_reason, elbo and elbo_se (of the returned q, over the common
// draws), elbo_trace / elbo_iterations (the ELBO of the running average at every block of
// opts.eval_elbo iterations), eta_reductions. `monitor(iteration, q)` is called every
// opts.monitor_every iterations. Throws FitError as run_advi does when repeated non-finite
// steps leave nothing to back off to.
void run_auto_rule(Estimator& est, const Approximation& q0, double eta, const Options& opts,
                   const std::function<void(int, const Approximation&)>& monitor, AdviResult& res,
                   const AutoRuleSettings& settings = {});

}  // namespace advi
