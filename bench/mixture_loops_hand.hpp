// Issue 19's mixture, written as a user writes it in Stan (loops over points and components;
// mixture_loops_model.hpp): K Gaussian components with per-component, per-dimension scales,
// y_n ~ sum_k theta_k prod_d normal(y_nd | mu_kd, sigma_kd), mu ~ normal(0, 5),
// sigma ~ lognormal(0, 1), theta uniform on the simplex. The data and a hand-written gradient
// on zeta as a C++ programmer writes the loop: one pass over (n, k, d) for the component log
// densities, one for their gradient, nothing of size N x K x D stored.
// Plain C++17 with Eigen and Boost.Random only.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Core>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "stick_breaking_hand.hpp"

namespace advi::bench {

struct MixtureLoopsData {
    int N, D, K;
    Eigen::MatrixXd Y;  // N x D
    MixtureLoopsData(int n, int d, int k, unsigned seed = 1) : N(n), D(d), K(k), Y(n, d) {
        boost::random::mt19937_64 rng(seed);
        boost::random::normal_distribution<> normal;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < D; ++j) Y(i, j) = normal(rng) + ((i % K) - K / 2.0) * 0.5;
    }
};

class MixtureLoopsHand {
public:
    explicit MixtureLoopsHand(const MixtureLoopsData& d)
        : d_(d), Yt_(d.Y.transpose()), L_(d.K), R_(d.K) {}
    // simplex theta (K - 1), then mu and log sigma, each K x D column-major (the lowering
    // stores `array[K] vector[D]` as a K x D matrix, one row per element).
    int dim() const { return (d_.K - 1) + 2 * d_.K * d_.D; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        const int N = d_.N, K = d_.K, D = d_.D;
        const double c = 0.5 * std::log(2 * M_PI);
        g.setZero();
        // theta: Stan's stick-breaking from K - 1 coordinates, with its log-Jacobian.
        const StickBreaking sb(z, K);
        const Eigen::VectorXd& theta = sb.theta;
        double lp = sb.log_jacobian;
        const int o_mu = K - 1, o_s = o_mu + K * D;
        // Row-major copies (d contiguous per component) for the inner loop.
        Eigen::MatrixXd mu = Eigen::Map<const Eigen::MatrixXd>(z.data() + o_mu, K, D).transpose();
        Eigen::MatrixXd ls = Eigen::Map<const Eigen::MatrixXd>(z.data() + o_s, K, D).transpose();
        Eigen::MatrixXd isig = (-ls.array()).exp().matrix();
        Eigen::MatrixXd gmu = Eigen::MatrixXd::Zero(D, K), gls = Eigen::MatrixXd::Zero(D, K);
        // priors: normal(mu | 0, 5); lognormal(sigma | 0, 1) with log|J| = log sigma, which
        // cancels lognormal's -log sigma.
        lp += -0.5 * mu.squaredNorm() / 25 - K * D * (std::log(5.0) + c) - 0.5 * ls.squaredNorm() -
              K * D * c;
        gmu -= mu / 25;
        gls -= ls;
        // per component: log theta_k - sum_d log sigma_kd - D c
        Eigen::VectorXd per_k(K), nk = Eigen::VectorXd::Zero(K);
        for (int k = 0; k < K; ++k) per_k[k] = std::log(theta[k]) - ls.col(k).sum() - D * c;
        for (int n = 0; n < N; ++n) {
            const double* y = Yt_.col(n).data();
            double mx = -INFINITY;
            for (int k = 0; k < K; ++k) {
                const double* m = mu.col(k).data();
                const double* is = isig.col(k).data();
                double acc = 0;
                for (int j = 0; j < D; ++j) {
                    const double t = (y[j] - m[j]) * is[j];
                    acc += t * t;
                }
                L_[k] = per_k[k] - 0.5 * acc;
                mx = std::max(mx, L_[k]);
            }
            double norm = 0;
            for (int k = 0; k < K; ++k) norm += (R_[k] = std::exp(L_[k] - mx));
            lp += mx + std::log(norm);
            for (int k = 0; k < K; ++k) {
                const double r = R_[k] / norm;  // responsibility
                nk[k] += r;
                const double* m = mu.col(k).data();
                const double* is = isig.col(k).data();
                double* gm = gmu.col(k).data();
                double* gl = gls.col(k).data();
                for (int j = 0; j < D; ++j) {
                    const double t = (y[j] - m[j]) * is[j];
                    gm[j] += r * t * is[j];
                    gl[j] += r * t * t;  // d/dlog sigma of -t^2 / 2
                }
            }
        }
        gls.rowwise() -= nk.transpose();  // the -log sigma of each point's density
        Eigen::Map<Eigen::MatrixXd>(g.data() + o_mu, K, D) = gmu.transpose();
        Eigen::Map<Eigen::MatrixXd>(g.data() + o_s, K, D) = gls.transpose();
        // theta: d/dtheta_k = n_k / theta_k; back through the stick-breaking.
        sb.gradient((nk.array() / theta.array()).matrix(), g);
        return lp;
    }

private:
    const MixtureLoopsData& d_;
    Eigen::MatrixXd Yt_;  // D x N: one point per column
    Eigen::VectorXd L_, R_;
};

}  // namespace advi::bench
