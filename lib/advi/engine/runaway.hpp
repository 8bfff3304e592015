// Signs that q is running off instead of converging (issue 17, class 7): an improper or
// unbounded posterior has no optimum, so the ELBO rises for ever while q's mean or scale
// grows, and a relative-change rule eventually calls that "converged".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <advi/engine/approximation.hpp>
#include <advi/engine/options.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// Beyond this magnitude in unconstrained space a mean or a scale is not an answer: the
// unconstrained image of a positive quantity is its log (|zeta| <= 710 before exp overflows),
// and no real-valued parameter of a model is 1e50 on its own scale.
inline constexpr double kRunawayMagnitude = 1e50;

// "q ran off: the mean of `sigma` (unconstrained) reached 1.2e+154; the posterior may be
// improper (is every parameter given a proper prior?)" when some mean, or some scale (sd of a
// mean-field coordinate, any entry of the full-rank factor), is not finite or exceeds
// its limit (opts.runaway_limits, else kRunawayMagnitude); nothing otherwise. Coordinates are named
// by opts.describe_coordinate when set ("coordinate 3" otherwise).
[[nodiscard]] std::optional<std::string> ran_off(const Approximation& q, const Options& opts);

// Whether the ELBO kept rising over the last `span` evaluations of `trace` without slowing
// down: a least-squares slope over the span more than 4 standard errors above 0, and the
// second half of the span rising at least half as much as the first; false for span < 4. That is
// the shape of an ELBO without an upper bound, or of a q still far from the optimum; either way the
// fit has not converged, however small the rises are relative to |ELBO|. Sets *rise to the mean
// rise per evaluation over the span.
[[nodiscard]] bool still_rising(const std::vector<double>& trace, int span, double* rise);

// Whether q's scale sits at an optimum of its family, coordinate by coordinate. Scaling row k
// of q's factor (zeta_k - mu_k -> s (zeta_k - mu_k)) stays within either family, and the ELBO's
// derivative along s at s = 1 is 1 - b_k with b_k = -E_q[(zeta_k - mu_k) d log p / d zeta_k]
// (the entropy gives the 1). So b_k = 1 at every optimum of q's family, and it reads gradients
// only: no additive constant of log p, however large, enters it. Along a direction where the
// log density does not curve back (a flat improper posterior, where full-rank's ELBO creeps up
// like log(i) / 4 and the relative rule eventually calls that converged), b_k = 0.
//
// The same draws give the location's balance: the ELBO's derivative along mu_k is
// E_q[d log p / d zeta_k] (the entropy does not depend on mu), 0 at every optimum of either
// family; times q's sd along k it is dimensionless (on a Gaussian target, about how many of q's
// sds mu_k is off along k).
struct ScaleBalance {
    Eigen::VectorXd mean;         // b_k, estimated over the draws
    Eigen::VectorXd se;           // its Monte Carlo standard error
    Eigen::VectorXd location;     // sd_k E_q[d log p / d zeta_k]
    Eigen::VectorXd location_se;  // its Monte Carlo standard error
    int used = 0;                 // draws with a finite log density and gradient
};

// b over the draws zeta = T(eta) of q, one row of `etas` per draw.
[[nodiscard]] ScaleBalance scale_balance(Target& target, const Approximation& q,
                                         const Eigen::MatrixXd& etas);

// "the scale of q along `x` (unconstrained) is not at an optimum: ..." when some b_k is
// clearly below kScaleBalanceFloor (b_k + 3 se_k below it), that is when q is less than about
// half as wide as its family's optimum along k (b_k = width ratio^2 on a Gaussian), or the log
// density does not curve back at all; nothing otherwise, or with fewer than 2 usable draws.
inline constexpr double kScaleBalanceFloor = 0.25;
[[nodiscard]] std::optional<std::string> scale_not_at_optimum(const ScaleBalance& b,
                                                              const Options& opts);

// "the mean of q along `x` (unconstrained) is not at an optimum: ..." when some location
// balance is clearly away from 0 (|l_k| - 3 se_k above kLocationBalanceFloor: q's mean about a
// tenth of its sd or more off along k on a Gaussian target); nothing otherwise, or with fewer
// than 2 usable draws. The Auto rule's guard against a step size too small to move q: such a
// q stops changing, but its gradient does not vanish.
inline constexpr double kLocationBalanceFloor = 0.1;
[[nodiscard]] std::optional<std::string> location_not_at_optimum(const ScaleBalance& b,
                                                                 const Options& opts);

}  // namespace advi
