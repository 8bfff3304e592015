// Linear regression as Stan would run it: the Stan program below, written as the templated
// log density stanc generates for it (the constraining transforms with their log-Jacobians,
// then the target terms with constants, propto = false), on the unconstrained layout of
// LinearRegressionHand: zeta = [beta (D), log sigma].
//
//   data { int N; int D; matrix[N, D] X; vector[N] y; }
//   parameters { vector[D] beta; real<lower=0> sigma; }
//   model {
//     target += normal_lpdf(beta | 0, 10);
//     target += lognormal_lpdf(sigma | 0, 1);
//     target += normal_lpdf(y | X * beta, sigma);
//   }
#pragma once

// Stan first: it adds val() and adj() to Eigen's matrices (EIGEN_MATRIXBASE_PLUGIN), which
// must be set before Eigen is first included.
// clang-format off
#include <stan/math/rev/mat.hpp>
#include "linear_regression_hand.hpp"
// clang-format on

namespace advi::bench {

struct LinearRegressionStan {
    const LinearRegressionData& d;
    template <typename T>
    T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& z) const {
        using namespace stan::math;
        const Eigen::Index D = d.X.cols();
        T lp = 0;  // log-Jacobians, as stanc's lp__
        const Eigen::Matrix<T, Eigen::Dynamic, 1> beta = z.head(D);
        const T sigma = lb_constrain(z[D], 0.0, lp);
        accumulator<T> target;  // stanc's lp_accum__
        target.add(normal_lpdf<false>(beta, 0.0, 10.0));
        target.add(lognormal_lpdf<false>(sigma, 0.0, 1.0));
        target.add(normal_lpdf<false>(d.y, multiply(d.X, beta), sigma));
        target.add(lp);
        return target.sum();
    }
};

}  // namespace advi::bench
