// Linear regression, the benchmark model, as a DSL model; the data and the hand-written
// gradient are in linear_regression_hand.hpp. Shared by the benchmark and its test.
//
// The same model as examples/linear_regression.cpp, which writes it inline in main() (it
// prints each stage for the reader) rather than in an examples/*_model.hpp builder, so there
// is none to include here.
#pragma once

#include <advi/advi.hpp>

#include "linear_regression_hand.hpp"

namespace advi::bench {

inline void build_linear_regression(Model& m, const LinearRegressionData& d) {
    auto y = m.data("y", d.y);
    auto X = m.data("X", d.X);
    auto beta = m.param("beta", normal(0, 10), d.X.cols());
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(y, normal(X * beta, sigma));
}

}  // namespace advi::bench
