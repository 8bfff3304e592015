// Stan's constraint transforms as functions (Stan 2.36): `X_constrain(y, ...)` maps unconstrained
// y to the constrained value, `X_jacobian(y, ...)` does the same and adds log|J| to the model's
// Jacobian terms (Model::jacobian_add: transformed parameters only), `X_unconstrain(x, ...)` is
// the inverse. X: lower_bound, upper_bound, lower_upper_bound, offset_multiplier (elementwise,
// arguments broadcast as Stan's operators), ordered and positive_ordered (a vector, or each
// vector of an array). Stan's own maps, written out here: x = lb + e^y, ub - e^y,
// lb + (ub - lb) logit^-1(y), mu + sigma y; ordered x_1 = y_1, x_k = x_{k-1} + e^{y_k}
// (positive_ordered: x_1 = e^{y_1}). And the structured ones, the library's transforms
// (lib/advi/transform): simplex, unit_vector, cholesky_factor_corr, cholesky_factor_cov,
// corr_matrix, cov_matrix, stochastic_row (each row a simplex) and stochastic_column, and
// sum_to_zero (Helmert's isometry), each of a value or of every element of an array. Their
// free coordinates are the library's (stick-breaking for the simplex, as Stan before 2.37); the
// matrix transforms' inverses are numeric (of values known before the fit).
#pragma once

#include <advi/stan/lowerer.hpp>

namespace advi::stan {

// One of the transforms with one of the three suffixes (functions.cpp's table lists them).
Value transform_function_of(CallSite& c);

}  // namespace advi::stan
