// advi::laplace_at on models, against mathematics: a linear regression with known noise and a
// normal prior, whose posterior is exactly Gaussian (the Laplace covariance must be the
// analytic one, its draws' means and sds the analytic ones within Monte Carlo error), and a
// positive scale, whose draws must be T^-1 of the Gaussian's and whose Laplace variance is
// -1 / f''(mode) of its log density, solved here by Newton's method on paper.
#include <cmath>
#include <numbers>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/compile/hessian_vector_program.hpp>

#include "support/known_noise_regression.hpp"

namespace advi {
namespace {

// The model's exact H v (compile_hessian_vector) as a curvature target, with or without the
// log-Jacobian.
struct Curvature {
    HessianVectorProgram program;
    CurvatureTargetRef<HessianVectorProgram> target{program};
    Curvature(const ModelSpec& m, bool jacobian) : program(compile_hessian_vector(m, jacobian)) {}
};

using Regression = test::KnownNoiseRegression;

Regression make_regression() {
    return test::make_known_noise_regression(10.0, 0.5);
}

}  // namespace

TEST_CASE("Laplace on a linear regression with known noise is the exact posterior",
          "[fit][laplace]") {
    const Regression r = make_regression();
    Model m;
    auto y = m.data("y", r.y);
    auto X = m.data("X", r.X);
    auto beta = m.param("beta", normal(0, r.tau), 3);
    m.observe(y, normal(X * beta, r.sigma));
    const ModelSpec& spec = m.spec();
    Curvature exact(spec, true);
    CurvatureTarget& curvature = exact.target;

    const Eigen::VectorXd mode = r.mean();  // the exact mode, as a --mode file gives it
    const LaplaceFit fit = laplace_at(spec, curvature, mode, {.draws = 4000, .seed = 3});
    const Eigen::MatrixXd S = Eigen::MatrixXd(r.precision().inverse());
    CHECK(((fit.gaussian().covariance() - S).array() / S.array().abs()).abs().maxCoeff() < 1e-8);

    const Eigen::VectorXd mean = fit.mean("beta"), sd = fit.sd("beta");
    for (int j = 0; j < 3; ++j) {
        const double sd_j = std::sqrt(S(j, j));
        // 4000 draws: the Monte Carlo error of a mean is sd / 63, of an sd about 1.1%.
        CHECK(std::abs(mean[j] - mode[j]) < 0.01 * std::abs(mode[j]) + 4 * sd_j / std::sqrt(4000));
        CHECK(sd[j] == Approx(sd_j).epsilon(0.04));
        CHECK(fit.at_mode("beta")[j] == Approx(mode[j]).epsilon(1e-12));
    }
    // The posterior is Gaussian: log p - log g is the log evidence at every draw, and PSIS
    // says so.
    const Eigen::VectorXd ratio = fit.log_p() - fit.log_g();
    CHECK(ratio.maxCoeff() - ratio.minCoeff() < 1e-7);
    CHECK(fit.psis().constant);
    CHECK(fit.psis().ess == Approx(4000).epsilon(1e-6));
    CHECK(fit.nonfinite_log_p() == 0);
    CHECK_THAT(fit.summary(1), Catch::Matchers::Contains("beta[3]") &&
                                   Catch::Matchers::Contains("exact up to a constant"));

    // The same seed gives the same draws; another seed others.
    const LaplaceFit again = laplace_at(spec, curvature, mode, {.draws = 4000, .seed = 3});
    CHECK((again.zeta_draws() - fit.zeta_draws()).cwiseAbs().maxCoeff() == 0.0);
    const LaplaceFit other = laplace_at(spec, curvature, mode, {.draws = 4000, .seed = 4});
    CHECK((other.zeta_draws() - fit.zeta_draws()).cwiseAbs().maxCoeff() > 0.1);
}

TEST_CASE("advi::laplace finds the mode itself (optimize) and matches the exact posterior",
          "[fit][laplace]") {
    const Regression r = make_regression();
    Model m;
    auto y = m.data("y", r.y);
    auto X = m.data("X", r.X);
    auto beta = m.param("beta", normal(0, r.tau), 3);
    m.observe(y, normal(X * beta, r.sigma));
    const LaplaceFit fit = laplace(m.spec(), {.draws = 4000, .seed = 9});
    const Eigen::VectorXd exact = r.mean();
    const Eigen::MatrixXd S = Eigen::MatrixXd(r.precision().inverse());
    for (int j = 0; j < 3; ++j) {
        // The mode to the optimizer's tolerances (tol_rel_grad): within 1e-4 posterior sds.
        CHECK(std::abs(fit.mode()[j] - exact[j]) < 1e-4 * std::sqrt(S(j, j)));
        CHECK(fit.mean("beta")[j] ==
              Approx(exact[j]).margin(4 * std::sqrt(S(j, j)) / std::sqrt(4000.0)));
        CHECK(fit.sd("beta")[j] == Approx(std::sqrt(S(j, j))).epsilon(0.04));
    }
    // H does not depend on the point for a Gaussian posterior: the covariance is exact.
    CHECK(((fit.gaussian().covariance() - S).array() / S.array().abs()).abs().maxCoeff() < 1e-8);
    CHECK_THAT(fit.mode_source(), Catch::Matchers::StartsWith("optimize, "));
}

TEST_CASE("Laplace of a positive scale: draws through T^-1, variance -1 / f''(mode)",
          "[fit][laplace]") {
    const Eigen::VectorXd yv = (Eigen::VectorXd(6) << 0.3, -1.2, 2.1, 0.8, -0.4, 1.7).finished();
    Model m;
    auto y = m.data("y", yv);
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(y, normal(0, sigma));
    const ModelSpec& spec = m.spec();

    // In zeta = log sigma, with the Jacobian: f = -N zeta - S e^{-2 zeta} / 2 - zeta^2 / 2 + c,
    // f' = -N + S e^{-2 zeta} - zeta, f'' = -2 S e^{-2 zeta} - 1.
    const double N = 6, S = yv.squaredNorm();
    double z = 0;
    for (int it = 0; it < 50; ++it)
        z -= (-N + S * std::exp(-2 * z) - z) / (-2 * S * std::exp(-2 * z) - 1);
    Curvature with(spec, true);
    const LaplaceFit fit =
        laplace_at(spec, with.target, Eigen::VectorXd::Constant(1, z), {.seed = 1});
    CHECK(fit.gaussian().covariance()(0, 0) ==
          Approx(1 / (2 * S * std::exp(-2 * z) + 1)).epsilon(1e-12));
    CHECK(fit.at_mode("sigma")[0] == Approx(std::exp(z)).epsilon(1e-14));
    for (int i = 0; i < fit.theta_draws().rows(); ++i)
        REQUIRE(fit.theta_draws()(i, 0) == Approx(std::exp(fit.zeta_draws()(i, 0))).epsilon(1e-14));
    // log_g at a draw: the normal density of zeta, by hand.
    const double var = fit.gaussian().covariance()(0, 0);
    const double z0 = fit.zeta_draws()(0, 0);
    CHECK(fit.log_g()[0] ==
          Approx(-0.5 * std::log(2 * std::numbers::pi * var) - 0.5 * (z0 - z) * (z0 - z) / var)
              .epsilon(1e-12));
    // Not Gaussian in zeta: the ratios vary, and PSIS measures them (mildly: k-hat well
    // below 0.7 for this nearly Gaussian posterior).
    CHECK_FALSE(fit.psis().constant);
    CHECK(fit.psis().k_hat < 0.5);
    CHECK(fit.psis().ess > 800);

    // Without the Jacobian the log density lacks + zeta: its mode solves f' - 1 = 0 (Newton
    // from the mode with the Jacobian, as laplace_at does), with the same f'', and log_p is
    // the log density with the Jacobian minus zeta at every draw.
    double z2 = z;
    for (int it = 0; it < 50; ++it)
        z2 -= (-N + S * std::exp(-2 * z2) - z2 - 1) / (-2 * S * std::exp(-2 * z2) - 1);
    Curvature without(spec, false);
    const LaplaceFit mle = laplace_at(spec, without.target, Eigen::VectorXd::Constant(1, z),
                                      {.jacobian = false, .seed = 1});
    CHECK(mle.mode()[0] == Approx(z2).margin(1e-6));  // the tolerance: 1e-6 posterior sds
    CHECK(mle.gaussian().newton_steps() > 0);
    CHECK(mle.gaussian().covariance()(0, 0) ==
          Approx(1 / (2 * S * std::exp(-2 * z2) + 1)).epsilon(1e-8));
    Program with_jacobian = compile(spec, true);
    Eigen::VectorXd g(1);
    for (int i = 0; i < 10; ++i) {
        const Eigen::VectorXd zi = mle.zeta_draws().row(i).transpose();
        CHECK(mle.log_p()[i] == Approx(with_jacobian.run(zi, g) - zi[0]).margin(1e-12));
    }
}

TEST_CASE("laplace_at refuses bad options and modes by name", "[fit][laplace]") {
    Model m;
    auto mu = m.param("mu", normal(0, 1));
    auto tau = m.param("tau", lognormal(0, 1));
    m.target_add(mu * tau);  // a saddle along mu and log tau at large tau
    const ModelSpec& spec = m.spec();
    Curvature exact(spec, true);
    CurvatureTarget& c = exact.target;
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH(laplace_at(spec, c, Eigen::VectorXd::Zero(3), {}),
                      Contains("the mode has 3 unconstrained values, the model has 2"));
    CHECK_THROWS_WITH(laplace_at(spec, c, Eigen::Vector2d(0, NAN), {}),
                      Contains("the mode is nan at `tau`"));
    CHECK_THROWS_WITH(laplace_at(spec, c, Eigen::Vector2d(0, 0), {.draws = 0}),
                      Contains("`draws` must be >= 1, got 0"));
    // At mu = 0, log tau = 3: d2/dmu2 = -1, d2/dz2 = -(z^2 part) ... the cross term tau = e^3
    // dominates, so -H has a negative eigenvalue along mu and tau.
    CHECK_THROWS_WITH(laplace_at(spec, c, Eigen::Vector2d(0, 3), {}),
                      Contains("not positive definite") && Contains("`mu`") && Contains("`tau`"));
}

}  // namespace advi

namespace advi {

TEST_CASE("advi::laplace refuses a Hessian beyond the memory budget before optimizing",
          "[fit][laplace]") {
    // K = 20000: the Hessian and its factors need 3 x 4e8 doubles, 9.6 GB, over a 100 MB
    // budget; the refusal comes before optimize or the compiler runs.
    Model m;
    auto x = m.param("x", normal(0, 1), 20000);
    (void)x;
    set_memory_budget_bytes(100'000'000);
    using Catch::Matchers::Contains;
    CHECK_THROWS_AS(laplace(m.spec()), SizeError);
    CHECK_THROWS_WITH(laplace(m.spec()),
                      Contains("the Laplace approximation (the dense Hessian") &&
                          Contains("20000 x 20000 unconstrained dimensions, 3 matrices") &&
                          Contains("needs 9.6 GB (1200000000 elements of 8 bytes)") &&
                          Contains("the budget of 100 MB"));
    set_memory_budget_bytes(0);
}

}  // namespace advi
