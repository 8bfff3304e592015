// run_advi on hand-written Gaussian targets: accuracy of both families against known
// optima, result bookkeeping, logging, determinism, and option validation.
#include <algorithm>
#include <cmath>
#include <sstream>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/engine.hpp>

#include "engine/targets.hpp"

using advi::Family;
using advi::Options;
using advi::run_advi;
using advi::test::correlated_cov;
using advi::test::GaussianTarget;
using Catch::Matchers::Contains;
using Catch::Matchers::Matches;

namespace {

// Accuracy tests use ten gradient draws and a tight tolerance: with M = 1 the iterates
// jitter, and the paper's step-size sequence (s includes the current g^2) biases omega
// upwards, by +4% in sd on average for the 1-D normal below and up to +20-30% in the 2-D
// variances (measured). That is the algorithm, not the estimator, so it is kept out of
// checks meant to catch estimator bugs.
Options accurate(Family family, std::uint64_t seed) {
    return {.family = family,
            .seed = seed,
            .grad_samples = 10,
            .tol_rel_obj = 0.001,
            .max_iterations = 20000,
            .output_samples = 0};
}

// The paper's 2-D example: correlation 0.9, sds 1 and 1.5. Normalised (offset 0), so that
// tol_rel_obj acts as an absolute 0.001 nats through the floor of 1 in the denominator.
GaussianTarget correlated_2d(double offset = 0.0) {
    return GaussianTarget(Eigen::Vector2d(1.0, -2.0), correlated_cov(1.0, 1.5, 0.9), offset);
}

}  // namespace

TEST_CASE("engine: normal mean with known variance (posterior N(1.3, 0.2^2))", "[advi]") {
    GaussianTarget p(Eigen::VectorXd::Constant(1, 1.3), Eigen::MatrixXd::Constant(1, 1, 0.04));
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
        const auto r = run_advi(p, accurate(Family::MeanField, seed));
        INFO("seed " << seed << ": " << r.q << r.stop_reason);
        // Measured: |mu - 1.3| <= 0.01 and sd within 2.6% over 8 seeds. A factor of 2 in the
        // entropy gradient would put sd off by sqrt(2).
        CHECK(std::fabs(r.q.mu()[0] - 1.3) < 0.03);
        CHECK(std::fabs(r.q.sd()[0] / 0.2 - 1.0) < 0.08);
    }
}

TEST_CASE("engine: full-rank recovers the correlated 2-D Gaussian", "[advi]") {
    GaussianTarget p = correlated_2d();
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
        const auto r = run_advi(p, accurate(Family::FullRank, seed));
        const Eigen::MatrixXd C = r.q.covariance();
        const double corr = C(0, 1) / std::sqrt(C(0, 0) * C(1, 1));
        INFO("seed " << seed << ": " << r.q << "corr " << corr << ", " << r.stop_reason);
        // Measured over 8 seeds (old relative rule at tol_rel_obj 0.001): |corr - 0.9| <= 0.01,
        // variances within 5%, mu within 0.03. The Auto rule (issue 19) stops once halving the
        // step size gains under 0.1 nats: variances up to 13.6% off over seeds 0-3.
        CHECK(std::fabs(corr - 0.9) < 0.05);
        CHECK(std::fabs(C(0, 0) / 1.0 - 1.0) < 0.16);
        CHECK(std::fabs(C(1, 1) / 2.25 - 1.0) < 0.16);
        CHECK((r.q.mu() - p.mean()).cwiseAbs().maxCoeff() < 0.1);
    }
}

TEST_CASE("engine: mean-field finds the mean and underestimates the marginal variances", "[advi]") {
    GaussianTarget p = correlated_2d();
    // The mean-field optimum for a Gaussian target has variances 1 / Lambda_ii (Lambda the
    // precision): here 0.19 and 0.4275, against marginal variances 1 and 2.25.
    const Eigen::VectorXd mf_var = p.precision().diagonal().cwiseInverse();
    REQUIRE(std::fabs(mf_var[0] - 0.19) < 1e-12);
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
        const auto r = run_advi(p, accurate(Family::MeanField, seed));
        const Eigen::VectorXd var = r.q.covariance().diagonal();
        INFO("seed " << seed << ": " << r.q << r.stop_reason);
        // Measured over 8 seeds: variances within 7% of 1/Lambda_ii, mu within 0.04.
        CHECK((r.q.mu() - p.mean()).cwiseAbs().maxCoeff() < 0.1);
        // Auto rule: up to 12.7% (seed 3).
        CHECK(std::fabs(var[0] / mf_var[0] - 1.0) < 0.15);
        CHECK(std::fabs(var[1] / mf_var[1] - 1.0) < 0.15);
        CHECK(var[0] < 0.3 * p.covariance()(0, 0));
        CHECK(var[1] < 0.3 * p.covariance()(1, 1));
    }
}

TEST_CASE("engine: result bookkeeping and output draws", "[advi]") {
    GaussianTarget p = correlated_2d(-10.0);
    const auto r = run_advi(p, {.family = Family::FullRank, .seed = 4, .output_samples = 4000});
    REQUIRE(r.converged);
    // The Auto rule (issue 19): one ELBO per block of eval_elbo iterations, of the phase's
    // iterate average; the result is the best phase's average, whose ELBO is in the trace.
    CHECK_THAT(r.stop_reason, Matches("the iterate average reached a plateau at [0-9]+ step "
                                      "size\\(s\\).*"));
    CHECK(r.iterations == r.elbo_iterations.back());
    CHECK(r.elbo_trace.size() == r.elbo_iterations.size());
    CHECK(r.elbo_trace.size() == static_cast<size_t>(r.iterations / 100));
    CHECK(std::find(r.elbo_trace.begin(), r.elbo_trace.end(), r.elbo) != r.elbo_trace.end());
    CHECK(r.eta_trials.size() == 5);
    CHECK(r.seconds > 0.0);
    CHECK(r.dropped_draws == 0);
    REQUIRE(r.draws.rows() == 4000);
    REQUIRE(r.draws.cols() == 2);
    // The output draws come from q: their mean is mu to within ~4 standard errors.
    const Eigen::VectorXd mean = r.draws.colwise().mean().transpose();
    CHECK((mean - r.q.mu()).cwiseAbs().maxCoeff() < 4.0 * 1.6 / std::sqrt(4000.0));
}

TEST_CASE("engine: adapt_engaged = false uses the given eta", "[advi]") {
    GaussianTarget p = correlated_2d(-10.0);
    const auto r = run_advi(p, {.seed = 1, .adapt_engaged = false, .eta = 0.5});
    CHECK(r.eta == 0.5);
    CHECK(r.eta_trials.empty());
    CHECK(r.converged);
}

TEST_CASE("engine: init sets the starting mean", "[advi]") {
    GaussianTarget p = correlated_2d(-10.0);
    // With one iteration and a tiny eta, q is still essentially at init.
    Options opts{.seed = 1, .adapt_engaged = false, .eta = 1e-9, .max_iterations = 1};
    opts.init = Eigen::Vector2d(5.0, 6.0);
    const auto r = run_advi(p, opts);
    CHECK((r.q.mu() - Eigen::Vector2d(5.0, 6.0)).cwiseAbs().maxCoeff() < 1e-6);
    CHECK_FALSE(r.converged);
    CHECK_THAT(r.stop_reason, Contains("max_iterations reached"));
    CHECK(r.iterations == 1);
}

TEST_CASE("engine: log prints the eta search and the ELBO table", "[advi]") {
    GaussianTarget p = correlated_2d(-10.0);
    std::ostringstream log;
    const auto r = run_advi(p, {.seed = 2, .log = &log});
    const std::string s = log.str();
    CHECK_THAT(s, Contains("Begin eta adaptation"));
    CHECK_THAT(s, Contains("Success! Found best value [eta = "));
    // The Auto rule's table: a line per block (iteration, eta, ELBO of the average, gain over
    // half a phase earlier), PLATEAU where a phase ends.
    CHECK_THAT(s, Contains("Auto rule"));
    CHECK_THAT(s, Contains("ELBO(average)"));
    CHECK_THAT(s, Contains("PLATEAU"));
    REQUIRE(r.converged);
}

TEST_CASE("engine: the same seed gives bit-identical fits, another seed differs", "[advi]") {
    GaussianTarget p = correlated_2d(-10.0);
    for (const auto rule : {advi::ConvergenceRule::Robust, advi::ConvergenceRule::Stan}) {
        for (const Family family : {Family::MeanField, Family::FullRank}) {
            const Options opts{.family = family, .seed = 42, .convergence = rule};
            const auto a = run_advi(p, opts);
            const auto b = run_advi(p, opts);
            CHECK(a.q.params() == b.q.params());
            CHECK(a.draws == b.draws);
            CHECK(a.elbo_trace == b.elbo_trace);
            CHECK(a.iterations == b.iterations);
            CHECK(a.eta == b.eta);
            Options other = opts;
            other.seed = 43;
            const auto c = run_advi(p, other);
            CHECK(a.q.params() != c.q.params());
            CHECK(a.draws != c.draws);
        }
    }
}

TEST_CASE("engine: bad options throw with the option's name", "[advi]") {
    GaussianTarget p = correlated_2d();
    auto fails = [&](Options o) { (void)run_advi(p, o); };
    CHECK_THROWS_WITH(fails({.grad_samples = 0}),
                      Contains("`grad_samples`") && Contains("positive") && Contains("got 0"));
    CHECK_THROWS_AS(fails({.grad_samples = 0}), advi::FitError);
    CHECK_THROWS_WITH(fails({.elbo_samples = -3}), Contains("`elbo_samples`"));
    CHECK_THROWS_WITH(fails({.eval_elbo = 0}), Contains("`eval_elbo`"));
    CHECK_THROWS_WITH(fails({.tol_rel_obj = 0.0}), Contains("`tol_rel_obj`"));
    CHECK_THROWS_WITH(fails({.tol_rel_obj = std::nan("")}), Contains("`tol_rel_obj`"));
    CHECK_THROWS_WITH(fails({.adapt_iter = 0}), Contains("`adapt_iter`"));
    CHECK_THROWS_WITH(fails({.adapt_engaged = false, .eta = -1.0}), Contains("`eta`"));
    CHECK_THROWS_WITH(fails({.max_iterations = 0}), Contains("`max_iterations`"));
    CHECK_THROWS_WITH(fails({.output_samples = -1}), Contains("`output_samples`"));
    Options bad_init;
    bad_init.init = Eigen::Vector3d(1, 2, 3);
    CHECK_THROWS_AS(fails(bad_init), advi::ShapeError);
    CHECK_THROWS_WITH(fails(bad_init),
                      Matches("option `init`: expected vector\\(2\\), got vector\\(3\\)"));
    advi::test::BrokenTarget empty(0, 0.0);
    CHECK_THROWS_AS((void)run_advi(empty, {}), advi::ModelError);
}

namespace {
// Satisfies advi::LogDensity without deriving from Target.
struct PlainDensity {
    int dim() const { return 1; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) const {
        g[0] = -(z[0] - 2.0);
        return -0.5 * (z[0] - 2.0) * (z[0] - 2.0);
    }
};
static_assert(advi::LogDensity<PlainDensity>);
static_assert(!advi::LogDensity<int>);
}  // namespace

TEST_CASE("engine: TargetRef adapts any LogDensity", "[advi]") {
    PlainDensity d;
    advi::TargetRef ref(d);
    const auto r = run_advi(ref, accurate(Family::MeanField, 0));
    CHECK(std::fabs(r.q.mu()[0] - 2.0) < 0.05);
    CHECK(std::fabs(r.q.sd()[0] - 1.0) < 0.08);
}

TEST_CASE("engine: the progress tables print significant digits, not fixed-point decimals",
          "[advi]") {
    // An ELBO of about 1e200 printed with %.3f was a 204-character number, and relative
    // changes below 5e-4 printed as 0.000 (issue 17, class 10).
    for (const double offset : {1e200, 1e6}) {
        GaussianTarget p = correlated_2d(offset);
        std::ostringstream log;
        const auto r = run_advi(p, {.seed = 2, .max_iterations = 300, .log = &log});
        const std::string s = log.str();
        INFO(s);
        std::istringstream lines(s);
        std::string line;
        int table_rows = 0;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string w;
            while (words >> w) CHECK(w.size() < 24);
            // The ELBO table's rows: iteration, eta, ELBO of the average, gain (nats).
            std::istringstream row(line);
            int iter = 0;
            std::string eta, elbo, gain;
            if (row >> iter >> eta >> elbo >> gain) {
                ++table_rows;
                if (offset == 1e200) {
                    CHECK(elbo == "1e+200");
                } else {
                    // Gains of about 0.01 nats: with %.3f they lost their digits.
                    CHECK(gain.find("0.000") == std::string::npos);
                }
            }
        }
        CHECK(table_rows == static_cast<int>(r.elbo_trace.size()));
    }
}
