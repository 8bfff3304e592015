// The runaway checks (issue 17, class 7): q's mean or scale beyond its limit, and an ELBO
// that keeps rising without slowing down, on hand-made traces and on improper targets.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/engine/engine.hpp>
#include <advi/engine/estimator.hpp>
#include <advi/engine/runaway.hpp>

#include "engine/targets.hpp"

using advi::Approximation;
using advi::Family;
using advi::Options;
using advi::ran_off;
using advi::scale_not_at_optimum;
using advi::still_rising;
using advi::Target;
using Catch::Matchers::Contains;

namespace {

// log p = c + a' zeta: flat (a = 0) or linear (unbounded above), improper either way.
class ImproperTarget final : public Target {
public:
    ImproperTarget(Eigen::VectorXd a, double c) : a_(std::move(a)), c_(c) {}
    int dim() const override { return static_cast<int>(a_.size()); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        grad = a_;
        return c_ + a_.dot(zeta);
    }

private:
    Eigen::VectorXd a_;
    double c_;
};

}  // namespace

TEST_CASE("runaway: a mean or scale beyond its limit is named", "[advi]") {
    Options opts;
    Approximation q = Approximation::mean_field(Eigen::Vector2d(1.0, 2e50), Eigen::Vector2d(0, 0));
    auto off = ran_off(q, opts);
    REQUIRE(off);
    CHECK_THAT(*off, Contains("q ran off: the mean of coordinate 1 (unconstrained) reached 2e+50"));
    opts.describe_coordinate = [](int k) { return k == 1 ? "`sigma`" : "`mu`"; };
    CHECK_THAT(*ran_off(q, opts), Contains("the mean of `sigma`"));
    // Per-coordinate limits: 700 where the transform exponentiates.
    q = Approximation::mean_field(Eigen::Vector2d(1.0, 701.0), Eigen::Vector2d(0, 0));
    CHECK_FALSE(ran_off(q, {}));
    opts.runaway_limits = Eigen::Vector2d(1e50, 700.0);
    CHECK_THAT(*ran_off(q, opts), Contains("the mean of `sigma` (unconstrained) reached 701"));
    // The scale: sd = exp(omega) beyond 1e50.
    q = Approximation::mean_field(Eigen::Vector2d(0, 0), Eigen::Vector2d(116.0, 0));
    CHECK_THAT(*ran_off(q, opts), Contains("the sd of `mu` (unconstrained) reached 2.39e+50"));
    q = Approximation::mean_field(Eigen::Vector2d(0, 0), Eigen::Vector2d(115.0, 0));
    CHECK_FALSE(ran_off(q, opts));
    Eigen::Matrix2d L;
    L << 1, 0, -3e50, 1;
    CHECK_THAT(*ran_off(Approximation::full_rank(Eigen::Vector2d(0, 0), L), opts),
               Contains("entry (1, 0) of the Cholesky factor"));
    // The factor's rows take their coordinate's limit; a NaN entry runs off too.
    L << 701, 0, 699, 1;  // row 0's limit is 1e50, row 1's 700
    CHECK_FALSE(ran_off(Approximation::full_rank(Eigen::Vector2d(0, 0), L), opts));
    L << 1, 0, 1, 701;
    CHECK_THAT(*ran_off(Approximation::full_rank(Eigen::Vector2d(0, 0), L), opts),
               Contains("entry (1, 1) of the Cholesky factor of q, row `sigma`"));
    L << 1, 0, std::numeric_limits<double>::quiet_NaN(), 1;
    CHECK_THAT(*ran_off(Approximation::full_rank(Eigen::Vector2d(0, 0), L), opts),
               Contains("entry (1, 0)"));
}

TEST_CASE("runaway: a steady rise is one, a levelling or jittering ELBO is not", "[advi]") {
    double rise = 0.0;
    std::vector<double> linear, sqrt_growth, geometric, jitter;
    for (int k = 0; k <= 10; ++k) {
        linear.push_back(1e9 + 0.05 * k);
        sqrt_growth.push_back(std::sqrt(100.0 * (k + 20)));
        geometric.push_back(-10.0 - std::pow(0.5, k));
        jitter.push_back(-10.0 + 0.01 * ((k * 7) % 5 - 2));
    }
    CHECK(still_rising(linear, 10, &rise));
    CHECK(rise == Approx(0.05).epsilon(1e-6));
    CHECK(still_rising(sqrt_growth, 10, &rise));
    CHECK_FALSE(still_rising(geometric, 10, &rise));
    CHECK_FALSE(still_rising(jitter, 10, &rise));
    CHECK_FALSE(still_rising(linear, 3, &rise));   // too few points
    CHECK_FALSE(still_rising(linear, 20, &rise));  // longer than the trace
}

// Every improper target ends not converged, with the reason, whatever constant the log
// density carries: the scale test reads gradients only, so +50 or +1e6 (where the relative
// change |delta ELBO| / |ELBO| is below tol_rel_obj from the first evaluation) changes nothing.
// Full-rank on the flat target is the case the ELBO's trend cannot catch: its factor's diagonal
// grows like i^(1/4), so the ELBO creeps up like log(i) / 4.
TEST_CASE("runaway: improper targets end not converged, with the reason", "[advi]") {
    for (const double c : {0.0, 50.0, 1e6}) {
        for (const bool search : {true, false}) {
            for (const Family family : {Family::MeanField, Family::FullRank}) {
                for (const Eigen::VectorXd& a : {Eigen::VectorXd(Eigen::Vector2d(0, 0)),
                                                 Eigen::VectorXd(Eigen::Vector2d(0, 1))}) {
                    ImproperTarget p(a, c);
                    const auto r = run_advi(p, {.family = family,
                                                .seed = 3,
                                                .adapt_engaged = search,
                                                .eta = 0.1,
                                                .output_samples = 10});
                    INFO("c " << c << ", a " << a.transpose() << ", search " << search
                              << (family == Family::MeanField ? " mean-field" : " full-rank")
                              << ", " << r.iterations << " iterations, eta " << r.eta << ": "
                              << r.stop_reason << "; " << r.elbo_trace.size() << " evaluations");
                    CHECK_FALSE(r.converged);
                    CHECK_THAT(r.stop_reason, Contains("improper"));
                    CHECK(std::isfinite(r.elbo));
                }
            }
        }
    }
}

// b_k = -E_q[(zeta_k - mu_k) d log p / d zeta_k] against its closed form on a Gaussian target
// N(m, S) with precision P: b = diag(Cov_q P), exactly so over the whitened common draws.
TEST_CASE("runaway: the scale balance is 1 at the family's optimum and names a flat direction",
          "[advi]") {
    Eigen::Matrix2d S;
    S << 2.0, 0.6, 0.6, 0.5;
    const Eigen::Matrix2d P = S.inverse();
    const Eigen::Vector2d m(1.0, -2.0);
    for (const double offset : {0.0, 1e6}) {
        advi::test::GaussianTarget p(m, S, offset);
        Options opts{.seed = 5, .elbo_samples = 200};
        advi::Estimator est(p, opts);
        // Full-rank at the exact posterior: b = 1 in every coordinate.
        const Eigen::Matrix2d L = S.llt().matrixL();
        auto b = est.scale_balance(Approximation::full_rank(m, L));
        CHECK(b.used == 200);
        CHECK(b.mean[0] == Approx(1.0).epsilon(1e-10));
        CHECK(b.mean[1] == Approx(1.0).epsilon(1e-10));
        CHECK_FALSE(scale_not_at_optimum(b, opts));
        // Mean-field at its optimum (sd_k = 1 / sqrt(P_kk)), half and a third as wide: b = width^2.
        for (const double width : {1.0, 0.5, 1.0 / 3.0}) {
            const Eigen::Vector2d omega = (width / P.diagonal().array().sqrt()).log().matrix();
            b = est.scale_balance(Approximation::mean_field(m, omega));
            CHECK(b.mean[0] == Approx(width * width).epsilon(1e-10));
            CHECK(b.mean[1] == Approx(width * width).epsilon(1e-10));
            // 1/4 at half the width is on the floor, not clearly below it.
            CHECK(bool(scale_not_at_optimum(b, opts)) == (width < 0.4));
        }
    }
    // Flat in both coordinates: b = 0 exactly, and the message names the first.
    ImproperTarget flat(Eigen::Vector2d(0, 0), 7.0);
    Options opts{.seed = 5};
    opts.describe_coordinate = [](int k) { return k == 1 ? "`y`" : "`x`"; };
    advi::Estimator est(flat, opts);
    const auto b = est.scale_balance(
        Approximation::full_rank(Eigen::Vector2d(0, 0), Eigen::Matrix2d::Identity()));
    CHECK(b.mean[0] == 0.0);
    CHECK(b.mean[1] == 0.0);
    CHECK_THAT(*scale_not_at_optimum(b, opts),
               Contains("the scale of q along `x` (unconstrained) is not at an optimum"));
}

TEST_CASE("runaway: the location balance is 0 at the family's optimum and names a mean that is off",
          "[advi]") {
    Eigen::Matrix2d S;
    S << 2.0, 0.6, 0.6, 0.5;
    const Eigen::Matrix2d P = S.inverse();
    const Eigen::Vector2d m(1.0, -2.0);
    const Eigen::Vector2d omega = (1.0 / P.diagonal().array().sqrt()).log().matrix();
    const Eigen::Vector2d sd = omega.array().exp().matrix();
    for (const double offset : {0.0, 1e6}) {
        advi::test::GaussianTarget p(m, S, offset);
        Options opts{.seed = 5, .elbo_samples = 200};
        opts.describe_coordinate = [](int k) { return k == 1 ? "`y`" : "`x`"; };
        advi::Estimator est(p, opts);
        // At the optimum E_q[grad log p] = -P (mu - m) = 0: the common draws are antithetic,
        // so the linear gradient's draws cancel in pairs.
        auto b = est.scale_balance(Approximation::mean_field(m, omega));
        CHECK(b.location.cwiseAbs().maxCoeff() < 1e-10);
        CHECK_FALSE(advi::location_not_at_optimum(b, opts));
        // One sd off along x: sd_k (-P delta)_k exactly, and x is named.
        const Eigen::Vector2d delta(sd[0], 0.0);
        b = est.scale_balance(Approximation::mean_field(m + delta, omega));
        const Eigen::Vector2d expected = -(sd.array() * (P * delta).array()).matrix();
        CHECK(b.location[0] == Approx(expected[0]).epsilon(1e-10));
        CHECK(b.location[1] == Approx(expected[1]).epsilon(1e-10));
        CHECK_THAT(*advi::location_not_at_optimum(b, opts),
                   Contains("the mean of q along `x` (unconstrained) is not at an optimum"));
    }
}
