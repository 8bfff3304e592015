// --report: the path's checks before the run, the page after it.
#include <advi/cli/report_option.hpp>

#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/report/html_report.hpp>

#include <CLI/CLI.hpp>

namespace advi::cli {

void add_report_option(CLI::App& app, std::string& report) {
    app.add_option("--report", report,
                   "HTML page of the fit, written after the CSV: the verdict, the ELBO trace (with "
                   "--diagnostic-file), Pareto k-hat against the draws, the marginals and the most "
                   "correlated pairs (as `advi report`)");
}

void check_report_path(const std::string& report, const std::string& output,
                       const std::string& diagnostic_file, const std::vector<InputFile>& inputs) {
    check_extra_output_path(report, "--report",
                            {
                                {output,          "--output file"    },
                                {diagnostic_file, "--diagnostic-file"}
    },
                            inputs);
}

void write_report(const std::string& report, const std::string& csv,
                  const std::string& diagnostic_file, bool quiet) {
    if (report.empty())
        return;
    std::optional<std::filesystem::path> trace;
    if (!diagnostic_file.empty())
        trace = diagnostic_file;
    advi::report::write_html_report(csv, trace, report);
    if (!quiet)
        std::cerr << fmt::format("Report written to {}\n", report);
}

}  // namespace advi::cli
