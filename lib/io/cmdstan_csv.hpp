// A fit written in CmdStan's variational output layout (Stan CSV), so that tools that read
// CmdStan's variational CSV (cmdstanpy, cmdstanr, posterior, stansummary) read ours: `#`
// settings, the column names, the mean row, one row per draw of q, trailing `#` comments.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <advi/advi/fit.hpp>
#include <advi/advi/options.hpp>

namespace advi {

// A Stan CSV file as lines. Comment lines are held without their "# " (an empty line is
// written as a bare "#"), so that "  variational" becomes CmdStan's "#   variational".
struct CsvOutput {
    std::vector<std::string> header;      // settings, above the column names
    std::vector<std::string> columns;     // the header row
    std::vector<std::string> adaptation;  // between the header row and the mean row
    Eigen::VectorXd mean_row;             // the first row: q's mean
    Eigen::MatrixXd draws;                // one row per draw, one column per name
    std::vector<std::string> trailer;     // after the last row
};

// Writes the file's text. Throws ShapeError when a row does not have one value per column.
void write_cmdstan_csv(std::ostream& os, const CsvOutput& output);

// Writes `output` to a temporary file beside `path` and renames it into place, so that a
// reader (or an interrupted run) sees the old file or the whole new one, never a part.
// Throws Error naming the file when it cannot be written; the temporary file is removed.
void write_cmdstan_csv_file(const std::filesystem::path& path, const CsvOutput& output);

// Stan's flattened column names of a variable with the declared dims (array dims first, then
// the vector's size or the matrix's rows and columns): 1-based indices after dots, in
// column-major order over all indices, the first index fastest: {2, 3} gives Sigma.1.1,
// Sigma.2.1, Sigma.1.2, ...; no dims give the bare name; a zero dim gives no columns.
// Throws ShapeError for a negative dim.
[[nodiscard]] std::vector<std::string> stan_column_names(std::string_view name,
                                                         std::span<const std::int64_t> dims);

// A block of columns that the model's latents do not give: transformed parameters and
// generated quantities (filled in by the Stan front end). Values are flattened in the order
// of stan_column_names(name, dims).
struct ExtraBlock {
    std::string name;
    std::vector<std::int64_t> dims;
    Eigen::VectorXd at_mean;  // the values in the mean row
    Eigen::MatrixXd draws;    // one row per draw of the fit
};

// Where a run came from, for the settings header.
struct CsvRunInfo {
    std::string model = "model";  // CmdStan writes the model's name (bernoulli_model)
    std::string data_file;        // empty: none
    std::string init_file;        // empty: Options::init or zeros
    std::string output_file = "output.csv";
};

// The settings comment lines in CmdStan's layout ("model = ...", "method = variational",
// "  variational", "    algorithm = meanfield (Default)", ..., "id = 1", "data", "  file = ...",
// "random", "  seed = ...", "output", "  file = ..."), with "(Default)" after a value equal to
// Options{}'s.
[[nodiscard]] std::vector<std::string> cmdstan_settings(const Options& options,
                                                        const CsvRunInfo& run = {});

// Lays out a fit as CmdStan does: columns lp__, log_p__, log_g__, every latent of the model in
// declaration order (constrained values), then the extra blocks. The mean row holds T^-1(mu)
// and, as CmdStan's, 0 for lp__, log_p__ and log_g__; draw i holds lp__ = 0 (CmdStan's value
// in variational output), Fit::log_p()[i], Fit::log_g()[i] (normalised, where CmdStan drops
// q's constants), theta_draws().row(i) (draws whose log_p__ was not finite were dropped and
// replaced by the fit).
// `header`: the settings lines; empty means cmdstan_settings(options). The adaptation lines
// are CmdStan's ("Stepsize adaptation complete.", "eta = ..."), when adapt_engaged. The
// trailer: "eta = ", "iterations = ", "ELBO = " (the last estimate), "converged = 1|0",
// "convergence: <stop reason>", "log_p__ at mean = ", "log_g__ at mean = ", "dropped_draws = "
// (non-finite draws dropped while fitting), "nonfinite_log_p_draws = " (output draws
// dropped and replaced because their log_p__ was not finite), " Elapsed Time: <s> seconds (Total)"; without adaptation,
// "Stepsize adaptation not engaged." before its eta line, where cmdstanpy looks for eta.
// Throws ShapeError when an extra block's values do not match its dims or the fit's draws,
// ModelError for a column name given twice or a Fit without log_p/log_g per draw.
[[nodiscard]] CsvOutput cmdstan_output(const Fit& fit, const Options& options,
                                       std::vector<ExtraBlock> extra = {},
                                       std::vector<std::string> header = {});

}  // namespace advi
