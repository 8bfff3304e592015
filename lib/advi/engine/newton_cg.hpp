// Trust-region Newton-CG ascent (Steihaug-Toint; Nocedal & Wright, Algorithms 4.1 and 7.2):
// each step solves H p = -g approximately by conjugate gradients on H v products inside a
// trust region, going to its boundary along a direction of non-negative curvature of -H;
// the radius follows the ratio of actual to predicted increase. Offered as CmdStan's
// `newton`. Nothing dim x dim is formed.
#pragma once

#include <Eigen/Core>

#include <advi/engine/optimizer.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// Maximises target's log density from `init`; as maximize_lbfgs (init_alpha and history_size
// are not used).
[[nodiscard]] OptimizerResult maximize_newton_cg(CurvatureTarget& target,
                                                 const Eigen::VectorXd& init,
                                                 const OptimizerSettings& settings = {});

}  // namespace advi
