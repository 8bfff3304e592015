// Linear algebra, reductions and slicing ops of the op table: matrix products, Cholesky and
// triangular solves, log_sum_exp, cumulative sums, blocks, concatenation, row gathers. Their
// rows live in op_table.cpp; shape rules, kernels and adjoint rules (with derivations) here.
#pragma once

#include <array>

#include <advi/graph/node.hpp>
#include <advi/graph/op.hpp>

namespace advi {

class Graph;

namespace linalg {

// Attributes. Ops whose output shape is not implied by their inputs (block, embed, reshape,
// rep_cols, rep_rows, scatter_add_rows, tile_rows, tile_sum_rows) read it from Node::shape; block
// and embed read the first row from Node::index and the first column from Node::aux. Vectors count
// as one-column matrices wherever an op reads rows and columns.

// Shape rules (signature of OpInfo::shape): each names the op, the argument and the shapes.
Shape matmul_shape(const Graph& g, const Node& n);
Shape mattmul_shape(const Graph& g, const Node& n);
Shape matmult_shape(const Graph& g, const Node& n);
Shape transpose_shape(const Graph& g, const Node& n);
Shape diag_matrix_shape(const Graph& g, const Node& n);
Shape diagonal_shape(const Graph& g, const Node& n);
Shape same_matrix_shape(const Graph& g, const Node& n);  // tril
Shape square_shape(const Graph& g, const Node& n);       // cholesky_decompose, inverse
Shape cholesky_adjoint_shape(const Graph& g, const Node& n);
Shape tri_solve_shape(const Graph& g, const Node& n);
Shape square_to_scalar_shape(const Graph& g, const Node& n);  // log_determinant
Shape to_scalar_shape(const Graph& g, const Node& n);         // log_sum_exp, prod, min, max
Shape row_reduce_shape(const Graph& g, const Node& n);        // log_sum_exp_rows, row_sums
Shape col_reduce_shape(const Graph& g, const Node& n);        // log_sum_exp_cols, col_sums
Shape vector_shape(const Graph& g, const Node& n);            // cumulative sums
Shape same_shape(const Graph& g, const Node& n);              // prod_others
Shape prod_others_vjp_shape(const Graph& g, const Node& n);   // (x, adjoint) -> x's shape
Shape block_shape(const Graph& g, const Node& n);
Shape embed_shape(const Graph& g, const Node& n);
Shape reshape_shape(const Graph& g, const Node& n);
Shape append_row_shape(const Graph& g, const Node& n);
Shape append_col_shape(const Graph& g, const Node& n);
Shape rep_cols_shape(const Graph& g, const Node& n);
Shape rep_rows_shape(const Graph& g, const Node& n);
Shape gather_rows_shape(const Graph& g, const Node& n);
Shape scatter_add_rows_shape(const Graph& g, const Node& n);
Shape tile_rows_shape(const Graph& g, const Node& n);
Shape tile_sum_rows_shape(const Graph& g, const Node& n);

// Kernels (signature of OpInfo::kernel).
void matmul_kernel(const KernelArgs& a);
void mattmul_kernel(const KernelArgs& a);
void matmult_kernel(const KernelArgs& a);
void transpose_kernel(const KernelArgs& a);
void diag_matrix_kernel(const KernelArgs& a);
void diagonal_kernel(const KernelArgs& a);
void tril_kernel(const KernelArgs& a);
void cholesky_kernel(const KernelArgs& a);
void cholesky_adjoint_kernel(const KernelArgs& a);
void tri_low_solve_kernel(const KernelArgs& a);
void tri_low_t_solve_kernel(const KernelArgs& a);
void log_determinant_kernel(const KernelArgs& a);
void determinant_kernel(const KernelArgs& a);
// Scratch of log_determinant and inverse: a copy of the n x n input to factorise.
std::int64_t square_scratch(const Graph& g, const Node& n);
// As many doubles as the input has rows.
std::int64_t rows_scratch(const Graph& g, const Node& n);
void inverse_kernel(const KernelArgs& a);
void log_sum_exp_kernel(const KernelArgs& a);
void log_sum_exp_rows_kernel(const KernelArgs& a);
void log_sum_exp_cols_kernel(const KernelArgs& a);
void cumulative_sum_kernel(const KernelArgs& a);
void reverse_cumulative_sum_kernel(const KernelArgs& a);
void prod_kernel(const KernelArgs& a);
void prod_others_kernel(const KernelArgs& a);
void prod_others_vjp_kernel(const KernelArgs& a);
// As many doubles as input 0 has values.
std::int64_t input_scratch(const Graph& g, const Node& n);
void min_kernel(const KernelArgs& a);
void max_kernel(const KernelArgs& a);
void lse_shift_rows_kernel(const KernelArgs& a);
void block_kernel(const KernelArgs& a);
void embed_kernel(const KernelArgs& a);
void reshape_kernel(const KernelArgs& a);
void append_row_kernel(const KernelArgs& a);
void append_col_kernel(const KernelArgs& a);
void rep_cols_kernel(const KernelArgs& a);
void rep_rows_kernel(const KernelArgs& a);
void row_sums_kernel(const KernelArgs& a);
void col_sums_kernel(const KernelArgs& a);
void gather_rows_kernel(const KernelArgs& a);
void scatter_add_rows_kernel(const KernelArgs& a);
void tile_rows_kernel(const KernelArgs& a);
void tile_sum_rows_kernel(const KernelArgs& a);

// Adjoint rules (signature of OpInfo::adjoint).
using Contrib = std::array<NodeId, 3>;
void adj_matmul(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_mattmul(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_matmult(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_transpose(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_diag_matrix(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_diagonal(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tril(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_cholesky(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_cholesky_adjoint(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tri_low_solve(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tri_low_t_solve(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_determinant(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_determinant(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_inverse(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_sum_exp(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_sum_exp_rows(Graph& g, NodeId y, NodeId adj, Contrib& c);
// No contribution to any input: for values that the output does not depend on.
void adj_none(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_log_sum_exp_cols(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_cumulative_sum(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_reverse_cumulative_sum(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_prod(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_prod_others(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_min(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_max(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_block(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_embed(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_reshape(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_append_row(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_append_col(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_rep_cols(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_rep_rows(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_row_sums(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_col_sums(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_gather_rows(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_scatter_add_rows(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tile_rows(Graph& g, NodeId y, NodeId adj, Contrib& c);
void adj_tile_sum_rows(Graph& g, NodeId y, NodeId adj, Contrib& c);

// Builders of nodes with attributes (also used by the DSL and the distributions).
NodeId block(Graph& g, NodeId x, int row, int col, Shape s);
NodeId embed(Graph& g, NodeId x, int row, int col, Shape s);
NodeId reshape(Graph& g, NodeId x, Shape s);
NodeId rep_cols(Graph& g, NodeId v, int cols);
NodeId rep_rows(Graph& g, NodeId v, int rows);
NodeId scatter_add_rows(Graph& g, NodeId values, NodeId index, int rows);
// x (a vector or a matrix) stacked `reps` times on itself: out(i, j) = x(i mod rows(x), j),
// what a loop over points reads of a parameter indexed by an inner loop (mu[k] for n, k).
NodeId tile_rows(Graph& g, NodeId x, int reps);
// Its adjoint: the sum of the row tiles of G (rows(G) a multiple of `rows`),
// out(i, j) = sum_t G(i + t rows, j).
NodeId tile_sum_rows(Graph& g, NodeId G, int rows);

}  // namespace linalg
}  // namespace advi
