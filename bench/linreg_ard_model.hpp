// Linear regression with automatic relevance determination as a DSL model: the example's model
// (examples/linreg_ard_model.hpp, the paper's hyperparameters) on the benchmark's data; the
// hand-written gradient is in linreg_ard_hand.hpp. Shared by the benchmark and its test.
#pragma once

#include <advi/advi.hpp>

#include "../examples/linreg_ard_model.hpp"
#include "linear_regression_model.hpp"
#include "linreg_ard_hand.hpp"

namespace advi::bench {

// The example's builder also returns the per-row log-likelihood (a node no gradient reads).
inline void build_linreg_ard(Model& m, const LinearRegressionData& d) {
    examples::build_linreg_ard(m, d.X, d.y);
}

}  // namespace advi::bench
