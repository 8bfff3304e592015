// `advi laplace model.stan --data data.json [--mode mode.csv|mode.json] --output out.csv`: the
// Laplace approximation at the mode (read from --mode, else found by optimize with the same
// --jacobian), written in CmdStan's laplace CSV layout, with the summary and PSIS's verdict;
// options by CmdStan's names (`laplace mode=... jacobian=... draws=...`).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/fit/laplace.hpp>
#include <advi/fit/laplace_output.hpp>
#include <advi/io/cmdstan_csv.hpp>
#include <advi/stan/report.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/init_option.hpp>
#include <advi/cli/load.hpp>
#include <advi/cli/outputs.hpp>
#include <advi/cli/report_option.hpp>
#include <advi/cli/validators.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

namespace fs = std::filesystem;

struct LaplaceArgs {
    std::string model;
    int sig_figs = -1;
    std::vector<std::string> data;
    std::string mode;
    std::string jacobian = "1";
    std::string init = "2";  // where optimize starts without --mode: CmdStan's default
    LaplaceOptions options;
    std::string output = "output.csv";
    bool quiet = false;
    std::string diagnostic_file;  // empty: none
    int refresh = 0;
    std::string report;  // --report: empty, none
};

int run_laplace(const LaplaceArgs& args) {
    std::vector<InputFile> inputs = model_and_data_inputs(args.model, args.data);
    if (!args.mode.empty())
        inputs.push_back({args.mode, "mode file"});
    if (!init_radius(args.init))
        inputs.push_back({args.init, "init file"});
    check_output_path(args.output, inputs);
    check_diagnostic_path(args.diagnostic_file, args.output, inputs);
    check_report_path(args.report, args.output, args.diagnostic_file, inputs);
    const std::vector<fs::path> data_files(args.data.begin(), args.data.end());
    const auto loaded = load_model(args.model, data_files, args.options.seed);
    const ModelSpec spec = loaded->lowered->model().spec();

    LaplaceOptions options = args.options;
    options.jacobian = args.jacobian == "1" || args.jacobian == "true";
    CsvRunInfo run = csv_run_info(args.model, args.data, args.output);
    run.sig_figs = args.sig_figs;
    run.diagnostic_file = args.diagnostic_file;
    run.refresh = args.refresh;
    run.refresh_default = 0;
    if (!args.mode.empty()) {
        options.mode = read_mode_file(spec, args.mode);
        options.mode_source = "file " + args.mode;
    } else if (const auto radius = init_radius(args.init)) {
        options.optimize.init_radius = *radius;  // drawn with --seed, as `advi optimize`
        run.init_file = args.init;
    } else {
        options.optimize.init = init_from_file(spec, args.init);
        run.init_file = args.init;
    }
    // The mode search's trace, kept as it goes: written also when the search finds no mode.
    std::vector<std::vector<double>> trace;
    const auto progress = args.quiet ? nullptr : optimizer_progress(args.refresh);
    options.optimize.on_row = [&](const OptimizerTraceRow& row) {
        trace.push_back(optimizer_trace_values(row));
        if (progress)
            progress(row);
    };
    const auto write_trace = [&] {
        if (args.diagnostic_file.empty())
            return;
        std::vector<std::string> comments;
        if (!args.mode.empty())
            comments.push_back(
                fmt::format("the mode was read from {}: no search, no rows", args.mode));
        write_trace_csv(args.diagnostic_file, optimizer_trace_columns(), trace, args.sig_figs,
                        comments);
    };
    const LaplaceFit fit = [&] {
        try {
            return advi::laplace(spec, options);
        } catch (const FitError&) {
            write_trace();  // what the search did before it failed
            throw;
        }
    }();
    write_trace();

    // Generated quantities per draw, as for ADVI's draws; the _rng calls seeded with --seed.
    const stan::ReportedDraws reported = stan::report(*loaded->lowered, fit.as_fit(), options.seed);
    write_csv(args.output,
              cmdstan_laplace_output(fit, extra_blocks(reported),
                                     cmdstan_laplace_settings(options, run, args.mode)),
              run);
    std::cout << fit.summary(1) << stan::summary_rows(reported) << std::flush;
    if (!args.quiet) {
        std::cerr << fmt::format("Output written to {}\n", args.output);
    }
    write_report(args.report, args.output, "", args.quiet);
    return 0;
}

}  // namespace

Command add_laplace_command(CLI::App& parent) {
    auto args = std::make_shared<LaplaceArgs>();
    CLI::App* app = parent.add_subcommand(
        "laplace",
        "Draw from the Laplace approximation at the mode, write CmdStan's laplace CSV, print "
        "the summary");
    LaplaceOptions& o = args->options;
    app->add_option("model", args->model, "The Stan program (.stan)")->required();
    app->add_option("--data", args->data,
                    "Data: CmdStan JSON (.json), R dump (.R, .rdump) or CSV (.csv); repeatable")
        ->allow_extra_args(false);
    CLI::Option* mode =
        app->add_option("--mode", args->mode,
                        "The mode: an optimize CSV (.csv) or JSON of the constrained parameters "
                        "(.json); default: found by optimize with the same --jacobian")
            ->check(CLI::ExistingFile);
    app->add_option("--jacobian", args->jacobian,
                    "1: the mode and Hessian of the density with the log-Jacobian (the "
                    "posterior of the unconstrained parameters); 0: without it")
        ->check(CLI::IsMember({"0", "1", "true", "false"}))
        ->capture_default_str();
    app->add_option("--iter", o.optimize.iter,
                    "Without --mode: iterations of optimize (L-BFGS) at most")
        ->check(positive_int())
        ->capture_default_str()
        ->excludes(mode);
    app->add_option("--init", args->init,
                    "Without --mode: where optimize starts, as `advi optimize --init`: a radius "
                    "of uniform initial values in unconstrained space, or a JSON / R dump file "
                    "of every parameter's initial value")
        ->capture_default_str()
        ->excludes(mode);
    app->add_option("--draws", o.draws, "Draws from the approximation")
        ->check(positive_int())
        ->capture_default_str();
    app->add_option("--regularization", o.regularization,
                    "Add this times I to the negative Hessian (default: none, and a negative "
                    "Hessian that is not positive definite is an error)")
        ->check(positive_real());
    app->add_option("--seed", o.seed, "Random seed; the same seed gives the same draws")
        ->check(seed_value())
        ->capture_default_str();
    app->add_option("--threads", o.threads, "Threads of the gradient program (0: all cores)")
        ->check(non_negative_int())
        ->capture_default_str();
    app->add_option("--output", args->output, "CSV file to write")->capture_default_str();
    add_trace_options(*app, args->diagnostic_file,
                      "CSV of the mode search's trace (without --mode): a row per accepted step "
                      "(iter, time_in_seconds, lp__, grad_norm, step_norm, alpha, "
                      "gradient_evaluations)",
                      args->refresh,
                      "Iterations between the mode search's progress rows on stderr (CmdStan's "
                      "refresh); 0: none");
    add_sig_figs_option(*app, args->sig_figs);
    add_report_option(*app, args->report);
    app->add_flag("--quiet,-q", args->quiet, "No progress on stderr");
    return {app, [args] { return run_laplace(*args); }};
}

}  // namespace advi::cli
