// `advi summary`: Stan CSV files summarised again after the run, as CmdStan's stansummary does
// (its columns: Mean, MCSE, StdDev, MAD, the percentiles asked, ESS_bulk, ESS_tail, R_hat), with
// what only advi's files hold beneath: the ELBO and its Monte Carlo error, the verdict (PSIS
// k-hat, the importance-sampling ESS), iterations and evaluations, why the run stopped. It
// reads every CSV advi writes (fit, optimize, laplace, pathfinder, generate-quantities) and
// CmdStan's own (sample, variational, ...): the files are the chains.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <advi/fit/chain_statistics.hpp>
#include <advi/io/csv_reader.hpp>

namespace advi::report {

struct CsvSummary {
    std::string model;      // "model = " of the first file
    std::string method;     // "method = ": variational, optimize, laplace, pathfinder, sample...
    std::string algorithm;  // variational's "algorithm = " (meanfield, fullrank, ...)
    std::string writer;     // "advi 0.1.0", "CmdStan 2.36.0" (stan_version_*), or "unknown"
    std::vector<std::string> files;
    std::vector<Eigen::Index> draws;  // per file: the rows summarised
    bool mean_rows_left_out = false;  // variational: each file's first row is q's mean
    std::vector<double> probabilities;
    std::vector<std::string> percentile_labels;  // "5%", "2.5%"
    std::vector<std::string> names;              // Stan's labels: beta[1], Sigma[2,1]
    std::vector<ChainStatistics> rows;
    // Per file, the lines below the table: its ELBO, verdict, k-hat, evaluations, why it
    // stopped, where it started (as the file's trailer says), or a k-hat computed here from its
    // log_p__ and log_g__ (or lp__ and lp_approx__) columns where the trailer has none.
    std::vector<std::vector<std::string>> notes;
};

// Reads `files` (read_stan_csv: a DataError or ParseError names the file) and summarises them
// as chains of one run. Percentiles are in (0, 100), increasing. Throws Error naming the file
// when a file has no rows to summarise, or when its columns are not the first file's (CmdStan's
// rule for chains), or a percentile is outside (0, 100) or out of order.
[[nodiscard]] CsvSummary summarize_csv_files(const std::vector<std::filesystem::path>& files,
                                             const std::vector<double>& percentiles);

// stansummary's percentile spelling: "5,50,95" or "5 50 95" (commas or spaces), each a number
// in (0, 100), increasing. Throws Error saying which value is wrong.
[[nodiscard]] std::vector<double> parse_percentiles(const std::string& text);

// The table and the notes as text, every value to `sig_figs` significant digits (ESS as whole
// numbers, R-hat to 3 digits).
[[nodiscard]] std::string summary_text(const CsvSummary& s, int sig_figs);

// stansummary's --csv_filename file: "name,Mean,MCSE,...,R_hat", a row per quantity (the name
// quoted), the values to `sig_figs` significant digits (6 when -1, as stansummary), then the
// notes as `# ` comment lines.
[[nodiscard]] std::string summary_csv(const CsvSummary& s, int sig_figs);

// Stan's column name as stansummary prints it: "beta.1" -> "beta[1]", "Sigma.2.1" ->
// "Sigma[2,1]", "z.1.real" -> "z[1,real]"; a name without a dot as it is.
[[nodiscard]] std::string bracket_label(std::string_view column);

}  // namespace advi::report
