// Linear regression with automatic relevance determination as Stan would run it (the
// paper's appendix A.1 program, vectorised), on the unconstrained layout of LinregArdHand:
// zeta = [log sigma, log alpha (D), w (D)].
//
//   parameters { real<lower=0> sigma; vector<lower=0>[D] alpha; vector[D] w; }
//   model {
//     target += inv_gamma_lpdf(sigma | 1, 1);
//     target += gamma_lpdf(alpha | 1, 1);
//     target += normal_lpdf(w | 0, sigma * inv_sqrt(alpha));
//     target += normal_lpdf(y | X * w, sigma);
//   }
#pragma once

// Stan first: it adds val() and adj() to Eigen's matrices (EIGEN_MATRIXBASE_PLUGIN), which
// must be set before Eigen is first included.
// clang-format off
#include <stan/math/rev/mat.hpp>
#include "linreg_ard_hand.hpp"
// clang-format on

namespace advi::bench {

struct LinregArdStan {
    const LinearRegressionData& d;
    template <typename T>
    T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& z) const {
        using namespace stan::math;
        using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
        const Eigen::Index D = d.X.cols();
        T lp = 0;
        const T sigma = lb_constrain(z[0], 0.0, lp);
        Vec alpha(D);  // stanc reads vector<lower=0> element by element
        for (Eigen::Index k = 0; k < D; ++k) alpha[k] = lb_constrain(z[1 + k], 0.0, lp);
        const Vec w = z.segment(1 + D, D);
        accumulator<T> target;
        target.add(inv_gamma_lpdf<false>(sigma, 1.0, 1.0));
        target.add(gamma_lpdf<false>(alpha, 1.0, 1.0));
        target.add(normal_lpdf<false>(w, 0.0, multiply(sigma, inv_sqrt(alpha))));
        target.add(normal_lpdf<false>(d.y, multiply(d.X, w), sigma));
        target.add(lp);
        return target.sum();
    }
};

}  // namespace advi::bench
