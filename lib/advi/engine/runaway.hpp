// Signs that q is running off instead of converging (issue 17, class 7): an improper or
// unbounded posterior has no optimum, so the ELBO rises for ever while q's mean or scale
// grows, and a relative-change rule eventually calls that "converged".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <advi/engine/approximation.hpp>
#include <advi/engine/options.hpp>

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

}  // namespace advi
