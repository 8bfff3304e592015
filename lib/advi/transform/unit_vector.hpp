// The unit_vector support as Stan: theta = zeta / |zeta| over K free coordinates (not a
// bijection: the radius is free), with -|zeta|^2 / 2 added so that the radius is proper.
#pragma once

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kUnitVectorTransform;

}  // namespace advi
