// Summaries over finite draws (issue 17, class 7): a draws matrix with infinities and values
// near +-1.8e308 gives numbers, never "nan", and counts the draws left out.
#include <cmath>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <advi/fit/draw_summary.hpp>
#include <advi/fit/fit.hpp>

using advi::summarize_draws;
using Catch::Matchers::Contains;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMax = std::numeric_limits<double>::max();
}  // namespace

TEST_CASE("draw summary: infinities and NaN are left out and counted", "[fit]") {
    Eigen::VectorXd x(8);
    x << 1, 2, 3, 4, kInf, -kInf, std::nan(""), 5;
    const advi::DrawSummary s = summarize_draws(x);
    CHECK(s.finite == 5);
    CHECK(s.nonfinite == 3);
    CHECK(s.mean == Approx(3.0).epsilon(1e-15));
    CHECK(s.sd == Approx(std::sqrt(2.5)).epsilon(1e-15));
    CHECK(s.q50 == 3.0);
    CHECK(s.q5 == Approx(1.2).epsilon(1e-15));   // type 7: 1 + 0.2 (2 - 1)
    CHECK(s.q95 == Approx(4.8).epsilon(1e-15));  // 4 + 0.8 (5 - 4)
    const std::string row = advi::summary_row("mu", s);
    CHECK_THAT(row, Contains("(3 non-finite draws left out)"));
    CHECK_THAT(row, !Contains("nan") && !Contains("inf"));
}

TEST_CASE("draw summary: values near the largest double do not overflow", "[fit]") {
    // The flat improper posterior's draws: +-1.5e308. The plain sum overflowed to inf - inf.
    Eigen::VectorXd x(4);
    x << -1.5e308, 1.5e308, -1.2e308, 1.6e308;
    const advi::DrawSummary s = summarize_draws(x);
    CHECK(s.mean == Approx(0.1e308).epsilon(1e-12));
    CHECK(std::isfinite(s.sd));
    CHECK(s.q50 == Approx(0.15e308).epsilon(1e-12));
    CHECK(std::isfinite(s.q5));
    CHECK(std::isfinite(s.q95));
    Eigen::VectorXd y = Eigen::VectorXd::Constant(3, kMax);
    CHECK(summarize_draws(y).mean == kMax);
    CHECK(summarize_draws(y).sd == 0.0);
}

TEST_CASE("draw summary: a column without a finite draw says so", "[fit]") {
    const Eigen::VectorXd x = Eigen::VectorXd::Constant(4, kInf);
    const std::string row = advi::summary_row("sigma", summarize_draws(x));
    CHECK(row == "sigma                no finite draws (all 4 non-finite)\n");
}

TEST_CASE("Fit::summary of draws with infinities contains no nan", "[fit]") {
    advi::ModelSpec spec;
    spec.latents.push_back({.name = "mu", .shape = advi::Shape::scalar()});
    spec.latents.push_back({.name = "beta", .shape = advi::Shape::vector(2)});
    Eigen::MatrixXd theta(5, 3);
    theta << 1, 2, kInf,    //
        2, -kInf, 1.5e308,  //
        3, 4, -1.7e308,     //
        kInf, 5, 1e308,     //
        4, 6, std::nan("");
    advi::AdviResult r;
    r.q = advi::Approximation::initial(advi::Family::MeanField, Eigen::VectorXd::Zero(3));
    r.stop_reason = "max_iterations reached";
    r.elbo = -kInf;
    const advi::Fit f(spec, r, theta, Eigen::VectorXd::Zero(3));
    const std::string s = f.summary(1);
    INFO(s);
    CHECK_THAT(s, !Contains("nan") && !Contains("-inf"));
    CHECK_THAT(s, Contains("final ELBO not computed"));
    CHECK_THAT(s, Contains("(1 non-finite draw left out)"));
    CHECK_THAT(s, Contains("(2 non-finite draws left out)"));
    CHECK(f.mean("mu")[0] == Approx(2.5).epsilon(1e-15));
    CHECK(f.mean("beta")[0] == Approx(17.0 / 4).epsilon(1e-15));
    CHECK(std::isfinite(f.sd("beta")[1]));
}
