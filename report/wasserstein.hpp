// The 1-Wasserstein distance between two equally weighted samples of the same size, the
// Pathfinder paper's metric for how far an approximation's draws are from a reference's
// (Zhang et al. 2022, section 4): the mean Euclidean distance between paired rows under the
// pairing that minimises it, found exactly by the Hungarian algorithm (O(n^3): a second for
// n = 1,000). Rows are draws, columns coordinates; callers standardise the columns (the report
// divides by the reference's sds so that every coordinate counts on the same scale).
#pragma once

#include <vector>

#include <Eigen/Core>

namespace advi::report {

// The minimum-cost perfect matching of a square cost matrix: row i goes to column match[i].
// Throws std::invalid_argument on a non-square or non-finite cost matrix.
[[nodiscard]] std::vector<int> min_cost_assignment(const Eigen::MatrixXd& cost);

// W1 of the empirical distributions of the rows of a and b (same shape). Throws
// std::invalid_argument naming the shapes when they differ or a is empty.
[[nodiscard]] double wasserstein1(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);

}  // namespace advi::report
