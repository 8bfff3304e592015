// A mode laid out as CmdStan lays out its optimize output (io/cmdstan_csv.hpp writes it):
// the settings header with `method = optimize`, the header row lp__, the constrained
// parameters, the transformed parameters and generated quantities, and one row.
#pragma once

#include <string>
#include <vector>

#include <advi/fit/cmdstan_output.hpp>
#include <advi/fit/optimize.hpp>

namespace advi {

// CmdStan's settings lines for optimize ("method = optimize", "  optimize",
// "    algorithm = lbfgs (Default)", "      lbfgs", "        init_alpha = 0.001 (Default)",
// ..., "    jacobian = 0 (Default)", "    iter = 2000 (Default)", "id = 1", "data", "init",
// "random", "output"), "(Default)" after a value equal to OptimizeOptions{}'s. `init` is what
// the user gave (a radius or a file); empty: the options' init_radius, or "user" for a zeta.
[[nodiscard]] std::vector<std::string> cmdstan_optimize_settings(const OptimizeOptions& options,
                                                                 const CsvRunInfo& run = {});

// Columns lp__, every latent in declaration order (constrained values at the mode), then the
// extra blocks (their `at_mean` values; their `draws` are not read). lp__ is Optimum::lp():
// the log density maximised, with the log-Jacobian when options.jacobian, and with every
// normalising constant (CmdStan drops constant terms from its lp__: the two differ by a
// constant that does not depend on the parameters). No trailer (cmdstanpy reads every line
// after the column names as a row): the header ends with the block "result", "  status = ",
// "  converged = 1|0", "  convergence: <message>", "  iterations = ",
// "  gradient_evaluations = ", "  hessian_vector_products = ", "  elapsed_seconds = ". Throws
// ShapeError when a block's values do not match its dims, ModelError for a column name given twice.
[[nodiscard]] CsvOutput cmdstan_optimize_output(const Optimum& mode,
                                                const std::vector<ExtraBlock>& extra = {},
                                                std::vector<std::string> header = {});

}  // namespace advi
