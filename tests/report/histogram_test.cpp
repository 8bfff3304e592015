// lib/advi/report/histogram: the bins of a marginal, counted by hand.
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/report/histogram.hpp>

using namespace advi::report;

TEST_CASE("histogram_bins: the Rice rule within [5, 40]", "[report][histogram]") {
    CHECK(histogram_bins(0) == 5);
    CHECK(histogram_bins(8) == 5);         // ceil(2 * 2) = 4, raised to 5
    CHECK(histogram_bins(27) == 6);        // 2 * 3
    CHECK(histogram_bins(1000) == 20);     // 2 * 10
    CHECK(histogram_bins(1001) == 21);     // 2 * 10.0033, rounded up
    CHECK(histogram_bins(1000000) == 40);  // 200, capped
}

TEST_CASE("histogram: equal bins over the finite values, the maximum in the last bin",
          "[report][histogram]") {
    Eigen::VectorXd x(14);
    const double inf = std::numeric_limits<double>::infinity();
    x << 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, std::nan(""), inf, -inf;
    const Histogram h = histogram(x, 5);
    CHECK(h.edges == std::vector<double>{0, 2, 4, 6, 8, 10});
    // [0,2): 0 1; [2,4): 2 3; [4,6): 4 5; [6,8): 6 7; [8,10]: 8 9 10.
    CHECK(h.counts == std::vector<int>{2, 2, 2, 2, 3});
    CHECK(h.nonfinite == 3);
}

TEST_CASE("histogram: equal values sit in the middle bin; no finite value counts nothing",
          "[report][histogram]") {
    const Histogram h = histogram(Eigen::VectorXd::Constant(4, 3.0), 3);
    REQUIRE(h.edges.size() == 4);
    CHECK(h.edges.front() == Approx(2.7));
    CHECK(h.edges.back() == Approx(3.3));
    CHECK(h.counts == std::vector<int>{0, 4, 0});

    const Histogram zero = histogram(Eigen::VectorXd::Zero(2), 1);
    CHECK(zero.edges == std::vector<double>{-0.5, 0.5});
    CHECK(zero.counts == std::vector<int>{2});

    const Histogram none = histogram(Eigen::VectorXd::Constant(2, std::nan("")), 4);
    CHECK(none.edges.front() == 0.0);
    CHECK(none.edges.back() == 1.0);
    CHECK(none.counts == std::vector<int>{0, 0, 0, 0});
    CHECK(none.nonfinite == 2);
}
