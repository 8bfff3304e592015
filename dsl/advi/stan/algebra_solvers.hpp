// Stan's algebraic solvers that advi lowers, one row each: how the call lays out its arguments
// (graph/ops_algebra.hpp solves them all: Newton steps damped where they do not lower |f|, so
// Stan's Newton and Powell's dogleg methods find the same root). The checker types the calls by
// these rows (check.cpp), the lowering builds them (lower_algebra.cpp).
#pragma once

#include <string_view>

namespace advi::stan {

enum class AlgebraInterface {
    // algebra_solver(f, vector y_guess, vector theta, data array[] real x_r, data array[] int x_i
    // [, data real rel_tol, data real f_tol, data real max_steps]) with
    // f(vector y, vector theta, data array[] real x_r, data array[] int x_i) => vector
    Legacy,
    // solve_newton(f, vector y_guess, ...) with f(vector y, ...) => vector
    Variadic,
    // solve_newton_tol(f, vector y_guess, data real scaling_step (solve_powell_tol: rel_tol),
    // data real f_tol, int max_steps, ...)
    VariadicTolerances,
};

struct AlgebraSolverRow {
    std::string_view name;
    AlgebraInterface interface;
    // Stan's defaults: the relative tolerance (Newton's scaling step), f_tol, max_num_steps
    double relative_tolerance;
    double function_tolerance;
    double max_num_steps;
};

// The row of a solver advi lowers, or nullptr.
[[nodiscard]] const AlgebraSolverRow* find_algebra_solver(std::string_view name);

}  // namespace advi::stan
