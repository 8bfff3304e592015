// Stan's matrix decompositions as functions: qr_thin_Q, qr_thin_R, qr_Q, qr_R and the tuples
// qr_thin and qr, and the singular value decompositions (lower_decompositions.cpp says how).
#pragma once

#include <advi/stan/lowerer.hpp>

namespace advi::stan {

Value qr_of(CallSite& c);
// singular_values, svd_U, svd_V and the tuple svd (U, sigma, V) of real matrices.
Value svd_of(CallSite& c);
// Of matrices known before the fit: eigenvalues, eigenvectors, eigendecompose (of any square
// matrix), complex_schur_decompose(_t, _u), and the _sym and svd functions of complex matrices;
// csr_extract(_w, _v, _u).
Value known_decomposition_of(CallSite& c);
Value csr_extract_of(CallSite& c);

}  // namespace advi::stan
