// compare_fits: issue 19's table. For each reference model (reference_models.hpp) and family,
// fits with the default rule (`auto`) and with Stan's (`stan`, the old engine's behaviour), the
// default options otherwise, one thread, and prints one Markdown row per fit against the stored
// reference (report/references/<model>.reference.txt):
//   worst |mean - reference mean| in reference sds, over the constrained elements;
//   the range of q's sd / the reference sd;
//   the final ELBO (re-estimated with 20,000 draws: the fit's own 100-draw estimate is too
//   noisy to compare with a patient value) and its gap to the patient Adam ELBO;
//   PSIS k-hat of log_p__ - log_g__ over the fit's 1,000 output draws;
//   whole-fit wall time (compile, fit, output draws) and iterations.
//
// Usage (from the repository root):
//   ./build/report/compare_fits [--only NAME] [--seed N] [--no-stl] [--auto-only] [--start-init]
//                               [--dadvi]
// --no-stl: the Auto rule's fits without the sticking-the-landing gradient (its default);
// --auto-only: no Stan rows;
// --start-init: the Auto rule's fits start at the initial values with L = I (`advi fit --start
// init`), so they run the eta search instead of starting at the mode;
// --dadvi: also DADVI's rows (engine/dadvi.hpp, 30 fixed draws; rule `dadvi`: its mean-field and
// full-rank q, `dadvi+lr`: mean-field's means with the linear-response covariance).
// --lowrank R: also the low-rank family's row (rank min(R, dim - 1), the Auto rule; its ELBO held
// against full-rank's patient one, which bounds it).
// --pathfinder: also multi-path Pathfinder's row (fit/pathfinder.hpp, CmdStan's defaults: 4
// paths, PSIS resampling to 1,000 draws; its ELBO the pooled draws' and its k-hat theirs).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include <advi/compile/pipeline.hpp>
#include <advi/fit/fit.hpp>
#include <advi/fit/pathfinder.hpp>
#include <advi/fit/psis.hpp>

#include "reference_models.hpp"

namespace {

// Two decimals, or three significant digits where a blown-up fit makes the number huge.
std::string number(double x) {
    return std::abs(x) < 1e4 ? fmt::format("{:.2f}", x) : fmt::format("{:.3g}", x);
}

const std::filesystem::path kSource = ADVI_SOURCE_DIR;
const std::filesystem::path kShared = ADVI_SHARED_DATA;

// One row: `run` fits the model; `family` is the family of the q it returns (DADVI with the
// linear response returns a full-rank q, held against full-rank's patient ELBO).
template <class Run>
std::string row(const std::string& model, advi::Family family, const char* rule_name, Run run,
                advi::Target& target, const advi::references::Reference& ref, std::uint64_t seed) {
    const char* fam = std::string_view(rule_name) == "pathfinder" ? "normal per path"
                      : family == advi::Family::MeanField         ? "mean-field"
                      : family == advi::Family::LowRank           ? "low-rank"
                                                                  : "full-rank";
    const auto t0 = std::chrono::steady_clock::now();
    try {
        const advi::Fit f = run();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const Eigen::MatrixXd& th = f.theta_draws();
        const Eigen::VectorXd mean = th.colwise().mean().transpose();
        const Eigen::VectorXd sd =
            ((th.rowwise() - mean.transpose()).array().square().colwise().sum() /
             static_cast<double>(th.rows() - 1))
                .sqrt()
                .transpose();
        const double worst = ((mean - ref.mean).array().abs() / ref.sd.array()).maxCoeff();
        const Eigen::ArrayXd ratio = sd.array() / ref.sd.array();
        // Pathfinder's draws come from several normals (one per path, resampled): its ELBO is
        // the pooled draws' mean of log p - log q before resampling, held against full-rank's.
        const bool pathfinder = f.result().method == "Pathfinder";
        const auto elbo =
            pathfinder ? advi::references::ElboWithSe{f.verdict().draws_elbo, 0.0}
                       : advi::references::precise_elbo(target, f.result().q, 20000, 7 + seed);
        const double patient =
            family == advi::Family::MeanField ? ref.mean_field.elbo : ref.full_rank.elbo;
        // Resampled draws (Pathfinder's) repeat their heaviest draws: their k-hat is the
        // pooled draws', taken before resampling.
        const advi::Psis w =
            f.verdict().resampled ? f.verdict().psis : advi::psis(f.log_p() - f.log_g());
        return fmt::format("| {} | {} | {} | {} | {}-{} | {} | {} | {:.2f} | {:.2f} | {} | {} |",
                           model, fam, rule_name, number(worst), number(ratio.minCoeff()),
                           number(ratio.maxCoeff()), number(elbo.elbo), number(elbo.elbo - patient),
                           w.k_hat, seconds, f.result().iterations,
                           f.result().converged ? "yes" : "no");
    } catch (const std::exception& e) {
        std::string what = e.what();
        return fmt::format("| {} | {} | {} | error: {} | | | | | | | |", model, fam, rule_name,
                           what.substr(0, what.find('\n')));
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string only;
    std::uint64_t seed = 1;
    bool no_stl = false, auto_only = false, start_init = false, dadvi = false, pathfinder = false;
    int lowrank = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--only" && i + 1 < argc)
            only = argv[++i];
        else if (a == "--seed" && i + 1 < argc)
            seed = std::stoull(argv[++i]);
        else if (a == "--no-stl")
            no_stl = true;
        else if (a == "--auto-only")
            auto_only = true;
        else if (a == "--start-init")
            start_init = true;
        else if (a == "--dadvi")
            dadvi = true;
        else if (a == "--pathfinder")
            pathfinder = true;
        else if (a == "--lowrank" && i + 1 < argc)
            lowrank = std::stoi(argv[++i]);
        else {
            std::cerr << "usage: compare_fits [--only NAME] [--seed N] [--no-stl] [--auto-only] "
                         "[--start-init] [--dadvi] [--pathfinder] [--lowrank R]\n";
            return 2;
        }
    }
    fmt::print(
        "| model | family | rule | worst mean error (ref sds) | sd ratio | ELBO | "
        "vs patient | k-hat | seconds | iterations | converged |\n");
    fmt::print("|---|---|---|---|---|---|---|---|---|---|---|\n");
    try {
        if (!only.empty())
            (void)advi::references::reference_model(only);  // refuses an unknown name
        for (const auto& m : advi::references::reference_models()) {
            if (!only.empty() && m.name != only)
                continue;
            auto model = advi::references::load(m, kSource, kShared);
            const auto ref = advi::references::read_reference(kSource / "report/references" /
                                                              (m.name + ".reference.txt"));
            advi::Program gradient = advi::compile(model->spec);
            gradient.set_threads(1);
            advi::TargetRef<advi::Program> target(gradient);
            for (auto family : {advi::Family::MeanField, advi::Family::FullRank})
                for (auto rule : {advi::ConvergenceRule::Stan, advi::ConvergenceRule::Auto}) {
                    if (auto_only && rule == advi::ConvergenceRule::Stan)
                        continue;
                    advi::Options o;
                    o.family = family;
                    o.convergence = rule;
                    o.seed = seed;
                    o.threads = 1;
                    if (no_stl)
                        o.sticking_the_landing = false;
                    if (start_init)
                        o.start = advi::StartFrom::Init;
                    const char* rule_name = rule == advi::ConvergenceRule::Stan ? "stan" : "auto";
                    fmt::print("{}\n",
                               row(
                                   m.name, family, rule_name,
                                   [&] { return advi::fit(model->spec, o); }, target, ref, seed));
                    std::fflush(stdout);
                }
            if (dadvi) {
                advi::Options o;
                o.seed = seed;
                o.threads = 1;
                // Mean-field, full-rank, mean-field with the linear response.
                for (const int k : {0, 1, 2}) {
                    o.family = k == 1 ? advi::Family::FullRank : advi::Family::MeanField;
                    const advi::DadviSettings settings{.linear_response = k == 2};
                    fmt::print(
                        "{}\n",
                        row(
                            m.name, k == 0 ? advi::Family::MeanField : advi::Family::FullRank,
                            k == 2 ? "dadvi+lr" : "dadvi",
                            [&] { return advi::fit_dadvi(model->spec, o, settings); }, target, ref,
                            seed));
                    std::fflush(stdout);
                }
            }
            if (lowrank > 0) {
                advi::Options o;
                o.family = advi::Family::LowRank;
                o.rank = std::min(lowrank, model->spec.zeta_dim() - 1);
                o.seed = seed;
                o.threads = 1;
                const std::string name = fmt::format("auto, rank {}", o.rank);
                fmt::print("{}\n",
                           row(
                               m.name, advi::Family::LowRank, name.c_str(),
                               [&] { return advi::fit(model->spec, o); }, target, ref, seed));
                std::fflush(stdout);
            }
            if (pathfinder) {
                advi::PathfinderOptions o;
                o.seed = seed;
                o.threads = 1;
                fmt::print("{}\n", row(
                                       m.name, advi::Family::FullRank, "pathfinder",
                                       [&] { return advi::pathfinder(model->spec, o).as_fit(); },
                                       target, ref, seed));
                std::fflush(stdout);
            }
        }
    } catch (const std::exception& e) {
        std::cerr << "compare_fits: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
