// The BBVI score-function gradient (lib/advi/engine/score_gradient.hpp) against the exact ELBO
// gradient of a Gaussian target, next to ADVI's reparameterisation gradient (paper Section 3.2):
// both are unbiased, and ADVI's has the lower variance.
#include <cmath>
#include <string>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/score_gradient.hpp>

#include "engine/targets.hpp"

namespace advi {
namespace {

// For p = N(m, S) (precision P) and q = N(mu, C C'), E_q[log p] = -(tr(P C C') + r' P r) / 2 +
// const with r = mu - m, and the entropy is log|det C| + const, so
//   d/dmu = -P r,   d/domega_k = 1 - P_kk e^(2 omega_k),   d/dL = lower(-P L) + diag(1 / L_ii).
Eigen::VectorXd exact_gradient(const test::GaussianTarget& p, const Approximation& q) {
    const Eigen::MatrixXd& P = p.precision();
    Eigen::VectorXd g_mu = -P * (q.mu() - p.mean());
    if (q.family() == Family::MeanField) {
        Eigen::VectorXd g_omega =
            (1.0 - P.diagonal().array() * (2.0 * q.omega().array()).exp()).matrix();
        return Approximation::mean_field(g_mu, g_omega).params();
    }
    Eigen::MatrixXd g_L = -P * q.L();
    g_L.diagonal().array() += q.L().diagonal().array().inverse();
    return Approximation::full_rank(g_mu, g_L).params();
}

struct Moments {
    Eigen::VectorXd mean, var;  // per coordinate, over the repetitions
    Eigen::VectorXd se() const { return (var.array() / reps).sqrt().matrix(); }
    int reps = 0;
};

// `reps` independent estimates of the gradient, each from M draws.
template <class Estimate>
Moments repeat(int reps, int P, Estimate&& estimate) {
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(P), sum2 = Eigen::VectorXd::Zero(P);
    for (int r = 0; r < reps; ++r) {
        const ElboGradient g = estimate();
        REQUIRE(g.ok());
        sum += g.grad;
        sum2 += g.grad.cwiseAbs2();
    }
    Moments m;
    m.reps = reps;
    m.mean = sum / reps;
    m.var = ((sum2.array() - reps * m.mean.array().square()) / (reps - 1)).matrix();
    return m;
}

// Every coordinate of the mean within `k` standard errors of the exact gradient.
void check_unbiased(const Moments& m, const Eigen::VectorXd& exact, double k,
                    const std::string& what) {
    const Eigen::VectorXd se = m.se();
    for (Eigen::Index i = 0; i < exact.size(); ++i) {
        INFO(what << ", coordinate " << i << ": mean " << m.mean[i] << ", exact " << exact[i]
                  << ", se " << se[i]);
        CHECK(std::abs(m.mean[i] - exact[i]) < k * se[i]);
    }
}

// A correlated 3-D Gaussian target and a q well away from the optimum, so that the gradient is
// large next to the standard errors below (a wrong factor in any coordinate would show).
test::GaussianTarget target3() {
    Eigen::MatrixXd S(3, 3);
    S << 1.0, 0.6, 0.2,  //
        0.6, 2.0, -0.3,  //
        0.2, -0.3, 0.5;
    return test::GaussianTarget(Eigen::Vector3d(0.5, -1.0, 2.0), S);
}

TEST_CASE("score-function and reparameterisation gradients are unbiased, mean-field",
          "[advi][score]") {
    test::GaussianTarget p = target3();
    const Approximation q =
        Approximation::mean_field(Eigen::Vector3d(1.5, 0.0, 1.0), Eigen::Vector3d(0.3, -0.5, 0.2));
    const Eigen::VectorXd exact = exact_gradient(p, q);
    const int P = q.num_params(), M = 5, reps = 40000;
    Rng rng(7);
    const Moments advi = repeat(reps, P, [&] { return elbo_gradient(p, q, rng, M, 10 * M); });
    const Moments bbvi =
        repeat(reps, P, [&] { return score_function_gradient(p, q, M, rng, false); });
    // 4 standard errors: a 1-in-16000 chance per coordinate for an unbiased estimator.
    check_unbiased(advi, exact, 4, "ADVI");
    check_unbiased(bbvi, exact, 4, "BBVI");
    // The test has power: a bias of 5% of the gradient's norm would show.
    CHECK(4 * bbvi.se().maxCoeff() < 0.05 * exact.norm());
    for (Eigen::Index i = 0; i < P; ++i) {
        INFO("coordinate " << i << ": variance ADVI " << advi.var[i] << ", BBVI " << bbvi.var[i]);
        CHECK(advi.var[i] < bbvi.var[i]);
    }
}

TEST_CASE("score-function gradient with the control variate: lower variance, a bias of order 1/M",
          "[advi][score]") {
    test::GaussianTarget p = target3();
    const Approximation q =
        Approximation::mean_field(Eigen::Vector3d(1.5, 0.0, 1.0), Eigen::Vector3d(0.3, -0.5, 0.2));
    const Eigen::VectorXd exact = exact_gradient(p, q);
    const int P = q.num_params(), M = 50, reps = 8000;
    Rng rng(9);
    const Moments bbvi =
        repeat(reps, P, [&] { return score_function_gradient(p, q, M, rng, false); });
    const Moments bbvi_cv =
        repeat(reps, P, [&] { return score_function_gradient(p, q, M, rng, true); });
    check_unbiased(bbvi, exact, 4, "BBVI");
    // The baseline a is estimated from the same draws it corrects (as Ranganath et al.), so
    // E[a_hat mean(h)] != 0: a bias of order 1/M. Measured on this target (200000 draws per
    // M), the largest coordinate's as a fraction of |exact gradient|: 23% at M = 10, 6% at M = 50,
    // 2% at M = 200; and with M = 2 the estimate is wild (a = (f_1 - f_2) / (h_1 - h_2)).
    // So at M = 50: within 10% of the norm, and the variance lower in every coordinate.
    for (Eigen::Index i = 0; i < P; ++i) {
        INFO("coordinate " << i << ": mean " << bbvi_cv.mean[i] << ", exact " << exact[i]
                           << "; variance BBVI " << bbvi.var[i] << ", with cv " << bbvi_cv.var[i]);
        CHECK(std::abs(bbvi_cv.mean[i] - exact[i]) < 0.1 * exact.norm());
        CHECK(bbvi_cv.var[i] < bbvi.var[i]);
    }
}

TEST_CASE("score-function and reparameterisation gradients are unbiased, full-rank",
          "[advi][score]") {
    test::GaussianTarget p = target3();
    Eigen::MatrixXd L(3, 3);
    L << 1.2, 0.0, 0.0,  //
        0.4, 0.7, 0.0,   //
        -0.3, 0.2, 0.9;
    const Approximation q = Approximation::full_rank(Eigen::Vector3d(1.5, 0.0, 1.0), L);
    const Eigen::VectorXd exact = exact_gradient(p, q);
    const int P = q.num_params(), M = 5, reps = 20000;
    Rng rng(8);
    const Moments advi = repeat(reps, P, [&] { return elbo_gradient(p, q, rng, M, 10 * M); });
    const Moments bbvi =
        repeat(reps, P, [&] { return score_function_gradient(p, q, M, rng, false); });
    check_unbiased(advi, exact, 4, "ADVI");
    check_unbiased(bbvi, exact, 4, "BBVI");
    for (Eigen::Index i = 0; i < P; ++i) {
        INFO("coordinate " << i << ": variance ADVI " << advi.var[i] << ", BBVI " << bbvi.var[i]);
        CHECK(advi.var[i] < bbvi.var[i]);
    }
}

TEST_CASE("score-function gradient: with one draw the control variate is off; M < 1 is an error",
          "[advi][score]") {
    test::GaussianTarget p = target3();
    const Approximation q =
        Approximation::mean_field(Eigen::Vector3d(1.5, 0.0, 1.0), Eigen::Vector3d(0.3, -0.5, 0.2));
    Rng a(3), b(3);
    const ElboGradient plain = score_function_gradient(p, q, 1, a, false);
    const ElboGradient cv = score_function_gradient(p, q, 1, b, true);
    CHECK(plain.used == 1);
    CHECK(plain.grad == cv.grad);
    Rng c(3);
    CHECK_THROWS_AS(score_function_gradient(p, q, 0, c, false), ModelError);
}

TEST_CASE("score-function gradient drops non-finite draws", "[advi][score]") {
    test::BrokenTarget broken(2, std::numeric_limits<double>::quiet_NaN());
    const Approximation q = Approximation::initial(Family::MeanField, Eigen::Vector2d(0, 0));
    Rng rng(1);
    const ElboGradient g = score_function_gradient(broken, q, 4, rng, true);
    CHECK_FALSE(g.ok());
    CHECK(g.dropped == 40);
    CHECK(g.grad == Eigen::VectorXd::Zero(4));
}

}  // namespace
}  // namespace advi
