// report/wasserstein: the exact assignment against brute force over every permutation, and W1
// against what is known in closed form (sorted pairing in one dimension, a translation).
#include "../../report/wasserstein.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include <Eigen/Core>
#include <catch2/catch.hpp>

using advi::report::min_cost_assignment;
using advi::report::wasserstein1;

namespace {

Eigen::MatrixXd normal_draws(int n, int d, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z;
    Eigen::MatrixXd x(n, d);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j) x(i, j) = z(rng);
    return x;
}

}  // namespace

TEST_CASE("min_cost_assignment is the cheapest of all permutations", "[report][wasserstein]") {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u(-3.0, 5.0);
        const int n = 1 + static_cast<int>(seed % 7);
        Eigen::MatrixXd cost(n, n);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) cost(i, j) = u(rng);
        std::vector<int> perm(static_cast<std::size_t>(n));
        std::iota(perm.begin(), perm.end(), 0);
        double best = std::numeric_limits<double>::infinity();
        do {
            double c = 0.0;
            for (int i = 0; i < n; ++i) c += cost(i, perm[static_cast<std::size_t>(i)]);
            best = std::min(best, c);
        } while (std::next_permutation(perm.begin(), perm.end()));
        const std::vector<int> match = min_cost_assignment(cost);
        std::vector<int> sorted = match;
        std::sort(sorted.begin(), sorted.end());
        for (int i = 0; i < n; ++i) REQUIRE(sorted[static_cast<std::size_t>(i)] == i);
        double c = 0.0;
        for (int i = 0; i < n; ++i) c += cost(i, match[static_cast<std::size_t>(i)]);
        CHECK(c == Approx(best).margin(1e-12));
    }
}

TEST_CASE("W1 in one dimension pairs the sorted draws", "[report][wasserstein]") {
    Eigen::MatrixXd a = normal_draws(300, 1, 3);
    Eigen::MatrixXd b = (normal_draws(300, 1, 4).array() * 2.0 + 0.5).matrix();
    std::vector<double> sa(a.data(), a.data() + a.size()), sb(b.data(), b.data() + b.size());
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    double sorted = 0.0;
    for (std::size_t i = 0; i < sa.size(); ++i) sorted += std::abs(sa[i] - sb[i]);
    sorted /= static_cast<double>(sa.size());
    CHECK(wasserstein1(a, b) == Approx(sorted).epsilon(1e-12));
    CHECK(wasserstein1(a, a) == 0.0);
}

TEST_CASE("W1 of a sample and its translate is the translation's length", "[report][wasserstein]") {
    // Kantorovich: f(x) = c'x/|c| is 1-Lipschitz and gains |c|; the identity pairing costs |c|.
    const Eigen::MatrixXd a = normal_draws(200, 5, 7);
    Eigen::RowVectorXd c(5);
    c << 0.3, -1.2, 0.0, 2.0, 0.7;
    const Eigen::MatrixXd b = a.rowwise() + c;
    CHECK(wasserstein1(a, b) == Approx(c.norm()).epsilon(1e-10));
}

TEST_CASE("W1 refuses samples of different shapes", "[report][wasserstein]") {
    CHECK_THROWS_AS(wasserstein1(Eigen::MatrixXd::Zero(3, 2), Eigen::MatrixXd::Zero(4, 2)),
                    std::invalid_argument);
    CHECK_THROWS_AS(wasserstein1(Eigen::MatrixXd::Zero(3, 2), Eigen::MatrixXd::Zero(3, 3)),
                    std::invalid_argument);
    CHECK_THROWS_AS(min_cost_assignment(Eigen::MatrixXd::Zero(2, 3)), std::invalid_argument);
}
