// Linear regression with automatic relevance determination as a DSL model; the hand-written
// gradient is in linreg_ard_hand.hpp. Shared by the benchmark and its test.
#pragma once

#include <advi/advi.hpp>

#include "linear_regression_model.hpp"
#include "linreg_ard_hand.hpp"

namespace advi::bench {

inline void build_linreg_ard(Model& m, const LinearRegressionData& d) {
    auto y = m.data("y", d.y);
    auto X = m.data("X", d.X);
    auto sigma = m.param("sigma", inv_gamma(1, 1));
    auto alpha = m.param("alpha", gamma(1, 1), d.X.cols());
    auto w = m.param("w", normal(0, sigma / sqrt(alpha)), d.X.cols());
    m.observe(y, normal(X * w, sigma));
}

}  // namespace advi::bench
