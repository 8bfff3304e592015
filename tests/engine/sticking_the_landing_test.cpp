// The "sticking the landing" gradient (elbo.cpp): the same expectation as the standard
// estimator (exactly, on moment-matched draws, and by Monte Carlo), and no variance where q
// equals the target.
#include <cmath>

#include <catch2/catch.hpp>

#include <Eigen/Cholesky>

#include <advi/engine/elbo.hpp>
#include <advi/engine/rng.hpp>

#include "engine/targets.hpp"

using advi::Approximation;
using advi::GradientEstimator;
using advi::test::GaussianTarget;

namespace {

constexpr GradientEstimator kStl = GradientEstimator::StickingTheLanding;

GaussianTarget gaussian3(double offset = -7.0) {
    Eigen::MatrixXd S(3, 3);
    S << 2.0, 0.6, -0.3,  //
        0.6, 1.0, 0.2,    //
        -0.3, 0.2, 0.5;
    return GaussianTarget(Eigen::Vector3d(1.0, -0.5, 2.0), S, offset);
}

// Rows +-sqrt(D) e_k: mean 0 and second moment I exactly, so both estimators are exact for a
// quadratic log density.
Eigen::MatrixXd moment_matched_etas(int d) {
    Eigen::MatrixXd etas = Eigen::MatrixXd::Zero(2 * d, d);
    for (int k = 0; k < d; ++k) {
        etas(2 * k, k) = std::sqrt(static_cast<double>(d));
        etas(2 * k + 1, k) = -std::sqrt(static_cast<double>(d));
    }
    return etas;
}

Eigen::VectorXd finite_difference(const GaussianTarget& p, const Approximation& q) {
    const double h = 1e-5;
    const Eigen::VectorXd x = q.params();
    Eigen::VectorXd g(x.size());
    Approximation qq = q;
    for (Eigen::Index k = 0; k < x.size(); ++k) {
        Eigen::VectorXd xx = x;
        xx[k] += h;
        qq.set_params(xx);
        const double up = p.analytic_elbo(qq);
        xx[k] -= 2 * h;
        qq.set_params(xx);
        g[k] = (up - p.analytic_elbo(qq)) / (2 * h);
    }
    return g;
}

Approximation off_optimum(advi::Family family) {
    if (family == advi::Family::MeanField) {
        return Approximation::mean_field(Eigen::Vector3d(0.2, 0.4, -1.0),
                                         Eigen::Vector3d(-0.3, 0.5, 0.1));
    }
    Eigen::MatrixXd L(3, 3);
    L << 0.8, 0, 0,   //
        0.3, 1.4, 0,  //
        -0.5, 0.2, 0.6;
    return Approximation::full_rank(Eigen::Vector3d(0.2, 0.4, -1.0), L);
}

}  // namespace

TEST_CASE("sticking the landing: exact on moment-matched draws", "[engine][stl]") {
    GaussianTarget p = gaussian3();
    for (const auto family : {advi::Family::MeanField, advi::Family::FullRank}) {
        const Approximation q = off_optimum(family);
        const auto g = advi::elbo_gradient(p, q, moment_matched_etas(3), kStl);
        REQUIRE(g.used == 6);
        const Eigen::VectorXd fd = finite_difference(p, q);
        INFO("STL " << g.grad.transpose() << "\nfinite diff " << fd.transpose());
        CHECK((g.grad - fd).cwiseAbs().maxCoeff() < 1e-6);
    }
}

TEST_CASE("sticking the landing: Monte Carlo mean equals the standard estimator's",
          "[engine][stl]") {
    GaussianTarget p = gaussian3();
    advi::Rng rng(11);
    const int n = 20000;
    for (const auto family : {advi::Family::MeanField, advi::Family::FullRank}) {
        const Approximation q = off_optimum(family);
        const Eigen::VectorXd exact = finite_difference(p, q);
        // Per-draw gradients of both estimators on the same draws.
        Eigen::MatrixXd stl(n, q.num_params()), standard(n, q.num_params());
        for (int i = 0; i < n; ++i) {
            const Eigen::MatrixXd eta = rng.normal_matrix(1, 3);
            stl.row(i) = advi::elbo_gradient(p, q, eta, kStl).grad.transpose();
            standard.row(i) = advi::elbo_gradient(p, q, eta).grad.transpose();
        }
        for (const Eigen::MatrixXd* m : {&stl, &standard}) {
            const Eigen::RowVectorXd mean = m->colwise().mean();
            const Eigen::RowVectorXd sd =
                ((m->rowwise() - mean).array().square().colwise().sum() / (n - 1.0)).sqrt();
            for (Eigen::Index k = 0; k < mean.size(); ++k) {
                INFO("family " << static_cast<int>(family) << " parameter " << k << ": mean "
                               << mean[k] << " exact " << exact[k] << " se "
                               << sd[k] / std::sqrt(n));
                CHECK(std::fabs(mean[k] - exact[k]) < 4.0 * sd[k] / std::sqrt(n));
            }
        }
    }
}

TEST_CASE("sticking the landing: no variance where q equals the target", "[engine][stl]") {
    // Full-rank at the exact posterior; a log density constant of 1e9 changes nothing.
    GaussianTarget p = gaussian3(1e9);
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(p.covariance()).matrixL();
    const Approximation full = Approximation::full_rank(p.mean(), L);
    // Mean-field at the exact posterior of a diagonal Gaussian.
    GaussianTarget diag(Eigen::Vector3d(1.0, -0.5, 2.0),
                        Eigen::Vector3d(0.5, 2.0, 3.0).asDiagonal().toDenseMatrix());
    const Approximation mf = Approximation::mean_field(
        diag.mean(), Eigen::Vector3d(0.5, 2.0, 3.0).array().sqrt().log().matrix());
    advi::Rng rng(5);
    const Eigen::MatrixXd etas = rng.normal_matrix(200, 3);
    for (const auto& [target, q] : {
             std::pair<GaussianTarget*, const Approximation*>{&p,    &full},
             std::pair<GaussianTarget*, const Approximation*>{&diag, &mf  }
    }) {
        double stl_max = 0.0, standard_max = 0.0;
        for (Eigen::Index i = 0; i < etas.rows(); ++i) {
            const Eigen::MatrixXd eta = etas.row(i);
            stl_max = std::max(
                stl_max, advi::elbo_gradient(*target, *q, eta, kStl).grad.cwiseAbs().maxCoeff());
            standard_max = std::max(
                standard_max, advi::elbo_gradient(*target, *q, eta).grad.cwiseAbs().maxCoeff());
        }
        CHECK(stl_max < 1e-12);
        // The standard estimator's per-draw gradient is O(1) there: its noise is what STL removes.
        CHECK(standard_max > 1.0);
    }
}
