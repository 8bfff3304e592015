// The dense Hessian of a target's log density at one point, column by column from its
// Hessian-vector products (H e_i, i = 1..K), for small K: the Laplace approximation's
// precision. Sized against the memory budget before anything is allocated.
#pragma once

#include <functional>
#include <string>

#include <Eigen/Core>

#include <advi/engine/target.hpp>

namespace advi {

struct DenseHessian {
    Eigen::MatrixXd H;         // symmetrised: (A + A') / 2 of the columns A = [H e_1 ... H e_K]
    double log_density = 0.0;  // at the point
    Eigen::VectorXd gradient;  // at the point
    // max_ij |A_ij - A_ji| / max(max_ij |A_ij|, 1e-300): 0 for an exact symmetric H; rounding
    // gives about 1e-15. Measured before symmetrising, so that a wrong H v is not hidden.
    double asymmetry = 0.0;
};

// Beyond this relative asymmetry the H v program is wrong (or the density is not twice
// differentiable there): dense_hessian refuses rather than symmetrise it away.
inline constexpr double kMaxHessianAsymmetry = 1e-6;

// H(zeta) by K Hessian-vector products. Throws SizeError (memory_budget.hpp) when K x K
// doubles exceed the memory budget, before allocating them; FitError when the log density,
// its gradient or a column of H is not finite at zeta (naming the coordinate), or when the
// columns' asymmetry exceeds kMaxHessianAsymmetry (naming the pair of coordinates and both
// values). `describe` names coordinate k in messages ("`sigma`", "`beta` (unconstrained element
// 2 of 3)"); empty: "coordinate k".
[[nodiscard]] DenseHessian dense_hessian(CurvatureTarget& target, const Eigen::VectorXd& zeta,
                                         const std::function<std::string(int)>& describe = {});

// Throws SizeError when `copies` K x K matrices of doubles exceed the memory budget; `what`
// says what they are for ("the Laplace approximation's Hessian and its Cholesky factor").
void require_dense_memory(std::string_view what, int K, int copies = 1);

}  // namespace advi
