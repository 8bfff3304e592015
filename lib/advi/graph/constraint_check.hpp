// Stan's declared constraints as checks on values (not transforms): bounds, simplex,
// unit_vector, ordered, positive_ordered, cov_matrix, corr_matrix, cholesky_factor_cov,
// cholesky_factor_corr, sum_to_zero_vector/matrix and row/column_stochastic_matrix, with Stan's
// tolerance 1e-8. One set of predicates for data (the Stan front end's data block), transformed
// parameters (the check_constraint op, which makes the log density -inf where one is violated) and
// generated quantities (an error per draw).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <advi/graph/op.hpp>

namespace advi {

enum class Constraint : std::uint8_t {
    Bounds,  // lower <= x <= upper, element by element (a bound may be -inf or inf)
    Simplex,
    UnitVector,
    Ordered,
    PositiveOrdered,
    CovMatrix,
    CorrMatrix,
    CholeskyFactorCov,
    CholeskyFactorCorr,
    SumToZeroVector,
    SumToZeroMatrix,
    RowStochasticMatrix,
    ColumnStochasticMatrix,
};

inline constexpr double kConstraintTolerance = 1e-8;  // Stan's CONSTRAINT_TOLERANCE

// "simplex", "cov_matrix", ... ("bounds" for Bounds).
[[nodiscard]] std::string_view constraint_name(Constraint c);
// Whether the constraint is on a vector (checked per row of a matrix when given one by rows).
[[nodiscard]] bool is_vector_constraint(Constraint c);
[[nodiscard]] bool is_matrix_constraint(Constraint c);

// The first violation of a structured constraint by one vector (rows x 1) or one matrix
// (rows x cols, column-major; `stride` between consecutive elements, 1 when contiguous) as a
// message ("is not a simplex: it sums to 1.5", 1-based element numbers), or nothing.
// `scratch`: rows * rows doubles for cov_matrix and corr_matrix (a Cholesky factorisation in
// place), so that the check allocates nothing when the values satisfy it.
[[nodiscard]] std::optional<std::string> structured_violation(Constraint c, const double* x,
                                                              int rows, int cols,
                                                              std::int64_t stride, double* scratch);

// The first element of x[0..n) outside [lower, upper] (a bound given as one value when its
// size is 1, else per element; NaN is outside) as a message ("element 3 is -0.5, below the
// lower bound 0"; "is -0.5, ..." when n is 1), or nothing.
[[nodiscard]] std::optional<std::string> bounds_violation(const double* x, int n,
                                                          const double* lower, int lower_size,
                                                          const double* upper, int upper_size);

// The op check_constraint(x, lower, upper): 0 where x satisfies the constraint named by the
// node's `index` (a Constraint; `aux` 1: x holds one vector per row), -inf where it does not, as
// a term of the log density, so that a transformed parameter outside its declared constraint
// makes that evaluation fail (the engine drops the draw). lower and upper (real, or of x's
// shape) are read by Constraint::Bounds only. Its value is constant where finite: no adjoint.
namespace check_ops {
Shape check_constraint_shape(const Graph& g, const Node& n);
void check_constraint_kernel(const KernelArgs& a);
std::int64_t check_constraint_scratch(const Graph& g, const Node& n);
// The first violation in the kernel's terms (a message as the predicates above give), or nothing;
// "row 2 " before it when x holds one vector per row.
[[nodiscard]] std::optional<std::string> violation(Constraint c, bool rowwise, const View& x,
                                                   const View& lower, const View& upper,
                                                   double* scratch);
}  // namespace check_ops

}  // namespace advi
