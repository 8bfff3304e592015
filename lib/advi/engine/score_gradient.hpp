// The score-function ("black box", BBVI; Ranganath et al. 2014) estimator of the ELBO gradient,
// beside ADVI's reparameterisation estimator (elbo.hpp), so that the two can be compared on any
// Target (paper Section 3.2). ADVI does not use it to fit: it needs only log p, not its
// gradient, and pays for that with a much larger variance.
#pragma once

#include <advi/engine/approximation.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// From M fresh draws zeta_m ~ q(zeta; phi), with h_m = grad_phi log q(zeta_m; phi) and
// f_m = h_m (log p(zeta_m) + log|J| - log q(zeta_m; phi)) (the Target's log density includes
// log|J|), the BBVI estimate of grad_phi ELBO in Approximation::params() layout:
//   control_variate = false:  mean_m f_m
//   control_variate = true:   mean_m (f_m - a .* h_m), a_d = Cov(f_d, h_d) / Var(h_d)
// a_d is Ranganath et al.'s optimal scalar baseline per variational parameter, estimated from
// the same M draws (as they do): E[h] = 0, so the subtracted term has mean zero for a fixed a;
// estimating a from the draws themselves adds a bias of order 1/M. With M < 2, or where
// Var(h_d) = 0 among the draws, a_d = 0.
// Both families: for mean-field, h_mu = eta / sigma and h_omega = eta^2 - 1; for full-rank,
// h_mu = L^-T eta and h_L = lower(L^-T eta eta^T) - diag(1 / L_ii) (eta = S(zeta)).
// Draws with a non-finite log density are dropped (counted in `dropped`; the mean is over the
// rest, as elbo_gradient does), redrawing until M are finite or 10 M were tried; the Target's
// gradient is computed (Target has no value-only call) but not used. M must be >= 1.
[[nodiscard]] ElboGradient score_function_gradient(Target& target, const Approximation& q, int M,
                                                   Rng& rng, bool control_variate);

}  // namespace advi
