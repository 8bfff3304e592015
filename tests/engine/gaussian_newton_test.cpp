// Newton steps on a full-rank Gaussian's ELBO (engine/gaussian_newton.hpp): exact in one step
// on a Gaussian target, at the analytic optimum of a non-Gaussian one, no claimed optimum
// where the density has none.
#include <cmath>

#include <Eigen/QR>
#include <catch2/catch.hpp>

#include <advi/engine/gaussian_newton.hpp>
#include <advi/engine/rng.hpp>

#include "targets.hpp"

namespace {

using advi::Approximation;

Eigen::MatrixXd random_precision(int K, std::uint64_t seed) {
    advi::Rng rng(seed);
    const Eigen::MatrixXd A = rng.normal_matrix(K, K);
    Eigen::VectorXd scale(K);
    for (int k = 0; k < K; ++k) scale[k] = std::pow(10.0, -1.0 + 2.0 * k / (K - 1));
    // Correlated, with scales from 0.1 to 10.
    return scale.asDiagonal() * (A * A.transpose() + K * Eigen::MatrixXd::Identity(K, K)) *
           scale.asDiagonal();
}

// log p(z) = -sum_i (R z)_i^4 / 4 for a rotation R: not Gaussian, its curvature grows with
// |z|. The full-rank optimum is analytic: y = R z independent, each N(0, v) with v^2 = 1/3
// (d/dv of the ELBO's -3 v^2 / 4 + log(v) / 2 is 0), so ELBO* = K (-1/4 + log(2 pi e v) / 2).
class RotatedQuartic final : public advi::CurvatureTarget {
public:
    explicit RotatedQuartic(int K) {
        advi::Rng rng(11);
        const Eigen::HouseholderQR<Eigen::MatrixXd> qr(rng.normal_matrix(K, K));
        R_ = qr.householderQ();
    }
    int dim() const override { return static_cast<int>(R_.rows()); }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        const Eigen::ArrayXd y = (R_ * z).array();
        g = -R_.transpose() * y.cube().matrix();
        return -0.25 * y.pow(4).sum();
    }
    double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& v, Eigen::VectorXd& g,
                          Eigen::VectorXd& hv) override {
        const Eigen::ArrayXd y = (R_ * z).array();
        hv = -R_.transpose() * (3.0 * y.square() * (R_ * v).array()).matrix();
        return log_density_gradient(z, g);
    }
    // E_q[log p] + entropy for q = N(m, C), from the moments of y = R z:
    // E[y^4] = mu^4 + 6 mu^2 V + 3 V^2.
    double elbo(const Eigen::VectorXd& m, const Eigen::MatrixXd& L) const {
        const Eigen::ArrayXd mu = (R_ * m).array();
        const Eigen::MatrixXd C = L * L.transpose();
        const Eigen::ArrayXd V = (R_ * C * R_.transpose()).diagonal().array();
        const double energy = -0.25 * (mu.pow(4) + 6.0 * mu.square() * V + 3.0 * V.square()).sum();
        const double K = static_cast<double>(m.size());
        return energy + 0.5 * K * (1.0 + std::log(2.0 * M_PI)) +
               L.diagonal().array().abs().log().sum();
    }
    double optimum_elbo() const {
        const double v = 1.0 / std::sqrt(3.0);
        return dim() * (-0.25 + 0.5 * std::log(2.0 * M_PI * M_E * v));
    }

private:
    Eigen::MatrixXd R_;
};

}  // namespace

TEST_CASE("gaussian_newton: one step lands on a Gaussian target's posterior", "[advi]") {
    const int K = 6;
    const Eigen::MatrixXd P = random_precision(K, 3);
    Eigen::VectorXd m(K);
    m << 1.0, -2.0, 0.5, 3.0, -1.0, 0.25;
    advi::test::GaussianCurvatureTarget target(advi::test::GaussianTarget::unnormalised(m, P));
    // From a mean-field q, off in its mean and too narrow.
    const Approximation q0 =
        Approximation::mean_field(Eigen::VectorXd::Zero(K), Eigen::VectorXd::Constant(K, -3.0));
    std::string why;
    const auto r = advi::gaussian_newton(target, q0, advi::GaussianNewtonSettings{}, &why);
    INFO(why);
    REQUIRE(r);
    INFO(r->stop);
    // The antithetic draws make E_q[g] and E_q[-H] exact for a quadratic log p: the first step
    // (beta = 1) is the optimum, and no second step raises the ELBO.
    CHECK(r->steps == 1);
    CHECK(r->converged);
    CHECK(r->stop.find("raised the ELBO") != std::string::npos);
    CHECK((r->mean - m).cwiseAbs().maxCoeff() < 1e-9);
    const Eigen::MatrixXd S = P.inverse();
    const Eigen::MatrixXd C = r->factor * r->factor.transpose();
    CHECK(((C - S).array() /
           (S.diagonal().cwiseSqrt() * S.diagonal().cwiseSqrt().transpose()).array())
              .abs()
              .maxCoeff() < 1e-9);
    CHECK(r->elbo > r->start_elbo);
    // The factor is lower triangular, as Approximation::full_rank takes it.
    CHECK(r->factor.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero());
    CHECK(r->hessian_vector_products == 2L * 16 * K);
}

TEST_CASE("gaussian_newton: reaches the full-rank optimum of a rotated quartic", "[advi]") {
    const int K = 5;
    RotatedQuartic target(K);
    const Approximation q0 = Approximation::mean_field(Eigen::VectorXd::Constant(K, 0.7),
                                                       Eigen::VectorXd::Constant(K, -1.0));
    const double start = target.elbo(q0.mu(), q0.cholesky_factor());
    advi::GaussianNewtonSettings settings;
    settings.hessian_draws = 64;
    std::string why;
    const auto r = advi::gaussian_newton(target, q0, settings, &why);
    INFO(why);
    REQUIRE(r);
    INFO(r->stop << "; steps " << r->steps);
    const double reached = target.elbo(r->mean, r->factor);
    INFO("start " << start << ", reached " << reached << ", optimum " << target.optimum_elbo());
    CHECK(start < target.optimum_elbo() - 1.0);
    // The exact ELBO (not the fixed draws' estimate) within 0.05 nats of the optimum: a wrong
    // sign, factor or blend stays nats away.
    CHECK(reached > target.optimum_elbo() - 0.05);
    CHECK(reached <= target.optimum_elbo() + 1e-9);
    CHECK(r->mean.cwiseAbs().maxCoeff() < 0.1);
}

TEST_CASE("gaussian_newton: refuses where the density curves the wrong way", "[advi]") {
    // log p = +|z|^2 / 2: no Gaussian optimum (the ELBO rises without bound as q spreads);
    // E_q[-H] = -I is not positive definite, as it is at every optimum.
    const int K = 3;
    advi::test::GaussianCurvatureTarget target(advi::test::GaussianTarget::unnormalised(
        Eigen::VectorXd::Zero(K), -Eigen::MatrixXd::Identity(K, K)));
    for (const advi::Family family : {advi::Family::FullRank, advi::Family::MeanField}) {
        const Approximation q0 = Approximation::initial(family, Eigen::VectorXd::Zero(K));
        advi::GaussianNewtonSettings settings;
        settings.family = family;
        std::string why;
        const auto r = advi::gaussian_newton(target, q0, settings, &why);
        CHECK_FALSE(r);
        CHECK(why == "the expected Hessian over the starting q is not negative definite");
    }
}

TEST_CASE("gaussian_newton: mean-field steps reach mean-field's optimum on a Gaussian", "[advi]") {
    // Mean-field's optimum on N(m, P^-1): mean m, sd_d = 1 / sqrt(P_dd). The mean step is the
    // full Newton step (exact here); the sds reach their fixed point in one step too.
    const int K = 5;
    const Eigen::MatrixXd P = random_precision(K, 5);
    const Eigen::VectorXd m = Eigen::VectorXd::LinSpaced(K, -2.0, 2.0);
    advi::test::GaussianCurvatureTarget target(advi::test::GaussianTarget::unnormalised(m, P));
    const Approximation q0 =
        Approximation::mean_field(Eigen::VectorXd::Zero(K), Eigen::VectorXd::Zero(K));
    advi::GaussianNewtonSettings settings;
    settings.family = advi::Family::MeanField;
    std::string why;
    const auto r = advi::gaussian_newton(target, q0, settings, &why);
    INFO(why);
    REQUIRE(r);
    CHECK(r->steps == 1);
    CHECK((r->mean - m).cwiseAbs().maxCoeff() < 1e-9);
    CHECK(r->factor.isDiagonal());
    CHECK((r->factor.diagonal() - P.diagonal().cwiseSqrt().cwiseInverse()).cwiseAbs().maxCoeff() <
          1e-9);
}
