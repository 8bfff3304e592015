// stansummary's statistics against what theory says of draws with known autocorrelation:
// independent draws have ESS near their count, an AR(1) chain with coefficient phi has ESS
// n (1 - phi) / (1 + phi), chains with different means have R-hat well above 1, and the MAD
// of normal draws is their sd.
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include <advi/fit/chain_statistics.hpp>

using namespace advi;

namespace {

Eigen::VectorXd normal_draws(int n, std::uint64_t seed, double mean = 0.0) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z;
    Eigen::VectorXd x(n);
    for (int i = 0; i < n; ++i) x[i] = mean + z(rng);
    return x;
}

// x_t = phi x_{t-1} + sqrt(1 - phi^2) e_t: stationary with unit variance.
Eigen::VectorXd ar1(int n, double phi, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z;
    Eigen::VectorXd x(n);
    x[0] = z(rng);
    for (int i = 1; i < n; ++i) x[i] = phi * x[i - 1] + std::sqrt(1.0 - phi * phi) * z(rng);
    return x;
}

}  // namespace

TEST_CASE("chain statistics: independent draws have ESS near their count and R-hat near 1",
          "[chain_statistics]") {
    // The ESS estimator's own spread for 4000 independent draws is about 6% (seeds 1 to 8 gave
    // 3405 to 4161): each seed within 20%, their average within 5%.
    double bulk = 0.0, tail = 0.0;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const Chains chains{normal_draws(4000, seed)};
        CHECK(ess_bulk(chains) == Approx(4000).epsilon(0.2));
        CHECK(ess_tail(chains) == Approx(4000).epsilon(0.2));
        bulk += ess_bulk(chains) / 8;
        tail += ess_tail(chains) / 8;
    }
    CHECK(bulk == Approx(4000).epsilon(0.05));
    CHECK(tail == Approx(4000).epsilon(0.08));
    const Chains chains{normal_draws(4000, 1)};
    const ChainStatistics s = chain_statistics(chains, {0.05, 0.5, 0.95});
    CHECK(s.rhat < 1.01);
    CHECK(s.mean == Approx(0.0).margin(0.05));
    CHECK(s.sd == Approx(1.0).epsilon(0.04));
    CHECK(s.mad == Approx(1.0).epsilon(0.06));
    CHECK(s.mcse == Approx(s.sd / std::sqrt(4000.0)).epsilon(0.12));
    REQUIRE(s.quantiles.size() == 3);
    CHECK(s.quantiles[0] == Approx(-1.645).margin(0.08));
    CHECK(s.quantiles[1] == Approx(0.0).margin(0.05));
    CHECK(s.quantiles[2] == Approx(1.645).margin(0.08));
    CHECK(s.draws == 4000);
    CHECK(s.nonfinite == 0);
}

TEST_CASE("chain statistics: an AR(1) chain's ESS is n (1 - phi) / (1 + phi)",
          "[chain_statistics]") {
    for (const double phi : {0.5, 0.9}) {
        INFO("phi " << phi);
        const int n = 20000;
        const Chains chains{ar1(n, phi, 7)};
        const double expected = n * (1.0 - phi) / (1.0 + phi);
        CHECK(ess_basic(chains) == Approx(expected).epsilon(0.2));
        CHECK(ess_bulk(chains) == Approx(expected).epsilon(0.2));
        // The MCSE of the mean follows: sd / sqrt(ESS).
        const ChainStatistics s = chain_statistics(chains, {});
        CHECK(s.mcse == Approx(1.0 / std::sqrt(expected)).epsilon(0.15));
    }
}

TEST_CASE("chain statistics: chains of different means have R-hat above 1, of one mean near 1",
          "[chain_statistics]") {
    const Chains same{normal_draws(1000, 1), normal_draws(1000, 2), normal_draws(1000, 3)};
    CHECK(rhat(same) < 1.01);
    const Chains apart{normal_draws(1000, 1), normal_draws(1000, 2, 1.0)};
    CHECK(rhat(apart) > 1.1);
    // A trend within one chain: split R-hat sees it, the unsplit R-hat of one chain cannot.
    Eigen::VectorXd trend = normal_draws(1000, 4);
    trend.tail(500).array() += 2.0;
    CHECK(rhat(Chains{trend}) > 1.2);
    // Equal means, a scale twice as large in one chain: the folded R-hat sees it.
    const Chains wide{normal_draws(1000, 5), 3.0 * normal_draws(1000, 6)};
    CHECK(rhat(wide) > 1.05);
}

TEST_CASE("chain statistics: split chains, z-scale and what has no statistic",
          "[chain_statistics]") {
    Eigen::VectorXd odd(5);
    odd << 1, 2, 3, 4, 5;
    const Chains split = split_chains({odd});
    REQUIRE(split.size() == 2);
    CHECK(split[0].size() == 2);
    CHECK(split[1][0] == 4.0);  // the middle draw is in neither half
    // Ties get the average rank: 1, 2.5, 2.5, 4 of 4; z = Phi^-1((r - 3/8) / (4 + 1/4)).
    Eigen::VectorXd tied(4);
    tied << 0.1, 0.5, 0.5, 0.9;
    const Chains z = z_scale({tied});
    CHECK(z[0][1] == z[0][2]);
    CHECK(z[0][1] == Approx(0.0).margin(1e-12));
    CHECK(z[0][0] == Approx(-1.0491).margin(1e-3));  // Phi^-1(0.625 / 4.25)
    // Constant draws and a non-finite draw: no ESS, no R-hat, but the finite draws' mean.
    const Chains constant{Eigen::VectorXd::Constant(100, 2.0)};
    CHECK(std::isnan(ess_bulk(constant)));
    CHECK(std::isnan(rhat(constant)));
    Eigen::VectorXd hole = normal_draws(100, 9);
    hole[10] = std::nan("");
    const ChainStatistics s = chain_statistics({hole}, {0.5});
    CHECK(std::isnan(s.ess_bulk));
    CHECK(std::isnan(s.mcse));
    CHECK(std::isfinite(s.mean));
    CHECK(s.nonfinite == 1);
    CHECK(s.draws == 99);
}

TEST_CASE("chain statistics: the posterior package's numbers on a fixed sequence",
          "[chain_statistics]") {
    // x_i = sin(0.7 i) + 0.3 cos(0.013 i^2), i = 1..200: autocorrelated, not normal. The
    // references are R's posterior 1.4.0 (Debian's r-cran-posterior): ess_bulk(x), ess_tail(x),
    // rhat(x) and ess_basic(x) (the ESS of the split chains, unranked).
    Eigen::VectorXd x(200);
    for (int i = 1; i <= 200; ++i)
        x[i - 1] = std::sin(0.7 * i) + 0.3 * std::cos(0.013 * static_cast<double>(i) * i);
    const Chains chains{x};
    CHECK(ess_bulk(chains) == Approx(86.59040926).epsilon(1e-8));
    CHECK(ess_tail(chains) == Approx(179.43272153).epsilon(1e-8));
    CHECK(rhat(chains) == Approx(0.99505866).epsilon(1e-8));
    CHECK(ess_basic(split_chains(chains)) == Approx(80.53667129).epsilon(1e-8));
}
