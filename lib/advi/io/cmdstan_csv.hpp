// Stan CSV as CmdStan writes it (`#` settings, the column names, the mean row, one row per
// draw, trailing `#` comments), so that cmdstanpy, cmdstanr, posterior and stansummary read
// ours: Stan's column names and the text written atomically. The fit layer lays a fit out
// in it (lib/advi/fit/cmdstan_output.hpp); this file knows nothing of fits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

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
    // Significant digits of the mean row and the draws, CmdStan's sig_figs (1 to 18); -1: the
    // shortest text that reads back as the same double (up to 17 digits).
    int sig_figs = -1;
};

// Writes the file's text. Throws ShapeError when a row does not have one value per column,
// Error for a sig_figs other than -1 or 1 to 18.
void write_cmdstan_csv(std::ostream& os, const CsvOutput& output);

// Writes `output` to `path` by write_output_file's rules (io/output_file.hpp): a regular file
// is replaced whole (a reader, or an interrupted run, sees the old file or the whole new one),
// a symlink's target is written, a FIFO or a device in place. Throws Error naming the file
// and the system's reason when it cannot be written; no temporary file is left.
void write_cmdstan_csv_file(const std::filesystem::path& path, const CsvOutput& output);

// Stan's flattened column names of a variable with the declared dims (array dims first, then
// the vector's size or the matrix's rows and columns): 1-based indices after dots, in
// column-major order over all indices, the first index fastest: {2, 3} gives Sigma.1.1,
// Sigma.2.1, Sigma.1.2, ...; no dims give the bare name; a zero dim gives no columns.
// Throws ShapeError for a negative dim. With `complex`, dims[0] (2) is a complex value's real
// and imaginary part, named last and fastest as Stan writes them: z.1.real, z.1.imag, z.2.real.
[[nodiscard]] std::vector<std::string> stan_column_names(std::string_view name,
                                                         std::span<const std::int64_t> dims,
                                                         bool complex = false);

// "a scalar" or "dims 2x3", for messages about a variable's dims.
[[nodiscard]] std::string describe_dims(std::span<const std::int64_t> dims);

}  // namespace advi
