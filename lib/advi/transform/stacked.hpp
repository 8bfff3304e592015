// Arrays of a matrix support (Support::array_of): the variable is mat[E, R*C], row e the e-th
// element, an R x C matrix column-major, so that the whole in column-major order is CmdStan's
// (the array index fastest). Each element is transformed by its own support's transform, from
// its own row of free coordinates (zeta is mat[E, F], F the element's free size); log|J| is the
// sum over the elements. The graph holds one fragment per element (the rows joined pairwise, so
// that the joins copy E log E rows).
#pragma once

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kStackedTransform;

}  // namespace advi
