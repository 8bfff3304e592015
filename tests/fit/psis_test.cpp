// PSIS k-hat against ratios whose tail is known: weights drawn from a generalized Pareto of
// shape k by its inverse CDF must give k-hat near k; equal ratios give uniform weights with
// ESS = S; -inf ratios are weights of 0.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

#include <Eigen/Core>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/rng.hpp>
#include <advi/fit/psis.hpp>

namespace {

// log of S draws of a generalized Pareto(k, sigma = 1): w = ((1 - u)^-k - 1) / k, u uniform
// (from the normal's CDF, so that the test needs only the engine's generator).
Eigen::VectorXd gpd_log_ratios(double k, int S, std::uint64_t seed) {
    advi::Rng rng(seed);
    Eigen::VectorXd r(S);
    for (int i = 0; i < S; ++i) {
        const double u = 0.5 * std::erfc(-rng.normal() / std::sqrt(2.0));
        r[i] = std::log(std::expm1(-k * std::log1p(-u)) / k);
    }
    return r;
}

}  // namespace

TEST_CASE("PSIS k-hat recovers the shape of a generalized Pareto tail", "[fit][psis]") {
    // A tail of 3 sqrt(S) = 949 draws: over 20 seeds k-hat's sd was 0.034 at k = 0.2 and 0.057
    // at k = 1.3 (measured), without bias; the mean over 5 seeds is checked within 0.08, 3 to
    // 5 of its sds.
    const int S = 100000;
    // Seed 11's ESS and threshold per k, for the checks after the loop (each fit computed once).
    std::map<double, advi::Psis> seed11;
    for (const double k : {0.2, 0.5, 0.9, 1.3}) {
        double mean = 0.0;
        for (std::uint64_t seed = 1; seed <= 5; ++seed)
            mean += advi::psis(gpd_log_ratios(k, S, seed)).k_hat / 5;
        INFO("k = " << k << ", mean k-hat = " << mean);
        CHECK(std::abs(mean - k) < 0.08);
        const advi::Psis p = advi::psis(gpd_log_ratios(k, S, 11));
        CHECK(p.tail == 949);
        CHECK(p.draws == S);
        CHECK_FALSE(p.constant);
        // Normalised weights.
        CHECK(p.log_weights.array().exp().sum() == Approx(1.0).epsilon(1e-12));
        CHECK(p.ess < S);
        seed11.emplace(k, p);
    }
    // A heavier tail gives a smaller ESS.
    CHECK(seed11.at(1.3).ess < seed11.at(0.2).ess);
    CHECK(seed11.at(0.5).k_threshold == Approx(0.7));
}

TEST_CASE("PSIS of constant ratios, of -inf ratios, and of NaN", "[fit][psis]") {
    const advi::Psis c = advi::psis(Eigen::VectorXd::Constant(1000, -3.25));
    CHECK(c.constant);
    CHECK(std::isnan(c.k_hat));
    CHECK(c.ess == Approx(1000).epsilon(1e-12));
    CHECK_THAT(advi::psis_text(c), Catch::Matchers::Contains("exact up to a constant"));

    Eigen::VectorXd r = Eigen::VectorXd::Constant(100, 1.0);
    r.head(20).setConstant(-std::numeric_limits<double>::infinity());
    const advi::Psis z = advi::psis(r);
    CHECK(z.draws == 80);
    CHECK(z.ess == Approx(80).epsilon(1e-12));
    CHECK(std::isinf(z.log_weights[0]));

    r[50] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(advi::psis(r), advi::InternalError);

    // S = 1000 draws: the threshold is 1 - 1 / log10(1000) = 0.667.
    const advi::Psis t = advi::psis(gpd_log_ratios(0.5, 1000, 3));
    CHECK(t.k_threshold == Approx(1.0 - 1.0 / 3.0));
    CHECK_THAT(advi::psis_text(t), Catch::Matchers::Contains("Pareto k-hat"));
}

// The tail is the largest ceil(min(0.2 S, 3 sqrt S)) ratios and needs five: 21 draws is the
// first S with ceil(0.2 S) = 5 (3 sqrt S is larger from S = 1 on). Ratios on a grid of a
// smooth, unbounded tail (log of 1/u) get a k-hat from S = 21, none at S = 20; a few weights
// that dwarf all the others get none at any S, and the text says which of the two it is.
TEST_CASE("PSIS: the fewest draws with a tail fit, and weights with no tail", "[fit][psis]") {
    REQUIRE(advi::psis_min_draws() == 21);
    const auto smooth = [](int S) {
        Eigen::VectorXd r(S);
        for (int i = 0; i < S; ++i) r[i] = -std::log((i + 0.5) / S);
        return r;
    };
    const advi::Psis at_20 = advi::psis(smooth(20));
    const advi::Psis at_21 = advi::psis(smooth(21));
    CHECK(std::isnan(at_20.k_hat));
    CHECK(at_20.tail == 0);
    CHECK(std::isfinite(at_21.k_hat));
    CHECK(at_21.tail == 5);
    CHECK(advi::psis_text(at_20) ==
          "Pareto k-hat not computed (20 finite log ratios: too few for a tail)");
    // One ratio 1e11 above the others: the other weights are exp(-1e11) = 0, so the tail's
    // exceedances are 0 but one, and no fit is possible however many draws there are.
    for (const int S : {21, 1000}) {
        Eigen::VectorXd r = Eigen::VectorXd::Zero(S);
        r[S / 2] = 1e11;
        const advi::Psis p = advi::psis(r);
        CAPTURE(S);
        CHECK_FALSE(p.constant);
        CHECK(std::isnan(p.k_hat));
        CHECK(p.ess == 1.0);
        CHECK(advi::psis_text(p) == fmt::format("Pareto k-hat not computed (a few of the {} "
                                                "weights dwarf all the others: no tail to fit)",
                                                S));
    }
}
