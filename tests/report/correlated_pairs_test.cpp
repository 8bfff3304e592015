// lib/advi/report/correlated_pairs: the pairs a report shows, on columns whose correlations
// are known by hand.
#include <cmath>
#include <limits>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/report/correlated_pairs.hpp>

using namespace advi::report;

namespace {

// Columns x = (1, 2, 3), y = (1, 3, 2), z = (3, 2, 1), w = 5 (constant): deviations from the
// means (-1, 0, 1), (-1, 1, 0), (1, 0, -1); so r(x, y) = 1 / 2, r(x, z) = -1, r(y, z) = -1 / 2,
// and w has no correlation. A fourth row with a NaN does not count.
Eigen::MatrixXd draws() {
    Eigen::MatrixXd d(4, 4);
    d << 1, 1, 3, 5,  //
        2, 3, 2, 5,   //
        std::nan(""), 9, 9, 5, 3, 2, 1, 5;
    return d;
}

}  // namespace

TEST_CASE("most_correlated_pairs: the largest |r| first, ties by column", "[report][pairs]") {
    const auto pairs = most_correlated_pairs(draws(), 10);
    REQUIRE(pairs.size() == 3);  // the constant column is in none
    CHECK(pairs[0].first == 0);
    CHECK(pairs[0].second == 2);
    CHECK(pairs[0].correlation == Approx(-1.0));
    // |0.5| twice: (0, 1) before (1, 2).
    CHECK(pairs[1].first == 0);
    CHECK(pairs[1].second == 1);
    CHECK(pairs[1].correlation == Approx(0.5));
    CHECK(pairs[2].first == 1);
    CHECK(pairs[2].second == 2);
    CHECK(pairs[2].correlation == Approx(-0.5));
}

TEST_CASE("most_correlated_pairs: at most `count`, none without two rows or columns",
          "[report][pairs]") {
    const auto two = most_correlated_pairs(draws(), 2);
    REQUIRE(two.size() == 2);
    CHECK(two[1].correlation == Approx(0.5));
    CHECK(most_correlated_pairs(draws(), 0).empty());
    CHECK(most_correlated_pairs(draws().topRows(1), 3).empty());
    CHECK(most_correlated_pairs(draws().leftCols(1), 3).empty());
}

TEST_CASE("most_correlated_pairs: huge values do not overflow", "[report][pairs]") {
    Eigen::MatrixXd d = draws().leftCols(3) * 1e300;
    const auto pairs = most_correlated_pairs(d, 1);
    REQUIRE(pairs.size() == 1);
    CHECK(pairs[0].correlation == Approx(-1.0));
}
