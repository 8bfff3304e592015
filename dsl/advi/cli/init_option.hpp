// --init as CmdStan takes it, for `fit` and `optimize`: a number is the radius of uniform
// initial values in unconstrained space (0: all zeros); anything else is a file of constrained
// values by parameter name (JSON, R dump), every parameter given, mapped through T.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <Eigen/Core>

#include <advi/model/model_spec.hpp>

namespace advi::cli {

// The radius when `s` is a number; nullopt when it names a file. An Error for a number that
// is negative or not finite.
[[nodiscard]] std::optional<double> init_radius(const std::string& s);

// The unconstrained point of the file's values, one per parameter of `spec`; an Error naming
// the file and the parameter that is missing, of the wrong shape or outside its support.
[[nodiscard]] Eigen::VectorXd init_from_file(const ModelSpec& spec,
                                             const std::filesystem::path& file);

}  // namespace advi::cli
