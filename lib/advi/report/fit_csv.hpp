// A fit's CmdStan CSV as a fit's HTML report reads it (any method of ours, or CmdStan's): which
// method wrote it, the lines after the column header (the trailer: verdict, k-hat, ELBO, ...),
// the draws without a variational CSV's first row (q's mean), and the log importance ratios
// where the method wrote the two log densities.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <advi/io/csv_reader.hpp>

namespace advi::report {

// read_stan_csv with every error on one line naming the file (a ParseError's first line,
// file:line:col and what is wrong), as the report's readers give them.
[[nodiscard]] StanCsv read_report_csv(const std::filesystem::path& file);
[[nodiscard]] StanCsv read_report_csv(std::string_view text, std::string file_name);

struct FitCsv {
    std::string file;       // as given, for messages and the page's title
    std::string method;     // the header's `method = ...` (variational, optimize, laplace,
                            // pathfinder), or empty when it does not say
    std::string algorithm;  // the header's `algorithm = ...` (meanfield, fullrank, lowrank,
                            // lbfgs, ...), or empty
    // The `key = value` and `key: value` lines after the column header, in order, trimmed;
    // a line of neither form (CmdStan's "Elapsed Time: ...", ours alike) is kept with an empty
    // value.
    std::vector<std::pair<std::string, std::string>> trailer;
    // The model's columns: parameters, transformed parameters, generated quantities (every
    // column whose name does not end in "__").
    std::vector<std::string> columns;
    Eigen::MatrixXd draws;  // a row per draw, a column per entry of `columns`
    // log p - log q per draw: log_p__ - log_g__ (ours, CmdStan's variational and laplace) or
    // lp__ - lp_approx__ (pathfinder); empty when the CSV has neither pair (optimize).
    Eigen::VectorXd log_ratios;
    std::string log_ratios_from;  // "log_p__ - log_g__", "lp__ - lp_approx__" or empty
    bool mean_row_skipped = false;

    // The header's settings as key-value pairs (optimize writes its ending there: nothing may
    // follow an optimize CSV's row).
    std::vector<std::pair<std::string, std::string>> settings;
    // The trailer's value of `key` (its last occurrence), else the settings' (optimize's
    // `status`, `convergence`, ...), or nothing.
    [[nodiscard]] std::optional<std::string> trailer_value(std::string_view key) const;
};

// Reads `file` with read_stan_csv. A variational CSV's first row, the mean of q (CmdStan's
// layout), is not a draw and is left out. Throws DataError, on one line naming the file, when
// it cannot be read, is not CSV of numbers, or has no draws.
[[nodiscard]] FitCsv read_fit_csv(const std::filesystem::path& file);
[[nodiscard]] FitCsv fit_csv_from_text(std::string_view text, std::string file_name);

}  // namespace advi::report
