// `advi generate-quantities model.stan --data data.json --fitted fit.csv --output gq.csv`:
// CmdStan's standalone generated quantities (`generate_quantities fitted_params=fit.csv`): the
// program's transformed parameters and generated quantities recomputed at every row of a fitted
// CSV (advi's of any method, or CmdStan's own), the _rng calls drawn from --seed, written in
// CmdStan's layout (the fitted file's sampler columns and parameters, then the quantities).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/fit/generated_quantities_output.hpp>
#include <advi/stan/report.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/load.hpp>
#include <advi/cli/outputs.hpp>
#include <advi/cli/validators.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

namespace fs = std::filesystem;

struct GenerateArgs {
    std::string model;
    std::vector<std::string> data;
    std::string fitted;
    std::string output = "output.csv";
    std::uint64_t seed = 0;
    int sig_figs = -1;
    bool quiet = false;
};

int run_generate(const GenerateArgs& args) {
    std::vector<InputFile> inputs = model_and_data_inputs(args.model, args.data);
    inputs.push_back({args.fitted, "fitted params file"});
    check_output_path(args.output, inputs);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<fs::path> data_files(args.data.begin(), args.data.end());
    const auto loaded = load_model(args.model, data_files, args.seed);
    stan::LoweredProgram& lowered = *loaded->lowered;
    if (lowered.generated_quantities().empty())
        throw Error(
            fmt::format("`{}` has no generated quantities: there is nothing to generate "
                        "(CmdStan refuses such a program too)",
                        args.model));
    const ModelSpec spec = lowered.model().spec();
    const FittedParams fitted = read_fitted_params(spec, args.fitted);

    stan::Reporter reporter(lowered);
    std::mt19937_64 rng(args.seed);
    stan::ReportedDraws reported;
    reported.values = reporter.values();
    reported.draws.resize(fitted.theta.rows(), reporter.size());
    for (Eigen::Index r = 0; r < fitted.theta.rows(); ++r) {
        reported.draws.row(r) = reporter
                                    .evaluate(fitted.theta.row(r).transpose(), rng,
                                              fmt::format("row {} of `{}`", r + 1, args.fitted))
                                    .transpose();
    }
    reported.at_mean = reported.draws.row(0).transpose();

    CsvRunInfo run = csv_run_info(args.model, args.data, args.output);
    run.sig_figs = args.sig_figs;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    write_csv(args.output,
              cmdstan_generate_quantities_output(
                  spec, fitted, extra_blocks(reported),
                  cmdstan_generate_quantities_settings(run, fitted, args.seed), seconds),
              run);
    const Eigen::Index rows = fitted.theta.rows();
    std::cout << fmt::format("Generated quantities at the {} draw{} of {} ({}{}):\n", rows,
                             rows == 1 ? "" : "s", args.fitted,
                             fitted.method.empty() ? "method not named" : fitted.method,
                             fitted.mean_row_left_out ? "; its mean row left out" : "")
              << fmt::format("{:<20} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "", "mean", "sd", "5%",
                             "50%", "95%")
              << stan::summary_rows(reported) << std::flush;
    if (!args.quiet)
        std::cerr << fmt::format("Output written to {}\n", args.output);
    return 0;
}

}  // namespace

Command add_generate_quantities_command(CLI::App& parent) {
    auto args = std::make_shared<GenerateArgs>();
    CLI::App* app = parent.add_subcommand(
        "generate-quantities",
        "Recompute a program's transformed parameters and generated quantities at every row of "
        "a fitted CSV (CmdStan's generate_quantities), write them in CmdStan's layout");
    app->add_option("model", args->model, "The Stan program (.stan)")->required();
    app->add_option("--data", args->data,
                    "Data: CmdStan JSON (.json), R dump (.R, .rdump) or CSV (.csv); repeatable")
        ->allow_extra_args(false);
    app->add_option("--fitted,--fitted-params", args->fitted,
                    "The fitted draws: a Stan CSV (advi's of any method, or CmdStan's) with a "
                    "column for every parameter of the program")
        ->required()
        ->check(CLI::ExistingFile);
    app->add_option("--seed", args->seed, "Random seed of the _rng calls")
        ->check(seed_value())
        ->capture_default_str();
    app->add_option("--output", args->output, "CSV file to write")->capture_default_str();
    add_sig_figs_option(*app, args->sig_figs);
    app->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
    return {app, [args] { return run_generate(*args); }};
}

}  // namespace advi::cli
