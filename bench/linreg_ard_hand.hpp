// Linear regression with automatic relevance determination (the paper's appendix A.1):
// y ~ normal(X w, sigma), w ~ normal(0, sigma / sqrt(alpha)), sigma ~ inv_gamma(1, 1),
// alpha ~ gamma(1, 1); a hand-written gradient on zeta = [log sigma, log alpha, w].
// Plain C++17 with Eigen only.
#pragma once

#include <cmath>

#include <Eigen/Core>

#include "linear_regression_hand.hpp"

namespace advi::bench {

class LinregArdHand {
public:
    explicit LinregArdHand(const LinearRegressionData& d)
        : X_(d.X), y_(d.y), r_(d.y.size()), xr_(d.X.cols()) {}
    int dim() const { return 1 + 2 * static_cast<int>(X_.cols()); }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        const Eigen::Index N = X_.rows(), D = X_.cols();
        const double c = 0.5 * std::log(2 * M_PI);
        const double s = z[0], inv_s2 = std::exp(-2 * s);
        const auto a = z.segment(1, D);
        const auto w = z.segment(1 + D, D);
        const Eigen::ArrayXd alpha = a.array().exp();
        r_.noalias() = y_ - X_ * w;
        xr_.noalias() = X_.transpose() * r_;
        const double rr = r_.squaredNorm();
        const double wa = (w.array().square() * alpha).sum();
        // inv_gamma(sigma | 1, 1) + log|J| = -2s - e^-s + s; gamma(alpha | 1, 1) + log|J| = -e^a +
        // a
        double lp = -s - std::exp(-s) + (a.array() - alpha).sum();
        // w ~ normal(0, sigma / sqrt(alpha)): -w^2 alpha / (2 sigma^2) - s + a/2 - c
        lp += -0.5 * wa * inv_s2 - static_cast<double>(D) * (s + c) + 0.5 * a.sum();
        // y ~ normal(X w, sigma)
        lp += -0.5 * rr * inv_s2 - static_cast<double>(N) * (s + c);
        g[0] = -1 + std::exp(-s) + wa * inv_s2 - static_cast<double>(D) + rr * inv_s2 -
               static_cast<double>(N);
        g.segment(1, D) = (1 - alpha - 0.5 * w.array().square() * alpha * inv_s2 + 0.5).matrix();
        g.segment(1 + D, D) = (xr_.array() * inv_s2 - w.array() * alpha * inv_s2).matrix();
        return lp;
    }

private:
    const Eigen::MatrixXd& X_;
    const Eigen::VectorXd& y_;
    Eigen::VectorXd r_, xr_;
};

}  // namespace advi::bench
