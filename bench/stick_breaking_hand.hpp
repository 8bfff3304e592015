// Stan's simplex transform (stick-breaking from K - 1 unconstrained coordinates, with its
// log-Jacobian) and the chain rule back through it, by hand, for the hand-written mixture
// gradients (gmm_hand.hpp, mixture_loops_hand.hpp). Plain C++17 with Eigen only.
#pragma once

#include <cmath>

#include <Eigen/Core>

namespace advi::bench {

// theta from z[0 .. K-2]: w_k = logistic(z_k - log(K - 1 - k)), theta_k = stick_k w_k with
// stick_k = prod_{j<k} (1 - w_j), theta_{K-1} the stick left over.
struct StickBreaking {
    Eigen::VectorXd theta, w, stick;
    double log_jacobian = 0;

    StickBreaking(const Eigen::VectorXd& z, int K) : theta(K), w(K - 1), stick(K) {
        double s = 1;
        for (int k = 0; k < K - 1; ++k) {
            w[k] = 1 / (1 + std::exp(-(z[k] - std::log(K - 1.0 - k))));
            stick[k] = s;
            theta[k] = s * w[k];
            log_jacobian += std::log(s) + std::log(w[k]) + std::log1p(-w[k]);
            s *= 1 - w[k];
        }
        theta[K - 1] = s;
    }

    // Writes into g[0 .. K-2] the gradient in z of f(theta) + log_jacobian, given gtheta =
    // df/dtheta.
    void gradient(const Eigen::VectorXd& gtheta, Eigen::VectorXd& g) const {
        const int K = static_cast<int>(theta.size());
        double gs = gtheta[K - 1];
        for (int k = K - 2; k >= 0; --k) {
            const double gw = gtheta[k] * stick[k] - gs * stick[k] + 1 / w[k] - 1 / (1 - w[k]);
            gs = gtheta[k] * w[k] + gs * (1 - w[k]) + 1 / stick[k];
            g[k] = gw * w[k] * (1 - w[k]);
        }
    }
};

}  // namespace advi::bench
