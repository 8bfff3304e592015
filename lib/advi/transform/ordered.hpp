// The ordered and positive_ordered supports: theta in vec[K] strictly increasing (and
// positive), by cumulative sums of exponentials, or theta in mat[U,K] with every row such a
// vector (Stan's array[U] ordered[K]): T^-1 by fused constrain ops (graph/ops_constrain), log|det
// J|, numeric T.
#pragma once

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kOrderedTransform;
extern const Transform kPositiveOrderedTransform;

}  // namespace advi
