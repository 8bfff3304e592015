// Inverse CDFs (quantile functions) of the distributions without a closed form, for the
// random draws of generated quantities: x = F^-1(u | args) with u uniform on (0, 1) from a
// data slot refilled per draw. Not differentiable (generated quantities never are).
#pragma once

#include <advi/graph/op.hpp>

namespace advi::random_ops {

// The broadcast of all inputs (scalars broadcast), all real.
Shape quantile_shape(const Graph& g, const Node& n);

void gamma_quantile_kernel(const KernelArgs& a);           // (u, alpha, beta = rate)
void beta_quantile_kernel(const KernelArgs& a);            // (u, a, b)
void student_t_quantile_kernel(const KernelArgs& a);       // (u, nu): standard
void poisson_quantile_kernel(const KernelArgs& a);         // (u, lambda)
void binomial_quantile_kernel(const KernelArgs& a);        // (u, N, theta)
void neg_binomial_2_quantile_kernel(const KernelArgs& a);  // (u, mu, phi)

}  // namespace advi::random_ops
