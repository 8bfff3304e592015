// Gamma-Poisson matrix factorisation as a DSL model: theta (U x K) and beta (K x D) with gamma
// priors, the counts poisson with rate theta beta. The paper's version (appendix A.3) also
// makes each row of theta positive_ordered; the library's ordered supports fit vectors only, so
// this is the unconstrained model. The data and the hand-written gradient: gamma_poisson_hand.hpp.
#pragma once

#include <advi/advi.hpp>

#include "gamma_poisson_hand.hpp"

namespace advi::bench {

inline void build_gamma_poisson(Model& m, const GammaPoissonData& d) {
    auto y = m.data("y", d.y);  // U x D counts, column-major
    auto theta = m.param("theta", gamma(d.a0, d.b0), d.U, d.K);
    auto beta = m.param("beta", gamma(d.c0, d.d0), d.K, d.D);
    m.observe(y, poisson(to_vector(theta * beta)));
}

}  // namespace advi::bench
