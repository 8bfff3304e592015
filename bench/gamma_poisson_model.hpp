// Gamma-Poisson matrix factorisation as a DSL model: theta (U x K) and beta (K x D) with gamma
// priors, the counts poisson with rate theta beta. The data and the hand-written gradient:
// gamma_poisson_hand.hpp.
//
// Not examples/nmf_gap_model.hpp's build_nmf_gap, which is the paper's version (appendix A.3):
// there each row of theta is positive_ordered (theta = a cumulative sum of exponentials of
// zeta, with its own log|J|), beta is I x K with the rates theta beta', and the four gamma
// hyperparameters are data slots. The hand-written gradient (and bench/stan_math's) is the
// unconstrained model, theta = exp(zeta) elementwise, on this layout, so the benchmark keeps
// its own model: build_nmf_gap compiles to another program with another gradient on zeta.
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
