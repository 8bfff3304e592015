// The matrix exponential exp(A) of a square matrix (Eigen's scaling and squaring with Pade
// approximants, as Stan's matrix_exp). Its adjoint is the Frechet derivative of exp at A'
// applied to the output's adjoint G, read from the exponential of a block matrix:
//   exp([[A', G], [0, A']]) = [[exp(A'), L(A', G)], [0, exp(A')]],  A_bar = L(A', G)
// (Higham, Functions of Matrices, 2008, eq. 3.16), a graph expression of the op itself, so that
// its second derivatives are the reverse pass's own.
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi::matrix_exp_ops {

Shape matrix_exp_shape(const Graph& g, const Node& n);
void matrix_exp_kernel(const KernelArgs& a);
void adj_matrix_exp(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace advi::matrix_exp_ops
