// Stan Math's reverse mode on the log densities of the benchmark models, against the
// hand-written gradients of bench/<name>_hand.hpp, at the sizes of bench/gradient_bench.cpp
// (linear regression and ARD N = 10000, D = 250; hierarchical logistic N = 10000; stochastic
// volatility T = 500; Gaussian mixture N = 10000, D = 20, K = 10; Gamma-Poisson U = 1956,
// D = 560, K = 10; PPCA with ARD N = 10000, D = 100, M = 10).
// Each model is a templated functor (<name>_stan.hpp), written as stanc writes the model's
// Stan program, on the hand-written gradient's unconstrained layout; the program first checks
// that both give the same log density and gradient, then times one gradient evaluation each:
//   build/bench/stan_math/stan_math_bench --benchmark_repetitions=10
//       --benchmark_report_aggregates_only=true
// C++17, without the advi library; see README.md here for the build.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include <benchmark/benchmark.h>

#include "gamma_poisson_stan.hpp"
#include "gmm_stan.hpp"
#include "hier_logistic_stan.hpp"
#include "linreg_ard_stan.hpp"
#include "linreg_stan.hpp"
#include "ppca_ard_stan.hpp"
#include "stochvol_stan.hpp"

namespace {

using advi::bench::ElectionData;
using advi::bench::GammaPoissonData;
using advi::bench::GmmData;
using advi::bench::LinearRegressionData;
using advi::bench::PpcaArdData;
using advi::bench::StochVolData;

const LinearRegressionData& linreg_data() {
    static const LinearRegressionData d(10000, 250);
    return d;
}
const ElectionData& election() {
    static const ElectionData d(10000);
    return d;
}
const StochVolData& stochvol() {
    static const StochVolData d(500);
    return d;
}
const GmmData& gmm() {
    static const GmmData d(10000, 20, 10);
    return d;
}
const GammaPoissonData& gamma_poisson() {
    static const GammaPoissonData d(1956, 560, 10);
    return d;
}
const PpcaArdData& ppca_ard() {
    static const PpcaArdData d(10000, 100, 10);
    return d;
}

// The point of bench/gradient_bench.cpp.
Eigen::VectorXd point(int dim) {
    return Eigen::VectorXd::LinSpaced(dim, -0.5, 0.5);
}

// Stan's log density and gradient equal the hand-written ones at the benchmark point, to a
// relative 1e-8 (of the largest gradient entry for the gradient).
template <class Stan, class Hand>
bool same(const char* name, const Stan& f, Hand&& h) {
    const Eigen::VectorXd z = point(h.dim());
    Eigen::VectorXd gh(h.dim()), gs;
    double ls = 0;
    const double lh = h.log_density_gradient(z, gh);
    try {
        stan::math::gradient(f, z, ls, gs);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: Stan threw: %s\n", name, e.what());
        return false;
    }
    const double dl = std::abs(ls - lh) / std::max(1.0, std::abs(lh));
    const double dg = gs.size() == gh.size() ? (gs - gh).lpNorm<Eigen::Infinity>() /
                                                   std::max(1.0, gh.lpNorm<Eigen::Infinity>())
                                             : INFINITY;
    const bool ok = dl <= 1e-8 && dg <= 1e-8;
    std::fprintf(
        ok ? stdout : stderr,
        "%-14s dim %6d  log density stan %.12g hand %.12g (rel %.1e), gradient rel %.1e%s\n", name,
        h.dim(), ls, lh, dl, dg, ok ? "" : "  MISMATCH");
    return ok;
}

template <class Stan>
void run_stan(benchmark::State& state, const Stan& f, int dim) {
    const Eigen::VectorXd z = point(dim);
    Eigen::VectorXd g(dim);
    double lp = 0;
    // stan::math::gradient runs in a nested autodiff scope and recovers its memory on return,
    // so the arena is reused, not grown, from one evaluation to the next.
    for (auto _ : state) {
        stan::math::gradient(f, z, lp, g);
        benchmark::DoNotOptimize(lp);
    }
}

template <class Hand>
void run_hand(benchmark::State& state, Hand&& h) {
    const Eigen::VectorXd z = point(h.dim());
    Eigen::VectorXd g(h.dim());
    for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(z, g));
}

void BM_linreg_stan(benchmark::State& s) {
    run_stan(s, advi::bench::LinearRegressionStan{linreg_data()},
             advi::bench::LinearRegressionHand(linreg_data()).dim());
}
void BM_linreg_hand(benchmark::State& s) {
    run_hand(s, advi::bench::LinearRegressionHand(linreg_data()));
}
void BM_linreg_ard_stan(benchmark::State& s) {
    run_stan(s, advi::bench::LinregArdStan{linreg_data()},
             advi::bench::LinregArdHand(linreg_data()).dim());
}
void BM_linreg_ard_hand(benchmark::State& s) {
    run_hand(s, advi::bench::LinregArdHand(linreg_data()));
}
void BM_hier_logistic_stan(benchmark::State& s) {
    run_stan(s, advi::bench::HierLogisticStan(election()),
             advi::bench::HierLogisticHand(election()).dim());
}
void BM_hier_logistic_hand(benchmark::State& s) {
    run_hand(s, advi::bench::HierLogisticHand(election()));
}
void BM_stochvol_stan(benchmark::State& s) {
    run_stan(s, advi::bench::StochVolStan{stochvol()}, advi::bench::StochVolHand(stochvol()).dim());
}
void BM_stochvol_hand(benchmark::State& s) {
    run_hand(s, advi::bench::StochVolHand(stochvol()));
}
void BM_gmm_stan(benchmark::State& s) {
    run_stan(s, advi::bench::GmmStan(gmm()), advi::bench::GmmHand(gmm()).dim());
}
void BM_gmm_hand(benchmark::State& s) {
    run_hand(s, advi::bench::GmmHand(gmm()));
}
void BM_gamma_poisson_stan(benchmark::State& s) {
    run_stan(s, advi::bench::GammaPoissonStan(gamma_poisson()),
             advi::bench::GammaPoissonHand(gamma_poisson()).dim());
}
void BM_gamma_poisson_hand(benchmark::State& s) {
    run_hand(s, advi::bench::GammaPoissonHand(gamma_poisson()));
}
void BM_ppca_ard_stan(benchmark::State& s) {
    run_stan(s, advi::bench::PpcaArdStan(ppca_ard()), advi::bench::PpcaArdHand(ppca_ard()).dim());
}
void BM_ppca_ard_hand(benchmark::State& s) {
    run_hand(s, advi::bench::PpcaArdHand(ppca_ard()));
}

}  // namespace

BENCHMARK(BM_gamma_poisson_stan)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gamma_poisson_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ppca_ard_stan)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ppca_ard_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_stan)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_stochvol_stan)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_stochvol_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_ard_stan)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_ard_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_hier_logistic_stan)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_hier_logistic_hand)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_stan)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_linreg_hand)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    using namespace advi::bench;
    bool ok =
        same("linreg", LinearRegressionStan{linreg_data()}, LinearRegressionHand(linreg_data()));
    ok &= same("linreg_ard", LinregArdStan{linreg_data()}, LinregArdHand(linreg_data()));
    ok &= same("hier_logistic", HierLogisticStan(election()), HierLogisticHand(election()));
    ok &= same("stochvol", StochVolStan{stochvol()}, StochVolHand(stochvol()));
    ok &= same("gmm", GmmStan(gmm()), GmmHand(gmm()));
    ok &=
        same("gamma_poisson", GammaPoissonStan(gamma_poisson()), GammaPoissonHand(gamma_poisson()));
    ok &= same("ppca_ard", PpcaArdStan(ppca_ard()), PpcaArdHand(ppca_ard()));
    if (!ok) {
        std::fprintf(stderr, "Stan's log density or gradient differs from the hand-written one\n");
        return 1;
    }
    std::fflush(stdout);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
