// The sum-to-zero supports (Stan's sum_to_zero_vector and sum_to_zero_matrix): theta = H zeta
// with H (K x (K-1)) an orthonormal basis of the vectors of K elements that sum to zero
// (Helmert's), so that the map is an isometry onto the subspace and log|det J| is 0, as Stan's.
//   vec[K]:   theta = H_K zeta, zeta of K - 1;
//   mat[U,K]: every row one such vector (Stan's array[U] sum_to_zero_vector[K]): zeta H_K';
//   matrix:   rows and columns sum to zero: theta = H_M Z H_N', Z (M-1) x (N-1).
#pragma once

#include <Eigen/Core>

#include <advi/transform/transform.hpp>

namespace advi {

extern const Transform kSumToZeroTransform;
extern const Transform kSumToZeroMatrixTransform;

// Helmert's basis: column j (j < n - 1) is (1, ..., 1, -(j + 1), 0, ..., 0) / sqrt((j + 1)(j + 2))
// with j + 1 ones.
[[nodiscard]] Eigen::MatrixXd helmert_basis(int n);

}  // namespace advi
