// Every ELBO the fit prints or writes is a number or says why there is none (issue 17, class
// 10): `--iter 1` wrote "ELBO = nan", because no evaluation had happened yet.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/fit/cmdstan_output.hpp>

namespace advi {
namespace {

using Catch::Matchers::Contains;

// y ~ normal(mu, sigma), five points, proper priors.
struct SmallModel {
    Model m;
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(5, 1.0, 3.0);
    SmallModel() {
        auto mu = m.param("mu", normal(0, 10));
        auto sigma = m.param("sigma", lognormal(0, 1));
        m.observe(m.data("y", y), normal(mu, sigma));
    }
};

}  // namespace

TEST_CASE("a fit that stops before its first ELBO evaluation still reports its ELBO", "[fit]") {
    const SmallModel sm;
    for (const int iterations : {1, 99, 150}) {
        const Options opts{.seed = 3, .max_iterations = iterations, .output_samples = 20};
        const Fit f = fit(sm.m.spec(), opts);
        const AdviResult& r = f.result();
        INFO(iterations << " iterations: " << f.summary());
        REQUIRE(std::isfinite(r.elbo));
        // The estimate of the returned q: log_p - log_g of the output draws estimates it too
        // (20 draws: within a few nats on this model).
        CHECK(std::fabs((f.log_p() - f.log_g()).mean() - r.elbo) < 5.0);
        CHECK_THAT(f.summary(),
                   !Contains("nan") && Contains(fmt::format("final ELBO {:.6g}", r.elbo)));
        const std::vector<std::string> trailer = cmdstan_output(f, opts).trailer;
        CHECK(std::count(trailer.begin(), trailer.end(), fmt::format("ELBO = {}", r.elbo)) == 1);
    }
}

TEST_CASE("a converged fit reports its last evaluation's ELBO", "[fit]") {
    const SmallModel sm;
    const Fit f = fit(sm.m.spec(), {.seed = 3, .output_samples = 20});
    REQUIRE(f.result().converged);
    CHECK(f.result().elbo == f.result().elbo_trace.back());
}

TEST_CASE("a fit without a finite ELBO says so instead of nan", "[fit]") {
    CHECK(elbo_text(-INFINITY) == "not computed (no draw of q had a finite log density)");
    CHECK(elbo_text(std::nan("")) == "not computed (no draw of q had a finite log density)");
    CHECK(elbo_text(-1234.56789) == "-1234.57");
    CHECK(elbo_text(-1234.56789, 0) == "-1234.56789");
}

}  // namespace advi
