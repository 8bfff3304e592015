// Where a model's log density stops being finite, for the message of a fit that cannot go on:
// the model is evaluated node by node at one point, and the first op whose inputs are finite
// and whose value is not is named, with its input values, the latent variables and data it
// reads, and the term of the log density it belongs to.
#pragma once

#include <string>

#include <Eigen/Core>

#include <advi/model/model_spec.hpp>

namespace advi {

// At zeta (unconstrained): "latent `sigma` is inf after its transform ..." or "op `log` gives
// -inf at element 3 of vec[10] (log of -0.5), reading latent `mu` and data `y`, in term 2 of 3
// of the log density". Where the log density is finite but its gradient is not, the same of
// the gradient program ("the gradient is not finite: op `div` gives inf ..."). Empty when both
// are finite at zeta.
[[nodiscard]] std::string explain_nonfinite(const ModelSpec& spec, const Eigen::VectorXd& zeta);

}  // namespace advi
