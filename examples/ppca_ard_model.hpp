// Probabilistic PCA with automatic relevance determination (paper appendix A.6): x_n ~ N(W z_n,
// sigma I), z_n ~ N(0, I_M), w_d ~ N(0, sigma diag(alpha)), sigma ~ logNormal(0, 1), alpha_m ~
// InvGamma(1, 1). Shared by examples/ppca_ard.cpp and its test.
#pragma once

#include <Eigen/Dense>

#include <advi/advi.hpp>

namespace advi::examples {

// `x_data` (N x D) is bound by reference: keep it alive while the model is used. M is the
// largest number of components the fit may use; ARD switches off those the data do not need.
//
// As the paper's Stan code (and bench/ppca_ard_model.hpp), sigma alpha_m is a standard
// deviation: W_dm ~ normal(0, sigma alpha_m), every row of W sharing the M scales. The N
// likelihood terms x_n ~ N(W z_n, sigma) are one N x D matrix Z W' (row n is (W z_n)').
inline void build_ppca_ard(Model& m, const Eigen::MatrixXd& x_data, int M) {
    const int D = static_cast<int>(x_data.cols()), N = static_cast<int>(x_data.rows());
    auto x = m.data("x", x_data);
    auto sigma = m.param("sigma", lognormal(0, 1));
    auto alpha = m.param("alpha", inv_gamma(1, 1), M);
    // A small alpha_m pins column m of W near 0: that component is switched off.
    auto W = m.param("W", normal(0, rep_matrix_rows(sigma * alpha, D)), D, M);
    auto Z = m.param("Z", normal(0, 1), N, M);
    m.observe(x, normal(Z * transpose(W), sigma));
}

}  // namespace advi::examples
