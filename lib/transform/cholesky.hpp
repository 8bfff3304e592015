// Matrix supports: cholesky_factor_corr, cholesky_factor_cov, corr_matrix and cov_matrix as
// Stan (free coordinates row by row), built from fused ops: a Cholesky factor from zeta, and
// Omega = L L' of a lower triangle.
#pragma once

#include <optional>
#include <string_view>

#include "transform.hpp"

namespace advi {

// cholesky_factor_corr (K x K) from K(K-1)/2 coordinates, row i of L from zeta_{i,0..i-1}:
// w = tanh(zeta), L(i,j) = w_j r_j, r_0 = 1, r_{j+1} = r_j sqrt(1 - w_j^2), L(i,i) = r_i
// (each row stick-breaks the unit sphere, so rows have unit norm).
struct CholeskyCorrKernels {
    static constexpr std::string_view name = "cholesky_corr_constrain";
    static constexpr std::string_view needs = "mat[K,K] with K >= 2";
    static constexpr Op op = Op::CholeskyCorrConstrain;
    static constexpr Op vjp_op = Op::CholeskyCorrConstrainVjp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* L);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
};

// cholesky_factor_cov (M x N, M >= N) from N(N+1)/2 + (M-N)N coordinates: row by row, the
// strict lower part of row m < N then its diagonal exp(zeta), then the rows below N.
struct CholeskyCovKernels {
    static constexpr std::string_view name = "cholesky_cov_constrain";
    static constexpr std::string_view needs = "mat[M,N] with M >= N >= 1";
    static constexpr Op op = Op::CholeskyCovConstrain;
    static constexpr Op vjp_op = Op::CholeskyCovConstrainVjp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* L);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
};

// Omega = tril(L) tril(L)' of a square matrix (entries above the diagonal are not read).
struct LowerTriSelfTransposeKernels {
    static constexpr std::string_view name = "lower_tri_self_transpose";
    static constexpr std::string_view needs = "mat[K,K]";
    static constexpr Op op = Op::LowerTriSelfTranspose;
    static constexpr Op vjp_op = Op::LowerTriSelfTransposeVjp;
    static std::optional<Shape> input_shape(Shape out);
    static Shape output_shape(Shape in) { return in; }
    static void constrain(const double* L, int rows, int cols, double* out);
    static void vjp(const double* L, const double* g, int rows, int cols, double* dL);
};

extern const Transform kCholeskyCorrTransform;
extern const Transform kCholeskyCovTransform;
extern const Transform kCorrMatrixTransform;
extern const Transform kCovMatrixTransform;

}  // namespace advi
