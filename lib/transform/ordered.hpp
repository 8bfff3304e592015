// The ordered and positive_ordered supports: theta in vec[K] strictly increasing (and
// positive), by cumulative sums of exponentials, or theta in mat[U,K] with every row such a
// vector (Stan's array[U] ordered[K]); fused constrain ops and numeric T.
#pragma once

#include <optional>
#include <string_view>

#include "transform.hpp"

namespace advi {

// ordered: theta_0 = zeta_0, theta_k = theta_{k-1} + exp(zeta_k).
// Row-wise (fused.hpp): the kernels take (rows, K), row u's element k at u + k rows.
struct OrderedKernels {
    static constexpr std::string_view name = "ordered_constrain";
    static constexpr std::string_view needs = "vec[K] or mat[U,K] (U vectors as rows), K >= 1";
    static constexpr bool rowwise = true;
    static constexpr Op op = Op::OrderedConstrain;
    static constexpr Op vjp_op = Op::OrderedConstrainVjp;
    static std::optional<Shape> input_shape(Shape theta);
    static void constrain(const double* zeta, int rows, int cols, double* theta);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
};

// positive_ordered: theta_0 = exp(zeta_0), theta_k = theta_{k-1} + exp(zeta_k).
struct PositiveOrderedKernels {
    static constexpr std::string_view name = "positive_ordered_constrain";
    static constexpr std::string_view needs = OrderedKernels::needs;
    static constexpr bool rowwise = true;
    static constexpr Op op = Op::PositiveOrderedConstrain;
    static constexpr Op vjp_op = Op::PositiveOrderedConstrainVjp;
    static std::optional<Shape> input_shape(Shape theta) { return OrderedKernels::input_shape(theta); }
    static void constrain(const double* zeta, int rows, int cols, double* theta);
    static void vjp(const double* zeta, const double* g, int rows, int cols, double* dzeta);
};

extern const Transform kOrderedTransform;
extern const Transform kPositiveOrderedTransform;

}  // namespace advi
