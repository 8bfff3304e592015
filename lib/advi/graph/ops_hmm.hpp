// Hidden Markov models with K states over N steps, as Stan's built-in HMM functions: from the
// log densities of the observations in each state (log_omega, K x N), the transition matrix
// (Gamma, K x K, row i the probabilities of leaving state i) and the initial distribution
// (rho, K), by the forward algorithm with each step's values rescaled (no logs in the loop):
//   hmm_marginal             log p(y) = log sum_z p(z, y)                          (scalar)
//   hmm_grad (index 0)       P(z_n = k | y)                  = d log p / d log_omega  (K x N)
//            (index 1)       d log p / d Gamma(i, j)
//                            = sum_{n>1} P(z_{n-1} = i, z_n = j | y) / Gamma(i, j)   (K x K)
//            (index 2)       d log p / d rho(k) = P(z_1 = k | y) / rho(k)            (K)
//   hmm_latent               one path z drawn from p(z | y) (forward filtering, backward
//                            sampling), 1-based, from N uniforms (input 2 = [rho; u]).
// hmm_grad with index 0 is also Stan's hmm_hidden_state_prob. Stan's checks are the kernels':
// Gamma's rows and rho must be simplexes (within 1e-8) and every value finite, else the result
// is NaN (the draw is refused). The gradient's values come from one forward-backward pass; it
// has no adjoint of its own (no second order: op_table.cpp's kNoDerivative says why).
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi::hmm_ops {

Shape hmm_marginal_shape(const Graph& g, const Node& n);
Shape hmm_grad_shape(const Graph& g, const Node& n);
Shape hmm_latent_shape(const Graph& g, const Node& n);
void hmm_marginal_kernel(const KernelArgs& a);
void hmm_grad_kernel(const KernelArgs& a);
void hmm_latent_kernel(const KernelArgs& a);
void adj_hmm_marginal(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

// hmm_grad of the inputs of `marginal` (an HmmMarginal node): 0 states, 1 Gamma, 2 rho.
NodeId hmm_grad(Graph& g, NodeId log_omega, NodeId Gamma, NodeId rho, int index);

}  // namespace advi::hmm_ops
