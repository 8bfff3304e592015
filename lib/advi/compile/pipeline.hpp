// The pipeline from a model to programs: constrain -> differentiate -> simplify -> compile.
// Set ADVI_DUMP=model,constrain,diff,simplify,aliases,loops,schedule,liveness,slots,program (or
// "all") to print each stage (compile/dump.hpp); hessian, hessian_simplify and hessian_program
// for the curvature program.
#pragma once

#include <iosfwd>

#include <advi/compile/hessian_vector_program.hpp>
#include <advi/compile/program.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// The gradient program: run(zeta, grad) -> log p(x, T^-1(zeta)) + log|det J| and its
// gradient over zeta; without log|det J| when `jacobian` is false (constrain.hpp).
[[nodiscard]] Program compile(const ModelSpec& m, bool jacobian = true);

// The value program (issue 19): run(zeta, out) -> the same log density as compile()'s, from
// the forward graph alone (no reverse sweep, no gradient buffers); out is left empty. For ELBO
// estimates and the output draws' log_p__, which need no gradient. Agrees with compile()'s lp
// to rounding (both graphs are simplified apart, so the order of a few sums may differ).
[[nodiscard]] Program compile_value(const ModelSpec& m, bool jacobian = true);

// The constrain program: run(zeta, theta) writes every latent's constrained values at
// ModelSpec::theta_offsets().
[[nodiscard]] Program compile_constrain_map(const ModelSpec& m);

// The stages of compile(), for printing: the model graph, the graph on zeta, the raw
// gradient graph and the simplified one.
struct Stages {
    Graph model;
    Graph constrained;
    Graph gradient;
    Graph simplified;
};
[[nodiscard]] Stages stages(const ModelSpec& m, bool jacobian = true);

// The curvature program: the gradient program and the H v program compiled from the simplified
// gradient graph differentiated once more (diff/hessian_vector.hpp), same passes, as a point
// stage and a direction stage (hessian_vector_program.hpp).
[[nodiscard]] HessianVectorProgram compile_hessian_vector(const ModelSpec& m, bool jacobian = true);

// The stages of compile_hessian_vector(), for printing: those of compile(), the raw H v graph
// (input [zeta; v], outputs lp, gradient, H v) and the simplified one.
struct CurvatureStages {
    Stages gradient;
    Graph hessian_vector;
    Graph simplified;
};
[[nodiscard]] CurvatureStages curvature_stages(const ModelSpec& m, bool jacobian = true);

// The curvature program of a simplified gradient graph over zeta of size dim (what
// compile_hessian_vector compiles; also for graphs built by hand in tests).
[[nodiscard]] HessianVectorProgram compile_hessian_vector_graph(const Graph& simplified_gradient,
                                                                const std::vector<DataSlot>& data,
                                                                int dim);

}  // namespace advi
