// Stochastic volatility as Stan would run it (the Stan User's Guide's vectorised program,
// with our priors), on the unconstrained layout of StochVolHand:
// zeta = [mu, logit((phi + 1) / 2), log sigma, h (T)].
//
//   parameters { real mu; real<lower=-1, upper=1> phi; real<lower=0> sigma; vector[T] h; }
//   model {
//     target += cauchy_lpdf(mu | 0, 10);
//     target += uniform_lpdf(phi | -1, 1);
//     target += lognormal_lpdf(sigma | 0, 10);
//     target += normal_lpdf(h[1] | mu, sigma / sqrt(1 - phi * phi));
//     target += normal_lpdf(h[2:T] | mu + phi * (h[1:(T - 1)] - mu), sigma);
//     target += normal_lpdf(y | 0, exp(h / 2));
//   }
#pragma once

// Stan first: it adds val() and adj() to Eigen's matrices (EIGEN_MATRIXBASE_PLUGIN), which
// must be set before Eigen is first included.
// clang-format off
#include <stan/math/rev/mat.hpp>
#include "stochvol_hand.hpp"
// clang-format on

namespace advi::bench {

struct StochVolStan {
    const StochVolData& d;
    template <typename T>
    T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& z) const {
        using namespace stan::math;
        using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
        const Eigen::Index n = d.y.size();
        T lp = 0;
        const T mu = z[0];
        const T phi = lub_constrain(z[1], -1.0, 1.0, lp);
        const T sigma = lb_constrain(z[2], 0.0, lp);
        const Vec h = z.tail(n);
        accumulator<T> target;
        target.add(cauchy_lpdf<false>(mu, 0.0, 10.0));
        target.add(uniform_lpdf<false>(phi, -1.0, 1.0));
        // Double arguments throughout: Stan Math 3.0 (StanHeaders 2.21) computes lognormal_lpdf
        // with an int scale by integer division, 1 / 10 == 0 (stan-dev/math#1893, fixed in 3.3).
        target.add(lognormal_lpdf<false>(sigma, 0.0, 10.0));
        target.add(normal_lpdf<false>(h[0], mu, sigma / sqrt(1 - phi * phi)));
        const Vec h_tail = h.tail(n - 1), h_head = h.head(n - 1);  // stanc's rvalue slices
        target.add(normal_lpdf<false>(h_tail, add(mu, multiply(phi, subtract(h_head, mu))), sigma));
        target.add(normal_lpdf<false>(d.y, 0.0, exp(divide(h, 2.0))));
        target.add(lp);
        return target.sum();
    }
};

}  // namespace advi::bench
