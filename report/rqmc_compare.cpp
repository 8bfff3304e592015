// rqmc_compare: issue 20's measurement of randomised quasi-Monte Carlo draws (engine/rqmc.hpp)
// against plain Monte Carlo, on the reference models (reference_models.hpp), two Markdown
// tables:
//   1. the gradient's variance at the fitted mean-field q (the Auto rule's fit, seed 1): the
//      sum over the variational parameters of each component's variance, from 400 gradients of
//      n draws each (n = 2, 8, 32), with the fit's estimator (sticking the landing), RQMC's
//      over Monte Carlo's;
//   2. whole fits with 8 draws per gradient, Monte Carlo and RQMC (`advi fit --grad-samples 8
//      [--draws rqmc] [--start init]`), seeds 1-3, q starting at the mode (the default) and at
//      the init point: iterations, wall time and the final ELBO (20,000 draws).
//
// Usage (from the repository root): ./build/report/rqmc_compare [--only NAME]
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include <advi/compile/pipeline.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/rqmc.hpp>
#include <advi/fit/fit.hpp>

#include "reference_models.hpp"

namespace {

const std::filesystem::path kSource = ADVI_SOURCE_DIR;
const std::filesystem::path kShared = ADVI_SHARED_DATA;

// The summed variance of the gradient's components over `reps` gradients of n draws each.
template <class Draw>
double gradient_variance(advi::Target& target, const advi::Approximation& q, int n, int reps,
                         Draw draw) {
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(q.num_params());
    Eigen::VectorXd sum_sq = Eigen::VectorXd::Zero(q.num_params());
    int used = 0;
    for (int r = 0; r < reps; ++r) {
        const advi::ElboGradient g =
            advi::elbo_gradient(target, q, draw(n), advi::GradientEstimator::StickingTheLanding);
        if (!g.ok() || g.used < n)
            continue;
        sum += g.grad;
        sum_sq += g.grad.cwiseProduct(g.grad);
        ++used;
    }
    const Eigen::VectorXd mean = sum / used;
    return (sum_sq / used - mean.cwiseProduct(mean)).sum() * used / (used - 1.0);
}

}  // namespace

int main(int argc, char** argv) {
    std::string only;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--only" && i + 1 < argc) {
            only = argv[++i];
        } else {
            std::cerr << "usage: rqmc_compare [--only NAME]\n";
            return 2;
        }
    }
    try {
        if (!only.empty())
            (void)advi::references::reference_model(only);
        std::string fits;
        fmt::print("| model | dim | var ratio n=2 | n=8 | n=32 |\n|---|---|---|---|---|\n");
        for (const auto& m : advi::references::reference_models()) {
            if (!only.empty() && m.name != only)
                continue;
            auto model = advi::references::load(m, kSource, kShared);
            advi::Program gradient = advi::compile(model->spec);
            gradient.set_threads(1);
            advi::TargetRef<advi::Program> target(gradient);
            const int D = model->spec.zeta_dim();
            const advi::Fit f = advi::fit(model->spec, {.seed = 1, .threads = 1});
            const advi::Approximation& q = f.result().q;
            std::string row = fmt::format("| {} | {} |", m.name, D);
            for (const int n : {2, 8, 32}) {
                advi::Rng mc(11), rq(12);
                advi::RqmcNormals rqmc(D);
                const double v_mc = gradient_variance(
                    target, q, n, 400, [&](int k) { return mc.normal_matrix(k, D); });
                const double v_rq =
                    gradient_variance(target, q, n, 400, [&](int k) { return rqmc.draw(rq, k); });
                row += fmt::format(" {:.3f} |", v_rq / v_mc);
            }
            fmt::print("{}\n", row);
            std::fflush(stdout);
            for (const std::uint64_t seed : {1, 2, 3})
                for (const auto start : {advi::StartFrom::Auto, advi::StartFrom::Init})
                    for (const auto scheme :
                         {advi::DrawScheme::MonteCarlo, advi::DrawScheme::Rqmc}) {
                        advi::Options o{.seed = seed, .grad_samples = 8, .threads = 1};
                        o.draws = scheme;
                        o.start = start;
                        const auto t0 = std::chrono::steady_clock::now();
                        const advi::Fit fit = advi::fit(model->spec, o);
                        const double seconds =
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                                .count();
                        const auto elbo =
                            advi::references::precise_elbo(target, fit.result().q, 20000, 7 + seed);
                        fits += fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {} |\n",
                                            m.name, seed,
                                            start == advi::StartFrom::Auto ? "auto" : "init",
                                            scheme == advi::DrawScheme::Rqmc ? "rqmc" : "mc",
                                            fit.result().iterations, seconds, elbo.elbo,
                                            fit.result().converged ? "yes" : "no");
                    }
        }
        fmt::print(
            "\n| model | seed | start | draws | iterations | seconds | ELBO | converged |\n"
            "|---|---|---|---|---|---|---|---|\n{}",
            fits);
    } catch (const std::exception& e) {
        std::cerr << "rqmc_compare: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
