// Stochastic volatility as a DSL model (h has a flat prior: its density is the AR(1) terms);
// the data and the hand-written gradient are in stochvol_hand.hpp.
#pragma once

#include <advi/advi.hpp>

#include "stochvol_hand.hpp"

namespace advi::bench {

inline void build_stochvol(Model& m, const StochVolData& d) {
    const int T = static_cast<int>(d.y.size());
    auto y = m.data("y", d.y);
    auto mu = m.param("mu", cauchy(0, 10));
    auto phi = m.param("phi", uniform(-1, 1));
    auto sigma = m.param("sigma", lognormal(0, 10));
    auto h = m.param("h", flat(), T);
    m.observe(head(h, 1), normal(mu, sigma / sqrt(1.0 - square(phi))));
    m.observe(tail(h, T - 1), normal(mu + phi * (head(h, T - 1) - mu), sigma));
    m.observe(y, normal(0, exp(h / 2)));
}

}  // namespace advi::bench
