// The affine support: theta = offset + multiplier * zeta (Stan's offset/multiplier, for
// non-centred parameterisations); offset and multiplier constants, vectors or expressions.
#pragma once

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kAffineTransform;

}  // namespace advi
