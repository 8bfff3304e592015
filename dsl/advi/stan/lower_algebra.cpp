// Algebraic solver calls: the function named first is lowered once more, in a model of its own
// (the system, compiled as an ODE right-hand side is), and the call becomes one algebra_solve
// node of the program's graph (dsl/advi/cpp/algebra.hpp).
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/cpp/algebra.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

Value Lowerer::algebra_call(const Call& c, const AlgebraSolverRow& row, Loc at) {
    if (!levels_.empty()) {
        throw NotVectorisable(at,
                              fmt::format("`{}` in a loop whose iterations run at once", c.name));
    }
    const std::string& f = c.args.at(0).as<Variable>()->name;  // the checker made sure
    std::vector<Value> args;
    for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
    auto loc = [&](std::size_t k) { return c.args[k + 1].loc; };
    // Tolerances: numbers known before the fit (the checker made sure they are data).
    auto known = [&](std::size_t k, const char* what) {
        return known_numbers(c, args[k], loc(k), what).at(0);
    };
    AlgebraOptions options;
    options.name = c.name;
    options.function_tolerance = row.function_tolerance;
    options.max_num_steps = static_cast<std::int64_t>(row.max_num_steps);
    std::size_t first = 1;  // the arguments passed on to f after x
    std::size_t control = 0;
    if (row.interface == AlgebraInterface::Legacy) {
        if (args.size() == 7)
            control = 4;
    } else if (row.interface == AlgebraInterface::VariadicTolerances) {
        control = 1;
        first = 4;
    }
    if (control > 0) {
        // the first control (Powell's relative tolerance, Newton's scaling step) is checked:
        // the iteration itself goes on to a step of 1e-10 relative, a root to rounding
        const double step = known(control, "the relative tolerance (scaling step)");
        if (!(step > 0))
            fail(loc(control), fmt::format("`{}`: the relative tolerance (scaling step) must be "
                                           "positive, got {}",
                                           c.name, step));
        options.function_tolerance = known(control + 1, "the function tolerance");
        const double steps = known(control + 2, "max_num_steps");
        if (!(steps >= 1))
            fail(loc(control + 2),
                 fmt::format("`{}`: max_num_steps must be positive, got {}", c.name, steps));
        options.max_num_steps = static_cast<std::int64_t>(steps);
    }
    const Value& guess = args[0];
    const int n = static_cast<int>(guess.size());
    // The arguments f reads as reals go through the solve (those that depend on parameters are
    // differentiated); known ints are passed to f as they are.
    const std::size_t last = row.interface == AlgebraInterface::Legacy ? 4 : args.size();
    const PassedOn passed = passed_on(c, args, first, last);
    const AlgebraFunction body = [&](Model& fm, const Expr& x,
                                     const std::vector<Expr>& inner) -> Expr {
        Value unknowns;
        unknowns.expr = x;
        unknowns.base = Base::Vector;
        unknowns.sizes = {n};
        const Value r = call_in_model(fm, c, {unknowns}, args, passed, inner, at);
        if (static_cast<int>(r.size()) != n || r.is_int()) {
            fail(at, fmt::format("`{}` returned {} for {} unknown{}", f, type_str(r), n,
                                 n == 1 ? "" : "s"));
        }
        return real(r, at);
    };
    Expr root;
    try {
        root = algebra_solve(body, real(guess, loc(0)), passed.reals, options);
    } catch (const ModelError& e) {
        fail(at, e.what());
    }
    return CallSite::vec(root, n);
}

}  // namespace advi::stan
