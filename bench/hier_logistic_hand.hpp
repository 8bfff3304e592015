// Hierarchical logistic regression of election-poll data (the paper's appendix A.2, N=10000,
// 4 age x 4 education groups, 50 states in 5 regions): the data and a hand-written Eigen
// gradient of the log density on zeta. Plain C++17 with Eigen and Boost.Random only.
#pragma once

#include <cmath>

#include <Eigen/Core>
#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

namespace advi::bench {

struct ElectionData {
    int N;
    static constexpr int kAge = 4, kEdu = 4, kState = 50, kRegion = 5;
    Eigen::VectorXd female, black, female_black, v_prev;  // v_prev per state
    Eigen::VectorXi age, edu, age_edu, state, region;     // 0-based; region per state
    Eigen::VectorXi y;
    explicit ElectionData(int n, unsigned seed = 1) : N(n) {
        boost::random::mt19937_64 rng(seed);
        boost::random::bernoulli_distribution<> coin(0.5), rare(0.1);
        boost::random::normal_distribution<> normal;
        auto pick = [&](int k) { return boost::random::uniform_int_distribution<>(0, k - 1)(rng); };
        female.resize(N), black.resize(N), female_black.resize(N);
        age.resize(N), edu.resize(N), age_edu.resize(N), state.resize(N), y.resize(N);
        region.resize(kState), v_prev.resize(kState);
        for (int j = 0; j < kState; ++j) {
            region[j] = j % kRegion;
            v_prev[j] = 0.3 + 0.5 * (j % 7) / 7.0;
        }
        for (int n = 0; n < N; ++n) {
            female[n] = coin(rng);
            black[n] = rare(rng);
            female_black[n] = female[n] * black[n];
            age[n] = pick(kAge);
            edu[n] = pick(kEdu);
            age_edu[n] = age[n] * kEdu + edu[n];
            state[n] = pick(kState);
            const double eta = 0.3 - 0.2 * female[n] - 1.5 * black[n] + 0.1 * (age[n] - 1.5) +
                               0.4 * (v_prev[state[n]] - 0.5) + 0.3 * normal(rng);
            y[n] = boost::random::bernoulli_distribution<>(1 / (1 + std::exp(-eta)))(rng);
        }
    }
};

// The same log density by hand: one pass over the N rows for eta and its residual, scatter-adds
// for the group effects.
class HierLogisticHand {
public:
    explicit HierLogisticHand(const ElectionData& d) : d_(d) {}
    static constexpr int kSigmas = 5, kScalars = 5;  // b0, female, black, female.black, v.prev
    int dim() const {
        using D = ElectionData;
        return kSigmas + kScalars + D::kAge + D::kEdu + D::kAge * D::kEdu + D::kRegion + D::kState;
    }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        using D = ElectionData;
        const double c = 0.5 * std::log(2 * M_PI);
        g.setZero();
        double lp = 0;
        // sigmas: interval(0, 100) = 100 logit^-1(zeta); uniform density -log 100.
        double sigma[kSigmas], dsigma[kSigmas];
        for (int k = 0; k < kSigmas; ++k) {
            const double u = 1 / (1 + std::exp(-z[k]));
            sigma[k] = 100 * u;
            dsigma[k] = 100 * u * (1 - u);
            // uniform(0, 100) density -log 100, plus log|J| = log 100 + log u + log(1 - u)
            lp += std::log(u) + std::log1p(-u);
            g[k] += 1 - 2 * u;  // d/dzeta of the log-Jacobian
        }
        int at = kSigmas;
        // normal(0, 100) priors on the five coefficients
        for (int k = 0; k < kScalars; ++k, ++at) {
            lp += -0.5 * z[at] * z[at] / 1e4 - std::log(100.0) - c;
            g[at] += -z[at] / 1e4;
        }
        const int b0 = kSigmas, bf = b0 + 1, bb = b0 + 2, bfb = b0 + 3, bv = b0 + 4;
        const int o_age = at, o_edu = o_age + D::kAge, o_ae = o_edu + D::kEdu,
                  o_region = o_ae + D::kAge * D::kEdu, o_state = o_region + D::kRegion;
        // group effects a ~ normal(mean, sigma)
        auto group = [&](int off, int n, int s, const Eigen::VectorXd* mean) {
            double ss = 0;
            for (int k = 0; k < n; ++k) {
                const double e = z[off + k] - (mean ? (*mean)[k] : 0.0);
                ss += e * e;
                g[off + k] += -e / (sigma[s] * sigma[s]);
            }
            lp += -0.5 * ss / (sigma[s] * sigma[s]) - n * (std::log(sigma[s]) + c);
            g[s] += (ss / (sigma[s] * sigma[s] * sigma[s]) - n / sigma[s]) * dsigma[s];
        };
        group(o_age, D::kAge, 0, nullptr);
        group(o_edu, D::kEdu, 1, nullptr);
        group(o_ae, D::kAge * D::kEdu, 2, nullptr);
        group(o_region, D::kRegion, 4, nullptr);
        Eigen::VectorXd state_mean(D::kState);
        for (int j = 0; j < D::kState; ++j)
            state_mean[j] = z[o_region + d_.region[j]] + z[bv] * d_.v_prev[j];
        group(o_state, D::kState, 3, &state_mean);
        for (int j = 0; j < D::kState; ++j) {
            const double w = (z[o_state + j] - state_mean[j]) / (sigma[3] * sigma[3]);
            g[o_region + d_.region[j]] += w;
            g[bv] += w * d_.v_prev[j];
        }
        // likelihood: y ~ bernoulli_logit(eta)
        for (int n = 0; n < d_.N; ++n) {
            const double eta = z[b0] + z[bf] * d_.female[n] + z[bb] * d_.black[n] +
                               z[bfb] * d_.female_black[n] + z[o_age + d_.age[n]] +
                               z[o_edu + d_.edu[n]] + z[o_ae + d_.age_edu[n]] +
                               z[o_state + d_.state[n]];
            // log logit^-1(eta) = -log1p(exp(-eta)), stable both ways
            const double l1 =
                eta > 0 ? -std::log1p(std::exp(-eta)) : eta - std::log1p(std::exp(eta));
            const double l0 = l1 - eta;  // log logit^-1(-eta)
            lp += d_.y[n] ? l1 : l0;
            const double r = d_.y[n] - 1 / (1 + std::exp(-eta));
            g[b0] += r;
            g[bf] += r * d_.female[n];
            g[bb] += r * d_.black[n];
            g[bfb] += r * d_.female_black[n];
            g[o_age + d_.age[n]] += r;
            g[o_edu + d_.edu[n]] += r;
            g[o_ae + d_.age_edu[n]] += r;
            g[o_state + d_.state[n]] += r;
        }
        return lp;
    }

private:
    const ElectionData& d_;
};

}  // namespace advi::bench
