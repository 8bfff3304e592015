// Roots of algebraic systems in models: x with f(x, args...) = 0 from a guess (Stan's
// algebra_solver, solve_newton, solve_powell). f is written as expressions in a model of its
// own, compiled as an ODE right-hand side is (dsl/advi/cpp/ode.hpp); the root's gradient comes
// from the implicit function theorem (graph/ops_algebra.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <advi/cpp/expr.hpp>

namespace advi {

struct AlgebraOptions {
    double relative_tolerance = 1e-10;  // a step below it (relative to |x|) ends the iteration
    double function_tolerance = 1e-6;   // |f(x)|_inf at the root, at most
    std::int64_t max_num_steps = 1000;
    std::string name = "algebra_solve";  // for messages
};

// f's body: given its own model `fm`, the unknowns x (a vector) and the arguments (expressions
// of `fm` with the shapes of those given to algebra_solve), f(x) as a vector of x's size.
// Arguments that depend on latent variables are inputs of f that the gradient flows through.
using AlgebraFunction =
    std::function<Expr(Model& fm, const Expr& x, const std::vector<Expr>& args)>;

// The root x (a vector of the guess's size) of f(x, args) = 0, found from `guess`.
[[nodiscard]] Expr algebra_solve(const AlgebraFunction& f, const Expr& guess,
                                 const std::vector<Expr>& args = {},
                                 const AlgebraOptions& options = {});

}  // namespace advi
