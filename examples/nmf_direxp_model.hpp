// Dirichlet Exponential Poisson non-negative matrix factorisation (paper appendix A.4): counts
// y_ui ~ Poisson(theta_u . beta_i), theta_u ~ Dirichlet(alpha0) a simplex, beta_ik ~
// Exponential(lambda0). Shared by examples/nmf_direxp.cpp and tests/examples/nmf_direxp_test.cpp.
#pragma once

#include <Eigen/Core>

#include <advi/advi.hpp>

#include "nmf_gap_model.hpp"

namespace advi::examples {

// `y` is the U x I count matrix flattened column-major (y_ui at u + U i) and `alpha0` has K
// entries (`y` may instead hold the counts of the entries `cells` lists, see nmf_rates);
// both bound by reference: keep them alive while the model is used. The paper sets
// alpha0 = 1000 (every theta_u near the centre of the simplex) and lambda0 = 0.1.
//
// The U Dirichlet densities are one term over the U x K matrix (dirichlet takes a matrix as
// one draw per row) and the U x I rates one matrix product theta beta'.
inline NmfLatents build_nmf_direxp(Model& m, const Eigen::VectorXi& y, int U, int I,
                                   const Eigen::VectorXd& alpha0, double lambda0,
                                   const Eigen::VectorXi* cells = nullptr) {
    const auto K = static_cast<int>(alpha0.size());
    auto yd = m.data("y", y);
    auto alpha = m.data("alpha0", alpha0);
    auto lambda = m.data("lambda0", lambda0);
    auto theta = m.param("theta", dirichlet(alpha), U, K);  // simplex rows: the prior's support
    auto beta = m.param("beta", exponential(lambda), I, K);
    const Expr rates = nmf_rates(m, theta, beta, cells);
    m.observe(yd, poisson(rates));
    return {theta, beta, m.log_density(yd, poisson(rates), true)};
}

}  // namespace advi::examples
