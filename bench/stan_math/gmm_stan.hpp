// Gaussian mixture with the component marginalised as Stan would run it: the paper's
// appendix A.5 model in the Stan User's Guide's form for finite mixtures (log theta cached
// outside the loop, one vectorised normal_lpdf over the D coordinates per point and
// component, log_sum_exp over components), on the unconstrained layout of GmmHand:
// zeta = [simplex_free(theta) (K - 1), mu (K x D, column-major), log sigma (K x D, ditto)].
//
//   data { int N; int D; int K; vector[D] y[N]; vector<lower=0>[K] alpha0; }
//   parameters { simplex[K] theta; vector[D] mu[K]; vector<lower=0>[D] sigma[K]; }
//   model {
//     vector[K] log_theta = log(theta);
//     target += dirichlet_lpdf(theta | alpha0);
//     for (k in 1:K) {
//       target += normal_lpdf(mu[k] | 0, 1);
//       target += lognormal_lpdf(sigma[k] | 0, 1);
//     }
//     for (n in 1:N) {
//       vector[K] lps = log_theta;
//       for (k in 1:K) lps[k] += normal_lpdf(y[n] | mu[k], sigma[k]);
//       target += log_sum_exp(lps);
//     }
//   }
#pragma once

#include <vector>

// Stan first: it adds val() and adj() to Eigen's matrices (EIGEN_MATRIXBASE_PLUGIN), which
// must be set before Eigen is first included.
// clang-format off
#include <stan/math/rev/mat.hpp>
#include "gmm_hand.hpp"
// clang-format on

namespace advi::bench {

struct GmmStan {
    const GmmData& d;
    std::vector<Eigen::VectorXd> y;  // Stan's vector[D] y[N]
    explicit GmmStan(const GmmData& data) : d(data), y(data.N) {
        for (int n = 0; n < d.N; ++n) y[n] = d.Y.row(n).transpose();
    }
    template <typename T>
    T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& z) const {
        using namespace stan::math;
        using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
        const int N = d.N, D = d.D, K = d.K;
        T lp = 0;
        const Vec theta = simplex_constrain(Vec(z.head(K - 1)), lp);
        const int o_mu = K - 1, o_s = o_mu + K * D;
        std::vector<Vec> mu(K, Vec(D)), sigma(K, Vec(D));
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < D; ++j) {
                mu[k][j] = z[o_mu + k + K * j];
                sigma[k][j] = lb_constrain(z[o_s + k + K * j], 0.0, lp);
            }
        accumulator<T> target;
        const Vec log_theta = log(theta);
        target.add(dirichlet_lpmf<false>(theta, d.alpha0));  // Stan's dirichlet_lpdf
        for (int k = 0; k < K; ++k) {
            target.add(normal_lpdf<false>(mu[k], 0.0, 1.0));
            target.add(lognormal_lpdf<false>(sigma[k], 0.0, 1.0));
        }
        Vec lps(K);
        for (int n = 0; n < N; ++n) {
            lps = log_theta;
            for (int k = 0; k < K; ++k) lps[k] += normal_lpdf<false>(y[n], mu[k], sigma[k]);
            target.add(log_sum_exp(lps));
        }
        target.add(lp);
        return target.sum();
    }
};

}  // namespace advi::bench
