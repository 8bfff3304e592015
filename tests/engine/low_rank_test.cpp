// The low-rank plus diagonal family (issue 20, item 3): its entropy, log density, sds and
// precision against the dense covariance computed here; its ELBO gradient against finite
// differences of the exact ELBO on a Gaussian target; and a fit on a Gaussian whose covariance
// is diagonal plus rank one, which the family contains exactly and mean-field does not.
#include <cmath>
#include <numbers>

#include <Eigen/Cholesky>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/approximation.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/engine.hpp>
#include <advi/engine/rng.hpp>

#include "targets.hpp"

using advi::Approximation;
using advi::Family;

namespace {

Approximation example_q(int D, int R, std::uint64_t seed) {
    advi::Rng rng(seed);
    const Eigen::VectorXd mu = rng.normal_matrix(D, 1).col(0);
    const Eigen::VectorXd omega = 0.3 * rng.normal_matrix(D, 1).col(0);
    const Eigen::MatrixXd B = 0.7 * rng.normal_matrix(D, R);
    return Approximation::low_rank(mu, omega, B);
}

}  // namespace

TEST_CASE("low-rank q: entropy, log density, sds and precision are the dense covariance's",
          "[low_rank]") {
    const int D = 7, R = 3;
    const Approximation q = example_q(D, R, 5);
    Eigen::MatrixXd S = q.B() * q.B().transpose();
    S.diagonal() += (2.0 * q.omega().array()).exp().matrix();
    CHECK((q.covariance() - S).cwiseAbs().maxCoeff() < 1e-14);
    const Eigen::LLT<Eigen::MatrixXd> llt(S);
    const double half_log_det = llt.matrixLLT().diagonal().array().log().sum();
    const double log_2pi = std::log(2.0 * std::numbers::pi);
    CHECK(q.entropy() == Approx(0.5 * D * (1.0 + log_2pi) + half_log_det).epsilon(1e-12));
    CHECK((q.sd() - S.diagonal().cwiseSqrt()).cwiseAbs().maxCoeff() < 1e-12);
    const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(D, -1.0, 2.0);
    CHECK((q.precision_times(v) - llt.solve(v)).cwiseAbs().maxCoeff() < 1e-10);
    advi::Rng rng(2);
    const Eigen::MatrixXd z = q.draw(rng, 20000);
    const Eigen::VectorXd lq = q.log_density(z.topRows(5));
    for (int i = 0; i < 5; ++i) {
        const Eigen::VectorXd r = z.row(i).transpose() - q.mu();
        CHECK(lq[i] ==
              Approx(-0.5 * r.dot(llt.solve(r)) - half_log_det - 0.5 * D * log_2pi).epsilon(1e-10));
    }
    const Eigen::MatrixXd c = z.rowwise() - z.colwise().mean();
    CHECK((c.transpose() * c / (z.rows() - 1.0) - S).cwiseAbs().maxCoeff() <
          0.08 * S.cwiseAbs().maxCoeff());
    // params() round trip, and the layout [mu; omega; B column by column].
    Approximation p = Approximation::initial(Family::LowRank, Eigen::VectorXd::Zero(D), R);
    p.set_params(q.params());
    CHECK((p.B() - q.B()).cwiseAbs().maxCoeff() == 0.0);
    CHECK(q.params()[2 * D + 1] == q.B()(1, 0));
    CHECK(q.num_params() == 2 * D + D * R);
    CHECK(q.noise_dim() == D + R);
    CHECK_THROWS_AS(Approximation::initial(Family::LowRank, Eigen::VectorXd::Zero(D)),
                    advi::ModelError);
}

TEST_CASE("low-rank q: the ELBO gradient is the exact ELBO's", "[low_rank]") {
    // On a Gaussian target the ELBO is exact (analytic_elbo); its finite differences against
    // both estimators' means over 100,000 draws.
    const int D = 5, R = 2;
    Eigen::MatrixXd A(D, D);
    advi::Rng rng(8);
    A = rng.normal_matrix(D, D);
    const Eigen::MatrixXd S = A * A.transpose() / D + Eigen::MatrixXd::Identity(D, D);
    advi::test::GaussianTarget target(Eigen::VectorXd::LinSpaced(D, -1.0, 1.0), S);
    const Approximation q = example_q(D, R, 3);
    const Eigen::VectorXd p0 = q.params();
    Eigen::VectorXd fd(p0.size());
    for (Eigen::Index k = 0; k < p0.size(); ++k) {
        const double h = 1e-5;
        Approximation a = q, b = q;
        Eigen::VectorXd pa = p0, pb = p0;
        pa[k] += h;
        pb[k] -= h;
        a.set_params(pa);
        b.set_params(pb);
        fd[k] = (target.analytic_elbo(a) - target.analytic_elbo(b)) / (2 * h);
    }
    const Eigen::MatrixXd etas = rng.normal_matrix(100000, q.noise_dim());
    for (const auto estimator :
         {advi::GradientEstimator::Standard, advi::GradientEstimator::StickingTheLanding}) {
        const advi::ElboGradient g = advi::elbo_gradient(target, q, etas, estimator);
        REQUIRE(g.used == 100000);
        INFO("fd   " << fd.transpose() << "\ngrad " << g.grad.transpose());
        CHECK((g.grad - fd).cwiseAbs().maxCoeff() < 0.03 * std::max(1.0, fd.cwiseAbs().maxCoeff()));
    }
}

TEST_CASE("low-rank fit: a diagonal-plus-rank-one posterior is fitted exactly", "[low_rank]") {
    const int D = 8;
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(D, 0.5, 1.5);
    const Eigen::VectorXd d = Eigen::VectorXd::LinSpaced(D, 0.3, 0.8);
    Eigen::MatrixXd S = b * b.transpose();
    S.diagonal() += d.cwiseProduct(d);
    advi::test::GaussianTarget target(Eigen::VectorXd::LinSpaced(D, -2.0, 2.0), S);
    const Eigen::VectorXd sd = S.diagonal().cwiseSqrt();
    for (const auto start : {advi::StartFrom::Auto, advi::StartFrom::Init}) {
        CAPTURE(static_cast<int>(start));
        const auto r = advi::run_advi(
            target,
            {.family = Family::LowRank, .seed = 4, .output_samples = 0, .start = start, .rank = 1});
        INFO(r.q << r.stop_reason);
        CHECK(r.converged);
        // The normalised target's log Z = 0: the exact posterior's ELBO.
        CHECK(target.analytic_elbo(r.q) > -0.05);
        // From the mode within 2.3% (measured); from the init point 8% (the Auto rule stops
        // within 0.05 nats of the optimum, and the sds are the ELBO's flattest direction).
        CHECK((r.q.sd().array() / sd.array() - 1.0).abs().maxCoeff() < 0.1);
        CHECK(((r.q.mu() - target.mean()).array() / sd.array()).abs().maxCoeff() < 0.05);
    }
    // Mean-field's optimum misses the correlation: its ELBO is well below.
    const auto mf = advi::run_advi(target, {.seed = 4, .output_samples = 0});
    CHECK(target.analytic_elbo(mf.q) < -1.0);
    // A rank of dim or more is refused, naming the full-rank family.
    CHECK_THROWS_WITH(advi::run_advi(target, {.family = Family::LowRank, .rank = D}),
                      Catch::Matchers::Contains("use the full-rank family"));
}
