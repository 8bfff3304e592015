#include <advi/stan/algebra_solvers.hpp>

namespace advi::stan {
namespace {

// Stan's defaults (Functions Reference, "Algebraic equation solvers"): Newton's scaling step
// 1e-3 bounds its steps; advi's relative step tolerance is the same 1e-10 for all (a root to
// rounding before the function tolerance is judged).
constexpr AlgebraSolverRow kAlgebraSolvers[] = {
    {"algebra_solver",        AlgebraInterface::Legacy,             1e-10, 1e-6, 1e3},
    {"algebra_solver_newton", AlgebraInterface::Legacy,             1e-10, 1e-6, 200},
    {"solve_powell",          AlgebraInterface::Variadic,           1e-10, 1e-6, 200},
    {"solve_powell_tol",      AlgebraInterface::VariadicTolerances, 1e-10, 1e-6, 200},
    {"solve_newton",          AlgebraInterface::Variadic,           1e-10, 1e-6, 200},
    {"solve_newton_tol",      AlgebraInterface::VariadicTolerances, 1e-10, 1e-6, 200},
};

}  // namespace

const AlgebraSolverRow* find_algebra_solver(std::string_view name) {
    for (const AlgebraSolverRow& row : kAlgebraSolvers) {
        if (row.name == name)
            return &row;
    }
    return nullptr;
}

}  // namespace advi::stan
