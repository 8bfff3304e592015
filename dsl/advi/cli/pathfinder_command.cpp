// `advi pathfinder model.stan --data data.json --output out.csv`: multi-path Pathfinder
// (fit/pathfinder.hpp) with CmdStan's options by name, written in CmdStan's pathfinder CSV
// layout (lp_approx__, lp__, path__, then the variables), with the summary and the verdict.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/fit/pathfinder.hpp>
#include <advi/fit/pathfinder_output.hpp>
#include <advi/io/cmdstan_csv.hpp>
#include <advi/stan/report.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/init_option.hpp>
#include <advi/cli/lbfgs_options.hpp>
#include <advi/cli/load.hpp>
#include <advi/cli/outputs.hpp>
#include <advi/cli/report_option.hpp>
#include <advi/cli/stop_signals.hpp>
#include <advi/cli/validators.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

namespace fs = std::filesystem;

struct PathfinderArgs {
    std::string model;
    int sig_figs = -1;
    std::vector<std::string> data;
    std::string init = "2";
    std::string psis_resample = "1";
    PathfinderOptions options;
    std::string output = "output.csv";
    bool quiet = false;
    std::string diagnostic_file;  // empty: none
    std::string report;           // --report: empty, none
};

int run_pathfinder(const PathfinderArgs& args) {
    std::vector<InputFile> inputs = model_and_data_inputs(args.model, args.data);
    if (!init_radius(args.init))
        inputs.push_back({args.init, "init file"});
    check_output_path(args.output, inputs);
    check_diagnostic_path(args.diagnostic_file, args.output, inputs);
    check_report_path(args.report, args.output, args.diagnostic_file, inputs);
    const std::vector<fs::path> data_files(args.data.begin(), args.data.end());
    const auto loaded = load_model(args.model, data_files, args.options.seed);
    const ModelSpec spec = loaded->lowered->model().spec();

    PathfinderOptions options = args.options;
    options.psis_resample = args.psis_resample == "1" || args.psis_resample == "true";
    CsvRunInfo run = csv_run_info(args.model, args.data, args.output);
    run.sig_figs = args.sig_figs;
    run.diagnostic_file = args.diagnostic_file;
    run.refresh = args.options.refresh;
    run.refresh_default = 10;
    if (const auto radius = init_radius(args.init)) {
        options.init_radius = *radius;
    } else {
        options.init = init_from_file(spec, args.init);
        run.init_file = args.init;
    }
    if (!args.quiet)
        options.log = [](const std::string& line) { std::cerr << line << '\n'; };
    // A first signal ends the current path after its current iteration; the paths run so
    // far give the draws, marked not converged.
    const StopSignals signals;
    options.interrupt = &signals.flag();
    const PathfinderFit fit = advi::pathfinder(spec, options);
    if (!args.diagnostic_file.empty()) {
        // A row per iterate of each path: its L-BFGS step and its normal approximation's ELBO
        // (none at the start, -inf where it had none).
        std::vector<std::vector<double>> rows;
        for (const PathReport& p : fit.paths()) {
            for (const OptimizerTraceRow& t : p.trace) {
                const auto l = static_cast<std::size_t>(t.iteration);
                const bool has = l >= 1 && l <= p.elbo.size();
                rows.push_back({static_cast<double>(p.path), static_cast<double>(t.iteration),
                                t.seconds, t.lp, t.grad_norm, t.step_norm, t.alpha,
                                has ? p.elbo[l - 1] : std::nan(""),
                                has ? p.elbo_se[l - 1] : std::nan(""),
                                static_cast<double>(t.gradient_evaluations)});
            }
        }
        write_trace_csv(args.diagnostic_file,
                        {"path", "iter", "time_in_seconds", "lp__", "grad_norm", "step_norm",
                         "alpha", "ELBO", "ELBO_mcse", "gradient_evaluations"},
                        rows, args.sig_figs);
    }

    // Generated quantities per draw, as for ADVI's draws; the _rng calls seeded with --seed.
    const stan::ReportedDraws reported = stan::report(*loaded->lowered, fit.as_fit(), options.seed);
    write_csv(args.output,
              cmdstan_pathfinder_output(fit, extra_blocks(reported),
                                        cmdstan_pathfinder_settings(options, run)),
              run);
    std::cout << fit.summary(1) << stan::summary_rows(reported) << std::flush;
    if (!args.quiet)
        std::cerr << fmt::format("Output written to {}\n", args.output);
    write_report(args.report, args.output, "", args.quiet);
    if (const int sig = signals.received()) {
        std::cerr << "advi: interrupted: the output holds the draws of the paths run so far\n";
        return 128 + sig;
    }
    return 0;
}

}  // namespace

Command add_pathfinder_command(CLI::App& parent) {
    auto args = std::make_shared<PathfinderArgs>();
    CLI::App* app = parent.add_subcommand(
        "pathfinder",
        "Multi-path Pathfinder: normal approximations along L-BFGS paths, their draws pooled "
        "and importance-resampled; CmdStan's pathfinder CSV and the summary");
    PathfinderOptions& o = args->options;
    app->add_option("model", args->model, "The Stan program (.stan)")->required();
    app->add_option("--data", args->data,
                    "Data: CmdStan JSON (.json), R dump (.R, .rdump) or CSV (.csv); repeatable")
        ->allow_extra_args(false);
    app->add_option("--num-paths", o.num_paths, "Single-path Pathfinders run")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--num-draws", o.num_draws, "Draws from each path's approximation")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--num-psis-draws", o.num_psis_draws,
                    "Draws kept by importance resampling of the pooled draws (num_paths > 1)")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--psis-resample", args->psis_resample,
                    "1: resample the pooled draws by their Pareto-smoothed importance weights; 0: "
                    "write every path's draws")
        ->check(CLI::IsMember({"0", "1", "false", "true"}))
        ->capture_default_str();
    app->add_option("--num-elbo-draws", o.num_elbo_draws,
                    "Draws per ELBO estimate of each approximation along a path")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--max-lbfgs-iters", o.max_lbfgs_iters, "L-BFGS iterations per path at most")
        ->check(positive_int())
        ->capture_default_str();
    add_lbfgs_options(app, o);
    app->add_option("--init", args->init,
                    "Radius of uniform initial values in unconstrained space (a point per path), "
                    "or a JSON / R dump file of every parameter's initial value (every path)")
        ->capture_default_str();
    app->add_option("--seed", o.seed, "Random seed (initial values, draws, _rng calls)")
        ->check(seed_value())
        ->capture_default_str();
    app->add_option("--threads", o.threads, "Threads of the gradient program (0: all cores)")
        ->check(non_negative_int())
        ->capture_default_str();
    app->add_option("--output", args->output, "CSV file to write")->capture_default_str();
    add_trace_options(*app, args->diagnostic_file,
                      "CSV of the paths' traces: a row per iterate of each path (path, iter, "
                      "time_in_seconds, lp__, grad_norm, step_norm, alpha, its approximation's "
                      "ELBO and ELBO_mcse, gradient_evaluations)",
                      args->options.refresh,
                      "Iterations between a path's progress lines on stderr (CmdStan's "
                      "refresh); 0: none");
    add_sig_figs_option(*app, args->sig_figs);
    add_report_option(*app, args->report);
    app->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
    return {app, [args] { return run_pathfinder(*args); }};
}

}  // namespace advi::cli
