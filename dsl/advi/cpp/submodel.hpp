// Models inside models: the right-hand side of an ODE and the body of a loop op are written as
// expressions of a model of their own, whose programs the op runs. The pieces both build it
// with: outer values copied in as constants, differentiated inputs as flat latents (the Zeta
// leaves of the inner programs), values flattened into the op's input vector.
#pragma once

#include <string>
#include <vector>

#include <advi/cpp/model.hpp>

namespace advi::submodel {

// A copy of a known expression of `from` as a constant of `to`, in the same shape.
[[nodiscard]] Expr copy_constant(Model& from, const Expr& e, Model& to);
// A flat latent of `m` in the shape `s` (an input of the inner programs).
[[nodiscard]] Expr latent(Model& m, const std::string& name, const Shape& s);
// x as a column vector (matrices column-major, ints as reals).
[[nodiscard]] NodeId as_column(Graph& g, NodeId x);
// The inner model's graph with `out` as its output "f" and each latent replaced by a Zeta leaf
// at offsets[latent index].
[[nodiscard]] Graph with_zeta_leaves(const Model& inner, const Expr& out,
                                     const std::vector<int>& offsets);

}  // namespace advi::submodel
