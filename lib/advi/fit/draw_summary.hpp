// Summary statistics of one column of draws, over its finite values only: a draw of +-inf
// or NaN (a run-off q, an overflowing transform) would make the mean and sd NaN and drag the
// quantiles; it is left out and counted instead, and the row says how many (issue 17, class 7).
#pragma once

#include <string>
#include <string_view>

#include <Eigen/Core>

namespace advi {

struct DrawSummary {
    double mean = 0.0;
    double sd = 0.0;
    double q5 = 0.0, q50 = 0.0, q95 = 0.0;
    Eigen::Index finite = 0;     // draws summarised
    Eigen::Index nonfinite = 0;  // draws left out
};

// Mean and sd (n - 1) are computed on values scaled by their largest magnitude, so that draws
// near +-1.8e308 give a mean rather than inf - inf; quantiles interpolate linearly between
// order statistics (R's type 7).
[[nodiscard]] DrawSummary summarize_draws(const Eigen::Ref<const Eigen::VectorXd>& x);

// The p-quantile (type 7) of the finite values of x; 0 when there are none.
[[nodiscard]] double finite_quantile(const Eigen::Ref<const Eigen::VectorXd>& x, double p);

// "label   mean   sd   5%   50%   95%" as the summary tables print it (12-wide, 4 significant
// digits), followed by "  (3 non-finite draws left out)" when there were some; with no finite
// draw at all, the row says so instead of printing numbers.
[[nodiscard]] std::string summary_row(std::string_view label, const DrawSummary& s);

}  // namespace advi
