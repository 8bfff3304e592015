// The Wiener first-passage time distribution (Stan's wiener): the time y at which a Wiener
// process of unit variance, drift delta, started at beta alpha between absorbing boundaries 0
// and alpha, reaches the upper boundary first, plus a non-decision time tau; with inter-trial
// variability (Ratcliff's diffusion model), the drift normal(delta, sv), the start
// uniform(beta - sw / 2, beta + sw / 2) (in units of alpha), the non-decision time
// uniform(tau, tau + st0). The distribution is defective: its mass is the probability of the
// upper boundary, not 1.
//
// The four- and five-parameter densities are closed forms around the first-passage series
// (lib/advi/graph/ops_wiener.hpp); the defective distribution function is the series of
// lib/advi/graph/ops_wiener_cdf.hpp. Variability in the start point and the non-decision time
// is averaged by fixed Gauss-Legendre rules (quadrature.hpp), each dimension only where its
// variability is not the constant 0; the non-decision time's rule covers only the part of its
// range before y. Drift variability is a closed form in the density, and in the distribution
// function a series of closed-form terms (ops_wiener_cdf.hpp: the small-time series averaged
// over the drift term by term).
#pragma once

#include <span>

#include <advi/dist/cdf.hpp>
#include <advi/dist/distribution.hpp>

namespace advi {

// The quadrature rules' sizes.
inline constexpr int kWienerStartPoints = 12;
inline constexpr int kWienerNonDecisionPoints = 16;

// The distribution table's row: adds log p(y | alpha, tau, beta, delta, sv, sw, st0)
// elementwise.
void wiener_log_density(Terms& t, NodeId y, std::span<const NodeId> args);
// Above tau where tau is a constant; the real line elsewhere (the density is -inf below).
[[nodiscard]] Support wiener_support(const Graph& g, std::span<const NodeId> args);

// Stan's wiener_lcdf_unnorm (Lower: log P(Y <= y, upper boundary)) and wiener_lccdf_unnorm
// (Upper: log P(Y > y, upper boundary)) of the seven arguments, summed over the broadcast of y
// and the arguments (or one value per element: `elementwise`).
[[nodiscard]] NodeId wiener_log_cdf(Graph& g, NodeId y, std::span<const NodeId> args, Tail tail,
                                    bool elementwise = false);

}  // namespace advi
