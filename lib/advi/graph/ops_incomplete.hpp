// The regularised incomplete gamma and beta functions, in log, differentiable in every argument:
// the cumulative distribution functions of the gamma family (gamma, inverse gamma, chi-square,
// inverse chi-square, scaled inverse chi-square, Poisson) and of the beta family (beta,
// Student's t, binomial, negative binomial) when their shape parameters are parameters.
//
//   log_inc_gamma(a, x)     log P(a, x) = log gamma_p(a, x)   (tail 0)
//                           log Q(a, x) = log gamma_q(a, x)   (tail 1)
//   log_inc_beta(a, b, x)   log I_x(a, b)                     (tail 0)
//                           log (1 - I_x(a, b))               (tail 1)
//
// Each is computed in the form that keeps its relative accuracy: the power series of P for
// x < a + 1 and the continued fraction of Q beyond (Numerical Recipes 6.2), the continued
// fraction of I_x(a, b) for x < (a + 1) / (a + b + 2) and of I_{1-x}(b, a) beyond (6.4); the
// other tail as log1m_exp of the one computed. The iterations run on second-order dual numbers
// (dual2.hpp) until every component of the last factor has converged, so the derivatives in the
// shape arguments, which Boost.Math does not give, are exact to rounding.
//
// Scalars broadcast. Ops: the value and the gradient's components (node attribute `index`: 0 the
// value, 1 + i the derivative in input i; `aux` the tail), differentiable through the Hessian's
// components (op ..._hessian, `index` the entry of the upper triangle, row by row), which are the
// end of the chain (op_table.cpp's kThirdOrder). Outside the domain (a or b <= 0, a NaN input)
// every component is NaN; x at or beyond the support's ends gives the limits (log P(a, 0) = -inf,
// log Q(a, 0) = 0, ...) with zero derivatives.
#pragma once

#include <array>

#include <advi/graph/op.hpp>

namespace advi {

class Graph;

namespace incomplete {

enum class Tail { Lower = 0, Upper = 1 };

// {value, d/da, d/dx, d2/da2, d2/da dx, d2/dx2}
[[nodiscard]] std::array<double, 6> log_inc_gamma(double a, double x, Tail tail);
// {value, d/da, d/db, d/dx, then the Hessian's upper triangle (aa ab ax bb bx xx)}
[[nodiscard]] std::array<double, 10> log_inc_beta(double a, double b, double x, Tail tail);

// The graph nodes: log P or log Q of (a, x); log I or log(1 - I) of (a, b, x).
[[nodiscard]] NodeId log_inc_gamma(Graph& g, NodeId a, NodeId x, Tail tail);
[[nodiscard]] NodeId log_inc_beta(Graph& g, NodeId a, NodeId b, NodeId x, Tail tail);

void gamma_kernel(const KernelArgs& a);
void gamma_hessian_kernel(const KernelArgs& a);
void beta_kernel(const KernelArgs& a);
void beta_hessian_kernel(const KernelArgs& a);
void adj_gamma(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);
void adj_beta(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

}  // namespace incomplete
}  // namespace advi
