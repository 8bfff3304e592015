// Generated quantities of an existing fit, as CmdStan's `generate_quantities fitted_params=`:
// the fitted CSV's draws read back as this model's parameters (by Stan's column names, so that
// advi's CSV of any method, or CmdStan's own, serves), and the output laid out as CmdStan lays
// it out: the fitted file's sampler columns and parameters, then the transformed parameters
// and generated quantities recomputed at every row.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/fit/cmdstan_output.hpp>
#include <advi/io/cmdstan_csv.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

struct FittedParams {
    std::string file;
    std::string method;                        // the file's "method = " (variational, sample...)
    std::vector<std::string> sampler_columns;  // its columns ending in "__", in order
    Eigen::MatrixXd sampler_values;            // rows x sampler_columns
    Eigen::MatrixXd theta;           // rows x ModelSpec::theta_dim(), laid out as theta_offsets()
    bool mean_row_left_out = false;  // a variational file: its first row, q's mean, not read
};

// Every draw of `file` (a variational file's first row is q's mean, not a draw: left out, as
// cmdstanr passes a variational fit's draws) as the parameters of `m`; rows are named 1-based
// in the file's order, the mean row counted. Throws DataError naming the file when it has no rows,
// a parameter's column is missing ("column `beta.2` of parameter `beta` (vector[3])"), or a value
// is not finite or outside its parameter's support (naming the row and the column): a file of
// another model is refused rather than read with another meaning.
[[nodiscard]] FittedParams read_fitted_params(const ModelSpec& m,
                                              const std::filesystem::path& file);

// The settings lines: the preamble, "method = generate_quantities", "  generate_quantities",
// "    fitted_params = <file>", "    fitted_method = <its method>" (ours), then id, data,
// random seed, output, num_threads = 1 (the rows run one after the other).
[[nodiscard]] std::vector<std::string> cmdstan_generate_quantities_settings(
    const CsvRunInfo& run, const FittedParams& fitted, std::uint64_t seed);

// The CSV: the fitted file's sampler columns, every latent of `m` in declaration order, then
// the extra blocks (their `draws` one row per fitted row; at_mean unused), one row per fitted
// row. The trailer: "fitted_draws = N" (and whether a mean row was left out), " Elapsed Time:
// <seconds> seconds (Total)". Throws
// ShapeError when a block's rows differ from the fitted rows.
[[nodiscard]] CsvOutput cmdstan_generate_quantities_output(const ModelSpec& m,
                                                           const FittedParams& fitted,
                                                           const std::vector<ExtraBlock>& extra,
                                                           std::vector<std::string> header,
                                                           double seconds);

}  // namespace advi
