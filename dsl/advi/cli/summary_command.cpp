// `advi summary fit.csv [more.csv ...]`: CmdStan's stansummary for the CSV files of a run
// (advi's own, any method, or CmdStan's): the table of Mean, MCSE, StdDev, MAD, percentiles,
// ESS_bulk, ESS_tail, R_hat, then what advi's trailer says of the run (ELBO, verdict, k-hat,
// evaluations, why it stopped). stansummary's options by its own spellings: --percentiles,
// --sig_figs, --csv_filename.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/output_file.hpp>
#include <advi/report/csv_summary.hpp>

#include <advi/cli/commands.hpp>
#include <advi/cli/outputs.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

struct SummaryArgs {
    std::vector<std::string> files;
    std::string percentiles = "5,50,95";
    int sig_figs = 2;
    std::string csv_filename;
    bool sig_figs_given = false;
};

int run_summary(const SummaryArgs& args) {
    using namespace advi::report;
    const std::vector<double> percentiles = parse_percentiles(args.percentiles);
    if (!args.csv_filename.empty()) {
        std::vector<InputFile> inputs;
        for (const std::string& f : args.files) inputs.push_back({f, "CSV file summarised"});
        check_output_path(args.csv_filename, inputs, "--csv_filename");
    }
    const std::vector<std::filesystem::path> files(args.files.begin(), args.files.end());
    const CsvSummary summary = summarize_csv_files(files, percentiles);
    std::cout << summary_text(summary, args.sig_figs) << std::flush;
    if (!args.csv_filename.empty()) {
        // stansummary's rule: the CSV's values to --sig_figs digits when given, else 6.
        const std::string text = summary_csv(summary, args.sig_figs_given ? args.sig_figs : -1);
        write_output_file(args.csv_filename, [&](const WriteText& write) { write(text); });
    }
    return 0;
}

}  // namespace

Command add_summary_command(CLI::App& parent) {
    auto args = std::make_shared<SummaryArgs>();
    CLI::App* app = parent.add_subcommand(
        "summary",
        "Summarise Stan CSV files as CmdStan's stansummary (the files are the chains of one run), "
        "with advi's ELBO, verdict and convergence beneath");
    app->add_option("files", args->files, "Stan CSV files: advi's (any method) or CmdStan's")
        ->required();
    app->add_option("-p,--percentiles", args->percentiles,
                    "Percentiles to report, comma- or space-separated, in (0, 100), increasing")
        ->capture_default_str();
    app->add_option("-s,--sig_figs,--sig-figs", args->sig_figs,
                    "Significant figures of the table's values, 1 to 18")
        ->check(CLI::Range(1, 18))
        ->capture_default_str();
    app->add_option("-c,--csv_filename,--csv-filename", args->csv_filename,
                    "Also write the statistics to this CSV file (values to --sig_figs digits, 6 "
                    "by default)");
    return {app, [args, app] {
                args->sig_figs_given = app->count("--sig_figs") > 0;
                return run_summary(*args);
            }};
}

}  // namespace advi::cli
