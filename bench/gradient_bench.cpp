// One gradient evaluation at the paper's sizes, the compiled program against a hand-written
// Eigen gradient of the same log density (each pair checked equal to 1e-10 by
// tests/bench/*_gradient_test.cpp), for eight models (seven in the C++ DSL, issue 19's
// mixture as a Stan program with loops). Per model:
//   BM_<model>_compiled/threads:T  the compiled program on T threads (T = 1, 2)
//   BM_<model>_hand                the hand-written Eigen gradient (one thread)
//   BM_<model>_hessian_vector/threads:1  grad and H v by compile_hessian_vector's program
//   BM_<model>_build               model construction + constrain + differentiate + simplify
//                                  + compile (what a user waits for before the first step)
// Counters on the compiled rows: arena_bytes (the program's working memory) against
// node_bytes (the sum of the sizes of all nodes it computes), and bytes_per_second = data
// bytes read per evaluation / time (the effective bandwidth), to set against the STREAM-like
// BM_stream_copy and BM_stream_sum rows, the machine's physical limit.
// The ratios in bench/README.md come from
//   build/bench/gradient_bench --benchmark_repetitions=10 \
//     --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstddef>
#include <memory>
#include <string>

#include <Eigen/Dense>

#include "gamma_poisson_model.hpp"
#include "gmm_model.hpp"
#include "hier_logistic_model.hpp"
#include "linear_regression_model.hpp"
#include "linreg_ard_model.hpp"
#include "mixture_loops_model.hpp"
#include "ppca_ard_model.hpp"
#include "stochvol_model.hpp"

namespace {

using namespace advi::bench;

Eigen::VectorXd point(int dim) {
    return Eigen::VectorXd::LinSpaced(dim, -0.5, 0.5);
}

// A benchmark model: its data (built once, on first use), the DSL builder (or, for a Stan
// program, its lowering) and the hand-written gradient class constructed from the same data.
template <class Data, class Hand>
struct BenchModel {
    const char* name;
    const Data& (*data)();
    void (*build)(advi::Model&, const Data&);
    std::unique_ptr<advi::stan::LoweredProgram> (*lower)(const Data&) = nullptr;
};

// The model of a BenchModel, built by its DSL builder or lowered from its Stan program.
template <class Data, class Hand>
class Built {
public:
    explicit Built(const BenchModel<Data, Hand>& bm) {
        if (bm.lower != nullptr)
            lowered_ = bm.lower(bm.data());
        else
            bm.build(own_, bm.data());
    }
    advi::Model& model() { return lowered_ ? lowered_->model() : own_; }

private:
    advi::Model own_;
    std::unique_ptr<advi::stan::LoweredProgram> lowered_;
};

template <class Data, class Hand>
void register_model(const BenchModel<Data, Hand>& bm) {
    const std::string name = bm.name;
    benchmark::RegisterBenchmark(
        ("BM_" + name + "_compiled").c_str(),
        [bm](benchmark::State& state) {
            Built b(bm);
            advi::Program p = advi::compile(b.model());
            p.set_threads(static_cast<int>(state.range(0)));
            Eigen::VectorXd zeta = point(p.dim()), grad(p.dim());
            for (auto _ : state) benchmark::DoNotOptimize(p.run(zeta, grad));
            state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                                    static_cast<int64_t>(p.data_bytes_per_run()));
            state.counters["arena_bytes"] = static_cast<double>(p.arena_bytes());
            state.counters["node_bytes"] = static_cast<double>(p.node_bytes());
        })
        ->ArgName("threads")
        ->UseRealTime()
        ->Arg(1)
        ->Arg(2)
        ->Unit(benchmark::kMicrosecond);
    // The log density alone by the value program (compile_value: no reverse sweep), to set
    // against _compiled/threads:1: what an ELBO draw or an output draw's log_p__ costs.
    benchmark::RegisterBenchmark(("BM_" + name + "_value").c_str(),
                                 [bm](benchmark::State& state) {
                                     Built b(bm);
                                     advi::Program p = advi::compile_value(b.model().spec());
                                     p.set_threads(static_cast<int>(state.range(0)));
                                     Eigen::VectorXd zeta = point(p.dim()), none;
                                     for (auto _ : state)
                                         benchmark::DoNotOptimize(p.run(zeta, none));
                                     state.counters["arena_bytes"] =
                                         static_cast<double>(p.arena_bytes());
                                 })
        ->ArgName("threads")
        ->UseRealTime()
        ->Arg(1)
        ->Unit(benchmark::kMicrosecond);
    // H v by the curvature program (reverse over reverse), to set against _compiled/threads:1:
    // the ratio bench/README.md reports (the target is within 3).
    benchmark::RegisterBenchmark(
        ("BM_" + name + "_hessian_vector").c_str(),
        [bm](benchmark::State& state) {
            Built b(bm);
            advi::HessianVectorProgram p;
            try {
                p = advi::compile_hessian_vector(b.model().spec());
            } catch (const advi::ModelError& e) {
                // An op of the gradient with no adjoint rule yet: named, not timed.
                state.SkipWithError(e.what());
                for (auto _ : state) {
                }
                return;
            }
            p.set_threads(static_cast<int>(state.range(0)));
            // range(1) 0: a new point every product (both stages run); 1: the same point (the
            // direction stage alone, as the K products of a dense Hessian).
            const bool same_point = state.range(1) == 1;
            Eigen::VectorXd zeta = point(p.dim()), grad(p.dim()), hv(p.dim());
            const Eigen::VectorXd other = zeta * 0.999;
            const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(p.dim(), 1.0, -0.3);
            bool flip = false;
            for (auto _ : state) {
                flip = !flip && !same_point;
                benchmark::DoNotOptimize(p.hessian_vector(flip ? other : zeta, v, grad, hv));
            }
            state.counters["arena_bytes"] = static_cast<double>(
                p.point_program().arena_bytes() + p.direction_program().arena_bytes());
            state.counters["instructions"] = static_cast<double>(
                p.point_program().instruction_count() + p.direction_program().instruction_count());
            state.counters["gradient_instructions"] =
                static_cast<double>(p.gradient_program().instruction_count());
        })
        ->ArgNames({"threads", "same_point"})
        ->UseRealTime()
        ->Args({1, 0})
        ->Args({1, 1})
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_" + name + "_hand").c_str(), [bm](benchmark::State& state) {
        Hand h(bm.data());
        Eigen::VectorXd zeta = point(h.dim()), grad(h.dim());
        for (auto _ : state) benchmark::DoNotOptimize(h.log_density_gradient(zeta, grad));
    })->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_" + name + "_build").c_str(), [bm](benchmark::State& state) {
        for (auto _ : state) {
            Built b(bm);
            advi::Program p = advi::compile(b.model());
            benchmark::DoNotOptimize(p.dim());
        }
    })->Unit(benchmark::kMicrosecond);
}

const LinearRegressionData& regression() {
    static const LinearRegressionData d(10000, 250);
    return d;
}
const ElectionData& election() {
    static const ElectionData d(10000);
    return d;
}
const GammaPoissonData& frey_faces() {
    static const GammaPoissonData d(1956, 560, 10);
    return d;
}
const GmmData& mixture() {
    static const GmmData d(10000, 20, 10);
    return d;
}
// Issue 19's mixture (10 components, 5,000 points in 20 dimensions).
const MixtureLoopsData& mixture_issue19() {
    static const MixtureLoopsData d(5000, 20, 10);
    return d;
}
const StochVolData& returns() {
    static const StochVolData d(500);
    return d;
}
const PpcaArdData& ppca() {
    static const PpcaArdData d(10000, 100, 10);
    return d;
}

// STREAM-like references on arrays far larger than the last-level cache would suggest for
// one core (64 MiB each): a copy (reads one array, writes another; STREAM counts 16 bytes per
// element) and a read-only sum (8 bytes per element), which is what a data-bound gradient
// does with its data.
constexpr Eigen::Index kStreamLength = Eigen::Index{1} << 23;

void BM_stream_copy(benchmark::State& state) {
    Eigen::VectorXd a = Eigen::VectorXd::Constant(kStreamLength, 1.0), b(kStreamLength);
    for (auto _ : state) {
        b = a;
        benchmark::DoNotOptimize(b.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * kStreamLength *
                            static_cast<int64_t>(sizeof(double)));
}

void BM_stream_sum(benchmark::State& state) {
    Eigen::VectorXd a = Eigen::VectorXd::Constant(kStreamLength, 1.0);
    for (auto _ : state) benchmark::DoNotOptimize(a.sum());
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kStreamLength *
                            static_cast<int64_t>(sizeof(double)));
}

}  // namespace

BENCHMARK(BM_stream_copy)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_stream_sum)->Unit(benchmark::kMicrosecond);

int main(int argc, char** argv) {
    register_model(BenchModel<LinearRegressionData, LinearRegressionHand>{"linreg", regression,
                                                                          build_linear_regression});
    register_model(BenchModel<LinearRegressionData, LinregArdHand>{"linreg_ard", regression,
                                                                   build_linreg_ard});
    register_model(
        BenchModel<ElectionData, HierLogisticHand>{"hier_logistic", election, build_hier_logistic});
    register_model(BenchModel<GammaPoissonData, GammaPoissonHand>{"gamma_poisson", frey_faces,
                                                                  build_gamma_poisson});
    register_model(BenchModel<GmmData, GmmHand>{"gmm", mixture, build_gmm});
    register_model(BenchModel<MixtureLoopsData, MixtureLoopsHand>{"mixture_loops", mixture_issue19,
                                                                  nullptr, lower_mixture_loops});
    register_model(BenchModel<StochVolData, StochVolHand>{"stochvol", returns, build_stochvol});
    register_model(BenchModel<PpcaArdData, PpcaArdHand>{"ppca_ard", ppca, build_ppca_ard});
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
