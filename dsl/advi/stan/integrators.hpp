// Stan's one-dimensional integrators that advi lowers, one row each: how the call lays out its
// arguments and which quadrature runs it (graph/ops_integrate.hpp). The checker types the calls
// by these rows (check.cpp), the lowering builds them (lower_integrate.cpp).
#pragma once

#include <string_view>

#include <advi/graph/ops_integrate.hpp>

namespace advi::stan {

enum class IntegratorInterface {
    // integrate_1d(f, real a, real b, array[] real theta, data array[] real x_r,
    // data array[] int x_i [, data real rel_tol]) with
    // f(real x, real xc, array[] real theta, data array[] real x_r, data array[] int x_i) => real
    Legacy,
    // integrate_1d_double_exponential(f, real a, real b, ...) with f(real x, real xc, ...) => real
    Variadic,
    // ..._tol(f, a, b, data real rel_tol, data real abs_tol, data int max_depth, ...)
    VariadicTolerances,
};

struct IntegratorRow {
    std::string_view name;
    IntegratorInterface interface;
    QuadratureMethod method;
};

// The row of an integrator advi lowers, or nullptr.
[[nodiscard]] const IntegratorRow* find_integrator(std::string_view name);

}  // namespace advi::stan
