// Single-path Pathfinder (engine/pathfinder.hpp): the low-rank Gaussian against its dense
// form computed here (covariance, sds, log-determinant, each draw's log density), and the
// path on Gaussians, where the best approximation must be the posterior itself.
#include <cmath>
#include <numbers>
#include <vector>

#include <Eigen/Cholesky>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/pathfinder.hpp>
#include <advi/engine/rng.hpp>

#include "targets.hpp"

using advi::PathfinderSettings;
using advi::PathGaussian;

namespace {

// A random diag(alpha) + beta gamma beta' that is positive definite: gamma = C C' - c I
// with c small enough.
struct Factors {
    Eigen::VectorXd alpha;
    Eigen::MatrixXd beta, gamma, sigma;
};

Factors random_factors(int D, int r, std::uint64_t seed) {
    advi::Rng rng(seed);
    Factors f;
    f.alpha = rng.normal_matrix(D, 1).col(0).array().abs() + 0.5;
    f.beta = rng.normal_matrix(D, r) * 0.5;
    const Eigen::MatrixXd C = rng.normal_matrix(r, r);
    f.gamma = C * C.transpose() - 0.05 * Eigen::MatrixXd::Identity(r, r);
    f.sigma = f.beta * f.gamma * f.beta.transpose();
    f.sigma.diagonal() += f.alpha;
    return f;
}

double dense_log_density(const Eigen::VectorXd& x, const Eigen::VectorXd& mean,
                         const Eigen::MatrixXd& sigma) {
    const Eigen::LLT<Eigen::MatrixXd> llt(sigma);
    const Eigen::VectorXd r = x - mean;
    const double quad = r.dot(llt.solve(r));
    const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    return -0.5 * (quad + log_det + static_cast<double>(x.size()) * std::log(2 * std::numbers::pi));
}

}  // namespace

TEST_CASE("pathfinder: the low-rank Gaussian is the dense one", "[pathfinder]") {
    for (const auto [D, r] : {
             std::pair{12, 4},
             std::pair{5,  4}
    }) {  // low rank; dense (2r >= D)
        CAPTURE(D, r);
        const Factors f = random_factors(D, r, 7);
        const Eigen::VectorXd mean = Eigen::VectorXd::LinSpaced(D, -1.0, 2.0);
        const PathGaussian q(mean, f.alpha, f.beta, f.gamma);
        CHECK((q.sd() - f.sigma.diagonal().cwiseSqrt()).cwiseAbs().maxCoeff() < 1e-12);
        const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(D, 0.3, -0.7);
        CHECK((q.covariance_times(v) - f.sigma * v).cwiseAbs().maxCoeff() < 1e-12);
        const Eigen::LLT<Eigen::MatrixXd> llt(f.sigma);
        CHECK(q.half_log_det() ==
              Approx(llt.matrixLLT().diagonal().array().log().sum()).epsilon(1e-12));
        advi::Rng rng(3);
        Eigen::VectorXd log_q;
        const Eigen::MatrixXd draws = q.draw(rng, 20000, log_q);
        for (int i = 0; i < 5; ++i) {
            CHECK(
                log_q[i] ==
                Approx(dense_log_density(draws.row(i).transpose(), mean, f.sigma)).epsilon(1e-10));
        }
        // The draws' covariance is Sigma (to Monte Carlo error: 20,000 draws, entries of
        // order 1, error about 0.02).
        const Eigen::MatrixXd centred = draws.rowwise() - draws.colwise().mean();
        const Eigen::MatrixXd cov = centred.transpose() * centred / (draws.rows() - 1.0);
        CHECK((cov - f.sigma).cwiseAbs().maxCoeff() < 0.12 * f.sigma.cwiseAbs().maxCoeff());
        CHECK((draws.colwise().mean().transpose() - mean).cwiseAbs().maxCoeff() < 0.05);
    }
}

TEST_CASE("pathfinder: the compact form is BFGS's recursion on diag(alpha)", "[pathfinder]") {
    // Seven pairs from a quadratic with J = 5: the last five, applied oldest first to
    // H0 = diag(alpha) by H <- (I - rho s y') H (I - rho y s') + rho s s'.
    const int D = 8;
    advi::Rng rng(1);
    const Eigen::MatrixXd A = rng.normal_matrix(D, D);
    const Eigen::MatrixXd P = A * A.transpose() + Eigen::MatrixXd::Identity(D, D);
    advi::PathInverseHessian inverse_hessian(D, 5);
    std::vector<Eigen::VectorXd> s, y;
    for (int k = 0; k < 7; ++k) {
        s.push_back(rng.normal_matrix(D, 1).col(0));
        y.push_back(P * s.back());
        REQUIRE(inverse_hessian.add(s.back(), y.back()));
    }
    CHECK(inverse_hessian.pairs() == 5);
    Eigen::MatrixXd H = inverse_hessian.alpha().asDiagonal();
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(D, D);
    for (int k = 2; k < 7; ++k) {
        const double rho = 1.0 / y[k].dot(s[k]);
        H = (I - rho * s[k] * y[k].transpose()) * H * (I - rho * y[k] * s[k].transpose()) +
            rho * s[k] * s[k].transpose();
    }
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(D, -1.0, 1.0);
    const Eigen::VectorXd g = Eigen::VectorXd::LinSpaced(D, 0.5, -0.2);
    const PathGaussian q = inverse_hessian.at(x, g);
    for (int j = 0; j < D; ++j) {
        CHECK((q.covariance_times(Eigen::VectorXd::Unit(D, j)) - H.col(j)).cwiseAbs().maxCoeff() <
              1e-12);
    }
    CHECK((q.mean() - (x + H * g)).cwiseAbs().maxCoeff() < 1e-12);
    // A pair of negative curvature is not taken.
    CHECK_FALSE(inverse_hessian.add(s[0], -y[0]));
    // The diagonal's fixed point is the exact inverse of a diagonal Hessian.
    const Eigen::VectorXd p = Eigen::VectorXd::LinSpaced(D, 0.1, 4.0);
    advi::PathInverseHessian diagonal(D, 5);
    for (int k = 0; k < 400; ++k) {
        const Eigen::VectorXd step = rng.normal_matrix(D, 1).col(0);
        diagonal.add(step, p.cwiseProduct(step));
    }
    CHECK((diagonal.alpha().cwiseProduct(p).array() - 1.0).abs().maxCoeff() < 0.1);
}

TEST_CASE("pathfinder: a covariance estimate that is not positive definite is refused",
          "[pathfinder]") {
    Factors f = random_factors(12, 2, 5);
    f.gamma = -10.0 * Eigen::MatrixXd::Identity(2, 2);
    CHECK_THROWS_AS(PathGaussian(Eigen::VectorXd::Zero(12), f.alpha, f.beta, f.gamma),
                    advi::FitError);
}

TEST_CASE("pathfinder: on a correlated Gaussian the best approximation is the posterior",
          "[pathfinder]") {
    // D = 4 <= J = 5: the history spans the space and BFGS's secant pairs are exact.
    Eigen::MatrixXd S(4, 4);
    S << 1.0, 0.8, 0.2, 0.0, 0.8, 1.0, 0.3, 0.1, 0.2, 0.3, 2.0, -0.5, 0.0, 0.1, -0.5, 0.5;
    const Eigen::VectorXd m = Eigen::Vector4d(1.0, -2.0, 0.5, 3.0);
    advi::test::GaussianTarget target(m, S);
    PathfinderSettings settings;
    settings.num_draws = 4000;
    settings.seed = 11;
    const advi::PathfinderPath path =
        advi::pathfinder_path(target, Eigen::Vector4d(-2, 1.5, 0.3, -1.9), settings);
    REQUIRE(path.ok());
    CHECK(path.best >= 1);
    CHECK(path.elbo.size() == static_cast<std::size_t>(path.lbfgs.iterations));
    // The exact posterior has ELBO log Z = 0 (the target is normalised) and log p - log q
    // constant: a best estimate within 0.05 nats of 0, from below up to its noise.
    // Measured -0.062: L-BFGS's steps are not exact line searches, so BFGS's estimate is
    // not the exact inverse Hessian; a wrong mean or scale costs nats.
    CHECK(path.best_elbo == Approx(0.0).margin(0.15));
    const Eigen::VectorXd sd = S.diagonal().cwiseSqrt();
    CHECK(((path.gaussian.mean() - m).array() / sd.array()).abs().maxCoeff() < 0.05);
    CHECK((path.gaussian.sd().array() / sd.array() - 1.0).abs().maxCoeff() < 0.1);
    // The draws and their densities: log p - log q nearly constant where q is the posterior.
    REQUIRE(path.draws.rows() == 4000);
    const Eigen::VectorXd ratio = path.log_p - path.log_q;
    CHECK(std::sqrt((ratio.array() - ratio.mean()).square().mean()) < 0.8);  // measured 0.54
    CHECK(path.gradient_evaluations == path.lbfgs.gradient_evaluations);
    // The draws, and K = 25 per iterate with an approximation.
    CHECK(path.value_evaluations >= 4000 + 25);
    CHECK(path.value_evaluations <= 4000 + 25L * path.lbfgs.iterations);
}

TEST_CASE("pathfinder: in 60 dimensions the low-rank approximation finds the mean",
          "[pathfinder]") {
    // A diagonal Gaussian with scales from 0.5 to 3: 2J = 10 < 60, the low-rank path.
    const int D = 60;
    const Eigen::VectorXd sd = Eigen::VectorXd::LinSpaced(D, 0.5, 3.0);
    const Eigen::VectorXd m = Eigen::VectorXd::LinSpaced(D, -3.0, 3.0);
    advi::test::GaussianTarget target(m, sd.array().square().matrix().asDiagonal());
    PathfinderSettings settings;
    settings.num_draws = 2000;
    settings.seed = 5;
    const advi::PathfinderPath path =
        advi::pathfinder_path(target, Eigen::VectorXd::Zero(D), settings);
    REQUIRE(path.ok());
    const Eigen::VectorXd draw_mean = path.draws.colwise().mean().transpose();
    CHECK(((draw_mean - m).array() / sd.array()).abs().maxCoeff() < 0.15);
    // The diagonal update learns the scales from 1: their mean log error falls from 0.6 (a
    // diagonal left at 1) to 0.22 (measured); Pathfinder is not exact here (its ELBO is -4.7
    // nats), which multi-path importance resampling corrects.
    const double start_error = sd.array().log().abs().mean();
    CHECK(start_error > 0.55);
    CHECK((path.gaussian.sd().array() / sd.array()).log().abs().mean() < 0.35);
}

TEST_CASE("pathfinder: a path without a finite ELBO says why", "[pathfinder]") {
    advi::test::BrokenTarget target(2, std::nan(""));
    PathfinderSettings settings;
    const advi::PathfinderPath path =
        advi::pathfinder_path(target, Eigen::VectorXd::Zero(2), settings);
    CHECK_FALSE(path.ok());
    CHECK(path.draws.rows() == 0);
}

TEST_CASE("pathfinder: bad settings are refused", "[pathfinder]") {
    advi::test::GaussianTarget target(Eigen::VectorXd::Zero(2), Eigen::MatrixXd::Identity(2, 2));
    PathfinderSettings settings;
    settings.num_draws = 0;
    CHECK_THROWS_AS(advi::pathfinder_path(target, Eigen::VectorXd::Zero(2), settings),
                    advi::FitError);
}
