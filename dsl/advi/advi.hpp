// The embedded DSL: what users include. A model of C++ expressions, compiled to a flat
// gradient program and fitted with ADVI (Kucukelbir et al., JMLR 2017).
#pragma once

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/cpp/algebra.hpp>
#include <advi/cpp/distributions.hpp>
#include <advi/cpp/expr.hpp>
#include <advi/cpp/hmm.hpp>
#include <advi/cpp/integrate.hpp>
#include <advi/cpp/linalg.hpp>
#include <advi/cpp/loop.hpp>
#include <advi/cpp/math.hpp>
#include <advi/cpp/model.hpp>
#include <advi/cpp/ode.hpp>
#include <advi/fit/fit.hpp>
#include <advi/fit/laplace.hpp>
#include <advi/fit/optimize.hpp>
#include <advi/fit/predictive.hpp>
#include <advi/fit/resample.hpp>
#include <advi/fit/runs.hpp>

namespace advi {

// The flat gradient program of a model: run(zeta, grad) -> log density on zeta.
[[nodiscard]] inline Program compile(const Model& m) {
    return compile(m.spec());
}

// Fits the model with ADVI: `advi::fit(m, {.family = advi::Family::FullRank, .seed = 1})`.
[[nodiscard]] inline Fit fit(const Model& m, const Options& options = {}) {
    return fit(m.spec(), options);
}

[[nodiscard]] inline Fit fit_runs(const Model& m, const Options& options, int runs) {
    return fit_runs(m.spec(), options, runs);
}

}  // namespace advi
