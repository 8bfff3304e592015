// The simplex support (Stan's stick-breaking): theta in vec[K], entries > 0 summing to 1,
// from K - 1 free coordinates, or theta in mat[U,K] with every row such a vector (Stan's
// array[U] simplex[K]): T^-1 by the fused simplex_constrain op, log|det J| and numeric T.
#pragma once

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kSimplexTransform;
// Every column of mat[M,N] a simplex (Stan's column_stochastic_matrix): the rows' transform on
// the transpose.
extern const Transform kStochasticColumnsTransform;

}  // namespace advi
