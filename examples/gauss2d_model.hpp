// The 2-D Gaussian of the paper's section 3.1: y_n ~ N(mu, Sigma) with Sigma known and highly
// correlated, mu ~ N(mu0, Sigma0); its conjugate posterior in closed form, and the settings
// the example fits it with. Shared by examples/gauss2d.cpp and report/make_report.cpp.
#pragma once

#include <Eigen/Dense>

#include <advi/advi.hpp>

namespace advi::examples {

// The data are bound by reference: keep them alive while the model is used. y is N x 2, one
// observation per row.
inline void build_gauss2d(Model& m, const Eigen::MatrixXd& y, const Eigen::MatrixXd& Sigma,
                          const Eigen::VectorXd& mu0, const Eigen::MatrixXd& Sigma0) {
    auto yd = m.data("y", y);
    auto Sigma_d = m.data("Sigma", Sigma);
    auto mu0_d = m.data("mu0", mu0);
    auto Sigma0_d = m.data("Sigma0", Sigma0);
    auto mu = m.param("mu", multi_normal(mu0_d, Sigma0_d), 2);
    m.observe(yd, multi_normal(mu, Sigma_d));  // one 2-vector per row of y
}

struct Gauss2dPosterior {
    Eigen::VectorXd mean;
    Eigen::MatrixXd cov;
    // The KL(q || p)-optimal mean-field Gaussian's variances: 1 / diag(posterior precision).
    Eigen::VectorXd mean_field_var;
};

// The conjugate posterior: precision Sigma0^-1 + N Sigma^-1.
inline Gauss2dPosterior gauss2d_posterior(const Eigen::MatrixXd& y, const Eigen::MatrixXd& Sigma,
                                          const Eigen::VectorXd& mu0,
                                          const Eigen::MatrixXd& Sigma0) {
    const double N = static_cast<double>(y.rows());
    const Eigen::MatrixXd precision = Sigma0.inverse() + N * Sigma.inverse();
    Gauss2dPosterior p;
    p.cov = precision.inverse();
    p.mean = p.cov * (Sigma0.inverse() * mu0 + Sigma.inverse() * y.colwise().sum().transpose());
    p.mean_field_var = precision.diagonal().cwiseInverse();
    return p;
}

// mu is unconstrained (T is the identity), so q's own covariance is the approximation of the
// posterior: no Monte Carlo error from the output draws. The posterior sds are 0.01 to 0.05
// and the correlation 0.95, so one gradient draw leaves q's last iterate noisy at that scale:
// 50 draws per gradient (about a second in all).
inline Options gauss2d_options(Family family) {
    return {.family = family, .seed = 1, .grad_samples = 50, .tol_rel_obj = 0.001};
}

}  // namespace advi::examples
