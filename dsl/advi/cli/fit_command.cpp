// `advi fit model.stan --data data.json`: lowers the program, fits it with ADVI, writes
// CmdStan's variational CSV and prints the summary; options by CmdStan's names
// (`variational iter=... grad_samples=...` becomes --iter, --grad-samples).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/initial_point.hpp>
#include <advi/engine/options.hpp>
#include <advi/fit/cmdstan_output.hpp>
#include <advi/fit/fit.hpp>
#include <advi/fit/resample.hpp>
#include <advi/fit/runs.hpp>
#include <advi/fit/transform_choice.hpp>
#include <advi/io/cmdstan_csv.hpp>
#include <advi/io/output_file.hpp>
#include <advi/stan/report.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/init_option.hpp>
#include <advi/cli/load.hpp>
#include <advi/cli/outputs.hpp>
#include <advi/cli/process_ranks.hpp>
#include <advi/cli/progress_stream.hpp>
#include <advi/cli/report_option.hpp>
#include <advi/cli/stop_signals.hpp>
#include <advi/cli/validators.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

namespace fs = std::filesystem;

struct FitArgs {
    std::string model;
    int sig_figs = -1;
    std::vector<std::string> data;
    Options options;
    std::string algorithm = "meanfield";
    std::string convergence = "auto";
    std::string start = "auto";
    std::string draws = "mc";
    std::string transform = "log";
    // Not CmdStan's 2: the start at the mode is found from here, and zero (every unconstrained
    // coordinate at its centre) is the better place to look from (README, "Where q starts").
    std::string init = "0";
    std::string output = "output.csv";
    bool quiet = false;
    int runs = 1;
    bool psis_resample = false;
    std::string dadvi_draws = "auto";
    std::string dadvi_family = "meanfield";
    bool linear_response = false;
    CLI::Option* eta = nullptr;
    CLI::Option* init_given = nullptr;  // --init on the command line (0 then means zeros, kept)
    std::string diagnostic_file;        // empty: none
    std::string report;                 // --report: empty, none
    int minibatch = 0;                  // --minibatch B (0: the full data)
    std::string rows;                   // --rows N
    std::string minibatch_draw = "independent";
};

// The ELBO trace as CSV (`--diagnostic-file`): a row per ELBO evaluation of the main loop,
// CmdStan's first columns (iter, time_in_seconds, ELBO) and then ours, NaN where the
// convergence rule has no such number (AdviResult::TraceRow).
void write_diagnostic_file(const std::string& path, const AdviResult& r, int sig_figs) {
    std::vector<std::vector<double>> rows;
    for (const AdviResult::TraceRow& t : r.trace)
        rows.push_back({static_cast<double>(t.iteration), t.seconds, t.elbo, t.elbo_se, t.gain,
                        t.rel_mean, t.rel_median, t.eta});
    write_trace_csv(path,
                    {"iter", "time_in_seconds", "ELBO", "ELBO_mcse", "gain", "delta_ELBO_mean",
                     "delta_ELBO_med", "eta"},
                    rows, sig_figs);
}

int run_fit(const FitArgs& args) {
    std::vector<InputFile> inputs = model_and_data_inputs(args.model, args.data);
    if (!init_radius(args.init))
        inputs.push_back({args.init, "init file"});
    check_output_path(args.output, inputs);
    check_diagnostic_path(args.diagnostic_file, args.output, inputs);
    check_report_path(args.report, args.output, args.diagnostic_file, inputs);
    const std::vector<fs::path> data_files(args.data.begin(), args.data.end());
    // Under mpirun the ranks share the rows of the full data: --rows without --minibatch.
    Ranks& ranks = process_ranks();
    if (ranks.size() > 1 && (args.rows.empty() || args.minibatch > 0)) {
        throw ModelError(fmt::format(
            "under mpirun with {} ranks, `advi fit` needs --rows N (the data's int that counts "
            "the rows, which the ranks share){}",
            ranks.size(),
            args.minibatch > 0 ? " and the full data: --minibatch runs as one process" : ""));
    }
    const bool row_shards = !args.rows.empty() && args.minibatch == 0;
    const stan::MinibatchRequest request{args.rows, args.minibatch};
    const auto loaded = load_model(args.model, data_files, args.options.seed,
                                   args.rows.empty() ? nullptr : &request);
    ModelSpec spec = loaded->lowered->model().spec();
    // --transform softplus: T2 for every one-sided bound; auto: chosen per variable below.
    if (args.transform == "softplus") {
        for (LatentVariable& v : spec.latents) v.positive = PositiveTransform::Softplus;
    }

    Options options = args.options;
    if (row_shards) {
        options.minibatch = loaded->minibatch->sources;
        options.row_shards = true;
        options.ranks = &ranks;
    } else if (loaded->minibatch) {
        options.minibatch = loaded->minibatch->sources;
        options.minibatch_draw =
            args.minibatch_draw == "epochs" ? MinibatchDraw::Epochs : MinibatchDraw::Independent;
    }
    options.family = args.algorithm == "fullrank"  ? Family::FullRank
                     : args.algorithm == "lowrank" ? Family::LowRank
                                                   : Family::MeanField;
    options.convergence =
        args.convergence == "stan" ? ConvergenceRule::Stan : ConvergenceRule::Auto;
    options.start = args.start == "init"         ? StartFrom::Init
                    : args.start == "pathfinder" ? StartFrom::Pathfinder
                                                 : StartFrom::Auto;
    options.draws = args.draws == "rqmc" ? DrawScheme::Rqmc : DrawScheme::MonteCarlo;
    options.adapt_engaged = args.eta->count() == 0;  // --eta given: that step size, no search
    const bool dadvi = args.algorithm == "dadvi";
    if (dadvi) {
        options.adapt_engaged = false;  // no step size
        options.family = args.dadvi_family == "fullrank" ? Family::FullRank : Family::MeanField;
    }
    CsvRunInfo run = csv_run_info(args.model, args.data, args.output);
    run.sig_figs = args.sig_figs;
    run.diagnostic_file = args.diagnostic_file;
    run.refresh = options.refresh;
    run.refresh_default = -1;
    if (const auto radius = init_radius(args.init)) {
        // The points `advi optimize --init R --seed S` tries (engine/initial_point), tried as
        // Stan tries them until the density is finite; DADVI's engine takes a point.
        if (*radius > 0.0 && dadvi)
            options.init = uniform_init(options.seed ^ kInitStream, spec.zeta_dim(), *radius);
        else if (*radius > 0.0)
            options.init_radius = *radius;
        else if (args.init_given->count() > 0)
            options.init = Eigen::VectorXd::Zero(spec.zeta_dim());  // chosen: it stands
    } else {
        options.init = init_from_file(spec, args.init);
    }
    run.init_file = args.init;
    std::optional<ProgressStream> progress;
    if (!args.quiet && ranks.rank() == 0) {
        progress.emplace(std::cerr);
        options.log = &*progress;
    }
    // Held until the output is written and the summary printed: a first signal there is only
    // noted, so that the finished fit is not lost; a second gives up the output whole.
    const StopSignals signals;
    // Over MPI ranks a fit must stop at the same iteration on every rank, which a signal to
    // each cannot promise: there the first signal is noted and the fit runs on.
    options.interrupt = ranks.size() > 1 ? nullptr : &signals.flag();
    std::string transform_summary;
    std::vector<std::string> transform_lines;
    const Fit fit = [&] {
        if (args.transform == "auto") {
            AutoTransformFit a = advi::fit_auto_transform(spec, options);
            transform_summary = a.summary(1);
            for (const TransformChoice& c : a.choices) {
                transform_lines.push_back(fmt::format(
                    "transform_{} = {} (ELBO with log {}, se {}; with softplus {}, se {})",
                    c.variable, positive_transform_name(c.chosen), c.elbo_log, c.elbo_log_se,
                    c.elbo_softplus, c.elbo_softplus_se));
            }
            return args.psis_resample ? advi::psis_resample(a.fit, options.seed) : a.fit;
        }
        Fit f = dadvi ? advi::fit_dadvi(
                            spec, options,
                            {.draws = args.dadvi_draws == "auto" ? 0 : std::stoi(args.dadvi_draws),
                             .linear_response = args.linear_response})
                      : advi::fit_runs(spec, options, args.runs);
        return args.psis_resample ? advi::psis_resample(f, options.seed) : f;
    }();
    progress.reset();  // its last line out before anything else
    options.log = nullptr;
    if (ranks.rank() != 0)
        return 0;  // every rank holds the same fit: rank 0 writes it

    // The header says where the fit started when the default moved off zeros (Stan's rule).
    if (args.init_given->count() == 0 && fit.result().start.starts_with("random initial values"))
        run.init_file = "0 (not finite at zeros: Stan's random initial values on (-2, 2))";
    const stan::ReportedDraws reported = stan::report(*loaded->lowered, fit, options.seed);
    CsvOutput csv = cmdstan_output(fit, options, extra_blocks(reported),
                                   cmdstan_settings(options, run,
                                                    {.runs = args.runs,
                                                     .psis_resample = args.psis_resample,
                                                     .dadvi_draws = dadvi ? args.dadvi_draws : "",
                                                     .linear_response = args.linear_response,
                                                     .transform = args.transform,
                                                     .minibatch = args.minibatch,
                                                     .rows = args.rows}));
    // The choices before the trailer's last line (the elapsed time).
    csv.trailer.insert(csv.trailer.end() - 1, transform_lines.begin(), transform_lines.end());
    write_csv(args.output, csv, run);
    if (!args.diagnostic_file.empty())
        write_diagnostic_file(args.diagnostic_file, fit.result(), args.sig_figs);
    // Stan's labels (beta[1]), then the transformed parameters and generated quantities.
    std::cout << fit.summary(1) << stan::summary_rows(reported) << transform_summary << std::flush;
    if (!args.quiet) {
        std::cerr << fmt::format("Output written to {}\n", args.output);
    }
    write_report(args.report, args.output, args.diagnostic_file, args.quiet);
    if (const int sig = signals.received()) {
        const std::string& reason = fit.result().stop_reason;
        if (reason.starts_with("interrupted"))
            std::cerr << fmt::format(
                "advi: interrupted: {}; the output holds q as it was, not converged\n", reason);
        else
            std::cerr << "advi: interrupted after the fit had ended; the output is complete\n";
        return 128 + sig;  // as a shell reports a process ended by the signal (130, 143)
    }
    return 0;
}

}  // namespace

Command add_fit_command(CLI::App& parent) {
    auto args = std::make_shared<FitArgs>();
    CLI::App* app = parent.add_subcommand(
        "fit", "Fit a Stan program with ADVI, write CmdStan's variational CSV, print the summary");
    Options& o = args->options;
    app->add_option("model", args->model, "The Stan program (.stan)")->required();
    app->add_option("--data", args->data,
                    "Data: CmdStan JSON (.json), R dump (.R, .rdump) or CSV (.csv); repeatable")
        ->allow_extra_args(false);
    app->add_option("--algorithm", args->algorithm,
                    "Gaussian family of q (meanfield, fullrank, or lowrank: covariance B B' + "
                    "diagonal, B of --rank columns), or dadvi: deterministic ADVI (mean-field q "
                    "by Newton-CG on the ELBO of fixed draws)")
        ->check(CLI::IsMember({"meanfield", "fullrank", "lowrank", "dadvi"}))
        ->capture_default_str();
    app->add_option("--rank", o.rank, "--algorithm lowrank: the columns of B")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--iter", o.max_iterations, "Maximum number of iterations")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--grad-samples", o.grad_samples, "Draws per gradient estimate")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--elbo-samples", o.elbo_samples, "Draws per ELBO estimate")
        ->check(positive_int())
        ->capture_default_str();
    args->eta = app->add_option("--eta", o.eta, "Step-size scale (default: searched)")
                    ->check(positive_real());
    app->add_option("--adapt-iter", o.adapt_iter, "Iterations per eta candidate of the search")
        ->check(positive_int())
        ->capture_default_str()
        ->excludes(args->eta);
    app->add_option("--tol-rel-obj", o.tol_rel_obj, "Relative ELBO change that ends the fit")
        ->check(positive_real())
        ->capture_default_str();
    app->add_option("--eval-elbo", o.eval_elbo, "Iterations between ELBO estimates")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--output-samples", o.output_samples, "Draws of q written to the CSV")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option(
           "--convergence", args->convergence,
           "auto (the default: statistics decide when to stop; `robust` is its old name) or "
           "stan (Stan's rules)")
        ->check(CLI::IsMember({"auto", "robust", "stan"}))
        ->capture_default_str();
    app->add_option("--start", args->start,
                    "auto (the default: q starts at the mode with the Hessian's scales where a "
                    "mode exists), init (at --init's point, unit scales) or pathfinder (as auto "
                    "from the best point of one Pathfinder path from --init's point)")
        ->check(CLI::IsMember({"auto", "init", "pathfinder"}))
        ->capture_default_str();
    app->add_option("--transform", args->transform,
                    "log (T1, Stan's, the default), softplus (T2: log(exp(x) - 1)) for every "
                    "parameter with only a lower or an upper bound, or auto (each chosen by "
                    "ELBO, one more fit per such parameter; paper section 3.3)")
        ->check(CLI::IsMember({"log", "softplus", "auto"}))
        ->capture_default_str();
    app->add_option("--draws", args->draws,
                    "mc (the default: Monte Carlo) or rqmc (randomised quasi-Monte Carlo: "
                    "scrambled Sobol points for each gradient; needs --grad-samples >= 2)")
        ->check(CLI::IsMember({"mc", "rqmc"}))
        ->capture_default_str();
    args->init_given =
        app->add_option("--init", args->init,
                        "Where the search for the mode starts (--start auto) or q's mean "
                        "(--start init): a radius of uniform initial values in unconstrained "
                        "space (0: zeros; by default zeros, or Stan's random initial values "
                        "where the density is not finite there), or a JSON / R dump file of "
                        "every parameter's initial value")
            ->capture_default_str();
    app->add_option("--seed", o.seed, "Random seed; the same seed gives the same fit")
        ->check(seed_value())
        ->capture_default_str();
    app->add_option("--threads", o.threads, "Threads of the gradient program (0: all cores)")
        ->check(non_negative_int())
        ->capture_default_str();
    app->add_option("--runs", args->runs,
                    "Independent runs (seeds seed, seed+1, ...) in parallel: their agreement is "
                    "checked and the best by ELBO kept")
        ->check(positive_int())
        ->capture_default_str();
    app->add_flag("--psis-resample", args->psis_resample,
                  "Write the draws resampled by their Pareto-smoothed importance weights");
    app->add_option("--dadvi-draws", args->dadvi_draws,
                    "--algorithm dadvi: the fixed draws of its ELBO, or auto (30, then more until "
                    "the Monte Carlo error of every mean is at most 0.05 posterior sds; at most "
                    "1000)")
        ->check(CLI::IsMember({"auto"}) | CLI::Range(2, 100000))
        ->capture_default_str();
    app->add_option("--dadvi-family", args->dadvi_family,
                    "--algorithm dadvi: the family of q (full-rank needs more draws than "
                    "unconstrained coordinates)")
        ->check(CLI::IsMember({"meanfield", "fullrank"}))
        ->capture_default_str();
    app->add_flag("--linear-response", args->linear_response,
                  "--algorithm dadvi: q with the linear-response covariance (DADVI's means; the "
                  "correlations and sds mean-field misses)");
    app->add_option("--minibatch", args->minibatch,
                    "Data subsampling: B rows per gradient, every term of the log density that "
                    "reads them scaled by N / B (needs --rows)")
        ->check(positive_int());
    app->add_option("--rows", args->rows,
                    "The data block's int that counts the rows; every data variable declared "
                    "with it as its first size is a row variable: subsampled with --minibatch, "
                    "else read in shards (shared by the ranks under mpirun)");
    app->add_option("--minibatch-draw", args->minibatch_draw,
                    "--minibatch: independent (B rows without replacement for each gradient) or "
                    "epochs (random reshuffling: the rows in a random order, B at a time)")
        ->check(CLI::IsMember({"independent", "epochs"}))
        ->capture_default_str();
    app->add_flag("--control-variates", args->options.control_variates,
                  "--minibatch: each gradient's batch noise reduced by an anchor point's "
                  "full-data gradient (a pass over the data whenever q has moved off the anchor)");
    app->add_option("--output", args->output, "CSV file to write")->capture_default_str();
    add_sig_figs_option(*app, args->sig_figs);
    app->add_option("--diagnostic-file", args->diagnostic_file,
                    "CSV of the ELBO trace: a row per ELBO evaluation (iter, time_in_seconds, "
                    "ELBO, its Monte Carlo error, the convergence statistics, eta)");
    add_report_option(*app, args->report);
    app->add_option("--refresh", o.refresh,
                    "Iterations between the ELBO table's rows (CmdStan's refresh): a row at the "
                    "first ELBO evaluation past each multiple; 0: no rows; -1: every evaluation")
        ->check(CLI::Range(-1, std::numeric_limits<int>::max()))
        ->capture_default_str();
    app->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
    // Combinations the options' own checks cannot see: a bad command line (status 2).
    app->parse_complete_callback([args] {
        if (args->minibatch > 0 && args->rows.empty())
            throw CLI::ValidationError("--minibatch",
                                       "needs --rows (the data's int that counts the rows)");
        if (!args->rows.empty() && args->algorithm == "dadvi")
            throw CLI::ValidationError("--rows", "is not supported with --algorithm dadvi");
        if (args->minibatch_draw != "independent" && args->minibatch == 0)
            throw CLI::ValidationError("--minibatch-draw", "needs --minibatch");
        if (args->options.control_variates && args->minibatch == 0)
            throw CLI::ValidationError("--control-variates", "needs --minibatch");
        if (args->minibatch > 0 && args->algorithm == "dadvi")
            throw CLI::ValidationError("--minibatch",
                                       "is not supported with --algorithm dadvi (its fixed draws "
                                       "need the full data)");
        if (args->algorithm == "dadvi" && args->runs != 1)
            throw CLI::ValidationError("--runs", "is not supported with --algorithm dadvi");
        if (args->algorithm != "dadvi" && args->linear_response)
            throw CLI::ValidationError("--linear-response", "needs --algorithm dadvi");
        if (args->algorithm != "dadvi" && args->dadvi_family != "meanfield")
            throw CLI::ValidationError("--dadvi-family", "needs --algorithm dadvi");
        if (args->options.rank != Options{}.rank && args->algorithm != "lowrank")
            throw CLI::ValidationError("--rank", "needs --algorithm lowrank");
        if (args->transform == "auto" && args->algorithm == "dadvi")
            throw CLI::ValidationError("--transform",
                                       "auto is not supported with --algorithm dadvi");
        if (args->transform == "auto" && args->runs != 1)
            throw CLI::ValidationError("--transform", "auto is not supported with --runs");
        if (args->draws == "rqmc" && args->algorithm == "dadvi")
            throw CLI::ValidationError("--draws", "rqmc is not supported with --algorithm dadvi");
        if (args->draws == "rqmc" && args->options.grad_samples < 2)
            throw CLI::ValidationError(
                "--draws",
                "rqmc needs --grad-samples >= 2 (one randomised quasi-Monte Carlo "
                "point is one Monte Carlo draw)");
    });
    return {app, [args] { return run_fit(*args); }};
}

}  // namespace advi::cli
