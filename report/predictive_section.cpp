#include "predictive_section.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/npy_reader.hpp>
#include <advi/io/read_data.hpp>

#include <advi/report/svg_plot.hpp>
#include "example_data.hpp"
#include "gmm_model.hpp"
#include "hier_logistic_model.hpp"
#include "linreg_ard_model.hpp"
#include "nmf_direxp_model.hpp"
#include "nmf_gap_model.hpp"

namespace advi::report {

namespace fs = std::filesystem;

namespace {

struct Curve {
    std::string label;
    std::vector<double> seconds, lpd;
    int iterations = 0;
    double fit_seconds = 0;
    double final_lpd = 0;  // from the fit's output draws (1000)
    std::string verdict;   // the fit's one-line verdict
};

Curve curve(std::string label, const Fit& f, const std::vector<PredictiveTrace::Point>& trace,
            const ModelSpec& held_out, NodeId log_lik) {
    Curve c{std::move(label), {}, {}, f.result().iterations, f.result().seconds, 0};
    for (const auto& p : trace) {
        // A log time axis: iteration 0 of a fit without the eta search is at ~0 s.
        c.seconds.push_back(std::max(p.seconds, 1e-3));
        c.lpd.push_back(p.log_predictive);
    }
    c.final_lpd = log_predictive(f, held_out, log_lik).mean;
    c.verdict = f.verdict().headline();
    return c;
}

Curve traced_fit(std::string label, const ModelSpec& spec, const ModelSpec& held_out,
                 NodeId log_lik, Options options, int every, int trace_draws = 50) {
    PredictiveTrace trace(spec, held_out, log_lik, trace_draws, 7);
    options.monitor = trace.monitor();
    options.monitor_every = every;
    const Fit f = fit(spec, options);
    fmt::print("  {}: {} iterations, {:.1f} s\n", label, f.result().iterations, f.result().seconds);
    return curve(std::move(label), f, trace.points(), held_out, log_lik);
}

// The paper's Figure 10 settings: mean-field ADVI with M = 1 and M = 10 gradient draws.
std::vector<Curve> one_and_ten_draws(const ModelSpec& spec, const ModelSpec& held_out,
                                     NodeId log_lik) {
    std::vector<Curve> curves;
    for (int M : {1, 10}) {
        curves.push_back(traced_fit(fmt::format("ADVI (M = {})", M), spec, held_out, log_lik,
                                    {.seed = 1,
                                     .grad_samples = M,
                                     .tol_rel_obj = 0.001,
                                     .max_iterations = M == 1 ? 10000 : 2000,
                                     .threads = 1},
                                    50));
    }
    return curves;
}

const char* kColours[] = {colours::kMeanField, colours::kFullRank, colours::kReference, "#9467bd"};

// `truths`: the held-out density at the true parameters, one for all curves or one per curve.
std::string plot_and_table(const std::string& title, const std::vector<Curve>& curves,
                           const std::vector<double>& truths, const fs::path& out,
                           const std::string& file) {
    const auto truth_of = [&](std::size_t k) { return truths.size() == 1 ? truths[0] : truths[k]; };
    Plot p(title, "wall time (s, log scale)", "average held-out log predictive density");
    p.size(640, 400).log_x();
    // The first records (q0) are far below the rest: the y range starts a little below the
    // third record of any curve.
    double lo = *std::min_element(truths.begin(), truths.end());
    double hi = *std::max_element(truths.begin(), truths.end());
    double third = lo;
    for (const Curve& c : curves) {
        for (double v : c.lpd) lo = std::min(lo, v), hi = std::max(hi, v);
        third = std::min(third, c.lpd[std::min<std::size_t>(2, c.lpd.size() - 1)]);
    }
    p.y_range(std::max(lo, third - 0.5 * (hi - third) - 0.05), hi + 0.1 * (hi - third) + 0.02);
    if (truths.size() == 1) {
        p.hline(truths[0], "at the true parameters",
                {.colour = colours::kTruth, .width = 1, .dash = "5 3"});
    }
    for (std::size_t k = 0; k < curves.size(); ++k) {
        p.line(curves[k].seconds, curves[k].lpd, curves[k].label, {.colour = kColours[k % 4]});
        if (truths.size() > 1) {
            p.hline(truths[k], "its truth", {.colour = kColours[k % 4], .width = 1, .dash = "5 3"});
        }
    }
    save_atomically(out / file, p.svg());
    fmt::print("  wrote {}\n", (out / file).string());
    std::string md = fmt::format("![{}]({})\n\n", title, file);
    md += "| fit | iterations | seconds | held-out lpd at the end | at the true parameters |\n";
    md += "|---|---|---|---|---|\n";
    for (std::size_t k = 0; k < curves.size(); ++k) {
        const Curve& c = curves[k];
        md += fmt::format("| {} | {} | {:.2f} | {:.4f} | {:.4f} |\n", c.label, c.iterations,
                          c.fit_seconds, c.final_lpd, truth_of(k));
    }
    return md + "\n";
}

// theta of a spec from named values (each latent's values column-major).
Eigen::VectorXd theta_of(const ModelSpec& spec,
                         const std::vector<std::pair<std::string, Eigen::VectorXd>>& values) {
    Eigen::VectorXd theta(spec.theta_dim());
    const std::vector<int> off = spec.theta_offsets();
    for (const auto& [name, v] : values) {
        theta.segment(off[static_cast<std::size_t>(spec.latent_index(name))], v.size()) = v;
    }
    return theta;
}

// The mixture's average held-out log density at the simulation's true parameters (as many
// components as the truth has), for the sections' dashed line.
double gmm_truth_lpd(const DataTable& truth, const Eigen::MatrixXd& y_test, double alpha0) {
    const auto K = static_cast<int>(truth.at("theta").as_vector().size());
    Model fitted, held_out;  // the fitted model only lays out theta: a few rows will do
    const Eigen::MatrixXd rows = y_test.topRows(std::min<Eigen::Index>(10, y_test.rows()));
    examples::build_gmm(fitted, rows, K, alpha0);
    const Expr log_lik = examples::build_gmm(held_out, y_test, K, alpha0);
    const ModelSpec spec = fitted.spec(), held = held_out.spec();
    HeldOutLikelihood at_truth(spec, held, log_lik.id());
    return at_truth
        .at(theta_of(spec,
                     {
                         {"theta", truth.at("theta").as_vector()           },
                         {"mu",    truth.at("mu").as_matrix().reshaped()   },
                         {"sigma", truth.at("sigma").as_matrix().reshaped()}
    }))
        .mean();
}

std::string linreg_ard(const fs::path& out) {
    const fs::path dir = examples::sim_dir("linreg_ard");
    const DataTable data = read_data(dir / "medium.data.json");
    const DataTable truth = examples::read_truth(dir / "medium.truth.json");
    const Eigen::MatrixXd X = data.at("X").as_matrix(), X_test = data.at("X_test").as_matrix();
    const Eigen::VectorXd y = data.at("y").as_vector(), y_test = data.at("y_test").as_vector();
    Model m, held_out;
    examples::build_linreg_ard(m, X, y);
    const Expr log_lik = examples::build_linreg_ard(held_out, X_test, y_test);
    const ModelSpec spec = m.spec(), held = held_out.spec();
    const auto D = X.cols();
    HeldOutLikelihood at_truth(spec, held, log_lik.id());
    const double truth_lpd =
        at_truth
            .at(theta_of(spec,
                         {
                             {"sigma", Eigen::VectorXd::Constant(1, truth.at("sigma").as_real())},
                             {"alpha",       Eigen::VectorXd::Ones(D)                           },
                             {"w",       truth.at("w").as_vector()    }
    }))
            .mean();
    const std::vector<Curve> curves = one_and_ten_draws(spec, held, log_lik.id());
    std::string md = fmt::format(
        "**Linear regression with ARD** (`sim/linreg_ard/medium`: N = {}, D = {}, {} held out; "
        "mean-field, tol_rel_obj 0.001, at most 10000 iterations with M = 1 and 2000 with "
        "M = 10).\n\n",
        X.rows(), D, X_test.rows());
    return md + plot_and_table("Linear regression with ARD", curves, {truth_lpd}, out,
                               "predictive_linreg_ard.svg");
}

std::string hier_logistic(const fs::path& out) {
    const fs::path dir = examples::sim_dir("hier_logistic");
    const DataTable data = read_data(dir / "medium.data.json");
    const DataTable truth = examples::read_truth(dir / "medium.truth.json");
    const examples::PollData poll = examples::PollData::from(data);
    const examples::PollData poll_test = examples::PollData::from(data, "_test");
    Model m, held_out;
    examples::build_hier_logistic(m, poll);
    const Expr log_lik = examples::build_hier_logistic(held_out, poll_test);
    const ModelSpec spec = m.spec(), held = held_out.spec();
    std::vector<std::pair<std::string, Eigen::VectorXd>> values;
    for (const char* s :
         {"sigma_age", "sigma_edu", "sigma_age_edu", "sigma_state", "sigma_region", "beta_0",
          "beta_female", "beta_black", "beta_female_black", "beta_v_prev"})
        values.emplace_back(s, Eigen::VectorXd::Constant(1, truth.at(s).as_real()));
    for (const char* s : {"alpha_age", "alpha_edu", "alpha_region", "alpha_state"})
        values.emplace_back(s, truth.at(s).as_vector());
    // alpha_age_edu[age][edu] is indexed row-major by age_edu (the truth file's notes).
    const Eigen::MatrixXd age_edu = truth.at("alpha_age_edu").as_matrix();
    values.emplace_back("alpha_age_edu", Eigen::VectorXd(age_edu.transpose().reshaped()));
    HeldOutLikelihood at_truth(spec, held, log_lik.id());
    const double truth_lpd = at_truth.at(theta_of(spec, values)).mean();
    const std::vector<Curve> curves = one_and_ten_draws(spec, held, log_lik.id());
    std::string md = fmt::format(
        "**Hierarchical logistic regression** (`sim/hier_logistic/medium`: N = {}, {} held "
        "out; the same settings).\n\n",
        poll.y.size(), poll_test.y.size());
    return md + plot_and_table("Hierarchical logistic regression", curves, {truth_lpd}, out,
                               "predictive_hier_logistic.svg");
}

std::string gmm(const fs::path& out) {
    const fs::path dir = examples::sim_dir("gmm");
    const DataTable data = read_data(dir / "medium.data.json");
    const DataTable truth = examples::read_truth(dir / "medium.truth.json");
    const Eigen::MatrixXd y = data.at("y").as_matrix(), y_test = data.at("y_test").as_matrix();
    const int K = data.at("K").as_int();
    const double alpha0 = data.at("alpha0").as_real();
    Model full, held_out;
    examples::build_gmm(full, y, K, alpha0);
    const Expr log_lik = examples::build_gmm(held_out, y_test, K, alpha0);
    const ModelSpec full_spec = full.spec(), held = held_out.spec();
    const double truth_lpd = gmm_truth_lpd(truth, y_test, alpha0);
    const int restarts = 1, every = 50;
    std::vector<Curve> curves;
    for (int B : {100, 500, 0}) {
        const Eigen::MatrixXd batch = y.topRows(B > 0 ? B : y.rows());
        Model m;
        examples::build_gmm(m, batch, K, alpha0);
        Options options = examples::gmm_minibatch_options();
        options.threads = 1;  // as every fit of the report
        examples::TracedFit t = examples::fit_gmm_traced(
            m.spec(), held, log_lik.id(), B > 0 ? &y : nullptr, restarts, every, options);
        const std::string label = B > 0 ? fmt::format("ADVI, B = {}", B) : "ADVI, full data";
        fmt::print("  {}: {} iterations, {:.1f} s\n", label, t.fit.result().iterations,
                   t.fit.result().seconds);
        curves.push_back(curve(label, t.fit, t.trace, held, log_lik.id()));
    }
    std::string md = fmt::format(
        "**Gaussian mixture** (`sim/gmm/medium`: N = {}, D = {}, K = {}, {} held out), "
        "minibatches of B rows against the full data; examples/gmm_model.hpp's settings "
        "(eta 0.3, tol_rel_obj 3e-4), seed {}.\n\n",
        y.rows(), y.cols(), K, y_test.rows(), restarts);
    md += plot_and_table("Gaussian mixture, minibatches", curves, {truth_lpd}, out,
                         "predictive_gmm.svg");
    const Curve& full_data = curves.back();
    md += fmt::format(
        "Unlike the paper's mixture, ours stops far from the truth's density: {:.0f} nats per "
        "held-out point below it with the full data. The components merge: with 576 "
        "dimensions and well separated clusters drawn from the prior, a fit that starts "
        "every mean at 0 (the paper's initialisation) lets some components take two clusters "
        "and leaves others at their prior, and the stochastic gradients do not pull them "
        "apart (examples/gmm_model.hpp's `gmm_minibatch_options()`, the settings of this "
        "comparison: from the init point; on the 20-dimensional `small` set half the seeds "
        "reach the truth's optimum from there, and 6 of 8 with the default start at the higher "
        "of two modes, which examples/gmm now uses). What the paper shows "
        "about minibatches shows here too: B = 500 ends {:.0f} nats from the full-data fit, "
        "B = 100 {:.0f} nats below it. The paper's larger run (250000 images, "
        "K = 30) is not repeated here; `gen/generate.py --large --only gmm` in the shared data "
        "makes a 250000 x 576 set of the same kind.\n\n",
        truth_lpd - full_data.final_lpd, std::abs(curves[1].final_lpd - full_data.final_lpd),
        full_data.final_lpd - curves[0].final_lpd);
    return md;
}

// Both factorisations on their `small` sets with 10% of the matrix's entries held out.
std::string nmf(const fs::path& out) {
    std::vector<Curve> curves;
    std::vector<double> truths;
    std::string md;
    for (const char* model : {"nmf_gap", "nmf_direxp"}) {
        const fs::path dir = examples::sim_dir(model);
        const DataTable data = read_data(dir / "small.data.json");
        const DataTable truth = examples::read_truth(dir / "small.truth.json");
        const Eigen::VectorXi y = data.at("y").as_int_matrix().reshaped();
        const int U = data.at("U").as_int(), I = data.at("I").as_int();
        const examples::CellSplit split = examples::split_cells(U * I, 0.1, 1);
        const Eigen::VectorXi y_train = examples::counts_at(y, split.observed);
        const Eigen::VectorXi y_held = examples::counts_at(y, split.held_out);
        Model m, held_out;
        examples::NmfLatents held;
        const bool gap = std::string(model) == "nmf_gap";
        // Bound by reference: it must outlive the models (this loop body).
        const Eigen::VectorXd alpha0 = gap ? Eigen::VectorXd() : data.at("alpha0").as_vector();
        if (gap) {
            const int K = data.at("K").as_int();
            const examples::NmfGapPriors p{data.at("a0").as_real(), data.at("b0").as_real(),
                                           data.at("c0").as_real(), data.at("d0").as_real()};
            examples::build_nmf_gap(m, y_train, U, I, K, p, &split.observed);
            held = examples::build_nmf_gap(held_out, y_held, U, I, K, p, &split.held_out);
        } else {
            const double lambda0 = data.at("lambda0").as_real();
            examples::build_nmf_direxp(m, y_train, U, I, alpha0, lambda0, &split.observed);
            held = examples::build_nmf_direxp(held_out, y_held, U, I, alpha0, lambda0,
                                              &split.held_out);
        }
        const ModelSpec spec = m.spec(), held_spec = held_out.spec();
        HeldOutLikelihood at_truth(spec, held_spec, held.log_lik.id());
        truths.push_back(at_truth
                             .at(theta_of(spec,
                                          {
                                              {"theta", truth.at("theta").as_matrix().reshaped()},
                                              {"beta",  truth.at("beta").as_matrix().reshaped() }
        }))
                             .mean());
        // The examples' settings (examples/nmf_gap.cpp says why eta = 0.3 is given).
        curves.push_back(traced_fit(
            gap ? "Gamma Poisson" : "Dirichlet Exp. Poisson", spec, held_spec, held.log_lik.id(),
            {.seed = 1, .tol_rel_obj = 0.001, .adapt_engaged = false, .eta = 0.3, .threads = 1},
            50));
        if (md.empty()) {
            md = fmt::format(
                "**Non-negative matrix factorisation** (`sim/nmf_gap/small` and "
                "`sim/nmf_direxp/small`: U = {} x I = {} counts, K = 10; 10% of the entries, "
                "chosen at random, held out; the rest fitted with the examples' settings, "
                "eta 0.3 and tol_rel_obj 0.001). Each data set has its own truth (dashed, in "
                "its curve's colour).\n\n",
                U, I);
        }
    }
    return md + plot_and_table("Non-negative matrix factorisation", curves, truths, out,
                               "predictive_nmf.svg");
}

}  // namespace

std::string predictive_section(const fs::path& out) {
    for (const char* file : {"linreg_ard/medium", "hier_logistic/medium", "gmm/medium",
                             "nmf_gap/small", "nmf_direxp/small"}) {
        const fs::path f = examples::sim_dir("") / (std::string(file) + ".data.json");
        if (!fs::exists(f)) {
            return fmt::format("*Not produced: the shared data file `{}` is missing.*\n",
                               f.string());
        }
    }
    std::string md =
        "The paper's Figures 10-12 plot the average log predictive density of held-out data "
        "against wall time. Here `PredictiveTrace` records it every 50 iterations from 50 draws of "
        "the current q, and its own time is left out of the clock; "
        "the table's last column is the same average at the true parameters of the simulation, "
        "and the end value is from the fit's 1000 output draws. There is no MCMC line: the "
        "library has no sampler.\n\n";
    md += linreg_ard(out);
    md += hier_logistic(out);
    md += nmf(out);
    md += gmm(out);
    return md;
}

std::string predictive_large_section(const fs::path& out, const fs::path& data) {
    const std::vector<fs::path> files = {data / "gmm.y.npy", data / "gmm_test.y_test.npy",
                                         data / "gmm.sizes.json", data / "gmm_large.truth.json"};
    for (const fs::path& f : files) {
        if (!fs::exists(f)) {
            throw Error(fmt::format(
                "predictive_large: {} is missing (make it with ../shared/data/gen/generate.py "
                "--large --only gmm and report/minibatch/gmm_large.sh's conversion)",
                f.string()));
        }
    }
    // the rows stay in their mapped file; a batch is read from there row by row
    const DataTable rows = read_data(std::vector<fs::path>{data / "gmm.y.npy"}, true);
    const DataTable sizes = read_data(data / "gmm.sizes.json");
    const Eigen::MatrixXd y_test = read_data(data / "gmm_test.y_test.npy").at("y_test").as_matrix();
    const DataTable truth = examples::read_truth(data / "gmm_large.truth.json");
    const DataValue& y = rows.at("y");
    const auto N = static_cast<Eigen::Index>(y.dims[0]), D = static_cast<Eigen::Index>(y.dims[1]);
    const int K = sizes.at("K").as_int();
    const double alpha0 = sizes.at("alpha0").as_real();
    // The held-out density at the truth (its own 10 components; the fitted model has K = 30).
    const double truth_lpd = gmm_truth_lpd(truth, y_test, alpha0);
    Model held_out;
    const Expr log_lik = examples::build_gmm(held_out, y_test, K, alpha0);
    const ModelSpec held = held_out.spec();
    MinibatchData source("y", static_cast<const double*>(y.mapped->data()), N, D);
    source.row_major = !y.mapped->fortran_order();
    std::vector<Curve> curves;
    for (int B : {100, 500, 1000}) {
        Eigen::MatrixXd batch(B, D);  // the model is written over B rows (refilled per gradient)
        for (Eigen::Index r = 0; r < B; ++r)
            for (Eigen::Index c = 0; c < D; ++c)
                batch(r, c) = y.mapped->real_at(y.mapped->storage_index(r, c));
        Model m;
        examples::build_gmm(m, batch, K, alpha0);
        Options options;
        options.seed = 1;
        options.adapt_engaged = false;  // eta 0.1: the step size B = 500's search chose at
        options.eta = 0.1;              // this scale (README, minibatches)
        options.threads = 0;
        options.minibatch = {source};
        const Curve c = traced_fit(fmt::format("ADVI, B = {}", B), m.spec(), held, log_lik.id(),
                                   options, 1000, 20);
        curves.push_back(c);
    }
    std::string md = fmt::format(
        "**Gaussian mixture at the paper's scale** (`gmm_large`: the first N = {} rows of "
        "D = {}, K = {} components, the last {} rows held out; the truth has 10 components), "
        "minibatches of B rows from the memory-mapped `.npy` file, mean-field, eta 0.1 (no "
        "search), at most 10,000 iterations, seed 1, `threads = 0` (99% of one core in effect: "
        "a batch's loops are too short to split); the held-out density from 20 draws of q "
        "every 1000 iterations (its time left out), the end value from the fit's 1000 output "
        "draws. Each fit's verdict follows the table (the summary's first line, its reasons "
        "cut).\n\n",
        N, D, K, y_test.rows());
    md += plot_and_table("Gaussian mixture at scale, minibatches", curves, {truth_lpd}, out,
                         "predictive_gmm_large.svg");
    md += "Verdicts: ";
    for (std::size_t k = 0; k < curves.size(); ++k)
        md += fmt::format("{}{}: {}", k ? "; " : "", curves[k].label,
                          curves[k].verdict.substr(0, curves[k].verdict.find(" (")));
    md += ".\n\n";
    return md;
}

}  // namespace advi::report
