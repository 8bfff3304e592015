// The elementwise transforms: identity (real), lower and upper bounds with T1 = exp or
// T2 = softplus, and intervals by the logistic function; bounds scalar, per element or
// expressions.
#pragma once

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kIdentityTransform;
extern const Transform kLowerLogTransform;
extern const Transform kUpperLogTransform;
extern const Transform kLowerSoftplusTransform;
extern const Transform kUpperSoftplusTransform;
extern const Transform kIntervalTransform;

}  // namespace advi
