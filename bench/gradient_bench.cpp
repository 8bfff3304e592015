// One gradient evaluation of linear regression (N = 10000, D = 250, the paper's size):
// the compiled program against a hand-written Eigen gradient. Report the ratio of medians:
//   build/bench/gradient_bench --benchmark_repetitions=20 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "linear_regression_model.hpp"

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

}  // namespace

BENCHMARK(BM_linreg_compiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_build)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
