// What the engine's messages and runaway checks need to know of a model's unconstrained
// coordinates, shared by fit() and optimize().
#pragma once

#include <functional>
#include <string>

#include <Eigen/Core>

#include <advi/model/model_spec.hpp>

namespace advi {

// Names unconstrained coordinate k by the model's parameters: "`sigma`", or "`beta`
// (unconstrained element 3 of 5)".
[[nodiscard]] std::function<std::string(int)> coordinate_namer(const ModelSpec& m);

// Per coordinate, the magnitude beyond which it has run off: about 700 where the constraint
// transform exponentiates zeta (a log-transformed bound, an interval's logit: beyond it the
// constrained value overflows or sits exactly on its bound), kRunawayMagnitude elsewhere.
[[nodiscard]] Eigen::VectorXd coordinate_runaway_limits(const ModelSpec& m);

}  // namespace advi
