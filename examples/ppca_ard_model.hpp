// Probabilistic PCA with automatic relevance determination (paper appendix A.6): x_n ~ N(W z_n,
// sigma I), z_n ~ N(0, I_M), w_d ~ N(0, sigma diag(alpha)), sigma ~ logNormal(0, 1), alpha_m ~
// InvGamma(1, 1); and its supervised extension (appendix A.7), which also regresses a response y
// on the same latent coordinates. Shared by examples/{ppca_ard,sup_ppca_ard}.cpp and their tests.
#pragma once

#include <string>

#include <Eigen/Dense>

#include <advi/advi.hpp>

namespace advi::examples {

// The latents of build_ppca_ard, for a model that extends it.
struct PpcaArdLatents {
    Expr sigma, alpha, W, Z;
};

// `x_data` (N x D) is bound by reference: keep it alive while the model is used. M is the
// largest number of components the fit may use; ARD switches off those the data do not need.
//
// As the paper's Stan code (and bench/ppca_ard_hand.hpp), sigma alpha_m is a standard
// deviation: W_dm ~ normal(0, sigma alpha_m), every row of W sharing the M scales. The N
// likelihood terms x_n ~ N(W z_n, sigma) are one N x D matrix Z W' (row n is (W z_n)').
inline PpcaArdLatents build_ppca_ard(Model& m, const Eigen::MatrixXd& x_data, int M) {
    const int D = static_cast<int>(x_data.cols()), N = static_cast<int>(x_data.rows());
    auto x = m.data("x", x_data);
    auto sigma = m.param("sigma", lognormal(0, 1));
    auto alpha = m.param("alpha", inv_gamma(1, 1), M);
    // A small alpha_m pins column m of W near 0: that component is switched off.
    auto W = m.param("W", normal(0, rep_matrix_rows(sigma * alpha, D)), D, M);
    auto Z = m.param("Z", normal(0, 1), N, M);
    m.observe(x, normal(Z * transpose(W), sigma));
    return {sigma, alpha, W, Z};
}

// Supervised PPCA with ARD (paper appendix A.7): the PPCA-ARD model above plus a response
// y_n ~ N(w_y . z_n, sigma) with w_y ~ N(0, sigma diag(alpha)), parameterised as build_ppca_ard
// (sigma alpha_m and sigma are standard deviations, as the paper's Stan code): w_y is one more
// row of W, sharing its ARD scales, so a component that the response needs but x does not is
// kept too. `y_data` (N) is bound by reference as x_data. The latents are in the order sigma,
// alpha, W, Z, w_y (examples/sup_ppca_ard.stan's parameters block).
inline PpcaArdLatents build_sup_ppca_ard(Model& m, const Eigen::MatrixXd& x_data,
                                         const Eigen::VectorXd& y_data, int M) {
    if (y_data.size() != x_data.rows()) {
        throw ModelError("build_sup_ppca_ard: y has " + std::to_string(y_data.size()) +
                         " entries but x has " + std::to_string(x_data.rows()) + " rows");
    }
    const PpcaArdLatents l = build_ppca_ard(m, x_data, M);
    auto y = m.data("y", y_data);
    auto w_y = m.param("w_y", normal(0, l.sigma * l.alpha), M);
    m.observe(y, normal(l.Z * w_y, l.sigma));
    return l;
}

// W is identified only up to a rotation, so fitted and true components are compared as
// subspaces: the cosines of the principal angles between span(W_fit) and span(W_true) are the
// singular values of Q_fit' Q_true (orthonormal bases from QR), largest first.
inline Eigen::VectorXd subspace_cosines(const Eigen::MatrixXd& W_fit,
                                        const Eigen::MatrixXd& W_true) {
    const auto D = W_fit.rows();
    const Eigen::MatrixXd Qf =
        W_fit.householderQr().householderQ() * Eigen::MatrixXd::Identity(D, W_fit.cols());
    const Eigen::MatrixXd Qt =
        W_true.householderQr().householderQ() * Eigen::MatrixXd::Identity(D, W_true.cols());
    return Eigen::JacobiSVD<Eigen::MatrixXd>(Qf.transpose() * Qt).singularValues();
}

}  // namespace advi::examples
