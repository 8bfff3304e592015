// `advi report FIT.csv [--diagnostic-file TRACE.csv] -o report.html`: the fit's HTML report
// from a CSV that any method of ours (or CmdStan) wrote, without running anything.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/cli/commands.hpp>
#include <advi/cli/outputs.hpp>
#include <advi/cli/report_option.hpp>
#include <CLI/CLI.hpp>

namespace advi::cli {
namespace {

struct ReportArgs {
    std::string fit_csv;
    std::string diagnostic_file;  // empty: none
    std::string output = "report.html";
    bool quiet = false;
};

int run_report(const ReportArgs& args) {
    std::vector<InputFile> inputs{
        {args.fit_csv, "fit CSV"}
    };
    if (!args.diagnostic_file.empty())
        inputs.push_back({args.diagnostic_file, "diagnostic file"});
    check_output_path(args.output, inputs);
    write_report(args.output, args.fit_csv, args.diagnostic_file, args.quiet);
    return 0;
}

}  // namespace

Command add_report_command(CLI::App& parent) {
    auto args = std::make_shared<ReportArgs>();
    CLI::App* app = parent.add_subcommand(
        "report",
        "Write a fit's HTML report (verdict, ELBO trace, Pareto k-hat against the draws, "
        "marginals, most correlated pairs) from its CSV");
    app->add_option("fit", args->fit_csv,
                    "The fit's CSV (advi fit, optimize, laplace or pathfinder; or CmdStan's)")
        ->required();
    app->add_option("--diagnostic-file", args->diagnostic_file,
                    "The ELBO trace that `advi fit --diagnostic-file` wrote");
    app->add_option("--output,-o", args->output, "HTML file to write")->capture_default_str();
    app->add_flag("--quiet,-q", args->quiet, "No message on stderr but errors");
    return {app, [args] { return run_report(*args); }};
}

}  // namespace advi::cli
