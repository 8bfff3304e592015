// Pathfinder's draws laid out as CmdStan's `pathfinder` method writes them (2.37): the
// settings header (method = pathfinder and its options by CmdStan's names), the columns
// lp_approx__, lp__, path__, then the constrained parameters, transformed parameters and
// generated quantities, one row per draw; a trailer with each path's facts and the verdict.
#pragma once

#include <string>
#include <vector>

#include <advi/fit/cmdstan_output.hpp>
#include <advi/fit/pathfinder.hpp>
#include <advi/io/cmdstan_csv.hpp>

namespace advi {

// The settings comment lines: "model = ...", "method = pathfinder", "  pathfinder", its
// options ("    num_paths = 4 (Default)", ...), then id, data, init, random seed, output,
// num_threads.
[[nodiscard]] std::vector<std::string> cmdstan_pathfinder_settings(const PathfinderOptions& options,
                                                                   const CsvRunInfo& run);

// The CSV. lp_approx__ is the draw's path's normal approximation's log density (normalised),
// lp__ the model's with the log-Jacobian and every constant (-inf where not finite: a weight
// of 0), path__ the path (1-based). The trailer: "path_<k> = ..." per path, the verdict's
// lines, " Elapsed Time: <s> seconds (Total)".
[[nodiscard]] CsvOutput cmdstan_pathfinder_output(const PathfinderFit& fit,
                                                  std::vector<ExtraBlock> extra = {},
                                                  std::vector<std::string> header = {});

}  // namespace advi
