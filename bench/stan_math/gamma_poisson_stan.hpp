// Gamma-Poisson matrix factorisation as Stan would run it (the paper's appendix A.3 without
// its ordering constraint, vectorised), on the unconstrained layout of GammaPoissonHand:
// zeta = [log theta (U x K, column-major), log beta (K x D, column-major)].
//
//   data { int U; int D; int K; int<lower=0> y[U * D];  // column-major, as to_vector
//          real a0; real b0; real c0; real d0; }
//   parameters { matrix<lower=0>[U, K] theta; matrix<lower=0>[K, D] beta; }
//   model {
//     target += gamma_lpdf(to_vector(theta) | a0, b0);
//     target += gamma_lpdf(to_vector(beta) | c0, d0);
//     target += poisson_lpmf(y | to_vector(theta * beta));
//   }
#pragma once

#include <vector>

// Stan first: it adds val() and adj() to Eigen's matrices (EIGEN_MATRIXBASE_PLUGIN), which
// must be set before Eigen is first included.
// clang-format off
#include <stan/math/rev/mat.hpp>
#include "gamma_poisson_hand.hpp"
// clang-format on

namespace advi::bench {

struct GammaPoissonStan {
    const GammaPoissonData& d;
    std::vector<int> y;  // Stan's int[U * D]
    explicit GammaPoissonStan(const GammaPoissonData& data)
        : d(data), y(data.y.data(), data.y.data() + data.y.size()) {}
    template <typename T>
    T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& z) const {
        using namespace stan::math;
        using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
        const int U = d.U, D = d.D, K = d.K;
        T lp = 0;
        Mat theta(U, K), beta(K, D);  // stanc's matrix_lb_constrain: element by element
        for (int i = 0; i < U * K; ++i) theta.data()[i] = lb_constrain(z[i], 0.0, lp);
        for (int i = 0; i < K * D; ++i) beta.data()[i] = lb_constrain(z[U * K + i], 0.0, lp);
        accumulator<T> target;
        target.add(gamma_lpdf<false>(to_vector(theta), d.a0, d.b0));
        target.add(gamma_lpdf<false>(to_vector(beta), d.c0, d.d0));
        target.add(poisson_lpmf<false>(y, to_vector(multiply(theta, beta))));
        target.add(lp);
        return target.sum();
    }
};

}  // namespace advi::bench
