// The ELBO-gradient estimators (paper Eqs. 5-7) against finite differences of an ELBO known
// in closed form (Gaussian target) or by quadrature (Gamma target under T2).
#include <cmath>

#include <catch2/catch.hpp>

#include <advi/engine/elbo.hpp>

#include "engine/targets.hpp"

using advi::Approximation;
using advi::test::GaussianTarget;
using Catch::Matchers::WithinAbs;

namespace {

GaussianTarget gaussian3() {
    Eigen::MatrixXd S(3, 3);
    S << 2.0, 0.6, -0.3,  //
        0.6, 1.0, 0.2,    //
        -0.3, 0.2, 0.5;
    return GaussianTarget(Eigen::Vector3d(1.0, -0.5, 2.0), S, -7.0);
}

// For a quadratic log density the estimator depends on the draws only through their mean
// and second moment; the 2D rows +-sqrt(D) e_k have mean 0 and second moment I exactly,
// so the estimate equals the true gradient.
Eigen::MatrixXd moment_matched_etas(int d) {
    Eigen::MatrixXd etas = Eigen::MatrixXd::Zero(2 * d, d);
    for (int k = 0; k < d; ++k) {
        etas(2 * k, k) = std::sqrt(static_cast<double>(d));
        etas(2 * k + 1, k) = -std::sqrt(static_cast<double>(d));
    }
    return etas;
}

template <class Elbo>
Eigen::VectorXd finite_difference(const Approximation& q, Elbo elbo, double h = 1e-5) {
    const Eigen::VectorXd p = q.params();
    Eigen::VectorXd g(p.size());
    Approximation qq = q;
    for (Eigen::Index k = 0; k < p.size(); ++k) {
        Eigen::VectorXd pp = p;
        pp[k] += h;
        qq.set_params(pp);
        const double up = elbo(qq);
        pp[k] -= 2 * h;
        qq.set_params(pp);
        g[k] = (up - elbo(qq)) / (2 * h);
    }
    return g;
}

Eigen::MatrixXd example_L() {
    Eigen::MatrixXd L(3, 3);
    L << 0.8, 0, 0,   //
        0.3, 1.4, 0,  //
        -0.5, 0.2, 0.6;
    return L;
}

}  // namespace

TEST_CASE("elbo gradient: mean-field matches finite differences of the analytic ELBO", "[advi]") {
    GaussianTarget p = gaussian3();
    const auto q =
        Approximation::mean_field(Eigen::Vector3d(0.2, 0.4, -1.0), Eigen::Vector3d(-0.3, 0.5, 0.1));
    const auto est = advi::elbo_gradient(p, q, moment_matched_etas(3));
    REQUIRE(est.used == 6);
    const Eigen::VectorXd fd =
        finite_difference(q, [&](const Approximation& a) { return p.analytic_elbo(a); });
    INFO("estimator " << est.grad.transpose() << "\nfinite diff " << fd.transpose());
    CHECK((est.grad - fd).cwiseAbs().maxCoeff() < 1e-6);
    // The omega block is not trivially zero (a factor-of-2 slip in the entropy term would
    // move it by 1).
    CHECK(fd.tail(3).cwiseAbs().minCoeff() > 0.1);
}

TEST_CASE("elbo gradient: full-rank matches finite differences of the analytic ELBO", "[advi]") {
    GaussianTarget p = gaussian3();
    const auto q = Approximation::full_rank(Eigen::Vector3d(0.2, 0.4, -1.0), example_L());
    const auto est = advi::elbo_gradient(p, q, moment_matched_etas(3));
    const Eigen::VectorXd fd =
        finite_difference(q, [&](const Approximation& a) { return p.analytic_elbo(a); });
    INFO("estimator " << est.grad.transpose() << "\nfinite diff " << fd.transpose());
    REQUIRE(est.grad.size() == 9);
    CHECK((est.grad - fd).cwiseAbs().maxCoeff() < 1e-6);
}

TEST_CASE("elbo gradient: random draws average to the finite-difference gradient", "[advi]") {
    GaussianTarget p = gaussian3();
    advi::Rng rng(11);
    for (auto q : {Approximation::mean_field(Eigen::Vector3d(0.2, 0.4, -1.0),
                                             Eigen::Vector3d(-0.3, 0.5, 0.1)),
                   Approximation::full_rank(Eigen::Vector3d(0.2, 0.4, -1.0), example_L())}) {
        const auto est = advi::elbo_gradient(p, q, rng, 100000, 100000);
        REQUIRE(est.used == 100000);
        const Eigen::VectorXd fd =
            finite_difference(q, [&](const Approximation& a) { return p.analytic_elbo(a); });
        INFO("estimator " << est.grad.transpose() << "\nfinite diff " << fd.transpose());
        // Per-draw sd of each component is below 10 here; 10/sqrt(1e5) = 0.03.
        CHECK((est.grad - fd).cwiseAbs().maxCoeff() < 0.15);
    }
}

TEST_CASE("elbo estimate: common draws reproduce the analytic ELBO", "[advi]") {
    GaussianTarget p = gaussian3();
    const auto q = Approximation::full_rank(Eigen::Vector3d(0.2, 0.4, -1.0), example_L());
    const auto e = advi::elbo_estimate(p, q, moment_matched_etas(3));
    CHECK(e.used == 6);
    CHECK_THAT(e.value, WithinAbs(p.analytic_elbo(q), 1e-10));
}

TEST_CASE("elbo gradient: non-quadratic target (Gamma under T2) against quadrature", "[advi]") {
    advi::test::GammaTarget p(2.5, 4.2, advi::test::PositiveMap::T2Softplus);
    // ELBO(mu, omega) = int N(eta) log p(mu + e^omega eta) d eta + omega + const,
    // by the trapezoid rule on eta in [-10, 10].
    auto elbo = [&](const Approximation& q) {
        const int n = 4001;
        const double h = 20.0 / (n - 1);
        double s = 0.0;
        for (int i = 0; i < n; ++i) {
            const double eta = -10.0 + i * h;
            const double w = std::exp(-0.5 * eta * eta) / std::sqrt(2.0 * std::numbers::pi);
            s +=
                (i == 0 || i == n - 1 ? 0.5 : 1.0) * w * p.log_density(q.mu()[0] + q.sd()[0] * eta);
        }
        return s * h + q.entropy();
    };
    const auto q = Approximation::mean_field(Eigen::VectorXd::Constant(1, -0.7),
                                             Eigen::VectorXd::Constant(1, -0.4));
    advi::Rng rng(5);
    const auto est = advi::elbo_gradient(p, q, rng, 400000, 400000);
    const Eigen::VectorXd fd = finite_difference(q, elbo);
    INFO("estimator " << est.grad.transpose() << "\nfinite diff " << fd.transpose());
    CHECK_THAT(est.grad[0], WithinAbs(fd[0], 0.01));
    CHECK_THAT(est.grad[1], WithinAbs(fd[1], 0.01));
}

TEST_CASE("elbo gradient: non-finite draws are dropped, all-bad gives !ok()", "[advi]") {
    GaussianTarget inner = gaussian3();
    advi::test::CliffTarget p(inner, 1.5, -std::numeric_limits<double>::infinity());
    const auto q = Approximation::initial(advi::Family::MeanField, Eigen::Vector3d::Zero());
    advi::Rng rng(3);
    const auto some = advi::elbo_gradient(p, q, rng, 50, 500);
    CHECK(some.used == 50);
    CHECK(some.dropped > 0);  // P(all |zeta_k| <= 1.5) = 0.87^3 ~ 0.66
    CHECK(some.grad.allFinite());
    advi::test::BrokenTarget broken(3, std::numeric_limits<double>::quiet_NaN());
    const auto none = advi::elbo_gradient(broken, q, rng, 5, 20);
    CHECK_FALSE(none.ok());
    CHECK(none.dropped == 20);
    const auto e = advi::elbo_estimate(broken, q, moment_matched_etas(3));
    CHECK(std::isinf(e.value));
    CHECK(e.dropped == 6);
}
