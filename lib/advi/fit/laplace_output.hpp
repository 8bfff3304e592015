// A Laplace approximation laid out as CmdStan's `laplace` method writes it: the settings
// header (method = laplace, its mode, jacobian and draws), the columns log_p__, log_g__, the
// constrained parameters, transformed parameters and generated quantities, one row per draw;
// and the mode read back from a file (an optimize CSV or JSON of constrained values).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/fit/cmdstan_output.hpp>
#include <advi/fit/laplace.hpp>
#include <advi/io/cmdstan_csv.hpp>

namespace advi {

// The settings comment lines: "model = ...", "method = laplace", "  laplace",
// "    mode = <file or (optimize)>", "    jacobian = 1 (Default)", "    draws = 1000 (Default)",
// "    regularization = 0 (Default)" (ours), then id, data, random seed, output, num_threads.
[[nodiscard]] std::vector<std::string> cmdstan_laplace_settings(const LaplaceOptions& options,
                                                                const CsvRunInfo& run,
                                                                const std::string& mode_file);

// The CSV: columns log_p__, log_g__ (LaplaceFit::log_p(), log_g(), normalised: the
// differences are PSIS's log ratios), every latent in declaration order, then the extra
// blocks (their at_mean holds the values at the mode, not written as a row); one row per draw.
// The trailer: "mode: <source>", "log_p__ at mode = ", "newton_steps = " (taken from the point
// given), "mode_distance_given = ", "mode_distance = " (Newton decrements before and after them,
// in posterior sds), "regularization = ",
// "hessian_asymmetry = ", "pareto_k = " (nan when not computed), "psis_ess = ",
// "nonfinite_log_p_draws = ", " Elapsed Time: <s> seconds (Total)".
[[nodiscard]] CsvOutput cmdstan_laplace_output(const LaplaceFit& fit,
                                               std::vector<ExtraBlock> extra = {},
                                               std::vector<std::string> header = {});

// The mode in unconstrained space from `file`: an optimize CSV (CmdStan's layout: one row,
// lp__ and the constrained parameters by Stan's column names; other columns ignored) or JSON
// of the constrained parameters by name (the data reader's shapes: a vector a list, a matrix
// a list of rows); mapped through T (ModelSpec::unconstrain). Throws DataError naming the file
// and the parameter or column that is missing, of the wrong shape, not finite or outside its
// support, and ModelError where a support has expression arguments (unconstrain cannot map it).
[[nodiscard]] Eigen::VectorXd read_mode_file(const ModelSpec& m, const std::filesystem::path& file);

}  // namespace advi
