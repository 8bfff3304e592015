// PSIS's Pareto k-hat against the number of draws, as a fit's HTML report plots it: the k-hat
// of the log importance ratios log_p__ - log_g__ of the first n draws, for n from the fewest
// whose tail PSIS can fit to all of them. A k-hat that settles below the threshold says the
// approximation can be trusted as a proposal; one that keeps climbing with n says the tail of
// the ratios is heavier than the draws have shown yet (Vehtari et al. 2024, section 3).
#pragma once

#include <vector>

#include <Eigen/Core>

namespace advi::report {

struct KhatPoint {
    int draws = 0;         // n: the first n ratios
    double k_hat = 0.0;    // their k-hat; NaN when PSIS gives none (constant ratios)
    double threshold = 0;  // min(1 - 1 / log10 n, 0.7)
};

// The n at which the curve is computed: up to `points` values spaced evenly in log n from
// psis_min_draws() to `total`, rounded, without repeats, `total` always last. Fewer ratios than
// psis_min_draws(): none.
[[nodiscard]] std::vector<int> khat_draw_counts(int total, int points);

// The curve over the ratios that are not NaN or +inf (a draw whose log density could not be
// evaluated: psis() refuses them), in their order; -inf (a weight of 0) is kept.
[[nodiscard]] std::vector<KhatPoint> khat_curve(const Eigen::VectorXd& log_ratios, int points = 24);

}  // namespace advi::report
