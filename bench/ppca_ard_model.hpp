// PPCA with automatic relevance determination as a DSL model: x_n ~ normal(W z_n, sigma) as
// one N x D matrix Z W', and W's columns scaled by sigma alpha_m (the paper's appendix A.6,
// sigma alpha a standard deviation as in its Stan code). The data and the hand-written
// gradient: ppca_ard_hand.hpp.
#pragma once

#include <advi/advi.hpp>

#include "ppca_ard_hand.hpp"

namespace advi::bench {

inline void build_ppca_ard(Model& m, const PpcaArdData& d) {
    auto X = m.data("X", d.X);
    auto sigma = m.param("sigma", lognormal(0, 1));
    auto alpha = m.param("alpha", inv_gamma(1, 1), d.M);
    auto W = m.param("W", normal(0, rep_matrix_rows(sigma * alpha, d.D)), d.D, d.M);
    auto Z = m.param("Z", normal(0, 1), d.N, d.M);
    m.observe(X, normal(Z * transpose(W), sigma));
}

}  // namespace advi::bench
