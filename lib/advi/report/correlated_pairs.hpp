// Which pairs of columns of draws a fit's HTML report shows as scatter plots: those with the
// largest |correlation|, where a mean-field q shows none and a full-rank or low-rank q the
// posterior's strongest dependencies.
#pragma once

#include <vector>

#include <Eigen/Core>

namespace advi::report {

struct CorrelatedPair {
    Eigen::Index first = 0, second = 0;  // columns, first < second
    double correlation = 0.0;            // Pearson's, over the draws
};

// The `count` pairs of columns of `draws` (a row per draw) with the largest |correlation|,
// largest first; ties in the order of (first, second), so the choice does not depend on
// rounding noise in the sort. Only rows whose values are all finite count; a column that is
// constant over them has no correlation and is in no pair. Fewer pairs when fewer exist.
[[nodiscard]] std::vector<CorrelatedPair> most_correlated_pairs(const Eigen::MatrixXd& draws,
                                                                int count);

}  // namespace advi::report
