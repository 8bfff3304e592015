// Choosing the step-size scale eta (paper Section 2.5, Stan's adapt_eta): run adapt_iter
// iterations from the initial q for each candidate in {100, 10, 1, 0.1, 0.01}, keep the best.
#pragma once

#include <vector>

#include <advi/engine/approximation.hpp>
#include <advi/engine/estimator.hpp>
#include <advi/engine/options.hpp>

namespace advi {

struct EtaTrial {
    double eta;
    double elbo;    // ELBO after the adaptation run; -inf when the run diverged
    bool diverged;  // gradient failed at every draw, or q (or its ELBO) became non-finite
};

struct EtaSearch {
    double eta;                    // the chosen scale
    double elbo;                   // its adaptation ELBO
    std::vector<EtaTrial> trials;  // in the order tried
    Approximation q;               // the chosen candidate's q after its adapt_iter iterations
    bool interrupted = false;      // opts.interrupt stopped it: eta and elbo are not chosen
};

inline constexpr double kEtaCandidates[] = {100.0, 10.0, 1.0, 0.1, 0.01};

// init is the ELBO estimate of q0 (finite; under Robust, from the estimator's common draws,
// with its per-draw log densities). Robust: every candidate is run; a candidate whose run
// diverged is never chosen; the smallest eta that did about as well as the best is, where
// "about as well" is measured on ELBO differences over the common draws against their Monte
// Carlo error, so that no decision depends on the magnitude of the log density (see
// eta_search.cpp); when all diverge, the list is retried scaled by 1e-3, then 1e-6, before
// FitError.
// Stan: Stan's bookkeeping exactly, including its FitError when the last candidate is no
// better than the initial ELBO. Progress goes to opts.log when set. opts.interrupt is polled
// every iteration: when set, the search returns at once, marked interrupted.
[[nodiscard]] EtaSearch search_eta(Estimator& est, const Approximation& q0,
                                   const ElboEstimate& init, const Options& opts);

}  // namespace advi
