// Lowerings of the library functions that reorder, convert and query values (functions.cpp's
// table names them): sorting and ranks (of parameters too, through graph/ops_sort.hpp),
// reverse, to_array_1d, to_array_2d, to_int, is_nan, is_inf, quantile.
#pragma once

#include <advi/stan/lowerer.hpp>

namespace advi::stan {

// sort_asc, sort_desc (descending: the name ends in `desc`)
Value sort_of(CallSite& c);
// sort_indices_asc, sort_indices_desc: ints, known per draw where the values are
Value sort_indices_of(CallSite& c);
// rank(v, s): the number of elements of v less than v[s]
Value rank_of(CallSite& c);
Value reverse_of(CallSite& c);
// to_array_1d: Stan's order (column-major for a matrix, row-major for arrays)
Value to_array_1d_of(CallSite& c);
Value to_array_2d_of(CallSite& c);
// to_int, is_nan, is_inf: of values known before the fit
Value to_int_of(CallSite& c);
Value is_nan_or_inf_of(CallSite& c);
// quantile(data x, data p): the sample quantiles of R's type 7 (as Stan)
Value quantile_of(CallSite& c);
// append_array(a, b): the elements of a, then those of b (arrays of one type and inner sizes)
Value append_array_of(CallSite& c);

}  // namespace advi::stan
