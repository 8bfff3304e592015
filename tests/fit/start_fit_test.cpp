// fit() starts q at the mode and Hessian of a compiled model (engine/start.hpp), through the
// Hessian-vector program it compiles for that, and at the init point when asked.
#include <cmath>
#include <string>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <catch2/catch.hpp>

#include <Eigen/LU>

#include <advi/advi.hpp>

namespace advi {
namespace {

// y_i ~ normal(mu, 2), mu ~ normal(0, 10), 50 points: a Gaussian posterior with precision
// 50 / 4 + 1 / 100 and mean (sum y / 4) / precision, so mean-field's optimum is exact.
struct NormalMean {
    Model m;
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(50, -1.0, 7.0);
    NormalMean() {
        auto mu = m.param("mu", normal(0, 10));
        m.observe(m.data("y", y), normal(mu, 2.0));
    }
};

}  // namespace

TEST_CASE("fit: q starts at the mode and Hessian of a compiled model", "[fit]") {
    NormalMean model;
    const double precision = 50.0 / 4.0 + 1.0 / 100.0;
    const double mean = model.y.sum() / 4.0 / precision;
    const Fit fit = advi::fit(model.m, {.seed = 4, .output_samples = 10});
    const AdviResult& r = fit.result();
    INFO(r.start);
    CHECK(r.start.rfind("the mode and Hessian (L-BFGS, ", 0) == 0);
    CHECK(r.eta == 0.1);          // no eta search
    CHECK(r.eta_trials.empty());  // (the scale came with the start)
    // Started at the exact answer; 100-odd steps at eta 0.1 move q a fraction of an sd.
    const double sd = 1.0 / std::sqrt(precision);
    CHECK(std::fabs(r.q.mu()[0] - mean) < 0.3 * sd);
    CHECK(std::fabs(r.q.sd()[0] / sd - 1.0) < 0.3);

    const Fit init =
        advi::fit(model.m, {.seed = 4, .output_samples = 10, .start = StartFrom::Init});
    CHECK(init.result().start == "the init point (zero)");
    CHECK_FALSE(init.result().eta_trials.empty());
}

TEST_CASE("fit: a regression on raw dollars starts at its mode (the second search, or Newton-CG)",
          "[fit]") {
    // posteriordb's earnings-earn_height in miniature: earnings in dollars on height in inches.
    // From zero (sigma = 1 against residuals of 2e4) L-BFGS stopped by tol_rel_grad after one
    // step, where sigma was so large that the Hessian was 0 in double precision, and q started
    // at zero, ending 6 to 24 posterior sds off. Newton-CG from L-BFGS's end reached the mode;
    // the second search from a random point (engine/other_mode) reaches it first, and says the
    // first search's end is no mode.
    const int N = 300;
    boost::random::mt19937_64 rng(7);
    boost::random::normal_distribution<double> noise;
    Eigen::MatrixXd X(N, 2);
    Eigen::VectorXd y(N);
    for (int i = 0; i < N; ++i) {
        X(i, 0) = 1.0;
        X(i, 1) = 66.0 + 4.0 * noise(rng);
        y[i] = -60000.0 + 1260.0 * X(i, 1) + 19000.0 * noise(rng);
    }
    Model m;
    auto beta = m.param("beta", normal(0, 1e7), 2);
    auto sigma = m.param("sigma", lognormal(0, 20));
    m.observe(m.data("y", y), normal(m.data("X", X) * beta, sigma));
    // The priors are negligible: beta's posterior is centred on least squares, with sds
    // s sqrt(diag((X'X)^-1)) (a t with N - 2 degrees of freedom: its sd is 0.3% larger).
    const Eigen::MatrixXd XtX_inv = (X.transpose() * X).inverse();
    const Eigen::VectorXd ols = XtX_inv * X.transpose() * y;
    const double s = std::sqrt((y - X * ols).squaredNorm() / (N - 2));
    const Eigen::VectorXd sd = s * XtX_inv.diagonal().cwiseSqrt();
    for (const Family family : {Family::MeanField, Family::FullRank}) {
        const Fit fit = advi::fit(m, {.family = family, .seed = 1, .output_samples = 10});
        const AdviResult& r = fit.result();
        INFO(r.start << "\n" << r.stop_reason << "\n" << r.q);
        CHECK(r.start.rfind("the mode and Hessian (L-BFGS", 0) == 0);
        if (r.other_mode.switched) {
            CHECK_FALSE(r.other_mode.found);
            CHECK(r.start.find("the first search's end is no mode") != std::string::npos);
        } else {
            CHECK(r.start.rfind("the mode and Hessian (L-BFGS, then Newton-CG, ", 0) == 0);
        }
        CHECK(r.converged);
        CHECK(((r.q.mu().head(2) - ols).array() / sd.array()).abs().maxCoeff() < 0.3);
    }
}

}  // namespace advi
