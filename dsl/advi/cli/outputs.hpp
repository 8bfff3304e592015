// What the commands that write a CmdStan CSV (fit, laplace, optimize) share: the refusal of an
// output path before a long run, the inputs it is checked against, the run's files for the
// settings header, and the transformed parameters and generated quantities as column blocks.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <advi/engine/optimizer.hpp>
#include <advi/fit/cmdstan_output.hpp>
#include <advi/stan/report.hpp>

namespace CLI {
class App;
}

namespace advi::cli {

// Refuses, before a long run rather than after it, an output that would land in a directory
// that does not exist, or on a directory, or on one of the inputs (`inputs`: the model file,
// the data files, a mode file): the same file by identity (device and inode), whatever the
// spelling, a link or a hard link. `inputs` pairs a file with what it is ("data file").
struct InputFile {
    std::string path;
    std::string what;
};
// `option` names the output in the message ("--output", "--csv_filename", "--report").
void check_output_path(const std::string& output, const std::vector<InputFile>& inputs,
                       std::string_view option = "--output");

// The model file and the data files, as check_output_path's inputs.
[[nodiscard]] std::vector<InputFile> model_and_data_inputs(const std::string& model,
                                                           const std::vector<std::string>& data);

// The run's files for the settings header: the model's name as CmdStan writes it (the file's
// stem + "_model"), the data files joined by ", ", the output file.
[[nodiscard]] CsvRunInfo csv_run_info(const std::string& model,
                                      const std::vector<std::string>& data,
                                      const std::string& output);

// --sig-figs, CmdStan's sig_figs: significant digits of the CSV's values, 1 to 18, or -1 (the
// default: the shortest text that reads back as the same double).
void add_sig_figs_option(CLI::App& app, int& sig_figs);

// Writes `csv` to `path` (write_cmdstan_csv_file) with the run's sig_figs.
void write_csv(const std::string& path, CsvOutput csv, const CsvRunInfo& run);

// --diagnostic-file FILE (`rows`: what a row of it is) and --refresh N (`progress`: what it
// paces), as every method takes them.
void add_trace_options(CLI::App& app, std::string& diagnostic_file, std::string_view rows,
                       int& refresh, std::string_view progress);

// A second output of a run (`option`: "--diagnostic-file", "--report"), refused before the run
// when it is one of the run's other outputs (`outputs`: each path with what it is, "--output
// file"; an empty path is none) or, by check_output_path's rules, an input. Nothing when `path`
// is empty.
void check_extra_output_path(const std::string& path, std::string_view option,
                             const std::vector<InputFile>& outputs,
                             const std::vector<InputFile>& inputs);

// --diagnostic-file: refused (before the run) when it is the --output file or an input.
void check_diagnostic_path(const std::string& diagnostic, const std::string& output,
                           const std::vector<InputFile>& inputs);

// A method's trace as CSV (`--diagnostic-file`): the column names, then a row per entry;
// whole numbers (iterations, counts) exactly, the rest to `sig_figs` digits (-1: the shortest
// text that reads back the same), nan and inf as Stan writes them. `comments` go first as
// `# ` lines (what the rows are, when there are none). Written as write_output_file writes.
void write_trace_csv(const std::string& path, const std::vector<std::string>& columns,
                     const std::vector<std::vector<double>>& rows, int sig_figs,
                     const std::vector<std::string>& comments = {});

// An optimiser's trace (optimize, laplace's mode search): the columns iter, time_in_seconds,
// lp__, grad_norm, step_norm, alpha, gradient_evaluations, and a row's values.
[[nodiscard]] std::vector<std::string> optimizer_trace_columns();
[[nodiscard]] std::vector<double> optimizer_trace_values(const OptimizerTraceRow& row);

// --refresh N for the optimisers: CmdStan's progress rows ("Iter  log prob  ||dx||  ||grad||
// alpha  # evals") on stderr at iteration 0 and every multiple of N; 0: none. Returns the
// callback for OptimizeOptions::on_row (empty for 0).
[[nodiscard]] std::function<void(const OptimizerTraceRow&)> optimizer_progress(int refresh);

// Transformed parameters and generated quantities, a column block each, at the mean (or
// mode) and at every draw.
[[nodiscard]] std::vector<ExtraBlock> extra_blocks(const stan::ReportedDraws& reported);

}  // namespace advi::cli
