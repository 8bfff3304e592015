// L-BFGS ascent on a Target (Nocedal & Wright, Algorithm 7.4 and 7.5), with a strong-Wolfe
// line search (line_search.hpp) and CmdStan's stopping tests (optimizer.hpp). Memory is
// O(history_size * dim): nothing dim x dim is formed.
#pragma once

#include <Eigen/Core>

#include <advi/engine/optimizer.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// Maximises target's log density from `init` (dim() entries, else ShapeError). Throws
// FitError for a bad setting (non-positive iter, history_size or init_alpha, a negative
// tolerance); every other ending is a status of the result.
[[nodiscard]] OptimizerResult maximize_lbfgs(Target& target, const Eigen::VectorXd& init,
                                             const OptimizerSettings& settings = {});

}  // namespace advi
