// `advi optimize model.stan --data data.json`: the posterior mode (L-BFGS or Newton-CG) in
// CmdStan's optimize CSV, options by CmdStan's names (`optimize algorithm=lbfgs jacobian=1
// iter=...` becomes --algorithm lbfgs --jacobian 1 --iter ...).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/fit/optimize.hpp>
#include <advi/fit/optimize_output.hpp>
#include <advi/io/cmdstan_csv.hpp>
#include <advi/io/read_data.hpp>
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

struct OptimizeArgs {
    std::string model;
    int sig_figs = -1;
    std::vector<std::string> data;
    OptimizeOptions options;
    std::string algorithm = "lbfgs";
    std::string jacobian = "0";
    std::string init = "2";
    std::string output = "output.csv";
    bool quiet = false;
    std::string diagnostic_file;  // empty: none
    int refresh = 0;
    std::string report;  // --report: empty, none
};

int run_optimize(const OptimizeArgs& args) {
    std::vector<InputFile> inputs = model_and_data_inputs(args.model, args.data);
    if (!init_radius(args.init))
        inputs.push_back({args.init, "init file"});
    check_output_path(args.output, inputs);
    check_diagnostic_path(args.diagnostic_file, args.output, inputs);
    check_report_path(args.report, args.output, args.diagnostic_file, inputs);
    const std::vector<fs::path> data_files(args.data.begin(), args.data.end());
    const auto loaded = load_model(args.model, data_files, args.options.seed);
    const ModelSpec spec = loaded->lowered->model().spec();

    OptimizeOptions options = args.options;
    options.algorithm =
        args.algorithm == "newton" ? OptimizerAlgorithm::Newton : OptimizerAlgorithm::Lbfgs;
    options.jacobian = args.jacobian == "1" || args.jacobian == "true";
    CsvRunInfo run = csv_run_info(args.model, args.data, args.output);
    run.sig_figs = args.sig_figs;
    run.diagnostic_file = args.diagnostic_file;
    run.refresh = args.refresh;
    run.refresh_default = 0;
    if (const auto radius = init_radius(args.init)) {
        options.init_radius = *radius;
    } else {
        options.init = init_from_file(spec, args.init);
        run.init_file = args.init;
    }
    // Held until the output is written: a first signal stops the search after its current
    // iteration, and the point reached is written, marked not converged.
    const StopSignals signals;
    options.interrupt = &signals.flag();
    if (!args.quiet)
        options.on_row = optimizer_progress(args.refresh);
    const Optimum mode = advi::optimize(spec, options);
    if (!args.diagnostic_file.empty()) {
        std::vector<std::vector<double>> rows;
        for (const OptimizerTraceRow& row : mode.result().trace)
            rows.push_back(optimizer_trace_values(row));
        write_trace_csv(args.diagnostic_file, optimizer_trace_columns(), rows, args.sig_figs);
    }

    const OptimizeStatus status = mode.status();
    // No point to write: the search could not start, or the density has no maximum and the
    // point reached means nothing.
    if (status == OptimizeStatus::NoMode || status == OptimizeStatus::NonFiniteStart)
        throw FitError(mode.message());

    // Transformed parameters and generated quantities at the mode, a column block each; the
    // _rng calls draw from the run's seed.
    stan::Reporter reporter(*loaded->lowered);
    std::vector<ExtraBlock> extra;
    std::string extra_rows;
    if (reporter.size() > 0) {
        std::mt19937_64 rng(options.seed);
        const Eigen::VectorXd values = reporter.evaluate(mode.theta(), rng, "the mode");
        Eigen::Index offset = 0;
        for (const stan::ReportedValue& v : reporter.values()) {
            const std::vector<std::string> names = stan_column_names(v.name, v.dims, v.complex);
            const auto size = static_cast<Eigen::Index>(names.size());
            extra.push_back({.name = v.name,
                             .dims = v.dims,
                             .complex = v.complex,
                             .at_mean = values.segment(offset, size),
                             .draws = {}});
            for (Eigen::Index k = 0; k < size; ++k)
                extra_rows += fmt::format("{:<20} {:>14.6g}\n", names[k], values[offset + k]);
            offset += size;
        }
    }
    write_csv(args.output,
              cmdstan_optimize_output(mode, extra, cmdstan_optimize_settings(options, run)), run);
    std::cout << mode.summary(1) << extra_rows << std::flush;
    if (!args.quiet)
        std::cerr << fmt::format("Output written to {}\n", args.output);
    write_report(args.report, args.output, "", args.quiet);
    if (const int sig = signals.received()) {
        std::cerr << fmt::format(
            "advi: interrupted: {}; the output holds the point reached, "
            "not converged\n",
            mode.message());
        return 128 + sig;
    }
    if (!mode.converged()) {
        std::cerr << fmt::format(
            "advi: warning: {}; the output holds the last point, which is "
            "not a converged mode\n",
            mode.message());
    }
    return 0;
}

}  // namespace

Command add_optimize_command(CLI::App& parent) {
    auto args = std::make_shared<OptimizeArgs>();
    CLI::App* app = parent.add_subcommand(
        "optimize",
        "Find the posterior mode (L-BFGS, or Newton-CG), write CmdStan's optimize CSV, print it");
    OptimizeOptions& o = args->options;
    app->add_option("model", args->model, "The Stan program (.stan)")->required();
    app->add_option("--data", args->data,
                    "Data: CmdStan JSON (.json), R dump (.R, .rdump) or CSV (.csv); repeatable")
        ->allow_extra_args(false);
    app->add_option("--algorithm", args->algorithm,
                    "lbfgs, or newton (trust-region Newton-CG on Hessian-vector products)")
        ->check(CLI::IsMember({"lbfgs", "newton"}))
        ->capture_default_str();
    app->add_option("--jacobian", args->jacobian,
                    "1: maximise with the log-Jacobian (the mode in unconstrained space); 0: "
                    "without (the mode in constrained space)")
        ->check(CLI::IsMember({"0", "1", "false", "true"}))
        ->capture_default_str();
    app->add_option("--iter", o.iter, "Maximum number of iterations")
        ->check(positive_int())
        ->capture_default_str();
    add_lbfgs_options(app, o);
    app->add_option("--init", args->init,
                    "Radius of uniform initial values in unconstrained space, or a JSON / R "
                    "dump file of every parameter's initial value")
        ->capture_default_str();
    app->add_option("--seed", o.seed, "Random seed (initial values, _rng calls)")
        ->check(seed_value())
        ->capture_default_str();
    app->add_option("--threads", o.threads, "Threads of the gradient program (0: all cores)")
        ->check(non_negative_int())
        ->capture_default_str();
    app->add_option("--output", args->output, "CSV file to write")->capture_default_str();
    add_trace_options(*app, args->diagnostic_file,
                      "CSV of the search's trace: a row per accepted step (iter, "
                      "time_in_seconds, lp__, grad_norm, step_norm, alpha, gradient_evaluations)",
                      args->refresh,
                      "Iterations between progress rows on stderr (CmdStan's refresh); 0: none");
    add_sig_figs_option(*app, args->sig_figs);
    add_report_option(*app, args->report);
    app->add_flag("--quiet,-q", args->quiet, "No messages on stderr but errors and warnings");
    return {app, [args] { return run_optimize(*args); }};
}

}  // namespace advi::cli
