// Constrained Gamma Poisson non-negative matrix factorisation (paper appendix A.3): counts
// y_ui ~ Poisson(theta_u . beta_i), theta_uk ~ Gamma(a0, b0) with each theta_u positive_ordered,
// beta_ik ~ Gamma(c0, d0). Shared by examples/nmf_gap.cpp and tests/examples/nmf_gap_test.cpp.
#pragma once

#include <Eigen/Core>

#include <advi/advi.hpp>

namespace advi::examples {

struct NmfLatents {
    Expr theta;  // U x K, row u is theta_u
    Expr beta;   // I x K, row i is beta_i
};

struct NmfGapPriors {
    double a0 = 1, b0 = 1, c0 = 1, d0 = 1;  // the paper sets all four to 1
};

// `y` is the U x I count matrix flattened column-major (y_ui at u + U i), bound by reference:
// keep it alive while the model is used.
//
// The ordering (theta_u1 < ... < theta_uK, Stan's array[U] positive_ordered[K]) picks one of
// the K! relabellings of the factors. All U x I rates are one matrix product theta beta' and
// the likelihood one vectorised Poisson term over it.
inline NmfLatents build_nmf_gap(Model& m, const Eigen::VectorXi& y, int U, int I, int K,
                                const NmfGapPriors& p = {}) {
    auto yd = m.data("y", y);
    auto a0 = m.data("a0", p.a0), b0 = m.data("b0", p.b0);
    auto c0 = m.data("c0", p.c0), d0 = m.data("d0", p.d0);
    auto theta = m.param("theta", gamma(a0, b0), U, K, {.support = Support::positive_ordered()});
    auto beta = m.param("beta", gamma(c0, d0), I, K);
    m.observe(yd, poisson(to_vector(theta * transpose(beta))));
    return {theta, beta};
}

}  // namespace advi::examples
