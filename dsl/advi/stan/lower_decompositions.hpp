// Stan's matrix decompositions as functions: qr_thin_Q, qr_thin_R, qr_Q, qr_R and the tuples
// qr_thin and qr, and the singular value decompositions (lower_decompositions.cpp says how).
#pragma once

#include <advi/stan/lowerer.hpp>

namespace advi::stan {

Value qr_of(CallSite& c);
// singular_values, svd_U, svd_V and the tuple svd (U, sigma, V) of real matrices.
Value svd_of(CallSite& c);

}  // namespace advi::stan
