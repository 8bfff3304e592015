// `--report FILE` on every method (fit, optimize, laplace, pathfinder): once the CSV (and the
// diagnostic file, where the method writes one) is written, the fit's HTML report is made from
// those files, as `advi report` makes it.
#pragma once

#include <string>
#include <vector>

#include <advi/cli/outputs.hpp>

namespace CLI {
class App;
}

namespace advi::cli {

void add_report_option(CLI::App& app, std::string& report);

// Refuses, before the run, a report path that is the --output or --diagnostic-file (empty:
// none), one of the inputs, or in a directory that does not exist. Nothing when report is empty.
void check_report_path(const std::string& report, const std::string& output,
                       const std::string& diagnostic_file, const std::vector<InputFile>& inputs);

// Writes the report of `csv` (and `diagnostic_file`, when not empty) to `report`; nothing when
// report is empty. "Report written to FILE" on stderr unless quiet.
void write_report(const std::string& report, const std::string& csv,
                  const std::string& diagnostic_file, bool quiet);

}  // namespace advi::cli
