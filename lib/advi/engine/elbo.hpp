// Monte Carlo estimates of the ELBO and of its gradient (paper Eqs. 4-7) for a Target and
// an Approximation, from given standard-normal draws or fresh ones.
#pragma once

#include <Eigen/Core>

#include <advi/engine/approximation.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// The gradient of the ELBO in Approximation::params() layout.
struct ElboGradient {
    Eigen::VectorXd grad;
    int used = 0;     // draws with finite log density and gradient, averaged into grad
    int dropped = 0;  // draws whose log density or gradient was not finite
    bool ok() const { return used > 0; }
};

struct ElboEstimate {
    double value = 0.0;  // mean log density over the finite draws + entropy; -inf if none
    int used = 0;
    int dropped = 0;
    // Per draw, the log density (NaN where dropped); filled from given (common) draws only.
    // Differences between two estimates over the same draws are then free of the log
    // density's additive constant and carry their own Monte Carlo error (eta_search.cpp).
    Eigen::VectorXd log_p;
};

// How the entropy's part of the gradient is estimated: analytically (the paper's Eqs. 6-7), or
// by "sticking the landing" (elbo.cpp), whose variance vanishes where q equals the target.
enum class GradientEstimator { Standard, StickingTheLanding };

// From the given draws, one eta ~ N(0, I) per row:
//   g_mu    = mean grad_zeta log p(zeta)
//   g_omega = mean(grad .* eta) .* exp(omega) + 1                 (mean-field)
//   g_L     = lower(mean(grad eta^T)) + diag(1 / L_ii)            (full-rank)
// Non-finite draws are dropped and the mean is over the rest; when every draw is dropped,
// ok() is false and grad is zero.
[[nodiscard]] ElboGradient elbo_gradient(Target& target, const Approximation& q,
                                         const Eigen::MatrixXd& etas,
                                         GradientEstimator estimator = GradientEstimator::Standard);
// With fresh draws: draws until `grad_samples` are finite or `max_draws` were tried.
[[nodiscard]] ElboGradient elbo_gradient(Target& target, const Approximation& q, Rng& rng,
                                         int grad_samples, int max_draws,
                                         GradientEstimator estimator = GradientEstimator::Standard);

// From the given draws (common random numbers): draws with a non-finite log density are
// dropped (the gradient is not looked at).
[[nodiscard]] ElboEstimate elbo_estimate(Target& target, const Approximation& q,
                                         const Eigen::MatrixXd& etas);
// With fresh draws, as Stan's calc_ELBO: redraws until `samples` are finite, gives up
// (value -inf) once `samples` draws have been dropped.
[[nodiscard]] ElboEstimate elbo_estimate(Target& target, const Approximation& q, Rng& rng,
                                         int samples);

}  // namespace advi
