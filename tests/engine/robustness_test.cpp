// What the Robust rule adds over Stan's ADVI: convergence on targets whose ELBO is near 0,
// surviving targets that are non-finite far from the mode, clear errors when nothing is
// finite. Each case also records what ConvergenceRule::Stan does there.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/engine.hpp>

#include "engine/targets.hpp"

using advi::ConvergenceRule;
using advi::Family;
using advi::FitError;
using advi::Options;
using advi::run_advi;
using advi::test::CliffTarget;
using advi::test::correlated_cov;
using advi::test::GammaTarget;
using advi::test::GaussianTarget;
using advi::test::PositiveMap;
using Catch::Matchers::Contains;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Finite for its first `good_calls` evaluations and after `good_calls + bad_calls`,
// NaN in between: lets a test make exactly the first round of the eta search fail.
class FlakyTarget final : public advi::Target {
public:
    FlakyTarget(advi::Target& inner, long good_calls, long bad_calls)
        : inner_(inner), good_(good_calls), bad_(bad_calls) {}
    int dim() const override { return inner_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        ++calls_;
        if (calls_ > good_ && calls_ <= good_ + bad_) {
            g.setConstant(kNaN);
            return kNaN;
        }
        return inner_.log_density_gradient(z, g);
    }

private:
    advi::Target& inner_;
    long good_, bad_;
    long calls_ = 0;
};

}  // namespace

TEST_CASE("robust: every one of 20 seeds converges on the 2-D Gaussian", "[advi]") {
    // Offset -10: an unnormalised model, as real ones are. (Normalised, where the
    // tolerance becomes an absolute 0.01 nats, 16/20 mean-field and 17/20 full-rank fits
    // converge within the default 10000 iterations: the M = 1 iterates still jitter by
    // about that much.) Under the Stan rule, 17/20 full-rank fits converge here.
    GaussianTarget p(Eigen::Vector2d(1.0, -2.0), correlated_cov(1.0, 1.5, 0.9), -10.0);
    for (const Family family : {Family::MeanField, Family::FullRank}) {
        int converged = 0;
        for (std::uint64_t seed = 0; seed < 20; ++seed) {
            const auto r = run_advi(p, {.family = family, .seed = seed, .output_samples = 0});
            INFO("seed " << seed << ": " << r.stop_reason << "\n" << r.q);
            CHECK(r.converged);
            converged += r.converged;
            for (const double e : r.elbo_trace) {
                CHECK(std::isfinite(e));
            }
            CHECK(r.eta_reductions == 0);
        }
        CHECK(converged == 20);
    }
}

TEST_CASE("robust: a normalised Gamma(1, 2) under T1 stops by the convergence rule", "[advi]") {
    // The ELBO is -KL(q || p), about -0.08 at the optimum. Stan's |delta| / |elbo| turns
    // Monte Carlo noise of a few hundredths into relative changes near 1.
    GammaTarget p(1.0, 2.0, PositiveMap::T1Log);
    const auto r = run_advi(p, {.seed = 0});
    INFO(r.stop_reason << "\n" << r.q);
    CHECK(r.converged);
    CHECK(r.iterations < 10000);
    CHECK_THAT(r.stop_reason, Contains("the iterate average reached a plateau"));
    // The Auto rule's decisions are ELBO differences in nats, never relative to |ELBO|.
    int robust_converged = 0, stan_converged = 0;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        robust_converged += run_advi(p, {.seed = seed, .output_samples = 0}).converged;
        const auto s =
            run_advi(p, {.seed = seed, .output_samples = 0, .convergence = ConvergenceRule::Stan});
        stan_converged += s.converged;
    }
    // Stan rule, measured: 0 of 20 seeds converge; every fit runs to max_iterations, the
    // relative changes over its last 10 evaluations averaging about 5 (noise / |ELBO| with
    // |ELBO| ~ 0.1). Mean KL(q || p) at the end: 0.122 (Stan) vs 0.108 (Robust), optimum
    // 0.081. The same holds for Gamma(2.5, 4.2) and Gamma(10, 10) under both T1 and T2:
    // 0/20 each under Stan, 20/20 under Robust.
    CHECK(robust_converged >= 16);
    CHECK(stan_converged <= 2);
}

TEST_CASE("robust: a target that is non-finite for |zeta| > 20 survives large etas", "[advi]") {
    GaussianTarget inner(Eigen::Vector2d(3.0, -2.0), correlated_cov(1.0, 1.5, 0.9), -10.0);
    for (const double bad : {-kInf, kNaN}) {
        CliffTarget p(inner, 20.0, bad);
        for (const Family family : {Family::MeanField, Family::FullRank}) {
            const auto r = run_advi(p, {.family = family, .seed = 1});
            INFO("bad = " << bad << ": " << r.stop_reason << "\n" << r.q);
            // eta = 100 jumps out of the finite region: that candidate must be marked
            // diverged, and the chosen one's adaptation ELBO must be finite.
            REQUIRE(r.eta_trials.size() == 5);
            CHECK(r.eta_trials[0].eta == 100.0);
            CHECK(r.eta_trials[0].diverged);
            bool found = false;
            for (const auto& t : r.eta_trials) {
                if (t.eta == r.eta) {
                    found = true;
                    CHECK_FALSE(t.diverged);
                    CHECK(std::isfinite(t.elbo));
                }
            }
            CHECK(found);
            CHECK(r.converged);
            CHECK((r.q.mu() - inner.mean()).cwiseAbs().maxCoeff() < 0.3);
        }
    }
}

TEST_CASE("robust: a step that blows up restores q and divides eta by 10", "[advi]") {
    GaussianTarget inner(Eigen::Vector2d(3.0, -2.0), correlated_cov(1.0, 1.5, 0.9), -10.0);
    CliffTarget p(inner, 20.0, kNaN);
    // eta = 1000 without adaptation: the first step sends omega to ~1000 (exp overflows).
    const Options opts{.seed = 1, .adapt_engaged = false, .eta = 1000.0};
    const auto r = run_advi(p, opts);
    INFO(r.stop_reason << "\n" << r.q);
    CHECK(r.eta_reductions >= 1);
    CHECK_THAT(r.stop_reason, Contains("eta reduced"));
    CHECK(r.q.is_finite());
    CHECK(r.converged);
    CHECK((r.q.mu() - inner.mean()).cwiseAbs().maxCoeff() < 0.3);
    // Stan has no back-off: the same fit throws.
    Options stan = opts;
    stan.convergence = ConvergenceRule::Stan;
    CHECK_THROWS_AS((void)run_advi(p, stan), FitError);
    CHECK_THROWS_WITH((void)run_advi(p, stan), Contains("non-finite at iteration 1"));
}

TEST_CASE("robust: a target non-finite everywhere throws a FitError that says so", "[advi]") {
    for (const double bad : {-kInf, kNaN, kInf}) {
        for (const auto rule : {ConvergenceRule::Robust, ConvergenceRule::Stan}) {
            advi::test::BrokenTarget p(3, bad);
            const Options opts{.seed = 1, .convergence = rule};
            CHECK_THROWS_AS((void)run_advi(p, opts), FitError);
            CHECK_THROWS_WITH((void)run_advi(p, opts),
                              Contains("log density was not finite") &&
                                  Contains("initial approximation (iteration 0)") &&
                                  Contains("100 of the") && Contains("initial values"));
        }
    }
    advi::test::BrokenGradientTarget g;
    CHECK_THROWS_WITH((void)run_advi(g, {.seed = 1}),
                      Contains("gradient") && Contains("not finite at any of the 10 draws") &&
                          Contains("iteration 0"));
}

TEST_CASE("robust: the eta search retries with smaller candidates when all diverge", "[advi]") {
    GaussianTarget inner(Eigen::Vector2d(1.0, -2.0), correlated_cov(1.0, 1.5, 0.9), -10.0);
    // Good for Stan's test of the init point (1), the initial ELBO (100 common draws) and the
    // gradient check at q0 (1 draw); then NaN for the 5 x 10 draws of the first round (each
    // candidate fails its first gradient after 10 tries); finite again for the second round.
    FlakyTarget p(inner, 102, 50);
    const auto r = run_advi(p, {.seed = 1});
    REQUIRE(r.eta_trials.size() == 10);
    for (int k = 0; k < 5; ++k) {
        CHECK(r.eta_trials[k].diverged);
    }
    CHECK(r.eta_trials[5].eta == Approx(0.1));
    CHECK(r.eta <= 0.1);
    CHECK(r.dropped_draws == 50);
    CHECK(r.converged);

    // Never finite again: three rounds, then an error naming every candidate tried.
    FlakyTarget dead(inner, 102, 1000000000);
    CHECK_THROWS_WITH((void)run_advi(dead, {.seed = 1}),
                      Contains("every candidate step size diverged") &&
                          Contains("tried eta = 100, 10, 1, 0.1, 0.01, 0.1, 0.01, 0.001") &&
                          Contains("1e-08"));
    // Stan's adapt_eta keeps going with zero gradients and fails on its last candidate.
    FlakyTarget dead_stan(inner, 102, 1000000000);
    CHECK_THROWS_WITH((void)run_advi(dead_stan, {.seed = 1, .convergence = ConvergenceRule::Stan}),
                      Contains("all proposed step-sizes failed") &&
                          Contains("tried eta = 100, 10, 1, 0.1, 0.01"));
}

TEST_CASE("robust: Stan's eta search can fail on a well-posed target", "[advi]") {
    // Gamma(2.5, 4.2) under T2 is close to N(0, 1) in zeta, so q0's ELBO is already
    // -0.007; Stan requires its last candidate (eta = 0.01) to beat it under fresh draws,
    // which fails by chance. Measured: 2 of 20 seeds (0 and 14) throw under Stan; the
    // Robust search never does.
    GammaTarget p(2.5, 4.2, PositiveMap::T2Softplus);
    int stan_failures = 0;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        try {
            (void)run_advi(
                p, {.seed = seed, .output_samples = 0, .convergence = ConvergenceRule::Stan});
        } catch (const FitError& e) {
            ++stan_failures;
            CHECK_THAT(e.what(), Contains("all proposed step-sizes failed"));
        }
        CHECK_NOTHROW((void)run_advi(p, {.seed = seed, .output_samples = 0}));
    }
    CHECK(stan_failures >= 1);
}
