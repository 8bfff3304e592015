// The Gaussian mixture (paper appendix A.5) fitted on minibatches (paper section 4.3, Figure
// gmm_plots b): each gradient reads B rows drawn without replacement, the likelihood scaled by
// N / B (advi/minibatch.hpp), next to the full-data fit. The held-out log predictive density
// per point is recorded against wall time while each fit runs (advi/predictive.hpp), and
// compared with the same quantity at the true parameters. As examples/gmm, each batch size
// keeps the best final ELBO of R seeds (4 by default): the mixture's ELBO has local optima,
// and which one a fit reaches depends on the seed (on small, seeds 1..5 at B = 500 reached
// the truth's optimum twice, the full-data fit twice, B = 100 once).
//   ./build/examples/gmm_minibatch [small|medium] [B ...] [--csv PATH] [--every ITERATIONS]
//   [--restarts R]
// B defaults to 100 and 500 (and always the full data); --csv writes every recorded point as
// `batch,iteration,seconds,log_predictive` (batch 0: the full data).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "gmm_model.hpp"

namespace {

struct Run {
    int batch = 0;  // 0: full data
    advi::Fit fit;
    std::vector<advi::PredictiveTrace::Point> trace;
};

}  // namespace

int main(int argc, char** argv) {
    std::string size = "small", csv;
    std::vector<int> batches;
    int every = 0;
    int restarts = 4;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--csv" && i + 1 < argc) {
            csv = argv[++i];
        } else if (a == "--restarts" && i + 1 < argc) {
            restarts = std::stoi(argv[++i]);
        } else if (a == "--every" && i + 1 < argc) {
            every = std::stoi(argv[++i]);
        } else if (a == "small" || a == "medium") {
            size = a;
        } else {
            batches.push_back(std::stoi(a));
        }
    }
    if (batches.empty())
        batches = {100, 500};
    const auto dir = advi::examples::sim_dir("gmm");
    if (!advi::examples::have_sim_data(dir, size))
        return 0;  // a clone without it
    const advi::DataTable data = advi::read_data(dir / (size + ".data.json"));
    const advi::DataTable truth = advi::examples::read_truth(dir / (size + ".truth.json"));
    const Eigen::MatrixXd y = data.at("y").as_matrix();
    const Eigen::MatrixXd y_test = data.at("y_test").as_matrix();
    const int K = data.at("K").as_int();
    const double alpha0 = data.at("alpha0").as_real();
    const auto N = static_cast<int>(y.rows()), D = static_cast<int>(y.cols());
    if (every <= 0)
        every = D > 100 ? 20 : 50;

    // The held-out model: the same latents over y_test; its pointwise log-likelihood.
    advi::Model held_out;
    const advi::Expr log_lik = advi::examples::build_gmm(held_out, y_test, K, alpha0);
    // The true parameters in the fitted model's layout (theta, mu, sigma; column-major).
    advi::Model full;
    advi::examples::build_gmm(full, y, K, alpha0);
    const advi::ModelSpec full_spec = full.spec();
    Eigen::VectorXd theta_true(full_spec.theta_dim());
    {
        const std::vector<int> off = full_spec.theta_offsets();
        theta_true.segment(off[full_spec.latent_index("theta")], K) = truth.at("theta").as_vector();
        theta_true.segment(off[full_spec.latent_index("mu")], K * D) =
            truth.at("mu").as_matrix().reshaped();
        theta_true.segment(off[full_spec.latent_index("sigma")], K * D) =
            truth.at("sigma").as_matrix().reshaped();
    }
    advi::HeldOutLikelihood at_truth(full_spec, held_out.spec(), log_lik.id());
    const double truth_lpd = at_truth.at(theta_true).mean();

    fmt::print("Gaussian mixture on minibatches: N = {} (+{} held out), D = {}, K = {} ({})\n", N,
               y_test.rows(), D, K, size);
    fmt::print("held-out log predictive density per point at the true parameters: {:.3f}\n\n",
               truth_lpd);

    std::vector<Run> runs;
    std::vector<int> sizes = batches;
    sizes.push_back(0);
    for (int B : sizes) {
        if (B > N) {
            fmt::print("B = {} is more than the {} rows: skipped\n", B, N);
            continue;
        }
        // The model over one minibatch: B rows (its first B to start; the fit fills them).
        const Eigen::MatrixXd batch = y.topRows(B > 0 ? B : N);
        advi::Model m;
        advi::examples::build_gmm(m, B > 0 ? batch : y, K, alpha0);
        const advi::ModelSpec spec = m.spec();
        advi::examples::TracedFit t = advi::examples::fit_gmm_traced(
            spec, held_out.spec(), log_lik.id(), B > 0 ? &y : nullptr, restarts, every);
        runs.push_back({B, std::move(t.fit), std::move(t.trace)});
    }

    fmt::print("{:>8} {:>10} {:>9} {:>12} {:>22}\n", "B", "iterations", "seconds", "final ELBO",
               "held-out lpd (end)");
    for (const Run& r : runs) {
        const advi::LogPredictive end = advi::log_predictive(r.fit, held_out.spec(), log_lik.id());
        fmt::print("{:>8} {:>10} {:>9.2f} {:>12.1f} {:>22.3f}\n",
                   r.batch > 0 ? std::to_string(r.batch) : "full", r.fit.result().iterations,
                   r.fit.result().seconds, r.fit.result().elbo_trace.back(), end.mean);
    }
    fmt::print("\nheld-out lpd against wall time (every {} iterations):\n", every);
    for (const Run& r : runs) {
        fmt::print("  B = {}:", r.batch > 0 ? std::to_string(r.batch) : "full");
        const std::size_t step = std::max<std::size_t>(1, r.trace.size() / 8);
        for (std::size_t k = 0; k < r.trace.size(); k += step)
            fmt::print("  {:.2f}s {:.2f}", r.trace[k].seconds, r.trace[k].log_predictive);
        fmt::print("\n");
    }
    if (!csv.empty()) {
        std::ofstream out(csv);
        out << "batch,iteration,seconds,log_predictive\n";
        for (const Run& r : runs)
            for (const auto& p : r.trace)
                out << fmt::format("{},{},{:.6f},{:.6f}\n", r.batch, p.iteration, p.seconds,
                                   p.log_predictive);
        fmt::print("wrote {}\n", csv);
    }
    return 0;
}
