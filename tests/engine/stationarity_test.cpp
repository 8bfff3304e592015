// Split-R-hat, ESS and MCSE of traces against hand-computed values and AR(1) theory, and the
// batched iterate window against the same statistics over the raw trace.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/engine/stationarity.hpp>

using advi::effective_sample_size;
using advi::IterateWindow;
using advi::mcse_mean;
using advi::split_rhat;
using Catch::Matchers::WithinRel;

namespace {

// x_t = phi x_{t-1} + e_t, e ~ N(0, 1): integrated autocorrelation time (1 + phi) / (1 - phi),
// stationary variance 1 / (1 - phi^2).
std::vector<double> ar1(double phi, int n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> e;
    std::vector<double> x(static_cast<size_t>(n));
    double prev = e(rng) / std::sqrt(1.0 - phi * phi);
    for (double& v : x) {
        v = phi * prev + e(rng);
        prev = v;
    }
    return x;
}

}  // namespace

TEST_CASE("stationarity: split-R-hat by hand", "[engine][stationarity]") {
    // Segments {1,2,3,4} and {5,6,7,8}: means 2.5 and 6.5, variances 5/3; B/n = 8,
    // var+ = 3/4 * 5/3 + 8 = 9.25, R-hat = sqrt(9.25 / (5/3)) = sqrt(5.55).
    const std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_THAT(split_rhat(x, 2), WithinRel(std::sqrt(5.55), 1e-12));
    // The oldest value of a trace that does not split evenly is left out.
    const std::vector<double> y{100, 1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_THAT(split_rhat(y, 2), WithinRel(std::sqrt(5.55), 1e-12));
    // Four segments {1,2},{3,4},{5,6},{7,8}: within 0.5, means 1.5..7.5 have variance 20/3;
    // var+ = 1/2 * 1/2 + 20/3, R-hat = sqrt((0.25 + 20/3) / 0.5).
    CHECK_THAT(split_rhat(x, 4), WithinRel(std::sqrt((0.25 + 20.0 / 3.0) / 0.5), 1e-12));
    const std::vector<double> flat(10, 3.0);
    CHECK(split_rhat(flat, 2) == 1.0);
    CHECK(std::isnan(split_rhat(std::vector<double>{1, 2, 3}, 2)));
    // A stationary trace: R-hat close to 1; the same with a drift of one sd over the trace:
    // well above 1.1.
    std::vector<double> z = ar1(0.5, 4000, 1);
    CHECK(split_rhat(z, 8) < 1.01);
    for (size_t t = 0; t < z.size(); ++t) z[t] += 3.0 * static_cast<double>(t) / z.size();
    CHECK(split_rhat(z, 8) > 1.1);
}

TEST_CASE("stationarity: ESS and MCSE of AR(1) traces", "[engine][stationarity]") {
    const int n = 200000;
    for (const double phi : {0.0, 0.5, 0.9}) {
        const std::vector<double> x = ar1(phi, n, 7);
        const double tau = (1.0 + phi) / (1.0 - phi);
        INFO("phi = " << phi);
        // Geyer's estimate of tau has a relative error of a few % at this length.
        CHECK_THAT(effective_sample_size(x), WithinRel(n / tau, 0.06));
        const double var = 1.0 / (1.0 - phi * phi);
        CHECK_THAT(mcse_mean(x), WithinRel(std::sqrt(var * tau / n), 0.04));
    }
    const std::vector<double> flat(10, 3.0);
    CHECK(effective_sample_size(flat) == 10.0);
}

TEST_CASE("stationarity: the iterate window equals the statistics of its trace",
          "[engine][stationarity]") {
    // Two coordinates: a stationary AR(1) around 1e6 (Welford keeps the variance exact
    // there) and a drifting one.
    const std::vector<double> a = ar1(0.7, 4000, 3);
    std::vector<double> x0, x1;
    IterateWindow w(8, 10);
    auto feed = [&](int from, int to) {
        for (int t = from; t < to; ++t) {
            x0.push_back(1e6 + a[static_cast<size_t>(t)]);
            x1.push_back(0.01 * t + a[static_cast<size_t>(3999 - t)]);
            w.add(Eigen::Vector2d(x0.back(), x1.back()));
        }
    };
    const Eigen::Vector2d no_floor = Eigen::Vector2d::Zero();
    feed(0, 75);
    CHECK_FALSE(w.full());
    feed(75, 105);  // 10 full batches seen: the last 8 (iterates 20..99) are kept
    REQUIRE(w.full());
    CHECK(w.length() == 80);
    auto last = [](const std::vector<double>& v, size_t n) {
        return std::vector<double>(v.end() - static_cast<std::ptrdiff_t>(n) - 5, v.end() - 5);
    };
    Eigen::VectorXd r = w.rhat(no_floor);
    CHECK_THAT(r[0], WithinRel(split_rhat(last(x0, 80), 8), 1e-9));
    CHECK_THAT(r[1], WithinRel(split_rhat(last(x1, 80), 8), 1e-9));
    Eigen::VectorXd avg = w.average();
    const std::vector<double> l0 = last(x0, 80);
    double mean0 = 0.0;
    for (const double v : l0) mean0 += v / 80.0;
    CHECK_THAT(avg[0], WithinRel(mean0, 1e-14));

    // Merging keeps the last 80 iterates in 4 batches of 20; 80 more make 8 batches of 20.
    w.merge();
    CHECK_FALSE(w.full());
    CHECK(w.batch_length() == 20);
    CHECK(w.length() == 80);
    feed(105, 180);  // the partial batch (5) plus 75: 4 new batches of 20
    REQUIRE(w.full());
    CHECK(w.length() == 160);
    r = w.rhat(no_floor);
    auto last160 = [](const std::vector<double>& v) {
        return std::vector<double>(v.end() - 160, v.end());
    };
    CHECK_THAT(r[0], WithinRel(split_rhat(last160(x0), 8), 1e-9));
    CHECK_THAT(r[1], WithinRel(split_rhat(last160(x1), 8), 1e-9));
    // A floor above the spread of the batch means makes a coordinate count as constant.
    CHECK(w.rhat(Eigen::Vector2d(0.0, 1e3))[1] == 1.0);
    w.clear();
    CHECK_FALSE(w.full());
    CHECK(w.length() == 0);
}
