// CSV in two roles: tabular data (a header of column names and rows of numbers; each column a
// vector, Stan's flattened names X.1, X.2.1 gathered into one array) and CmdStan's output CSV
// (`#` comment lines, a header, rows of numbers), used to read fits back.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <advi/io/data_table.hpp>

namespace advi {

// Data: the first line that is not a `#` comment or blank names the columns (RFC 4180 quotes
// allowed); every row holds a number per column. A column is int if every value is an integer
// literal, real otherwise; its dims are {rows}. Columns `X.i` (or `X.i.j`, ...; 1-based) are
// gathered into one variable `X` with dims {rows, max i (, max j ...)}, the row first, so that
// `X.3` is column 3 of the rows x K matrix X; every index combination must be present.
// Throws DataError when the file cannot be opened, ParseError (file:line:col) for an empty
// file, a row whose field count differs from the header's ("row 17 has 4 fields, the header has
// 5"), a field that is not a number, an empty field (a missing value), bad column names.
[[nodiscard]] DataTable read_csv_data(const std::filesystem::path& file);
[[nodiscard]] DataTable read_csv_data(std::string_view text, std::string file_name);

// CmdStan's output CSV: comments kept in order, the header, one matrix row per data row
// (values nan, inf, -inf allowed).
struct StanCsv {
    std::vector<std::string> comments;  // each `#` line as written, without its line break
    // How many of `comments` come before the header row (the settings); the rest are the
    // adaptation lines and the trailer.
    std::size_t header_comments = 0;
    std::vector<std::string> columns;  // the header
    Eigen::MatrixXd values;            // rows x columns

    // The position of `name` in the header, or -1.
    [[nodiscard]] Eigen::Index column_index(std::string_view name) const;
    // The values of column `name`; throws DataError "column `x` is not in the CSV file".
    [[nodiscard]] Eigen::VectorXd column(std::string_view name) const;

    // The comment lines above the column names (the settings) and below them (the adaptation
    // and the trailer) as "key = value" or "key: value" pairs, the `#` and spaces taken off
    // (the first separator decides; a line of neither form is its whole text as the key with
    // an empty value; blank lines are left out).
    using KeyValues = std::vector<std::pair<std::string, std::string>>;
    [[nodiscard]] KeyValues settings() const;
    [[nodiscard]] KeyValues trailer() const;
    // The first setting `key`'s value with CmdStan's " (Default)" mark taken off ("method" ->
    // "variational"); empty when the header has none.
    [[nodiscard]] std::string setting(std::string_view key) const;
    // CmdStan's variational layout: the first row is q's mean, not a draw.
    [[nodiscard]] bool first_row_is_mean() const {
        return setting("method") == "variational" && values.rows() > 0;
    }
};

[[nodiscard]] StanCsv read_stan_csv(const std::filesystem::path& file);
[[nodiscard]] StanCsv read_stan_csv(std::string_view text, std::string file_name);

}  // namespace advi
