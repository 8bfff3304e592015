// Linear algebra, reductions and slicing in the embedded DSL, with Stan's names. Row vectors
// do not exist here: a row of a matrix is a vector; indices and offsets are 0-based.
#pragma once

#include <advi/cpp/expr.hpp>

namespace advi {

// Shapes: vectors are columns; wherever Stan takes or returns a row_vector, these take or
// return a vector (row(M, i), diag_post_multiply's v, columns_dot_product's result).
// Matrix * matrix is `A * B` (operator* in expr.hpp); a matrix indexed by an integer data
// vector, `M[idx]`, gathers rows (0-based). Errors are ShapeErrors naming the function, the
// argument and the shapes. A function of two arguments takes each as an Arg: a number, an
// Eigen vector or matrix (a constant), or an expression; one at least an expression.

// Products and structure.
Expr transpose(const Expr& A);
template <ConstantValue C>
auto transpose(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&transpose), x);
}
Expr elt_multiply(const Arg& A, const Arg& B);  // elementwise (A * B is the matrix product)
Expr diag_matrix(const Expr& v);
template <ConstantValue C>
auto diag_matrix(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&diag_matrix), x);
}
Expr diagonal(const Expr& A);  // of a square matrix
template <ConstantValue C>
auto diagonal(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&diagonal), x);
}
Expr diag_pre_multiply(const Arg& v, const Arg& M);    // diag(v) M
Expr diag_post_multiply(const Arg& M, const Arg& v);   // M diag(v)
Expr rows_dot_product(const Arg& A, const Arg& B);     // vector: one value per row
Expr columns_dot_product(const Arg& A, const Arg& B);  // vector: one value per column
Expr rows_dot_self(const Expr& A);
template <ConstantValue C>
auto rows_dot_self(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&rows_dot_self), x);
}
Expr columns_dot_self(const Expr& A);
template <ConstantValue C>
auto columns_dot_self(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&columns_dot_self), x);
}
Expr dot_self(const Expr& v);
template <ConstantValue C>
auto dot_self(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&dot_self), x);
}
Expr quad_form(const Arg& A, const Arg& B);  // B' A B: a scalar for a vector B
Expr crossprod(const Expr& A);               // A' A
template <ConstantValue C>
auto crossprod(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&crossprod), x);
}
Expr tcrossprod(const Expr& A);  // A A'
template <ConstantValue C>
auto tcrossprod(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&tcrossprod), x);
}
Expr trace(const Expr& A);
template <ConstantValue C>
auto trace(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&trace), x);
}
Expr multiply_lower_tri_self_transpose(const Expr& L);  // tril(L) tril(L)'
template <ConstantValue C>
auto multiply_lower_tri_self_transpose(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&multiply_lower_tri_self_transpose), x);
}

// Factorisations and solves. Symmetric positive-definite arguments are read from their
// lower triangle (as Eigen's LLT); a factorisation that fails gives NaN, so that a fit drops
// the draw. Triangular arguments are read from their lower triangle.
Expr cholesky_decompose(const Expr& S);
// The eigenvalues (ascending) and eigenvectors (columns, in that order) of a symmetric matrix
// (graph/ops_eigen.hpp).
Expr eigenvalues_sym(const Expr& A);
Expr eigenvectors_sym(const Expr& A);
// exp(A) of a square matrix (graph/ops_matrix_exp.hpp), differentiable to any order.
Expr matrix_exp(const Expr& A);
template <ConstantValue C>
auto cholesky_decompose(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&cholesky_decompose), x);
}
Expr mdivide_left_tri_low(const Arg& L, const Arg& b);   // L^-1 b
Expr mdivide_right_tri_low(const Arg& b, const Arg& L);  // b L^-1 (a vector b: (b' L^-1)')
Expr log_determinant(const Expr& A);                     // log |det A|
Expr determinant(const Expr& A);
Expr generalized_inverse(const Expr& A);  // of a matrix of full rank
template <ConstantValue C>
auto log_determinant(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&log_determinant), x);
}
Expr log_determinant_spd(const Expr& S);
template <ConstantValue C>
auto log_determinant_spd(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&log_determinant_spd), x);
}
Expr inverse(const Expr& A);
template <ConstantValue C>
auto inverse(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&inverse), x);
}
Expr inverse_spd(const Expr& S);
template <ConstantValue C>
auto inverse_spd(const C& x) {
    return detail::of_constant<detail::ConstantResult::Matrix>(
        static_cast<Expr (*)(const Expr&)>(&inverse_spd), x);
}

// Reductions.
Expr log_sum_exp(const Expr& x);  // over every element: a scalar
template <ConstantValue C>
auto log_sum_exp(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&log_sum_exp), x);
}
Expr log_sum_exp(const Arg& a, const Arg& b);  // of two scalars
Expr log_sum_exp_rows(const Expr& M);          // a vector, one value per row
template <ConstantValue C>
auto log_sum_exp_rows(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&log_sum_exp_rows), x);
}
Expr log_sum_exp_cols(const Expr& M);  // a vector, one value per column
template <ConstantValue C>
auto log_sum_exp_cols(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&log_sum_exp_cols), x);
}
Expr softmax(const Expr& v);
template <ConstantValue C>
auto softmax(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&softmax), x);
}
Expr log_softmax(const Expr& v);
template <ConstantValue C>
auto log_softmax(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&log_softmax), x);
}
Expr mean(const Expr& x);
template <ConstantValue C>
auto mean(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&mean), x);
}
Expr variance(const Expr& x);  // sample variance (n - 1), 0 for one element (as Stan)
template <ConstantValue C>
auto variance(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&variance), x);
}
Expr sd(const Expr& x);
template <ConstantValue C>
auto sd(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&sd), x);
}
Expr cumulative_sum(const Expr& v);
template <ConstantValue C>
auto cumulative_sum(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&cumulative_sum), x);
}
Expr prod(const Expr& x);
template <ConstantValue C>
auto prod(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&prod), x);
}
Expr row_sums(const Expr& M);  // a vector, one sum per row
template <ConstantValue C>
auto row_sums(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&row_sums), x);
}
Expr col_sums(const Expr& M);  // a vector, one sum per column
template <ConstantValue C>
auto col_sums(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&col_sums), x);
}
// min and max: the gradient goes to the element that attains the extremum (split evenly
// among tied elements, a subgradient; ties have measure zero under a density).
Expr min(const Expr& x);
template <ConstantValue C>
auto min(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&min), x);
}
Expr max(const Expr& x);
template <ConstantValue C>
auto max(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&max), x);
}

// Slices, 0-based: segment(v, start, n) is v[start .. start + n - 1].
Expr segment(const Expr& v, int start, int n);
Expr head(const Expr& v, int n);
Expr tail(const Expr& v, int n);
Expr row(const Expr& M, int i);  // a vector
Expr col(const Expr& M, int j);
Expr block(const Expr& M, int i, int j, int rows, int cols);
// Indexing by an expression known only per draw (an integral real: a loop op's iteration, a
// draw), 1-based as Stan: v[i] of a vector, row i (a vector) of a matrix. An index outside the
// range gives NaN (graph/ops_dynamic_index.hpp).
Expr at(const Expr& v, const Expr& i);

// Building vectors and matrices.
Expr rep_vector(const Expr& x, int n);               // x a scalar
Expr rep_matrix(const Expr& x, int rows, int cols);  // x a scalar
Expr rep_matrix(const Expr& v, int n);               // n columns, each the vector v
Expr rep_matrix_rows(const Expr& v, int m);          // m rows, each v (Stan's row-vector form)
Expr tile_rows(const Expr& x, int reps);      // x (vector or matrix) stacked reps times on itself
Expr append_row(const Arg& a, const Arg& b);  // vectors (or scalars) or matrices
Expr append_col(const Arg& a, const Arg& b);  // matrices or vectors (as columns)
Expr to_vector(const Expr& x);                // column-major, as Stan
template <ConstantValue C>
auto to_vector(const C& x) {
    return detail::of_constant<detail::ConstantResult::Vector>(
        static_cast<Expr (*)(const Expr&)>(&to_vector), x);
}
Expr to_matrix(const Expr& v, int rows, int cols);  // column-major, as Stan

}  // namespace advi
