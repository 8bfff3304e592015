// Options::interrupt stops run_advi wherever it is, the eta search included (issue 17,
// class 9): the result is q as it was, not converged, with the reason.
#include <atomic>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include <advi/engine/engine.hpp>

#include "engine/targets.hpp"

using advi::ConvergenceRule;
using advi::Options;
using advi::test::GaussianTarget;
using Catch::Matchers::StartsWith;

namespace {

GaussianTarget target() {
    return GaussianTarget(Eigen::Vector2d(1.0, -2.0), Eigen::Matrix2d::Identity() * 0.5);
}

}  // namespace

TEST_CASE("engine: an interrupt set before the fit stops it in the eta search at once",
          "[advi][interrupt]") {
    for (const ConvergenceRule rule : {ConvergenceRule::Robust, ConvergenceRule::Stan}) {
        GaussianTarget p = target();
        std::atomic<bool> stop{true};
        const Options opts{
            .seed = 3, .output_samples = 20, .convergence = rule, .interrupt = &stop};
        const advi::AdviResult r = run_advi(p, opts);
        CHECK_FALSE(r.converged);
        CHECK(r.iterations == 0);
        CHECK(r.eta_trials.empty());
        CHECK(r.stop_reason == "interrupted during the eta search, after 0 of its candidates");
        // q is the initial approximation, and its draws are there.
        CHECK(r.q.mu() == Eigen::Vector2d::Zero());
        CHECK(r.draws.rows() == 20);
    }
}

TEST_CASE("engine: an interrupt during a long eta search candidate is honoured within it",
          "[advi][interrupt]") {
    for (const ConvergenceRule rule : {ConvergenceRule::Robust, ConvergenceRule::Stan}) {
        GaussianTarget p = target();
        std::atomic<bool> stop{false};
        // A billion iterations per candidate: only the interrupt ends the search.
        const Options opts{.seed = 3,
                           .adapt_iter = 1000000000,
                           .output_samples = 20,
                           .convergence = rule,
                           .interrupt = &stop};
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            stop = true;
        });
        const auto t0 = std::chrono::steady_clock::now();
        const advi::AdviResult r = run_advi(p, opts);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        stopper.join();
        CHECK(seconds < 5.0);  // not a timing assertion: without the poll it never returns
        CHECK_FALSE(r.converged);
        CHECK(r.iterations == 0);
        CHECK_THAT(r.stop_reason, StartsWith("interrupted during the eta search"));
        CHECK(r.q.mu() == Eigen::Vector2d::Zero());
    }
}
