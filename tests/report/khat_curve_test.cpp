// lib/advi/report/khat_curve: where the curve is computed, and that each point is PSIS's k-hat
// of the first n ratios.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/fit/psis.hpp>
#include <advi/report/khat_curve.hpp>

using namespace advi::report;

TEST_CASE("khat_draw_counts: log-spaced from the fewest PSIS fits to all", "[report][khat]") {
    REQUIRE(advi::psis_min_draws() == 21);
    // 21 (1000 / 21)^(k / 4), k = 0..4: 21, 55.2, 144.9, 380.6, 1000.
    CHECK(khat_draw_counts(1000, 5) == std::vector<int>{21, 55, 145, 381, 1000});
    CHECK(khat_draw_counts(22, 24) == std::vector<int>{21, 22});  // no repeats
    CHECK(khat_draw_counts(21, 3) == std::vector<int>{21});
    CHECK(khat_draw_counts(20, 5).empty());
}

TEST_CASE("khat_curve: each point is psis() of the first n usable ratios", "[report][khat]") {
    // Pareto ratios of shape 0.8: exp(r) = U^-0.8, so k-hat should settle near 0.8; a NaN and
    // a +inf (draws whose log density failed) are left out, a -inf (a weight of 0) is kept.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> usable;
    for (int i = 0; i < 2000; ++i) usable.push_back(-0.8 * std::log(1.0 - u(rng)));
    usable[5] = -std::numeric_limits<double>::infinity();
    std::vector<double> with_bad = usable;
    with_bad.insert(with_bad.begin() + 10, std::nan(""));
    with_bad.insert(with_bad.begin() + 100, std::numeric_limits<double>::infinity());
    const Eigen::VectorXd ratios = Eigen::Map<const Eigen::VectorXd>(
        with_bad.data(), static_cast<Eigen::Index>(with_bad.size()));

    const std::vector<KhatPoint> curve = khat_curve(ratios, 8);
    REQUIRE(curve.size() == 8);
    CHECK(curve.back().draws == 2000);
    for (const KhatPoint& p : curve) {
        const advi::Psis ref =
            advi::psis(Eigen::Map<const Eigen::VectorXd>(usable.data(), p.draws));
        CHECK((p.k_hat == ref.k_hat || (std::isnan(p.k_hat) && std::isnan(ref.k_hat))));
        CHECK(p.threshold == ref.k_threshold);
    }
    CHECK(curve.back().k_hat == Approx(0.8).margin(0.15));
    CHECK(curve.back().threshold == Approx(1 - 1 / std::log10(2000.0)));
}

TEST_CASE("khat_curve: constant ratios have no k-hat; too few give no curve", "[report][khat]") {
    const auto flat = khat_curve(Eigen::VectorXd::Constant(100, -3.0), 4);
    REQUIRE(!flat.empty());
    for (const KhatPoint& p : flat) CHECK(std::isnan(p.k_hat));
    CHECK(khat_curve(Eigen::VectorXd::Zero(20), 4).empty());
}
