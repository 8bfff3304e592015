// The pipeline from a model to programs: constrain -> differentiate -> simplify -> compile.
// Set ADVI_DUMP=model,constrain,diff,simplify,aliases,loops,schedule,liveness,slots,program (or
// "all") to print each stage (compile/dump.hpp).
#pragma once

#include <iosfwd>

#include <advi/compile/program.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// The gradient program: run(zeta, grad) -> log p(x, T^-1(zeta)) + log|det J| and its
// gradient over zeta; without log|det J| when `jacobian` is false (constrain.hpp).
[[nodiscard]] Program compile(const ModelSpec& m, bool jacobian = true);

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

}  // namespace advi
