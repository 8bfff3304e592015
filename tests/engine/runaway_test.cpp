// The runaway checks (issue 17, class 7): q's mean or scale beyond its limit, and an ELBO
// that keeps rising without slowing down, on hand-made traces and on improper targets.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/engine/engine.hpp>
#include <advi/engine/runaway.hpp>

using advi::Approximation;
using advi::Family;
using advi::Options;
using advi::ran_off;
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

// With a constant of 50 or more in the log density, the Robust rule's relative change
// (|delta ELBO| / |ELBO|) falls below tol_rel_obj within a few evaluations and ends these fits
// as converged before a trend can show: the rule's dependence on |ELBO| is issue 19's.
TEST_CASE("runaway: improper targets end not converged, with the reason", "[advi]") {
    for (const double c : {0.0}) {
        for (const bool search : {true, false}) {
            for (const Family family : {Family::MeanField, Family::FullRank}) {
                for (const Eigen::VectorXd& a : {Eigen::VectorXd(Eigen::Vector2d(0, 0)),
                                                 Eigen::VectorXd(Eigen::Vector2d(0, 1))}) {
                    // Not caught: full-rank on a flat target. Its factor's diagonal grows
                    // like i^(1/4) (the entropy's gradient 1 / L_ii shrinks as L_ii grows), so
                    // the ELBO rises like log(i) / 4, which no finite window tells from
                    // convergence by the ELBO alone (issue 19's rule has to).
                    if (family == Family::FullRank && a.isZero()) {
                        continue;
                    }
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
