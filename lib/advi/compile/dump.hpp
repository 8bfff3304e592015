// ADVI_DUMP=<stage>,<stage>,... (or "all"): which stages of the pipeline and passes of the
// compiler print themselves to stderr after they run (README "Reading a printed program").
#pragma once

#include <string_view>

namespace advi {

// Stages: model, constrain, diff, simplify (graphs); aliases, loops, schedule, liveness,
// slots (the compiler's passes, for the gradient program); program; hessian,
// hessian_simplify (the H v graph, raw and simplified) and hessian_program.
[[nodiscard]] bool dump_wanted(std::string_view stage);

}  // namespace advi
