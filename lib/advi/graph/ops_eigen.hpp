// The eigendecomposition of a symmetric matrix as two ops: eigenvalues_sym(A), ascending, and
// eigenvectors_sym(A), the columns in the same order (Eigen's SelfAdjointEigenSolver, as Stan
// computes them, on A's lower triangle: the upper one is not read, as cholesky_decompose's is
// not, so a matrix that is not symmetric is not refused as Stan refuses it). Their adjoints are
// graph expressions of the two ops themselves, so that their second derivatives are the reverse
// pass's own:
//   eigenvalues   A_bar = V diag(lambda_bar) V'
//   eigenvectors  A_bar = V (F o (V' V_bar)) V',  F_ij = 1 / (lambda_j - lambda_i), F_ii = 0
// each symmetrised and folded onto A's lower triangle (A enters through it only, as Cholesky's).
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi::eigen_ops {

Shape eigenvalues_sym_shape(const Graph& g, const Node& n);
Shape eigenvectors_sym_shape(const Graph& g, const Node& n);
void eigenvalues_sym_kernel(const KernelArgs& a);
void eigenvectors_sym_kernel(const KernelArgs& a);
void adj_eigenvalues_sym(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
void adj_eigenvectors_sym(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace advi::eigen_ops
