// The compiled model as the engine's target (fit/compiled_target.hpp): log densities from the
// value program, batches of draws over threads with the same bits on any thread count, and the
// evaluation counts a fit reports (AdviResult::gradient_evaluations / value_evaluations).
#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/fit/compiled_target.hpp>

namespace advi {
namespace {

struct Regression {
    Eigen::MatrixXd X;
    Eigen::VectorXd y;
};

Regression simulate(int n, int d) {
    std::mt19937 rng(5);
    std::normal_distribution<double> z(0.0, 1.0);
    Regression r{Eigen::MatrixXd(n, d), Eigen::VectorXd(n)};
    for (int c = 0; c < d; ++c)
        for (int i = 0; i < n; ++i) r.X(i, c) = z(rng);
    for (int i = 0; i < n; ++i) r.y[i] = r.X.row(i).sum() + 0.5 * z(rng);
    return r;
}

void build(Model& m, const Regression& r) {
    auto X = m.data("X", r.X);
    auto y = m.data("y", r.y);
    auto beta = m.param("beta", normal(0, 5), r.X.cols());
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(y, normal(X * beta, sigma));
}

TEST_CASE("a batch of log densities: the value program's, same bits on 1, 2 and 3 threads",
          "[fit]") {
    const Regression r = simulate(3001, 4);
    Model model;
    build(model, r);
    const ModelSpec m = model.spec();
    Program gradient = compile(m);
    Program value = compile_value(m);
    std::mt19937 rng(3);
    std::normal_distribution<double> z(0.0, 0.3);
    Eigen::MatrixXd zetas(m.zeta_dim(), 37);
    for (auto& x : zetas.reshaped()) x = z(rng);
    zetas(4, 5) = std::numeric_limits<double>::quiet_NaN();  // a failed evaluation
    Eigen::VectorXd expected(zetas.cols()), none, grad;
    for (Eigen::Index i = 0; i < zetas.cols(); ++i) {
        const Eigen::VectorXd zeta = zetas.col(i);
        expected[i] = value.run(zeta, none);
        if (i != 5) {
            CHECK(std::abs(expected[i] - gradient.run(zeta, grad)) <=
                  1e-12 * std::abs(expected[i]));
        }
    }
    CHECK(std::isnan(expected[5]));
    for (int threads : {1, 2, 3}) {
        INFO("threads = " << threads);
        CompiledTarget target(m, gradient, threads);
        Eigen::VectorXd got;
        target.log_densities(zetas, got);
        REQUIRE(got.size() == zetas.cols());
        int differ = 0;
        for (Eigen::Index i = 0; i < got.size(); ++i)
            differ += got[i] == expected[i] || (i == 5 && std::isnan(got[i])) ? 0 : 1;
        CHECK(differ == 0);
        CHECK(target.log_density(zetas.col(0)) == expected[0]);
    }
}

// Stan's rule with the eta search off and a tolerance no fit meets runs every iteration, so a
// fit's evaluations are fixed by its settings: a gradient check at q0 and grad_samples per
// iteration; an ELBO (elbo_samples draws) at q0 and every eval_elbo iterations; the output draws
// and q's mean for log_p__.
TEST_CASE("a fit counts its gradient and value evaluations exactly", "[fit]") {
    const Regression r = simulate(200, 3);
    Model model;
    build(model, r);
    Options o;
    o.convergence = ConvergenceRule::Stan;
    o.adapt_engaged = false;
    o.eta = 0.1;
    o.max_iterations = 200;
    o.eval_elbo = 50;
    o.tol_rel_obj = 1e-12;
    o.grad_samples = 3;
    o.elbo_samples = 40;
    o.output_samples = 123;
    for (int threads : {1, 3}) {
        o.threads = threads;
        const Fit f = fit(model.spec(), o);
        INFO(f.result().stop_reason);
        CHECK(f.result().dropped_draws == 0);
        // Stan's test of the init point (1), the gradient check at q0 (3), 200 iterations
        CHECK(f.result().gradient_evaluations == 1 + 3 + 200 * 3);
        CHECK(f.result().value_evaluations == 40 + (200 / 50) * 40 + 123 + 1);
        CHECK(f.summary().find(fmt::format("{} log-density evaluations with a gradient, {} without",
                                           1 + 3 + 200 * 3, 40 + 4 * 40 + 124)) !=
              std::string::npos);
    }
}

}  // namespace
}  // namespace advi
