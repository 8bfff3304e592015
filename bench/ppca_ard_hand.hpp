// Probabilistic PCA with automatic relevance determination (the paper's appendix A.6):
// x_n ~ normal(W z_n, sigma) (N x D data, W D x M, z_n in R^M), z ~ normal(0, 1), W_dm ~
// normal(0, sigma alpha_m), sigma ~ lognormal(0, 1), alpha ~ inv_gamma(1, 1); simulated
// low-rank data and a hand-written gradient on zeta = [log sigma, log alpha, W, Z].
// Plain C++17 with Eigen and Boost.Random only.
#pragma once

#include <cmath>

#include <Eigen/Core>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

namespace advi::bench {

// X = Z W' + sigma E with a true rank of about M / 2 (so that ARD has columns to switch off):
// W's columns iid normal scaled by 2, 1.4, 0.98, ... (0.7^j), Z and E standard normal.
struct PpcaArdData {
    int N, D, M;
    Eigen::MatrixXd X;  // N x D
    PpcaArdData(int n, int d, int m, unsigned seed = 1) : N(n), D(d), M(m), X(n, d) {
        boost::random::mt19937_64 rng(seed);
        boost::random::normal_distribution<> normal;
        const int rank = (m + 1) / 2;
        const double sigma = 0.5;
        Eigen::MatrixXd W(D, rank), Z(N, rank);
        double scale = 2;
        for (int j = 0; j < rank; ++j, scale *= 0.7)
            for (int i = 0; i < D; ++i) W(i, j) = scale * normal(rng);
        for (Eigen::Index i = 0; i < Z.size(); ++i) Z.data()[i] = normal(rng);
        X.noalias() = Z * W.transpose();
        for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] += sigma * normal(rng);
    }
};

// With s = log sigma, a = log alpha and R = X - Z W', the log density on zeta (log|J| = s + sum a):
//   -N D (s + c) - |R|^2 / (2 sigma^2)                           likelihood
//   - D M (s + c) - D sum a - sum_m |W_m|^2 / (2 sigma^2 alpha_m^2)  W's prior
//   - |Z|^2 / 2 - N M c                                            Z's prior
//   - s^2 / 2 - c                                                  lognormal(sigma) + s
//   - sum (a + exp(-a))                                            inv_gamma(alpha | 1, 1) + a
// with c = log(2 pi) / 2; the gradient takes two matrix products with R: R W and R' Z.
class PpcaArdHand {
public:
    explicit PpcaArdHand(const PpcaArdData& d) : X_(d.X), R_(d.N, d.D), M_(d.M) {}
    int dim() const { return 1 + M_ + static_cast<int>(X_.cols() + X_.rows()) * M_; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        const Eigen::Index N = X_.rows(), D = X_.cols(), M = M_;
        const double c = 0.91893853320467274178;  // log(2 pi) / 2
        const double s = z[0], inv_s2 = std::exp(-2 * s);
        const auto a = z.segment(1, M).array();
        Eigen::Map<const Eigen::MatrixXd> W(z.data() + 1 + M, D, M),
            Z(z.data() + 1 + M + D * M, N, M);
        Eigen::Map<Eigen::MatrixXd> gW(g.data() + 1 + M, D, M), gZ(g.data() + 1 + M + D * M, N, M);
        // the residual: a copy of X, then the product subtracted inside Eigen's kernel
        R_ = X_;
        R_.noalias() -= Z * W.transpose();
        const double rr = R_.squaredNorm();
        // W's prior precisions 1 / (sigma alpha_m)^2 and the weighted column norms
        const Eigen::ArrayXd prec = inv_s2 * (-2 * a).exp();
        const Eigen::ArrayXd wq = W.colwise().squaredNorm().transpose().array() * prec;
        const double nd = static_cast<double>(N) * D, dm = static_cast<double>(D) * M;
        double lp = -nd * (s + c) - 0.5 * rr * inv_s2;
        lp += -dm * (s + c) - D * a.sum() - 0.5 * wq.sum();
        lp += -0.5 * Z.squaredNorm() - static_cast<double>(N) * M * c;
        lp += -0.5 * s * s - c - (a + (-a).exp()).sum();
        g[0] = -nd + rr * inv_s2 - dm + wq.sum() - s;
        g.segment(1, M) = (wq - D - 1 + (-a).exp()).matrix();
        gW = -(W.array().rowwise() * prec.transpose()).matrix();
        gW.noalias() += (inv_s2 * R_.transpose()) * Z;
        gZ = -Z;
        gZ.noalias() += (inv_s2 * R_) * W;
        return lp;
    }

private:
    const Eigen::MatrixXd& X_;
    Eigen::MatrixXd R_;  // X - Z W'
    int M_;
};

}  // namespace advi::bench
