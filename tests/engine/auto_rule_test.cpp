// The Auto rule (auto_rule.cpp) on Gaussian targets, whose optima are known: mean-field's sds
// are 1/sqrt(P_dd), full-rank's covariance is exact. Also: an additive constant of 1e6 or 1e9
// in log p changes nothing, and a step size too small to move q is never "converged".
#include <cmath>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include <Eigen/Cholesky>

#include <advi/engine/engine.hpp>

#include "engine/targets.hpp"

using advi::Family;
using advi::Options;
using advi::run_advi;
using advi::test::GaussianTarget;
using Catch::Matchers::Contains;
using Catch::Matchers::Matches;
using Catch::Matchers::StartsWith;

namespace {

// Four dimensions, correlations up to 0.8 and sds from 0.5 to 2: mean-field's optimum is
// well below the marginal sds. (Poor scaling is the start's to remove, by whitening.)
GaussianTarget gaussian4(double offset = 0.0, Eigen::Vector4d sd = {0.5, 1.0, 1.5, 2.0}) {
    Eigen::Matrix4d R;
    R << 1.0, 0.8, 0.3, 0.0,  //
        0.8, 1.0, 0.5, -0.2,  //
        0.3, 0.5, 1.0, 0.4,   //
        0.0, -0.2, 0.4, 1.0;
    const Eigen::MatrixXd S = sd.asDiagonal() * R * sd.asDiagonal();
    return GaussianTarget(Eigen::Vector4d(1.0, -2.0, 1.0, 0.5), S, offset);
}

}  // namespace

TEST_CASE("auto rule: mean-field reaches the analytic optimum", "[engine][auto]") {
    GaussianTarget p = gaussian4();
    const Eigen::VectorXd sd_opt = p.precision().diagonal().cwiseSqrt().cwiseInverse();
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const auto r = run_advi(p, {.seed = seed, .max_iterations = 20000, .output_samples = 0});
        INFO("seed " << seed << ": " << r.q << r.stop_reason << "\niterations " << r.iterations);
        CHECK(r.converged);
        CHECK_THAT(r.stop_reason, StartsWith("the iterate average reached a plateau"));
        // From the init point (these targets give no curvature, so no start at the mode), the
        // ELBO within 0.05 nats of the family's optimum (measured: 0.012 to 0.021 over four
        // seeds; the relative rule stopped 0.3 to 1 nat short), sds within 10% of 1/sqrt(P_dd)
        // (measured 4-8%; a factor of 2 in the entropy gradient would be 41% off) and means
        // within 0.35 of the optimum's sd (measured up to 0.28, along the correlated pair, where
        // a mean error costs the ELBO least: the criterion is in nats).
        const advi::Approximation opt =
            advi::Approximation::mean_field(p.mean(), sd_opt.array().log().matrix());
        CHECK(p.analytic_elbo(opt) - p.analytic_elbo(r.q) < 0.05);
        const Eigen::ArrayXd ratio = r.q.sd().array() / sd_opt.array();
        CHECK((ratio - 1.0).abs().maxCoeff() < 0.10);
        CHECK(((r.q.mu() - p.mean()).array() / sd_opt.array()).abs().maxCoeff() < 0.35);
        // Over 100 common draws the ELBO's MCSE is about sd(log p) / 10 = sqrt(D / 2) / 10.
        CHECK(r.elbo_se > 0.05);
        CHECK(r.elbo_se < 0.4);
        // The ELBO reported is that of q (common draws: exact for a quadratic log density).
        CHECK(std::fabs(r.elbo - p.analytic_elbo(r.q)) < 1e-6);
    }
}

TEST_CASE("auto rule: full-rank reaches the exact posterior", "[engine][auto]") {
    // Unit sds: on the 0.5-2 sds above, full-rank from L = I at the searched eta was still
    // gaining 1.5 nats per phase at 20000 iterations (left to the start from the mode, which
    // whitens the coordinates).
    GaussianTarget p = gaussian4(0.0, Eigen::Vector4d::Ones());
    const Eigen::MatrixXd S = p.covariance();
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const auto r = run_advi(p, {.family = Family::FullRank,
                                    .seed = seed,
                                    .max_iterations = 20000,
                                    .output_samples = 0});
        const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(S).matrixL();
        // Measured 0.028 to 0.042 over three seeds from the init point.
        CHECK(p.analytic_elbo(advi::Approximation::full_rank(p.mean(), L)) - p.analytic_elbo(r.q) <
              0.06);
        INFO("seed " << seed << ": " << r.q << r.stop_reason << "\niterations " << r.iterations);
        CHECK(r.converged);
        const Eigen::ArrayXd sd = S.diagonal().cwiseSqrt().array();
        // Covariance entries as correlations-scale errors, and the means in sds.
        const Eigen::MatrixXd err =
            ((r.q.covariance() - S).array() / (sd.matrix() * sd.matrix().transpose()).array())
                .matrix();
        // Measured up to 0.30: the ELBO gap above is the tight check.
        CHECK(err.cwiseAbs().maxCoeff() < 0.4);
        CHECK(((r.q.mu() - p.mean()).array() / sd).abs().maxCoeff() < 0.1);
    }
}

TEST_CASE("auto rule: an additive constant in log p changes nothing", "[engine][auto]") {
    for (const Family family : {Family::MeanField, Family::FullRank}) {
        GaussianTarget p0 = gaussian4(0.0);
        const auto r0 = run_advi(p0, {.family = family, .seed = 3, .output_samples = 0});
        for (const double offset : {1e6, 1e9}) {
            GaussianTarget p = gaussian4(offset);
            const auto r = run_advi(p, {.family = family, .seed = 3, .output_samples = 0});
            INFO("offset " << offset << "\n" << r0.q << r.q);
            CHECK(r.iterations == r0.iterations);
            CHECK(r.converged == r0.converged);
            // Full-rank on this target (no curvature, so no mode start) starts from a mean-field
            // fit, whose q differs in its last bits with the offset; the whitened full-rank fit
            // from it takes the same decisions (the same iterations) and ends within 1e-3 of
            // q's parameters (sds 0.5 to 2), 2e-5 nats of ELBO, at offset 1e9.
            const double tol = family == Family::FullRank ? 1e-3 : 1e-6;
            CHECK((r.q.params() - r0.q.params()).cwiseAbs().maxCoeff() < tol);
            CHECK(std::fabs(r.elbo - offset - r0.elbo) < tol * std::max(1.0, offset * 1e-9));
        }
    }
}

TEST_CASE("auto rule: a step size too small to move q is not convergence", "[engine][auto]") {
    GaussianTarget p = gaussian4();
    const auto r = run_advi(p, {.seed = 1,
                                .adapt_engaged = false,
                                .eta = 1e-5,
                                .max_iterations = 3000,
                                .output_samples = 0});
    INFO(r.stop_reason);
    CHECK_FALSE(r.converged);
    CHECK_THAT(r.stop_reason, Contains("max_iterations reached"));
    // Slow as it is, the drift from the init point gains more than 0.02 nats per half phase.
    CHECK_THAT(r.stop_reason, Contains("before the iterate average reached a plateau"));
    CHECK(r.iterations == 3000);
}

TEST_CASE("auto rule: the stop reason and trace", "[engine][auto]") {
    GaussianTarget p = gaussian4(-10.0);
    const auto r = run_advi(p, {.seed = 2, .output_samples = 10});
    REQUIRE(r.converged);
    CHECK_THAT(r.stop_reason,
               Matches("the iterate average reached a plateau at [0-9]+ step size\\(s\\); the "
                       "last phase gained -?[0-9.e-]+ \\+- [0-9.e-]+ nats \\(\\|gain\\| and 2 MCSE "
                       "<= 0.05\\), and q's "
                       "location and scale pass the gradient checks.*"));
    // One ELBO per block of eval_elbo iterations, of the running average.
    REQUIRE(r.elbo_trace.size() >= 2);
    CHECK(r.elbo_trace.size() == static_cast<size_t>(r.iterations / 100));
    CHECK(r.elbo_trace.size() == r.elbo_iterations.size());
    CHECK(r.elbo_iterations.back() == r.iterations);
    CHECK(r.draws.rows() == 10);
}

TEST_CASE("auto rule: a q that drifts for long restarts its average", "[engine][auto]") {
    // The mean 60 sds from the init point at a fixed eta of 0.05: q drifts by about eta per
    // iteration for over a thousand iterations, and an average over the whole path would
    // sit hundreds of nats behind q. The average restarts from the last block while that block
    // is ahead, so the fit ends at the optimum as the stationary case does.
    GaussianTarget p = gaussian4(0.0, Eigen::Vector4d::Ones());
    p = GaussianTarget(Eigen::Vector4d(60.0, -40.0, 20.0, 10.0), p.covariance());
    std::ostringstream log;
    const auto r = run_advi(p, {.seed = 1,
                                .adapt_engaged = false,
                                .eta = 0.05,
                                .max_iterations = 20000,
                                .output_samples = 0,
                                .log = &log});
    INFO(log.str() << r.stop_reason);
    CHECK(r.converged);
    CHECK_THAT(log.str(), Contains("behind the last block: average restarted"));
    const Eigen::VectorXd sd_opt = p.precision().diagonal().cwiseSqrt().cwiseInverse();
    const advi::Approximation opt =
        advi::Approximation::mean_field(p.mean(), sd_opt.array().log().matrix());
    CHECK(p.analytic_elbo(opt) - p.analytic_elbo(r.q) < 0.05);
}

TEST_CASE("auto rule: max_iterations in a later phase names that phase", "[engine][auto]") {
    GaussianTarget p = gaussian4();
    std::ostringstream log;
    // Enough iterations for the first plateau, not for the second.
    const auto full = run_advi(p, {.seed = 1, .output_samples = 0, .log = &log});
    REQUIRE(full.converged);
    const std::string text = log.str();
    const auto plateau = text.find("PLATEAU");
    REQUIRE(plateau != std::string::npos);
    const auto line_start = text.rfind('\n', plateau) + 1;
    const int first_plateau = std::stoi(text.substr(line_start, plateau - line_start));
    const auto r =
        run_advi(p, {.seed = 1, .max_iterations = first_plateau + 150, .output_samples = 0});
    INFO(text << r.stop_reason);
    CHECK_FALSE(r.converged);
    CHECK_THAT(r.stop_reason,
               Matches("max_iterations reached in step size 2 \\(eta [0-9.e-]+\\) before its "
                       "iterate average reached a plateau; step size 1 had gained [-0-9.e+]+ \\+- "
                       "[0-9.e+-]+ nats over the best q before it.*"));
}

TEST_CASE("auto rule: a run-off in a new step size's first block is backed off, not the end",
          "[engine][auto]") {
    // Limits of 20 on q's means and scales, eta 100 given: the first step puts a mean far past
    // 20 (measured: 90.7), which an improper posterior's drift would take thousands of iterations
    // to do. The rule backs off (eta / 10, q restored) until steps stay inside, and converges.
    GaussianTarget p = gaussian4(0.0, Eigen::Vector4d::Ones());
    std::ostringstream log;
    const auto r = run_advi(p, {.seed = 1,
                                .adapt_engaged = false,
                                .eta = 100.0,
                                .output_samples = 0,
                                .log = &log,
                                .runaway_limits = Eigen::VectorXd::Constant(4, 20.0)});
    INFO(log.str() << r.stop_reason);
    CHECK(r.converged);
    CHECK(r.eta_reductions >= 1);
    CHECK_THAT(log.str(), Contains("q ran off"));
    CHECK_THAT(log.str(), Contains("1 iteration(s) into step size 100"));
    CHECK_THAT(r.stop_reason, Contains("after non-finite or runaway steps"));
    CHECK((r.q.mu() - p.mean()).cwiseAbs().maxCoeff() < 0.3);
}
