// Stan's matrix decompositions as functions: qr_thin_Q, qr_thin_R, qr_Q, qr_R and the tuples
// qr_thin and qr (lower_decompositions.cpp says how).
#pragma once

#include <advi/stan/lowerer.hpp>

namespace advi::stan {

Value qr_of(CallSite& c);

}  // namespace advi::stan
