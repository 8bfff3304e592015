// Hierarchical logistic regression of election-poll data as Stan would run it (the paper's
// appendix A.2 program: a loop for the linear predictor, vectorised priors and likelihood),
// on the unconstrained layout of HierLogisticHand: zeta = [logit(sigma / 100) for age, edu,
// age_edu, state, region; b0, b_female, b_black, b_female_black, b_v_prev; a_age (4),
// a_edu (4), a_age_edu (16), a_region (5), a_state (50)].
//
//   parameters {
//     real<lower=0, upper=100> sigma_age, sigma_edu, sigma_age_edu, sigma_state, sigma_region;
//     real b0, b_female, b_black, b_female_black, b_v_prev;
//     vector[4] a_age; vector[4] a_edu; vector[16] a_age_edu; vector[5] a_region;
//     vector[50] a_state;
//   }
//   model {
//     vector[N] eta;
//     target += uniform_lpdf(sigma_age | 0, 100);  // and the four other sigmas
//     target += normal_lpdf(b0 | 0, 100);          // and the four other coefficients
//     target += normal_lpdf(a_age | 0, sigma_age);
//     target += normal_lpdf(a_edu | 0, sigma_edu);
//     target += normal_lpdf(a_age_edu | 0, sigma_age_edu);
//     target += normal_lpdf(a_region | 0, sigma_region);
//     target += normal_lpdf(a_state | a_region[region] + b_v_prev * v_prev, sigma_state);
//     for (n in 1:N)
//       eta[n] = b0 + b_female * female[n] + b_black * black[n]
//                + b_female_black * female_black[n] + a_age[age[n]] + a_edu[edu[n]]
//                + a_age_edu[age_edu[n]] + a_state[state[n]];
//     target += bernoulli_logit_lpmf(y | eta);
//   }
#pragma once

#include <vector>

// Stan first: it adds val() and adj() to Eigen's matrices (EIGEN_MATRIXBASE_PLUGIN), which
// must be set before Eigen is first included.
// clang-format off
#include <stan/math/rev/mat.hpp>
#include "hier_logistic_hand.hpp"
// clang-format on

namespace advi::bench {

struct HierLogisticStan {
    const ElectionData& d;
    std::vector<int> y;  // Stan's int[N]
    explicit HierLogisticStan(const ElectionData& data)
        : d(data), y(data.y.data(), data.y.data() + data.y.size()) {}
    template <typename T>
    T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& z) const {
        using namespace stan::math;
        using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
        using D = ElectionData;
        T lp = 0;
        T sigma[5];  // age, edu, age_edu, state, region
        for (int k = 0; k < 5; ++k) sigma[k] = lub_constrain(z[k], 0.0, 100.0, lp);
        const T b0 = z[5], b_female = z[6], b_black = z[7], b_female_black = z[8], b_v_prev = z[9];
        int at = 10;
        auto take = [&](int n) {
            Vec v = z.segment(at, n);
            at += n;
            return v;
        };
        const Vec a_age = take(D::kAge), a_edu = take(D::kEdu), a_age_edu = take(D::kAge * D::kEdu),
                  a_region = take(D::kRegion), a_state = take(D::kState);
        accumulator<T> target;
        for (int k = 0; k < 5; ++k) target.add(uniform_lpdf<false>(sigma[k], 0.0, 100.0));
        for (const T& b : {b0, b_female, b_black, b_female_black, b_v_prev})
            target.add(normal_lpdf<false>(b, 0.0, 100.0));
        target.add(normal_lpdf<false>(a_age, 0.0, sigma[0]));
        target.add(normal_lpdf<false>(a_edu, 0.0, sigma[1]));
        target.add(normal_lpdf<false>(a_age_edu, 0.0, sigma[2]));
        target.add(normal_lpdf<false>(a_region, 0.0, sigma[4]));
        Vec a_region_of_state(D::kState);  // a_region[region]: a multi-index copies the vars
        for (int j = 0; j < D::kState; ++j) a_region_of_state[j] = a_region[d.region[j]];
        target.add(normal_lpdf<false>(a_state, add(a_region_of_state, multiply(b_v_prev, d.v_prev)),
                                      sigma[3]));
        Vec eta(d.N);
        for (int n = 0; n < d.N; ++n)
            eta[n] = b0 + b_female * d.female[n] + b_black * d.black[n] +
                     b_female_black * d.female_black[n] + a_age[d.age[n]] + a_edu[d.edu[n]] +
                     a_age_edu[d.age_edu[n]] + a_state[d.state[n]];
        target.add(bernoulli_logit_lpmf<false>(y, eta));
        target.add(lp);
        return target.sum();
    }
};

}  // namespace advi::bench
