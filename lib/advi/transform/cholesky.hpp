// Matrix supports: cholesky_factor_corr, cholesky_factor_cov, corr_matrix and cov_matrix as
// Stan (free coordinates row by row), built from fused ops: a Cholesky factor from zeta, and
// Omega = L L' of a lower triangle.
#pragma once

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kCholeskyCorrTransform;
extern const Transform kCholeskyCovTransform;
extern const Transform kCorrMatrixTransform;
extern const Transform kCovMatrixTransform;

}  // namespace advi
