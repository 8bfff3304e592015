// fit() starts q at the mode and Hessian of a compiled model (engine/start.hpp), through the
// Hessian-vector program it compiles for that, and at the init point when asked.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

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

}  // namespace advi
