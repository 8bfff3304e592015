// Gamma-Poisson matrix factorisation (the paper's appendix A.3, without its ordering
// constraint): y_ud ~ poisson(theta_u . beta_d), theta_uk ~ gamma(a0, b0), beta_kd ~ gamma(c0,
// d0); simulated counts and a hand-written gradient on zeta = [log theta, log beta].
// Plain C++17 with Eigen and Boost.Random only.
#pragma once

#include <cmath>

#include <Eigen/Core>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/poisson_distribution.hpp>

namespace advi::bench {

// U x D counts drawn from the model's prior: theta (U x K) and beta (K x D) from the gamma
// priors, y_ud ~ poisson(theta_u . beta_d). With the paper's hyperparameters (all 1) the rate
// averages K, so K = 10 gives about 10 per cell, as the paper's Frey faces.
struct GammaPoissonData {
    int U, D, K;
    double a0 = 1, b0 = 1, c0 = 1, d0 = 1;  // theta ~ gamma(a0, b0), beta ~ gamma(c0, d0) (rates)
    Eigen::VectorXi y;                      // U x D, column-major: y[u + U d]
    GammaPoissonData(int u, int d, int k, unsigned seed = 1) : U(u), D(d), K(k), y(u * d) {
        boost::random::mt19937_64 rng(seed);
        boost::random::gamma_distribution<> theta_prior(a0, 1 / b0), beta_prior(c0, 1 / d0);
        Eigen::MatrixXd theta(U, K), beta(K, D);
        for (Eigen::Index i = 0; i < theta.size(); ++i) theta.data()[i] = theta_prior(rng);
        for (Eigen::Index i = 0; i < beta.size(); ++i) beta.data()[i] = beta_prior(rng);
        const Eigen::MatrixXd rate = theta * beta;
        for (Eigen::Index i = 0; i < rate.size(); ++i)
            y[i] = boost::random::poisson_distribution<>(rate.data()[i])(rng);
    }
};

// log p(zeta) = sum_ud [y log r - r - lgamma(y + 1)] with r = theta beta, plus the gamma
// priors with theta = exp(zeta) and log|J| = zeta: a log b - lgamma(a) + a zeta - b exp(zeta).
// The gradient: with G = y / r (U x D), d/dtheta = G beta' - rowsum(beta)', d/dbeta = theta' G
// - colsum(theta) (since sum r = colsum(theta) . rowsum(beta)), times theta or beta for zeta.
class GammaPoissonHand {
public:
    explicit GammaPoissonHand(const GammaPoissonData& d)
        : d_(d), Y_(d.y.data(), d.U, d.D), theta_(d.U, d.K), beta_(d.K, d.D), R_(d.U, d.D) {
        const double lp_theta = d.a0 * std::log(d.b0) - std::lgamma(d.a0);
        const double lp_beta = d.c0 * std::log(d.d0) - std::lgamma(d.c0);
        // everything that does not depend on zeta: -sum lgamma(y + 1) and the priors' constants
        double lg = 0;
        for (Eigen::Index i = 0; i < d.y.size(); ++i) lg += std::lgamma(d.y[i] + 1.0);
        const_ = -lg + static_cast<double>(d.U) * d.K * lp_theta +
                 static_cast<double>(d.K) * d.D * lp_beta;
    }
    int dim() const { return d_.U * d_.K + d_.K * d_.D; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        const Eigen::Index U = d_.U, D = d_.D, K = d_.K;
        Eigen::Map<const Eigen::MatrixXd> zt(z.data(), U, K), zb(z.data() + U * K, K, D);
        Eigen::Map<Eigen::MatrixXd> gt(g.data(), U, K), gb(g.data() + U * K, K, D);
        theta_ = zt.array().exp();
        beta_ = zb.array().exp();
        const Eigen::VectorXd st = theta_.colwise().sum().transpose();  // K
        const Eigen::VectorXd sb = beta_.rowwise().sum();               // K
        double lp = const_ + d_.a0 * zt.sum() - d_.b0 * st.sum() + d_.c0 * zb.sum() -
                    d_.d0 * sb.sum() - st.dot(sb);
        R_.noalias() = theta_ * beta_;
        // One column of R (U doubles) at a time, while it is in cache: y log r, then r <- y / r.
        double ylogr = 0;
        for (Eigen::Index j = 0; j < D; ++j) {
            auto r = R_.col(j).array();
            const auto y = Y_.col(j).array().cast<double>();
            ylogr += (y * r.log()).sum();
            r = y / r;
        }
        lp += ylogr;
        gt.noalias() = R_ * beta_.transpose();
        gb.noalias() = theta_.transpose() * R_;
        gt.array() = theta_.array() * (gt.array().rowwise() - sb.transpose().array()) + d_.a0 -
                     d_.b0 * theta_.array();
        gb.array() =
            beta_.array() * (gb.array().colwise() - st.array()) + d_.c0 - d_.d0 * beta_.array();
        return lp;
    }

private:
    const GammaPoissonData& d_;
    Eigen::Map<const Eigen::MatrixXi> Y_;  // the counts as U x D, read in place
    Eigen::MatrixXd theta_, beta_, R_;     // R: the rates, then y / rate
    double const_ = 0;
};

}  // namespace advi::bench
