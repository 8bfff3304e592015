// Pareto-smoothed importance sampling (Vehtari, Simpson, Gelman, Yao and Gabry 2024): the
// k-hat of log importance ratios log p - log g, which says whether an approximation g can be
// trusted as a proposal for p (k-hat < 0.7 for S large; min(1 - 1/log10 S, 0.7) in general),
// and the effective sample size of the smoothed weights.
#pragma once

#include <string>

#include <Eigen/Core>

namespace advi {

struct Psis {
    // The shape of the generalized Pareto fitted to the largest ratios (Zhang and Stephens
    // 2009, with loo's weakly informative prior); NaN when the ratios are constant (then g is
    // p up to a constant and the weights are uniform) or too few are finite.
    double k_hat = 0.0;
    // 1 / sum w_i^2 of the normalised smoothed weights.
    double ess = 0.0;
    // The threshold for S draws: min(1 - 1 / log10(S), 0.7).
    double k_threshold = 0.7;
    int draws = 0;  // finite ratios used
    int tail = 0;   // ratios in the fitted tail
    bool constant = false;
    // The normalised log weights (smoothed), one per ratio; -inf where the ratio was -inf.
    Eigen::VectorXd log_weights;
};

// Over `log_ratios` (one per draw; -inf is a weight of 0; NaN or +inf is an InternalError of
// the caller's, never silently dropped).
[[nodiscard]] Psis psis(const Eigen::VectorXd& log_ratios);

// The fewest finite ratios whose tail psis() fits (21): its tail is the largest
// ceil(min(0.2 S, 3 sqrt S)) of S ratios, and the fit needs five. With as many or more, no
// k-hat (and ratios not constant) means that a few weights dwarf all the others.
[[nodiscard]] int psis_min_draws();

// "Pareto k-hat 0.31 (< 0.7: reliable), importance-sampling ESS 812 of 1000" or what is wrong.
[[nodiscard]] std::string psis_text(const Psis& p);

}  // namespace advi
