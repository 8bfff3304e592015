// One gradient evaluation at the paper's sizes, the compiled program against a hand-written
// Eigen gradient of the same log density: linear regression (N = 10000, D = 250), linear
// regression with ARD (same X and y), hierarchical logistic regression (N = 10000,
// election-like), stochastic volatility (T = 500) and a Gaussian mixture (N = 10000,
// D = 20, K = 10). Report the ratio of medians:
//   build/bench/gradient_bench --benchmark_repetitions=20 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "gamma_poisson_model.hpp"
#include "gmm_model.hpp"
#include "hier_logistic_model.hpp"
#include "linear_regression_model.hpp"
#include "linreg_ard_model.hpp"
#include "ppca_ard_model.hpp"
#include "stochvol_model.hpp"

namespace {

const advi::bench::LinearRegressionData& data() {
    static const advi::bench::LinearRegressionData d(10000, 250);
    return d;
}

Eigen::VectorXd point(int dim) { return Eigen::VectorXd::LinSpaced(dim, -0.5, 0.5); }

void BM_linreg_compiled(benchmark::State& state) {
    advi::Model m;
    advi::bench::build_linear_regression(m, data());
    advi::Program p = advi::compile(m);
    Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
    for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
    state.counters["arena_bytes"] = static_cast<double>(p.arena_bytes());
}

void BM_linreg_hand(benchmark::State& state) {
    advi::bench::LinearRegressionHand h(data());
    Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
}

void BM_linreg_build(benchmark::State& state) {
    for (auto _ : state) {
        advi::Model m;
        advi::bench::build_linear_regression(m, data());
        advi::Program p = advi::compile(m);
        benchmark::DoNotOptimize(p.dim());
    }
}

const advi::bench::ElectionData& election() {
    static const advi::bench::ElectionData d(10000);
    return d;
}

void BM_hier_logistic_compiled(benchmark::State& state) {
    advi::Model m;
    advi::bench::build_hier_logistic(m, election());
    advi::Program p = advi::compile(m);
    Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
    for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
    state.counters["arena_bytes"] = static_cast<double>(p.arena_bytes());
}

void BM_hier_logistic_hand(benchmark::State& state) {
    advi::bench::HierLogisticHand h(election());
    Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
}

void BM_hier_logistic_build(benchmark::State& state) {
    for (auto _ : state) {
        advi::Model m;
        advi::bench::build_hier_logistic(m, election());
        advi::Program p = advi::compile(m);
        benchmark::DoNotOptimize(p.dim());
    }
}

void BM_linreg_ard_compiled(benchmark::State& state) {
    advi::Model m;
    advi::bench::build_linreg_ard(m, data());
    advi::Program p = advi::compile(m);
    Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
    for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
}

void BM_linreg_ard_hand(benchmark::State& state) {
    advi::bench::LinregArdHand h(data());
    Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
}

const advi::bench::StochVolData& stochvol() {
    static const advi::bench::StochVolData d(500);
    return d;
}

void BM_stochvol_compiled(benchmark::State& state) {
    advi::Model m;
    advi::bench::build_stochvol(m, stochvol());
    advi::Program p = advi::compile(m);
    Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
    for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
}

void BM_stochvol_hand(benchmark::State& state) {
    advi::bench::StochVolHand h(stochvol());
    Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
}

const advi::bench::GmmData& gmm() {
    static const advi::bench::GmmData d(10000, 20, 10);
    return d;
}

void BM_gmm_compiled(benchmark::State& state) {
    advi::Model m;
    advi::bench::build_gmm(m, gmm());
    advi::Program p = advi::compile(m);
    Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
    for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
    state.counters["arena_bytes"] = static_cast<double>(p.arena_bytes());
}

void BM_gmm_hand(benchmark::State& state) {
    advi::bench::GmmHand h(gmm());
    Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
}

void BM_gmm_build(benchmark::State& state) {
    for (auto _ : state) {
        advi::Model m;
        advi::bench::build_gmm(m, gmm());
        advi::Program p = advi::compile(m);
        benchmark::DoNotOptimize(p.dim());
    }
}

// --- gamma-poisson and ppca-ard (begin) ---
// Gamma-Poisson factorisation at the paper's Frey-faces size (U = 1956 frames, D = 560
// pixels, K = 10) and PPCA with ARD (N = 10000, D = 100, M = 10).
const advi::bench::GammaPoissonData& gamma_poisson() {
    static const advi::bench::GammaPoissonData d(1956, 560, 10);
    return d;
}

void BM_gamma_poisson_compiled(benchmark::State& state) {
    advi::Model m;
    advi::bench::build_gamma_poisson(m, gamma_poisson());
    advi::Program p = advi::compile(m);
    Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
    for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
    state.counters["arena_bytes"] = static_cast<double>(p.arena_bytes());
}

void BM_gamma_poisson_hand(benchmark::State& state) {
    advi::bench::GammaPoissonHand h(gamma_poisson());
    Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
}

void BM_gamma_poisson_build(benchmark::State& state) {
    for (auto _ : state) {
        advi::Model m;
        advi::bench::build_gamma_poisson(m, gamma_poisson());
        advi::Program p = advi::compile(m);
        benchmark::DoNotOptimize(p.dim());
    }
}

const advi::bench::PpcaArdData& ppca_ard() {
    static const advi::bench::PpcaArdData d(10000, 100, 10);
    return d;
}

void BM_ppca_ard_compiled(benchmark::State& state) {
    advi::Model m;
    advi::bench::build_ppca_ard(m, ppca_ard());
    advi::Program p = advi::compile(m);
    Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
    for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
    state.counters["arena_bytes"] = static_cast<double>(p.arena_bytes());
}

void BM_ppca_ard_hand(benchmark::State& state) {
    advi::bench::PpcaArdHand h(ppca_ard());
    Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
}

void BM_ppca_ard_build(benchmark::State& state) {
    for (auto _ : state) {
        advi::Model m;
        advi::bench::build_ppca_ard(m, ppca_ard());
        advi::Program p = advi::compile(m);
        benchmark::DoNotOptimize(p.dim());
    }
}
// --- (end) ---

}  // namespace

// --- gamma-poisson and ppca-ard (begin) ---
BENCHMARK(BM_gamma_poisson_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gamma_poisson_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gamma_poisson_build)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ppca_ard_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ppca_ard_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ppca_ard_build)->Unit(benchmark::kMicrosecond);
// --- (end) ---

BENCHMARK(BM_gmm_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_build)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_stochvol_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_stochvol_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_ard_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_ard_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_hier_logistic_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_hier_logistic_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_hier_logistic_build)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_build)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
