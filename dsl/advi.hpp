// The embedded DSL: what users include. A model of C++ expressions, compiled to a flat
// gradient program and fitted with ADVI (Kucukelbir et al., JMLR 2017).
#pragma once

#include <advi/advi/fit.hpp>
#include <advi/advi/predictive.hpp>
#include <advi/graph/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/dsl/distributions.hpp>
#include <advi/dsl/expr.hpp>
#include <advi/dsl/linalg.hpp>
#include <advi/dsl/math.hpp>
#include <advi/dsl/model.hpp>

namespace advi {

// The flat gradient program of a model: run(zeta, grad) -> log density on zeta.
[[nodiscard]] inline Program compile(const Model& m) { return compile(m.spec()); }

// Fits the model with ADVI: `advi::fit(m, {.family = advi::Family::FullRank, .seed = 1})`.
[[nodiscard]] inline Fit fit(const Model& m, const Options& options = {}) {
    return fit(m.spec(), options);
}

}  // namespace advi
