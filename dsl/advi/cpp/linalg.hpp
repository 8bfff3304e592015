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
Expr elt_multiply(const Arg& A, const Arg& B);  // elementwise (A * B is the matrix product)
Expr diag_matrix(const Expr& v);
Expr diagonal(const Expr& A);                          // of a square matrix
Expr diag_pre_multiply(const Arg& v, const Arg& M);    // diag(v) M
Expr diag_post_multiply(const Arg& M, const Arg& v);   // M diag(v)
Expr rows_dot_product(const Arg& A, const Arg& B);     // vector: one value per row
Expr columns_dot_product(const Arg& A, const Arg& B);  // vector: one value per column
Expr rows_dot_self(const Expr& A);
Expr columns_dot_self(const Expr& A);
Expr dot_self(const Expr& v);
Expr quad_form(const Arg& A, const Arg& B);  // B' A B: a scalar for a vector B
Expr crossprod(const Expr& A);               // A' A
Expr tcrossprod(const Expr& A);              // A A'
Expr trace(const Expr& A);
Expr multiply_lower_tri_self_transpose(const Expr& L);  // tril(L) tril(L)'

// Factorisations and solves. Symmetric positive-definite arguments are read from their
// lower triangle (as Eigen's LLT); a factorisation that fails gives NaN, so that a fit drops
// the draw. Triangular arguments are read from their lower triangle.
Expr cholesky_decompose(const Expr& S);
Expr mdivide_left_tri_low(const Arg& L, const Arg& b);   // L^-1 b
Expr mdivide_right_tri_low(const Arg& b, const Arg& L);  // b L^-1 (a vector b: (b' L^-1)')
Expr log_determinant(const Expr& A);                     // log |det A|
Expr log_determinant_spd(const Expr& S);
Expr inverse(const Expr& A);
Expr inverse_spd(const Expr& S);

// Reductions.
Expr log_sum_exp(const Expr& x);               // over every element: a scalar
Expr log_sum_exp(const Arg& a, const Arg& b);  // of two scalars
Expr log_sum_exp_rows(const Expr& M);          // a vector, one value per row
Expr log_sum_exp_cols(const Expr& M);          // a vector, one value per column
Expr softmax(const Expr& v);
Expr log_softmax(const Expr& v);
Expr mean(const Expr& x);
Expr variance(const Expr& x);  // sample variance (n - 1), 0 for one element (as Stan)
Expr sd(const Expr& x);
Expr cumulative_sum(const Expr& v);
Expr prod(const Expr& x);
Expr row_sums(const Expr& M);  // a vector, one sum per row
Expr col_sums(const Expr& M);  // a vector, one sum per column
// min and max: the gradient goes to the element that attains the extremum (split evenly
// among tied elements, a subgradient; ties have measure zero under a density).
Expr min(const Expr& x);
Expr max(const Expr& x);

// Slices, 0-based: segment(v, start, n) is v[start .. start + n - 1].
Expr segment(const Expr& v, int start, int n);
Expr head(const Expr& v, int n);
Expr tail(const Expr& v, int n);
Expr row(const Expr& M, int i);  // a vector
Expr col(const Expr& M, int j);
Expr block(const Expr& M, int i, int j, int rows, int cols);

// Building vectors and matrices.
Expr rep_vector(const Expr& x, int n);               // x a scalar
Expr rep_matrix(const Expr& x, int rows, int cols);  // x a scalar
Expr rep_matrix(const Expr& v, int n);               // n columns, each the vector v
Expr rep_matrix_rows(const Expr& v, int m);          // m rows, each v (Stan's row-vector form)
Expr append_row(const Arg& a, const Arg& b);         // vectors (or scalars) or matrices
Expr append_col(const Arg& a, const Arg& b);         // matrices or vectors (as columns)
Expr to_vector(const Expr& x);                       // column-major, as Stan
Expr to_matrix(const Expr& v, int rows, int cols);   // column-major, as Stan

}  // namespace advi
