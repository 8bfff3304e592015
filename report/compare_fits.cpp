// compare_fits: the methods' table (issues 19 and 20). For each reference model
// (reference_models.hpp) and method, the default options, one thread, one Markdown row per fit
// against the stored reference (report/references/<model>.reference.txt and .draws.txt):
//   worst |mean - reference mean| in reference sds, over the constrained elements;
//   the median and range of the fit's sd / the reference sd;
//   W1: the 1-Wasserstein distance between 1,000 of the fit's draws and 1,000 reference draws,
//   every coordinate in reference sds (report/wasserstein.hpp; the Pathfinder paper's metric),
//   with a row per model for the floor: two independent sets of exact draws;
//   the final ELBO (re-estimated with 20,000 draws: the fit's own 100-draw estimate is too
//   noisy to compare with a patient value) and its gap to the patient Adam ELBO of its family
//   (full-rank's for every q that is not mean-field);
//   PSIS k-hat of log_p__ - log_g__ over the fit's output draws, and the verdict;
//   gradient evaluations (a Hessian-vector product counts as one), whole-fit wall time
//   (compile, fit, output draws) and whether the method says it converged.
//
// Usage (from the repository root):
//   ./build/report/compare_fits [--only NAME] [--seed N] [--no-stl] [--auto-only] [--start-init]
//                               [--dadvi] [--pathfinder] [--laplace] [--lowrank R]
//                               [--all-methods] [--plot FILE.svg]
// --no-stl: the Auto rule's fits without the sticking-the-landing gradient (its default);
// --auto-only: no rows of Stan's rule (mean-field and full-rank with rule `stan`);
// --start-init: the Auto rule's fits start at the initial values with L = I (`advi fit --start
// init`), so they run the eta search instead of starting at the mode;
// --dadvi: also DADVI's rows (engine/dadvi.hpp, 30 fixed draws): its mean-field and full-rank q,
// and DADVI+LR, mean-field's means with the linear-response covariance;
// --lowrank R: also the low-rank family's row (rank min(R, dim - 1), the Auto rule);
// --pathfinder: also multi-path Pathfinder's row (fit/pathfinder.hpp, CmdStan's defaults: 4
// paths, PSIS resampling to 1,000 draws; its ELBO the pooled draws' and its k-hat theirs);
// --laplace: also the Laplace approximation's row (fit/laplace.hpp, 1,000 draws);
// --all-methods: --auto-only --dadvi --pathfinder --laplace --lowrank 10;
// --plot: W1 over the model's floor against gradient evaluations, every row but Stan's rule and
// full-rank DADVI, as an SVG.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/fit/fit.hpp>
#include <advi/fit/laplace.hpp>
#include <advi/fit/pathfinder.hpp>
#include <advi/fit/psis.hpp>

#include <advi/report/svg_plot.hpp>
#include "reference_models.hpp"
#include "wasserstein.hpp"

namespace {

// Two decimals, or three significant digits where a blown-up fit makes the number huge.
std::string number(double x) {
    return std::abs(x) < 1e4 ? fmt::format("{:.2f}", x) : fmt::format("{:.3g}", x);
}

const std::filesystem::path kSource = ADVI_SOURCE_DIR;
const std::filesystem::path kShared = ADVI_SHARED_DATA;

// The W1 column compares this many draws of a fit with as many reference draws.
constexpr Eigen::Index kW1Draws = 1000;

// What a model's rows are held against.
struct Held {
    const advi::references::Reference& ref;
    const Eigen::MatrixXd& draws;  // reference draws, kW1Draws or more
    double floor;                  // W1 between two sets of exact draws
};

// One method's result on one model, for the table and the plot.
struct Outcome {
    std::string method;
    double w1 = std::numeric_limits<double>::quiet_NaN();
    double floor = std::numeric_limits<double>::quiet_NaN();
    long gradient_evaluations = 0;
    bool reliable = false;
};

// W1 between the first n rows of two samples, each column divided by the reference's sd.
double standardised_w1(const Eigen::MatrixXd& fit, const Eigen::MatrixXd& reference,
                       const Eigen::VectorXd& sd) {
    const Eigen::Index n = std::min({fit.rows(), reference.rows(), kW1Draws});
    const Eigen::RowVectorXd scale = sd.cwiseInverse().transpose();
    return advi::report::wasserstein1(fit.topRows(n).array().rowwise() * scale.array(),
                                      reference.topRows(n).array().rowwise() * scale.array());
}

double median(Eigen::ArrayXd x) {
    std::sort(x.begin(), x.end());
    const Eigen::Index n = x.size();
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// One row: `run` fits the model; `family` is the family of the q it returns (DADVI with the
// linear response and Laplace return a full-rank q, held against full-rank's patient ELBO).
template <class Run>
std::string row(const std::string& model, advi::Family family, const std::string& method, Run run,
                advi::Target& target, const Held& held, std::uint64_t seed,
                std::vector<Outcome>& outcomes) {
    const advi::references::Reference& ref = held.ref;
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
        const double w1 = standardised_w1(th, held.draws, ref.sd);
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
        const long evaluations = f.result().gradient_evaluations;
        // Constant log ratios (q is the posterior up to a constant) have no tail to fit.
        const std::string k_hat = w.constant ? "const" : fmt::format("{:.2f}", w.k_hat);
        outcomes.push_back({method, w1, held.floor, evaluations, f.verdict().reliable()});
        return fmt::format(
            "| {} | {} | {} | {} ({}-{}) | {} | {} | {} | {} | {} | {} | {:.2f} | {} |", model,
            method, number(worst), number(median(ratio)), number(ratio.minCoeff()),
            number(ratio.maxCoeff()), number(w1), number(elbo.elbo), number(elbo.elbo - patient),
            k_hat, f.verdict().reliable() ? "reliable" : "not reliable", evaluations, seconds,
            f.result().converged ? "yes" : "no");
    } catch (const std::exception& e) {
        std::string what = e.what();
        return fmt::format("| {} | {} | error: {} | | | | | | | | | |", model, method,
                           what.substr(0, what.find('\n')));
    }
}

// The plot: W1 over the model's floor (1: as close as an exact sampler's draws; the floor
// differs between models, 0.1 to 2 sds, with their dimension and shape) against gradient
// evaluations, a colour per method, hollow where the verdict says not reliable.
void write_plot(const std::filesystem::path& file, const std::vector<Outcome>& outcomes) {
    static const std::vector<std::pair<std::string, std::string>> kColours = {
        {"mean-field", advi::report::colours::kMeanField},
        {"full-rank",  advi::report::colours::kFullRank },
        {"low-rank",   "#9467bd"                        },
        {"DADVI",      "#ff7f0e"                        },
        {"DADVI+LR",   "#8c564b"                        },
        {"Pathfinder", "#e377c2"                        },
        {"Laplace",    "#17becf"                        }
    };
    advi::report::Plot plot("Distance to the reference posterior against cost",
                            "gradient evaluations (a Hessian-vector product counts as one)",
                            "W1 of the draws / W1 of exact draws");
    plot.log_x().log_y().size(760, 480);
    plot.hline(1.0, "exact draws", {.colour = advi::report::colours::kGrey, .dash = "6 3"});
    for (const auto& [prefix, colour] : kColours)
        for (const bool reliable : {true, false}) {
            std::vector<double> x, y;
            for (const Outcome& o : outcomes)
                if (o.method == prefix && o.reliable == reliable && o.gradient_evaluations > 0 &&
                    std::isfinite(o.w1) && o.w1 > 0 && o.floor > 0) {
                    x.push_back(static_cast<double>(o.gradient_evaluations));
                    y.push_back(o.w1 / o.floor);
                }
            if (!x.empty())
                plot.points(x, y, prefix + (reliable ? "" : " (not reliable)"),
                            {.colour = colour, .radius = 4.0, .hollow = !reliable});
        }
    advi::report::save_atomically(file, plot.svg());
}

}  // namespace

int main(int argc, char** argv) {
    std::string only;
    std::filesystem::path plot_file;
    std::uint64_t seed = 1;
    bool no_stl = false, auto_only = false, start_init = false, dadvi = false, pathfinder = false,
         laplace = false;
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
        else if (a == "--laplace")
            laplace = true;
        else if (a == "--lowrank" && i + 1 < argc)
            lowrank = std::stoi(argv[++i]);
        else if (a == "--all-methods")
            auto_only = dadvi = pathfinder = laplace = true, lowrank = 10;
        else if (a == "--plot" && i + 1 < argc)
            plot_file = argv[++i];
        else {
            std::cerr << "usage: compare_fits [--only NAME] [--seed N] [--no-stl] [--auto-only] "
                         "[--start-init] [--dadvi] [--pathfinder] [--laplace] [--lowrank R] "
                         "[--all-methods] [--plot FILE.svg]\n";
            return 2;
        }
    }
    fmt::print(
        "| model | method | worst mean error (ref sds) | sd ratio, median (range) | W1 (ref sds) | "
        "ELBO | vs patient | k-hat | verdict | gradient evaluations | seconds | converged |\n");
    fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::vector<Outcome> outcomes;
    try {
        if (!only.empty())
            (void)advi::references::reference_model(only);  // refuses an unknown name
        for (const auto& m : advi::references::reference_models()) {
            if (!only.empty() && m.name != only)
                continue;
            auto model = advi::references::load(m, kSource, kShared);
            const auto ref = advi::references::read_reference(kSource / "report/references" /
                                                              (m.name + ".reference.txt"));
            const auto ref_draws = advi::references::read_reference_draws(
                kSource / "report/references" / (m.name + ".draws.txt"));
            if (ref_draws.labels != ref.labels || ref_draws.theta.rows() < 2 * kW1Draws)
                throw advi::Error(fmt::format(
                    "{}: the reference draws do not match the reference (columns or fewer than "
                    "{} draws): rerun make_references --draws-only --only {}",
                    m.name, 2 * kW1Draws, m.name));
            // The floor: W1 between the two independent halves of the reference draws, what an
            // exact sampler's 1,000 draws would score.
            const double floor =
                standardised_w1(ref_draws.theta.bottomRows(kW1Draws), ref_draws.theta, ref.sd);
            const Held held{ref, ref_draws.theta, floor};
            fmt::print("| {} | exact draws (the floor) | | | {} | | | | | | | |\n", m.name,
                       number(floor));
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
                    std::string method =
                        family == advi::Family::MeanField ? "mean-field" : "full-rank";
                    if (rule == advi::ConvergenceRule::Stan)
                        method += " (Stan's rule)";
                    fmt::print("{}\n", row(
                                           m.name, family, method,
                                           [&] { return advi::fit(model->spec, o); }, target, held,
                                           seed, outcomes));
                    std::fflush(stdout);
                }
            if (lowrank > 0) {
                advi::Options o;
                o.family = advi::Family::LowRank;
                o.rank = std::min(lowrank, model->spec.zeta_dim() - 1);
                o.seed = seed;
                o.threads = 1;
                fmt::print("{}\n", row(
                                       m.name, advi::Family::LowRank, "low-rank",
                                       [&] { return advi::fit(model->spec, o); }, target, held,
                                       seed, outcomes));
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
                            k == 2   ? "DADVI+LR"
                            : k == 1 ? "DADVI (full-rank)"
                                     : "DADVI",
                            [&] { return advi::fit_dadvi(model->spec, o, settings); }, target, held,
                            seed, outcomes));
                    std::fflush(stdout);
                }
            }
            if (pathfinder) {
                advi::PathfinderOptions o;
                o.seed = seed;
                o.threads = 1;
                fmt::print("{}\n", row(
                                       m.name, advi::Family::FullRank, "Pathfinder",
                                       [&] { return advi::pathfinder(model->spec, o).as_fit(); },
                                       target, held, seed, outcomes));
                std::fflush(stdout);
            }
            if (laplace) {
                advi::LaplaceOptions o;
                o.seed = seed;
                o.threads = 1;
                fmt::print("{}\n", row(
                                       m.name, advi::Family::FullRank, "Laplace",
                                       [&] { return advi::laplace(model->spec, o).as_fit(); },
                                       target, held, seed, outcomes));
                std::fflush(stdout);
            }
        }
        if (!plot_file.empty())
            write_plot(plot_file, outcomes);
    } catch (const std::exception& e) {
        std::cerr << "compare_fits: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
