// Gaussian mixture with the component marginalised as a DSL model (log_sum_exp over
// components of an N x K matrix built from two matrix products); the data and the
// hand-written gradient are in gmm_hand.hpp.
//
// Not examples/gmm_model.hpp's build_gmm, the same density written differently, for two
// reasons. (1) The example parametrises mu as 0.1 zeta (ParamOptions multiplier 0.1, a
// starting scale for its fits); the hand-written gradient (and bench/stan_math's) is on
// mu = zeta, so the example's gradient on zeta differs from it by that factor. (2) The
// example's alpha0 is one scalar data slot broadcast with rep_vector(alpha0, K); GmmData holds
// a K-vector (read by both hand-written gradients), so the once-per-data part of the program
// differs even with the multiplier taken out (checked: the per-run instructions are then
// the same up to node numbering, the prologue and the arena are not).
#pragma once

#include <cmath>

#include <advi/advi.hpp>

#include "gmm_hand.hpp"

namespace advi::bench {

inline void build_gmm(Model& m, const GmmData& d) {
    const double c = 0.5 * std::log(2 * M_PI);
    auto Y = m.data("Y", d.Y);
    auto alpha0 = m.data("alpha0", d.alpha0);
    auto theta = m.param("theta", dirichlet(alpha0), d.K);
    auto mu = m.param("mu", normal(0, 1), d.K, d.D);
    auto sigma = m.param("sigma", lognormal(0, 1), d.K, d.D);
    auto P = 1.0 / square(sigma);  // K x D precisions
    // log theta_k + log prod_d normal(y_nd | mu_kd, sigma_kd), expanded so that the sum over
    // d is two matrix products: -1/2 y^2 P' + y (mu P)' - 1/2 sum_d mu^2 P - sum_d log sigma.
    auto per_k =
        log(theta) - 0.5 * row_sums(elt_multiply(square(mu), P)) - row_sums(log(sigma)) - d.D * c;
    auto L = -0.5 * (elt_multiply(Y, Y) * transpose(P)) + Y * transpose(elt_multiply(mu, P)) +
             rep_matrix_rows(per_k, d.N);
    m.target_add(sum(log_sum_exp_rows(L)));
}

}  // namespace advi::bench
