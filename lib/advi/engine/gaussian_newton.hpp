// Newton steps on the ELBO of a full-rank Gaussian (issue 19, item 1: full-rank's start where
// the target has no mode). The optimum q = N(m, C) satisfies
//     C^-1 = E_q[-H(z)]   and   E_q[g(z)] = 0,
// g and H the gradient and Hessian of log p (the ELBO's derivatives in C and m are
// E_q[H] / 2 + C^-1 / 2 and E_q[g]; Opper and Archambeau 2009). The step is the natural
// gradient of the ELBO at step size beta, as in variational online Newton (Khan and Rue 2023,
// "The Bayesian learning rule"):
//     P' = (1 - beta) P + beta E_q[-H],   m' = m + beta P'^-1 E_q[g],   C' = P'^-1,
// with the expectations over a few fresh draws of q, beta halved until P' is positive definite
// and the ELBO (on a fixed set of draws, the same for every candidate) rises. With beta = 1 on
// a Gaussian target it lands on the optimum in one step; from a mean-field fit of a 503-
// coordinate stochastic volatility model (no mode) it does in a few steps what stochastic
// steps on D (D + 1) / 2 entries of the factor did not do in 10,000 iterations.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include <Eigen/Core>

#include <advi/engine/approximation.hpp>
#include <advi/engine/target.hpp>

namespace advi {

struct GaussianNewtonSettings {
    // Draws per step for E_q[-H] and E_q[g], in antithetic pairs: D Hessian-vector products
    // each. Measured on examples/stochastic_volatility (full-rank, 503 coordinates, seed 1):
    // 8 draws stopped at an ELBO of -493 (the mean step's noise), 16 reached -485.2 in 90
    // steps (22 s in all), 32 -485.9 in 53 (18 s), 64 -485.2 in 60 (28 s).
    int hessian_draws = 16;
    int elbo_draws = 256;  // the fixed draws the ELBO of every candidate is compared on
    int max_steps = 200;
    // The steps end before this many Hessian-vector products (90 steps of 16 draws at 503
    // coordinates are 724,000).
    long max_hessian_vector_products = 2'000'000;
    double min_beta = 1.0 / 16;  // below this the step is refused and the steps end
    // The steps end when the last `patience` steps gained under `tolerance` nats each on
    // average, or when no beta raises the ELBO (at the optimum on the fixed draws).
    double tolerance = 0.01;
    int patience = 3;
    std::uint64_t seed = 1;
    // The family of the steps' q: full-rank, or mean-field (sd_d = 1 / sqrt(P'_dd)).
    Family family = Family::FullRank;
    const std::atomic<bool>* interrupt = nullptr;  // ends the steps with the last q
    std::ostream* log = nullptr;                   // a line every 10 steps
};

struct GaussianNewtonResult {
    Eigen::VectorXd mean;
    Eigen::MatrixXd factor;  // lower triangular, factor factor' = C
    double elbo = 0.0;       // on the fixed draws, including the entropy's constant
    double start_elbo = 0.0;
    int steps = 0;           // steps taken
    bool converged = false;  // the last step gained under the tolerance
    std::string stop;        // why the steps ended
    long hessian_vector_products = 0;
    long value_evaluations = 0;
};

// From q0 (either family). Returns nullopt, with the reason in `why_not`, where not even the
// first step can be taken: a Hessian at q0's draws is not finite, no beta down to min_beta
// gives a positive definite precision that raises the ELBO, or the D x D matrices exceed the
// memory budget. A later step that cannot be taken ends the steps with the last q.
[[nodiscard]] std::optional<GaussianNewtonResult> gaussian_newton(
    CurvatureTarget& target, const Approximation& q0, const GaussianNewtonSettings& settings,
    std::string* why_not);

}  // namespace advi
