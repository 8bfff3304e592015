// Stochastic volatility (the paper's section 3.1): y_t ~ normal(0, exp(h_t / 2)),
// h_1 ~ normal(mu, sigma / sqrt(1 - phi^2)), h_t ~ normal(mu + phi (h_{t-1} - mu), sigma),
// mu ~ cauchy(0, 10), phi ~ uniform(-1, 1), sigma ~ lognormal(0, 10); the data and a
// hand-written gradient on zeta. Plain C++17 with Eigen and Boost.Random only.
#pragma once

#include <cmath>

#include <Eigen/Core>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

namespace advi::bench {

struct StochVolData {
    Eigen::VectorXd y;
    explicit StochVolData(int T, unsigned seed = 1) : y(T) {
        boost::random::mt19937_64 rng(seed);
        boost::random::normal_distribution<> normal;
        double h = -1.0;
        for (int t = 0; t < T; ++t) {
            h = -1.0 + 0.9 * (h + 1.0) + 0.6 * normal(rng);
            y[t] = std::exp(h / 2) * normal(rng);
        }
    }
};

class StochVolHand {
public:
    explicit StochVolHand(const StochVolData& d) : y_(d.y) {}
    int dim() const { return 3 + static_cast<int>(y_.size()); }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        const int T = static_cast<int>(y_.size());
        const double c = 0.5 * std::log(2 * M_PI);
        const double mu = z[0];
        const double u = 1 / (1 + std::exp(-z[1]));
        const double phi = -1 + 2 * u;
        const double s = z[2], sigma = std::exp(s), inv_s2 = 1 / (sigma * sigma);
        const double* h = z.data() + 3;
        double* gh = g.data() + 3;
        g.setZero();
        double dmu = 0, dphi = 0, ds = 0;
        // priors with their log-Jacobians
        const double m10 = mu / 10;
        double lp = -std::log(M_PI) - std::log(10.0) - std::log1p(m10 * m10);
        dmu += -2 * m10 / 10 / (1 + m10 * m10);
        lp += -std::log(2.0) + std::log(2.0) + std::log(u) + std::log1p(-u);
        g[1] += 1 - 2 * u;
        lp += -0.5 * (s / 10) * (s / 10) - std::log(10.0) - s - c + s;
        ds += -s / 100;
        // h_1 ~ normal(mu, sigma / sqrt(1 - phi^2))
        const double e1 = h[0] - mu, q = 1 - phi * phi;
        lp += -0.5 * e1 * e1 * q * inv_s2 - (s - 0.5 * std::log(q)) - c;
        gh[0] += -e1 * q * inv_s2;
        dmu += e1 * q * inv_s2;
        ds += e1 * e1 * q * inv_s2 - 1;
        dphi += e1 * e1 * phi * inv_s2 - phi / q;
        // h_t ~ normal(mu + phi (h_{t-1} - mu), sigma)
        double ss = 0;
        for (int t = 1; t < T; ++t) {
            const double prev = h[t - 1] - mu;
            const double e = h[t] - mu - phi * prev;
            ss += e * e;
            gh[t] += -e * inv_s2;
            gh[t - 1] += phi * e * inv_s2;
            dmu += (1 - phi) * e * inv_s2;
            dphi += e * prev * inv_s2;
        }
        lp += -0.5 * ss * inv_s2 - (T - 1) * (s + c);
        ds += ss * inv_s2 - (T - 1);
        // y_t ~ normal(0, exp(h_t / 2))
        for (int t = 0; t < T; ++t) {
            const double w = y_[t] * y_[t] * std::exp(-h[t]);
            lp += -0.5 * w - 0.5 * h[t] - c;
            gh[t] += 0.5 * w - 0.5;
        }
        g[0] += dmu;
        g[1] += dphi * 2 * u * (1 - u);
        g[2] += ds;
        return lp;
    }

private:
    const Eigen::VectorXd& y_;
};

}  // namespace advi::bench
