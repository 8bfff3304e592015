// Definite integrals of functions of one variable in models (Stan's integrate_1d and its
// double-exponential and Gauss-Kronrod forms): the integrand is written as expressions in a model
// of its own, compiled as an ODE right-hand side is (dsl/advi/cpp/ode.hpp); the gradient in its
// arguments and limits is integrals of its derivatives and its values at the limits
// (graph/ops_integrate.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <advi/cpp/expr.hpp>
#include <advi/graph/ops_integrate.hpp>

namespace advi {

struct IntegrateOptions {
    QuadratureMethod method = QuadratureMethod::DoubleExponential;
    double relative_tolerance = 1.4901161193847656e-08;  // sqrt(machine epsilon)
    double absolute_tolerance = 0.0;
    int max_depth = 15;
    std::string name = "integrate_1d";  // for messages
};

// The integrand: given its own model `fm`, the variable x, xc (the distance from x to the nearest
// limit for the double-exponential rules on a finite range, else NaN) and the arguments
// (expressions of `fm` with the shapes of those given to integrate_1d), f(x) as a scalar.
using IntegrandFunction =
    std::function<Expr(Model& fm, const Expr& x, const Expr& xc, const std::vector<Expr>& args)>;

// The integral of f over [a, b] (scalars; either may be infinite).
[[nodiscard]] Expr integrate_1d(const IntegrandFunction& f, const Expr& a, const Expr& b,
                                const std::vector<Expr>& args = {},
                                const IntegrateOptions& options = {});

}  // namespace advi
