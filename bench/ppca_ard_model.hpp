// PPCA with automatic relevance determination as a DSL model: the example's model
// (examples/ppca_ard_model.hpp: x_n ~ normal(W z_n, sigma) as one N x D matrix Z W', W's
// columns scaled by sigma alpha_m, the paper's appendix A.6 with sigma alpha a standard
// deviation as in its Stan code) on the benchmark's data. The data and the hand-written
// gradient: ppca_ard_hand.hpp.
#pragma once

#include <advi/advi.hpp>

#include "../examples/ppca_ard_model.hpp"
#include "ppca_ard_hand.hpp"

namespace advi::bench {

inline void build_ppca_ard(Model& m, const PpcaArdData& d) {
    examples::build_ppca_ard(m, d.X, d.M);
}

}  // namespace advi::bench
