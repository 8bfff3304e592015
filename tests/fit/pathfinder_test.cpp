// advi::pathfinder (multi-path Pathfinder) on models with known posteriors: a linear regression
// with known noise and a normal prior (the posterior exactly Gaussian, correlated and badly
// scaled), whose means and sds the resampled draws must give; a positive scale (the draws
// through T^-1); and the options' meanings: one path is not resampled, psis_resample = false
// keeps every path's draws, the same seed gives the same draws, bad options are refused.
#include <algorithm>
#include <cmath>
#include <set>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/fit/pathfinder.hpp>

#include "support/error_message.hpp"
#include "support/known_noise_regression.hpp"

namespace advi {
namespace {

using Regression = test::KnownNoiseRegression;

Regression make_regression() {
    return test::make_known_noise_regression(1.0, 0.05);
}

}  // namespace

TEST_CASE("pathfinder on a Gaussian posterior gives its means and sds", "[fit][pathfinder]") {
    const Regression r = make_regression();
    Model m;
    auto y = m.data("y", r.y);
    auto X = m.data("X", r.X);
    auto beta = m.param("beta", normal(0, r.tau), 3);
    m.observe(y, normal(X * beta, r.sigma));
    const PathfinderFit fit = pathfinder(m.spec(), {.seed = 3, .threads = 1});
    const Eigen::MatrixXd S = r.precision().inverse();
    const Eigen::VectorXd exact = r.mean();
    const Eigen::VectorXd mean = fit.mean("beta"), sd = fit.sd("beta");
    for (int j = 0; j < 3; ++j) {
        CAPTURE(j);
        const double sd_j = std::sqrt(S(j, j));
        // 1000 resampled draws of a posterior that every path's normal nearly is: the mean's
        // error a few hundredths of an sd, the sd's a few percent.
        CHECK(std::abs(mean[j] - exact[j]) < 0.1 * sd_j);
        CHECK(sd[j] == Approx(sd_j).epsilon(0.1));
    }
    CHECK(fit.resampled());
    CHECK(fit.log_p().size() == 1000);
    CHECK(fit.paths().size() == 4);
    for (const PathReport& p : fit.paths()) {
        CHECK(p.failure.empty());
        CHECK(p.status == OptimizeStatus::Converged);
        CHECK(p.best_iteration >= 1);
    }
    // path__ names paths 1-4, and the draws came from more than one of them.
    const std::set<int> paths(fit.path_of_draw().begin(), fit.path_of_draw().end());
    CHECK(*paths.begin() >= 1);
    CHECK(*paths.rbegin() <= 4);
    CHECK(paths.size() >= 2);
    CHECK(fit.verdict().reliable());
    CHECK_THAT(fit.summary(1), Catch::Matchers::Contains("Pathfinder, 4 paths: converged") &&
                                   Catch::Matchers::Contains("path 4: L-BFGS converged") &&
                                   Catch::Matchers::Contains("beta[3]"));

    // The same seed, the same draws; another seed, others.
    const PathfinderFit again = pathfinder(m.spec(), {.seed = 3, .threads = 1});
    CHECK((again.as_fit().theta_draws() - fit.as_fit().theta_draws()).cwiseAbs().maxCoeff() == 0.0);
    CHECK(again.path_of_draw() == fit.path_of_draw());
    const PathfinderFit other = pathfinder(m.spec(), {.seed = 4, .threads = 1});
    CHECK((other.as_fit().theta_draws() - fit.as_fit().theta_draws()).cwiseAbs().maxCoeff() > 0.01);
}

TEST_CASE("pathfinder: one path is not resampled; psis_resample = false keeps every draw",
          "[fit][pathfinder]") {
    Model m;
    const Eigen::VectorXd data = Eigen::VectorXd::LinSpaced(12, 0.5, 3.0);
    auto y = m.data("y", data);
    auto s = m.param("s", lognormal(0, 1));
    m.observe(y, normal(1.5, s));
    const PathfinderFit one =
        pathfinder(m.spec(), {.num_paths = 1, .num_draws = 300, .seed = 1, .threads = 1});
    CHECK_FALSE(one.resampled());
    CHECK(one.log_p().size() == 300);
    CHECK(std::all_of(one.path_of_draw().begin(), one.path_of_draw().end(),
                      [](int p) { return p == 1; }));
    // Every draw of a positive scale is positive, and its density is the model's at T(s).
    CHECK(one.draws("s").minCoeff() > 0.0);
    const PathfinderFit all =
        pathfinder(m.spec(), {.num_paths = 3, .num_draws = 200, .psis_resample = false, .seed = 1});
    CHECK_FALSE(all.resampled());
    CHECK(all.log_p().size() == 600);
    CHECK(std::count(all.path_of_draw().begin(), all.path_of_draw().end(), 2) == 200);
    // The scale's posterior: log-likelihood of 12 points around 1.5 with a lognormal(0, 1)
    // prior; its mode in log s is near log(rms deviation) = log 0.75, and the draws straddle it.
    const double median = all.quantile("s", 0.5)[0];
    CHECK(median > 0.55);
    CHECK(median < 1.1);
}

TEST_CASE("pathfinder refuses bad options, naming them", "[fit][pathfinder]") {
    Model m;
    const Eigen::VectorXd data = Eigen::VectorXd::LinSpaced(5, 0.0, 1.0);
    auto y = m.data("y", data);
    auto mu = m.param("mu", normal(0, 1));
    m.observe(y, normal(mu, 1));
    CHECK_THAT(test::error_message<FitError>([&] { (void)pathfinder(m.spec(), {.num_paths = 0}); },
                                             "no FitError"),
               Catch::Matchers::Contains("`num_paths` must be >= 1, got 0"));
    CHECK_THAT(test::error_message<FitError>(
                   [&] { (void)pathfinder(m.spec(), {.num_elbo_draws = 0}); }, "no FitError"),
               Catch::Matchers::Contains("`num_elbo_draws`"));
    PathfinderOptions o;
    o.init = Eigen::VectorXd::Zero(3);
    CHECK_THROWS_AS(pathfinder(m.spec(), o), ShapeError);
}

}  // namespace advi
