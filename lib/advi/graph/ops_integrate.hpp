// A definite integral of a function of one variable as one op (Stan's integrate_1d and its
// double-exponential and Gauss-Kronrod forms): the integrand f(x, xc, p) is compiled as an ODE
// right-hand side is (graph/ops_ode.hpp's OdeRhs: its time is x, its one state xc, the distance
// from x to the nearest limit that the double-exponential rules pass, NaN for Gauss-Kronrod and
// infinite limits, as Stan), registered once and named by the node's `index`.
//
//   integrate_1d(z, a, b)        z = [0; p], a and b scalars (either may be infinite): the
//                                integral of f over [a, b]
//   integrate_1d_grad(z, a, b)   vec[1 + P + 2]: 0, the integrals of df/dp_k, -f(a), f(b) (the
//                                limits' terms 0 where they are infinite)
//
// Each integral is computed to the relative tolerance (and absolute floor) as Stan computes it
// (Boost's tanh_sinh, exp_sinh, sinh_sinh, or adaptive Gauss-Kronrod 21); an error estimate
// above max(relative_tolerance |I|_1, absolute_tolerance) fails the integral (NaN, as where Stan
// throws). Second derivatives are not built (op_table.cpp refuses them by name).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <advi/graph/op.hpp>
#include <advi/graph/ops_ode.hpp>

namespace advi {

enum class QuadratureMethod : std::uint8_t { DoubleExponential, GaussKronrod };

struct IntegralSystem {
    std::shared_ptr<const OdeRhs> f;  // one state (xc), f's value a vec[1]
    QuadratureMethod method = QuadratureMethod::DoubleExponential;
    double relative_tolerance = 1.4901161193847656e-08;  // sqrt(machine epsilon), Stan's default
    double absolute_tolerance = 0.0;
    int max_depth = 15;  // Gauss-Kronrod's bisections, the double-exponential rules' refinements
    std::string name;    // the function as the program called it, for messages
};

[[nodiscard]] std::int64_t register_integral(IntegralSystem s);
[[nodiscard]] const IntegralSystem& integral_system(std::int64_t id);

namespace integrate_ops {

Shape integrate_shape(const Graph& g, const Node& n);
Shape integrate_grad_shape(const Graph& g, const Node& n);
void integrate_kernel(const KernelArgs& a);
void integrate_grad_kernel(const KernelArgs& a);
void adj_integrate(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

// The integral of f(., p) over [a, b] (p = z + 1); with `grad`, also its gradient (1 + P + 2,
// as integrate_1d_grad). False when a quadrature did not meet its tolerance.
bool integrate(const IntegralSystem& s, const double* z, double a, double b, double* value,
               double* grad = nullptr);

}  // namespace integrate_ops

}  // namespace advi
