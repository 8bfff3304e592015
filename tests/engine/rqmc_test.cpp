// Randomised quasi-Monte Carlo draws (engine/rqmc.hpp): unbiased (every coordinate a standard
// normal over randomisations), stratified (n = 2^m points put one point in each of n equal
// intervals of every coordinate's CDF scale), far less variable than Monte Carlo on a smooth
// integrand, padded with Monte Carlo beyond the Sobol table; and a fit with `draws = rqmc`
// reaching the same optimum as with Monte Carlo.
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/engine.hpp>
#include <advi/engine/rqmc.hpp>

#include "targets.hpp"

using advi::RqmcNormals;

namespace {

double normal_cdf(double x) {
    return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

}  // namespace

TEST_CASE("rqmc: each randomisation is stratified, and over randomisations unbiased", "[rqmc]") {
    RqmcNormals rqmc(6);
    advi::Rng rng(4);
    const int n = 16;
    double sum = 0.0, sum_sq = 0.0;
    const int reps = 400;
    for (int r = 0; r < reps; ++r) {
        const Eigen::MatrixXd eta = rqmc.draw(rng, n);
        REQUIRE(eta.rows() == n);
        REQUIRE(eta.cols() == 6);
        REQUIRE(eta.allFinite());
        for (int j = 0; j < 6; ++j) {
            // One point in each interval [k / 16, (k + 1) / 16) of the uniform scale.
            std::vector<int> count(n, 0);
            for (int i = 0; i < n; ++i)
                ++count[static_cast<std::size_t>(std::floor(normal_cdf(eta(i, j)) * n))];
            for (int k = 0; k < n; ++k) REQUIRE(count[static_cast<std::size_t>(k)] == 1);
        }
        sum += eta(3, 2);  // one point's coordinate: a standard normal over randomisations
        sum_sq += eta(3, 2) * eta(3, 2);
    }
    const double mean = sum / reps;
    CHECK(std::abs(mean) < 4.0 / std::sqrt(reps));
    CHECK(sum_sq / reps == Approx(1.0).margin(0.2));
}

TEST_CASE("rqmc: a smooth mean has far less variance than Monte Carlo's", "[rqmc]") {
    // E[sum_j exp(0.3 eta_j)] over N(0, I_5) with 64 points, 300 randomisations: the variance
    // of the RQMC estimate against that of 64 Monte Carlo draws.
    const int D = 5, n = 64, reps = 300;
    RqmcNormals rqmc(D);
    advi::Rng rng(9), mc(10);
    const auto f = [](const Eigen::MatrixXd& eta) {
        return (0.3 * eta.array()).exp().sum() / eta.rows();
    };
    double q1 = 0, q2 = 0, m1 = 0, m2 = 0;
    for (int r = 0; r < reps; ++r) {
        const double a = f(rqmc.draw(rng, n));
        const double b = f(mc.normal_matrix(n, D));
        q1 += a;
        q2 += a * a;
        m1 += b;
        m2 += b * b;
    }
    const double exact = D * std::exp(0.045);
    const double var_q = q2 / reps - (q1 / reps) * (q1 / reps);
    const double var_m = m2 / reps - (m1 / reps) * (m1 / reps);
    CHECK(q1 / reps == Approx(exact).epsilon(1e-3));
    CHECK(var_q < 0.05 * var_m);
}

TEST_CASE("rqmc: coordinates beyond the Sobol table are Monte Carlo", "[rqmc]") {
    const int D = RqmcNormals::kMaxSobolDim + 3;
    RqmcNormals rqmc(D);
    advi::Rng rng(1);
    const Eigen::MatrixXd eta = rqmc.draw(rng, 4);
    CHECK(eta.rows() == 4);
    CHECK(eta.cols() == D);
    CHECK(eta.allFinite());
    CHECK(eta.rightCols(3).cwiseAbs().maxCoeff() > 0.0);
}

TEST_CASE("rqmc: a fit with rqmc draws reaches mean-field's optimum; one draw is refused",
          "[rqmc]") {
    Eigen::MatrixXd S(2, 2);
    S << 1.0, 0.6, 0.6, 2.0;
    advi::test::GaussianTarget p(Eigen::Vector2d(1.0, -0.5), S);
    const Eigen::VectorXd mf_sd = p.precision().diagonal().cwiseInverse().cwiseSqrt();
    for (std::uint64_t seed = 0; seed < 3; ++seed) {
        const auto r = advi::run_advi(p, {.seed = seed,
                                          .grad_samples = 8,
                                          .output_samples = 0,
                                          .start = advi::StartFrom::Init,
                                          .draws = advi::DrawScheme::Rqmc});
        INFO("seed " << seed << ": " << r.q << r.stop_reason);
        CHECK((r.q.mu() - p.mean()).cwiseAbs().maxCoeff() < 0.05);
        CHECK((r.q.sd().array() / mf_sd.array() - 1.0).abs().maxCoeff() < 0.1);
    }
    CHECK_THROWS_WITH(advi::run_advi(p, {.grad_samples = 1, .draws = advi::DrawScheme::Rqmc}),
                      Catch::Matchers::Contains("`draws` = rqmc needs `grad_samples` >= 2"));
}
