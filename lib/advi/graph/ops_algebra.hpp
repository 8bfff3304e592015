// The root of a system of algebraic equations as one op: x with f(x, p) = 0 (Stan's
// algebra_solver, solve_newton, solve_powell). f is compiled as an ODE right-hand side is
// (graph/ops_ode.hpp's OdeRhs, its time argument unused), registered once and named by the
// node's `index`.
//
//   algebra_solve(z)          z = [x_guess; p], out vec[N]: the root x* (from the guess)
//   algebra_solve_vjp(z, g)   g vec[N], out vec[N + P]: 0 for the guess (the root does not
//                             depend on it), -J_p' J_x^-T g for p (implicit function theorem)
//
// The solver: Newton steps, each damped (Levenberg-Marquardt) until it lowers |f|^2, to a step
// below the relative tolerance or f = 0; the root counts if |f|_inf <= function_tolerance, else
// the solve fails (NaN, as where Stan's solver throws). Second derivatives are not built: a
// Hessian-vector product of a model with a solve is refused by name (op_table.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <advi/graph/op.hpp>
#include <advi/graph/ops_ode.hpp>

namespace advi {

struct AlgebraSystem {
    std::shared_ptr<const OdeRhs> f;  // N equations in the N unknowns (its states)
    double relative_tolerance = 1e-10;
    double function_tolerance = 1e-6;
    std::int64_t max_num_steps = 1000;
    std::string name;  // the function as the program called it, for messages
};

// Registers a system for algebra_solve nodes (their `index`); checks the tolerances
// (ModelError naming `name`).
[[nodiscard]] std::int64_t register_algebra_system(AlgebraSystem s);
[[nodiscard]] const AlgebraSystem& algebra_system(std::int64_t id);

namespace algebra_ops {

Shape algebra_solve_shape(const Graph& g, const Node& n);
Shape algebra_solve_vjp_shape(const Graph& g, const Node& n);
void algebra_solve_kernel(const KernelArgs& a);
void algebra_solve_vjp_kernel(const KernelArgs& a);
void adj_algebra_solve(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

// Solves the system at z = [guess; p] into x (N); with `g` also the vector-Jacobian product
// into `vjp` (N + P). False when it found no root to the function tolerance.
bool solve(const AlgebraSystem& s, const double* z, double* x, const double* g = nullptr,
           double* vjp = nullptr);

}  // namespace algebra_ops

}  // namespace advi
