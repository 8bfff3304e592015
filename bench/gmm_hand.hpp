// Gaussian mixture with the component marginalised (the paper's appendix A.5):
// y_n ~ sum_k theta_k prod_d normal(y_nd | mu_kd, sigma_kd), theta ~ dirichlet(alpha0),
// mu ~ normal(0, 1), sigma ~ lognormal(0, 1); the data and a hand-written gradient on zeta.
// Plain C++17 with Eigen and Boost.Random only.
#pragma once

#include <cmath>

#include <Eigen/Core>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "stick_breaking_hand.hpp"

namespace advi::bench {

struct GmmData {
    int N, D, K;
    Eigen::MatrixXd Y;  // N x D
    Eigen::VectorXd alpha0;
    GmmData(int n, int d, int k, unsigned seed = 1) : N(n), D(d), K(k), Y(n, d), alpha0(k) {
        boost::random::mt19937_64 rng(seed);
        boost::random::normal_distribution<> normal;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < D; ++j) Y(i, j) = normal(rng) + ((i % K) - K / 2.0) * 0.5;
        alpha0.setConstant(1.0);
    }
};

class GmmHand {
public:
    explicit GmmHand(const GmmData& d)
        : d_(d), Y2_(d.Y.array().square().matrix()), L_(d.N, d.K), GY_(d.K, d.D), GY2_(d.K, d.D) {}
    int dim() const { return (d_.K - 1) + 2 * d_.K * d_.D; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        const int K = d_.K, D = d_.D;
        const double c = 0.5 * std::log(2 * M_PI);
        g.setZero();
        // theta: Stan's stick-breaking from K - 1 coordinates, with its log-Jacobian.
        const StickBreaking sb(z, K);
        const Eigen::VectorXd& theta = sb.theta;
        double lp = sb.log_jacobian;
        const int o_mu = K - 1, o_s = o_mu + K * D;
        Eigen::Map<const Eigen::MatrixXd> mu(z.data() + o_mu, K, D);
        Eigen::Map<const Eigen::MatrixXd> ls(z.data() + o_s, K, D);  // log sigma
        Eigen::Map<Eigen::MatrixXd> gmu(g.data() + o_mu, K, D);
        Eigen::Map<Eigen::MatrixXd> gls(g.data() + o_s, K, D);
        const Eigen::MatrixXd P = (-2 * ls.array()).exp().matrix();
        // priors: dirichlet(theta | 1) = lgamma(K); normal(mu | 0, 1); lognormal(sigma | 0, 1)
        // with log|J| = log sigma, which cancels lognormal's -log sigma.
        lp += std::lgamma(static_cast<double>(K)) - 0.5 * mu.squaredNorm() - K * D * c -
              0.5 * ls.squaredNorm() - K * D * c;
        gmu -= mu;
        gls -= ls;
        // likelihood
        const Eigen::VectorXd per_k =
            theta.array().log().matrix() -
            0.5 * (mu.array().square() * P.array()).rowwise().sum().matrix() - ls.rowwise().sum() -
            Eigen::VectorXd::Constant(K, D * c);
        L_.noalias() = -0.5 * Y2_ * P.transpose();
        L_.noalias() += d_.Y * (mu.array() * P.array()).matrix().transpose();
        L_.rowwise() += per_k.transpose();
        const Eigen::VectorXd mx = L_.rowwise().maxCoeff();
        L_ = (L_.colwise() - mx).array().exp().matrix();  // now unnormalised responsibilities
        const Eigen::VectorXd norm = L_.rowwise().sum();
        lp += (mx.array() + norm.array().log()).sum();
        L_ = L_.array().colwise() / norm.array();  // responsibilities R (N x K)
        const Eigen::VectorXd nk = L_.colwise().sum().transpose();
        GY_.noalias() = L_.transpose() * d_.Y;
        GY2_.noalias() = L_.transpose() * Y2_;
        const Eigen::ArrayXXd dP = -0.5 * GY2_.array() + GY_.array() * mu.array() -
                                   0.5 * (mu.array().square().colwise() * nk.array());
        gmu += (GY_.array() * P.array() - (mu.array() * P.array()).colwise() * nk.array()).matrix();
        // P = exp(-2 log sigma): dP/dls = -2 P; the -sum_d log sigma term gives -n_k.
        gls += (dP * (-2 * P.array())).matrix();
        gls.array().colwise() -= nk.array();
        // theta: d/dtheta_k = n_k / theta_k; back through the stick-breaking.
        sb.gradient((nk.array() / theta.array()).matrix(), g);
        return lp;
    }

private:
    const GmmData& d_;
    Eigen::MatrixXd Y2_, L_, GY_, GY2_;
};

}  // namespace advi::bench
