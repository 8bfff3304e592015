#include "wasserstein.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace advi::report {

// The shortest-augmenting-path form of the Hungarian algorithm (Kuhn-Munkres with row and
// column potentials u, v, reduced costs cost(i, j) - u[i] - v[j] >= 0): rows are added one at a
// time, each by a Dijkstra-like search over columns for the cheapest augmenting path, then the
// potentials are updated so that matched edges keep a reduced cost of zero. Index 0 of the
// 1-based arrays is a virtual column that the row being added starts from.
std::vector<int> min_cost_assignment(const Eigen::MatrixXd& cost) {
    const int n = static_cast<int>(cost.rows());
    if (cost.cols() != n)
        throw std::invalid_argument("min_cost_assignment: the cost matrix is " +
                                    std::to_string(cost.rows()) + " x " +
                                    std::to_string(cost.cols()) + ", not square");
    if (!cost.allFinite())
        throw std::invalid_argument("min_cost_assignment: the cost matrix has a non-finite entry");
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> u(n + 1, 0.0), v(n + 1, 0.0);
    std::vector<int> row_of(n + 1, 0), previous(n + 1, 0);  // row_of[j]: the row matched to j
    std::vector<double> slack(n + 1);
    std::vector<char> used(n + 1);
    for (int i = 1; i <= n; ++i) {
        row_of[0] = i;
        int j0 = 0;
        std::fill(slack.begin(), slack.end(), inf);
        std::fill(used.begin(), used.end(), 0);
        do {
            used[j0] = 1;
            const int i0 = row_of[j0];
            double delta = inf;
            int j1 = 0;
            for (int j = 1; j <= n; ++j) {
                if (used[j])
                    continue;
                const double reduced = cost(i0 - 1, j - 1) - u[i0] - v[j];
                if (reduced < slack[j]) {
                    slack[j] = reduced;
                    previous[j] = j0;
                }
                if (slack[j] < delta) {
                    delta = slack[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= n; ++j) {
                if (used[j]) {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    slack[j] -= delta;
                }
            }
            j0 = j1;
        } while (row_of[j0] != 0);
        do {  // flip the augmenting path back to the virtual column
            const int j1 = previous[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    std::vector<int> match(n);
    for (int j = 1; j <= n; ++j) match[row_of[j] - 1] = j - 1;
    return match;
}

double wasserstein1(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.rows() == 0)
        throw std::invalid_argument("wasserstein1: samples of " + std::to_string(a.rows()) + " x " +
                                    std::to_string(a.cols()) + " and " + std::to_string(b.rows()) +
                                    " x " + std::to_string(b.cols()) +
                                    ": need the same non-zero number of draws and coordinates");
    const Eigen::Index n = a.rows();
    Eigen::MatrixXd cost(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j) cost(i, j) = (a.row(i) - b.row(j)).norm();
    const std::vector<int> match = min_cost_assignment(cost);
    double total = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) total += cost(i, match[static_cast<std::size_t>(i)]);
    return total / static_cast<double>(n);
}

}  // namespace advi::report
