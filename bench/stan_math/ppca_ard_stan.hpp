// Probabilistic PCA with automatic relevance determination as Stan would run it (the paper's
// appendix A.6 program, vectorised), on the unconstrained layout of PpcaArdHand:
// zeta = [log sigma, log alpha (M), W (D x M, column-major), Z (N x M, column-major)].
//
//   data { int N; int D; int M; matrix[N, D] X; }
//   parameters { real<lower=0> sigma; vector<lower=0>[M] alpha; matrix[D, M] W;
//                matrix[N, M] Z; }
//   model {
//     target += lognormal_lpdf(sigma | 0, 1);
//     target += inv_gamma_lpdf(alpha | 1, 1);
//     for (m in 1:M) target += normal_lpdf(col(W, m) | 0, sigma * alpha[m]);
//     target += normal_lpdf(to_vector(Z) | 0, 1);
//     target += normal_lpdf(to_vector(X) | to_vector(Z * W'), sigma);
//   }
#pragma once

// Stan first: it adds val() and adj() to Eigen's matrices (EIGEN_MATRIXBASE_PLUGIN), which
// must be set before Eigen is first included.
// clang-format off
#include <stan/math/rev/mat.hpp>
#include "ppca_ard_hand.hpp"
// clang-format on

namespace advi::bench {

struct PpcaArdStan {
    const PpcaArdData& d;
    Eigen::VectorXd x;  // to_vector(X), column-major
    explicit PpcaArdStan(const PpcaArdData& data)
        : d(data), x(Eigen::Map<const Eigen::VectorXd>(data.X.data(), data.X.size())) {}
    template <typename T>
    T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& z) const {
        using namespace stan::math;
        using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
        using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
        const int N = d.N, D = d.D, M = d.M;
        T lp = 0;
        const T sigma = lb_constrain(z[0], 0.0, lp);
        Vec alpha(M);
        for (int m = 0; m < M; ++m) alpha[m] = lb_constrain(z[1 + m], 0.0, lp);
        const Mat W = Eigen::Map<const Mat>(z.data() + 1 + M, D, M);
        const Mat Z = Eigen::Map<const Mat>(z.data() + 1 + M + D * M, N, M);
        accumulator<T> target;
        target.add(lognormal_lpdf<false>(sigma, 0.0, 1.0));
        target.add(inv_gamma_lpdf<false>(alpha, 1.0, 1.0));
        for (int m = 0; m < M; ++m)
            target.add(normal_lpdf<false>(col(W, m + 1), 0.0, sigma * alpha[m]));  // col is 1-based
        target.add(normal_lpdf<false>(to_vector(Z), 0.0, 1.0));
        target.add(normal_lpdf<false>(x, to_vector(multiply(Z, transpose(W))), sigma));
        target.add(lp);
        return target.sum();
    }
};

}  // namespace advi::bench
