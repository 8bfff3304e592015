// The simplex support (Stan's stick-breaking): theta in vec[K], entries > 0 summing to 1,
// from K - 1 free coordinates, or theta in mat[U,K] with every row such a vector (Stan's
// array[U] simplex[K]); its fused constrain op, log|det J| fragment and numeric T.
#pragma once

#include <optional>
#include <string_view>

#include "transform.hpp"

namespace advi {

// theta_k = s_k w_k, w_k = logit^-1(zeta_k - log(K - 1 - k)), s_0 = 1, s_{k+1} = s_k (1 - w_k),
// theta_{K-1} = s_{K-1}. The offset log(K - 1 - k) makes zeta = 0 the centre of the simplex.
// Row-wise (fused.hpp): the kernels take (rows, K), zeta of rows x (K - 1), theta rows x K.
struct SimplexKernels {
    static constexpr std::string_view name = "simplex_constrain";
    static constexpr std::string_view needs = "vec[K] or mat[U,K] (U simplexes as rows), K >= 2";
    static constexpr bool rowwise = true;
    static constexpr Op op = Op::SimplexConstrain;
    static constexpr Op vjp_op = Op::SimplexConstrainVjp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* theta);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
};

extern const Transform kSimplexTransform;

}  // namespace advi
