// Stochastic volatility as a DSL model: the example's model (examples/
// stochastic_volatility_model.hpp, h with a flat prior, its density the AR(1) terms) on the
// benchmark's data; the data and the hand-written gradient are in stochvol_hand.hpp.
#pragma once

#include <advi/advi.hpp>

#include "../examples/stochastic_volatility_model.hpp"
#include "stochvol_hand.hpp"

namespace advi::bench {

inline void build_stochvol(Model& m, const StochVolData& d) {
    examples::build_stochastic_volatility(m, d.y);
}

}  // namespace advi::bench
