// Stan's ODE solvers that advi lowers, one row each: how the call lays out its arguments and
// which integrator runs it (graph/ops_ode.hpp). The checker types the calls by these rows
// (check.cpp), the lowering builds them (lower_ode.cpp).
#pragma once

#include <string_view>

#include <advi/graph/ops_ode.hpp>

namespace advi::stan {

enum class OdeInterface {
    // ode_rk45(f, vector y0, real t0, array[] real ts, ...) with f(real t, vector y, ...) => vector
    Variadic,
    // ode_rk45_tol(f, y0, t0, ts, data real rel_tol, data real abs_tol, int max_num_steps, ...)
    VariadicTolerances,
    // ode_adjoint_tol_ctl(f, y0, t0, ts, data real rel_tol_forward, data vector abs_tol_forward,
    // rel_tol_backward, abs_tol_backward, rel_tol_quadrature, abs_tol_quadrature,
    // max_num_steps, num_steps_between_checkpoints, interpolation_polynomial, solver_forward,
    // solver_backward, ...): solved by forward sensitivities with the forward tolerances (the
    // smallest of abs_tol_forward for every state); the other controls tune Stan's adjoint
    // method, whose result is the same solution.
    AdjointControl,
    // integrate_ode_rk45(f, array[] real y0, real t0, array[] real ts, array[] real theta,
    // data array[] real x_r, data array[] int x_i [, data real rel_tol, data real abs_tol,
    // data int max_num_steps]) with f(real, array[] real, array[] real, data array[] real,
    // data array[] int) => array[] real (removed in Stan 2.35; stanc3's tests still hold them)
    Arrays,
};

struct OdeSolverRow {
    std::string_view name;
    OdeInterface interface;
    OdeMethod method;
};

// The row of a solver advi lowers, or nullptr (the other higher-order functions, and
// ode_adjoint_tol_ctl, whose control arguments advi does not read).
[[nodiscard]] const OdeSolverRow* find_ode_solver(std::string_view name);

}  // namespace advi::stan
