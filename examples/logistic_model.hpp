// Logistic regression of the paper's section 3.1: y_n ~ Bernoulli(inv_logit(x_n' beta)),
// beta_k ~ N(0, prior_sd); the Laplace approximation at the posterior mode, which stands in
// for the paper's NUTS run (N = 1000: the posterior is close to Gaussian); and the settings the
// example fits it with. Shared by examples/logistic.cpp and report/make_report.cpp.
#pragma once

#include <Eigen/Dense>

#include <advi/advi.hpp>

namespace advi::examples {

// X (N x K, column 0 the intercept's 1s) and y are bound by reference: keep them alive while
// the model is used.
inline void build_logistic(Model& m, const Eigen::MatrixXd& X, const Eigen::VectorXi& y,
                           double prior_sd) {
    auto Xd = m.data("X", X);
    auto yd = m.data("y", y);
    auto prior_sd_d = m.data("prior_sd", prior_sd);
    auto beta = m.param("beta", normal(0, prior_sd_d), static_cast<int>(X.cols()));
    m.observe(yd, bernoulli_logit(Xd * beta));
}

struct Laplace {
    Eigen::VectorXd mode;
    Eigen::MatrixXd cov;  // the inverse Hessian of -log p at the mode
};

// Newton's method on the log posterior.
inline Laplace logistic_laplace(const Eigen::MatrixXd& X, const Eigen::VectorXi& y,
                                double prior_sd) {
    const Eigen::Index K = X.cols();
    Eigen::VectorXd mode = Eigen::VectorXd::Zero(K);
    Eigen::MatrixXd hessian(K, K);
    for (int it = 0; it < 50; ++it) {
        const Eigen::ArrayXd p = 1.0 / (1.0 + (-(X * mode).array()).exp());
        const Eigen::VectorXd grad =
            X.transpose() * (y.cast<double>().array() - p).matrix() - mode / (prior_sd * prior_sd);
        hessian = X.transpose() * (p * (1 - p)).matrix().asDiagonal() * X;
        hessian.diagonal().array() += 1.0 / (prior_sd * prior_sd);
        const Eigen::VectorXd step = hessian.ldlt().solve(grad);
        mode += step;
        if (step.norm() < 1e-12)
            break;
    }
    return {mode, hessian.inverse()};
}

// |ELBO| is about 400: tol_rel_obj 0.0001 and ten gradient draws let q's scales settle (with
// Stan's defaults a mean can stop 0.5 posterior sd from where it settles).
inline Options logistic_options(Family family) {
    return {.family = family, .seed = 1, .grad_samples = 10, .tol_rel_obj = 0.0001};
}

}  // namespace advi::examples
