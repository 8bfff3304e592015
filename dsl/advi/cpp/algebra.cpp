#include <advi/cpp/algebra.hpp>

#include <advi/cpp/model.hpp>
#include <advi/cpp/ode.hpp>
#include <advi/graph/ops_algebra.hpp>

namespace advi {

Expr algebra_solve(const AlgebraFunction& f, const Expr& guess, const std::vector<Expr>& args,
                   const AlgebraOptions& options) {
    Model& model = guess.model();
    // the system as a right-hand side whose time is unused
    const OdeRhsFunction as_rhs = [&](Model& fm, const Expr&, const Expr& x,
                                      const std::vector<Expr>& inner) { return f(fm, x, inner); };
    const detail::CompiledRhs c = detail::compile_rhs(as_rhs, guess, args, options.name);
    AlgebraSystem system;
    system.f = c.rhs;
    system.relative_tolerance = options.relative_tolerance;
    system.function_tolerance = options.function_tolerance;
    system.max_num_steps = options.max_num_steps;
    system.name = options.name;
    Node solve;
    solve.op = Op::AlgebraSolve;
    solve.in = {c.z, kNoNode, kNoNode};
    solve.index = register_algebra_system(std::move(system));
    return model.wrap(const_cast<Graph&>(model.nodes()).intern(solve));
}

}  // namespace advi
