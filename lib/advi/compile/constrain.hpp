// The constrain pass: each latent theta with support S becomes theta = T^-1(zeta) over a
// slice of one flat zeta in R^K, and log|det J_T^-1(zeta)| joins the log density.
#pragma once

#include <advi/model/model_spec.hpp>

namespace advi {

// The log density on zeta: output "lp" = log p(x, T^-1(zeta)) + sum log|det J|; without the
// log-Jacobian when `jacobian` is false (the penalised likelihood whose maximum is CmdStan's
// default optimum; the posterior in zeta, whose mode ADVI and Laplace need, keeps it).
[[nodiscard]] Graph constrain(const ModelSpec& m, bool jacobian = true);

// The map zeta -> theta: one output per latent, "theta <name>", at the latent's offset
// in the flat theta vector (ModelSpec::theta_offsets()).
[[nodiscard]] Graph constrain_map(const ModelSpec& m);

}  // namespace advi
