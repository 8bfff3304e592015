// Linear regression with automatic relevance determination (paper appendix A.1):
// y_n ~ N(w' x_n, sigma), w ~ N(0, sigma diag(sqrt(alpha))^-1) (w_d has sd sigma / sqrt(alpha_d)),
// sigma ~ InvGamma(a0, b0), alpha_d ~ Gamma(c0, d0) (rate d0). Shared by
// examples/linreg_ard.cpp and its test.
#pragma once

#include <Eigen/Dense>

#include <advi/advi.hpp>

namespace advi::examples {

struct ArdHyper {
    double a0 = 1, b0 = 1, c0 = 1, d0 = 1;  // the paper's values
};

// `X` and `y` are bound by reference: keep them alive while the model is used. Returns the
// log-likelihood of each row (for the held-out log predictive density, advi/predictive.hpp).
inline Expr build_linreg_ard(Model& m, const Eigen::MatrixXd& X_data, const Eigen::VectorXd& y_data,
                             const ArdHyper& hyper = {}) {
    auto y = m.data("y", y_data);
    auto X = m.data("X", X_data);
    const auto D = X_data.cols();
    auto sigma = m.param("sigma", inv_gamma(hyper.a0, hyper.b0));
    auto alpha = m.param("alpha", gamma(hyper.c0, hyper.d0), D);
    // A large alpha_d pins w_d near 0: the relevance of input d is learned from the data.
    auto w = m.param("w", normal(0, sigma / sqrt(alpha)), D);
    m.observe(y, normal(X * w, sigma));
    return m.log_density(y, normal(X * w, sigma), true);
}

}  // namespace advi::examples
