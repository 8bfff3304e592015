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
        const Value& v = args[k];
        if (v.is_known_int())
            return static_cast<double>(v.ints.at(0));
        try {
            return m().evaluate(real(v, loc(k))).at(0);
        } catch (const ModelError&) {
            fail(loc(k), fmt::format("`{}`: {} must be known before the fit", c.name, what));
        }
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
    std::vector<Expr> reals;
    std::vector<int> real_at(args.size(), -1);
    const std::size_t last = row.interface == AlgebraInterface::Legacy ? 4 : args.size();
    for (std::size_t k = first; k < last; ++k) {
        if (args[k].is_runtime_int()) {
            fail(loc(k), fmt::format("`{}`: an integer known only per draw cannot be passed to "
                                     "`{}`",
                                     c.name, f));
        }
        if (args[k].is_int() || args[k].size() == 0)
            continue;  // passed as they are (an empty x_r has no node)
        real_at[k] = static_cast<int>(reals.size());
        reals.push_back(real(args[k], loc(k)));
    }
    const AlgebraFunction body = [&](Model& fm, const Expr& x,
                                     const std::vector<Expr>& inner) -> Expr {
        Value unknowns;
        unknowns.expr = x;
        unknowns.base = Base::Vector;
        unknowns.sizes = {n};
        std::vector<Value> passed{unknowns};
        for (std::size_t k = first; k < last; ++k) {
            Value v = args[k];
            if (real_at[k] >= 0)
                v.expr = inner[static_cast<std::size_t>(real_at[k])];
            passed.push_back(v);
        }
        Model* const outer = model_;
        model_ = &fm;
        try {
            const std::optional<Value> r = call_user_function(f, passed, at);
            if (!r || static_cast<int>(r->size()) != n || r->is_int()) {
                fail(at, fmt::format("`{}` returned {} for {} unknown{}", f,
                                     r ? type_str(*r) : "nothing", n, n == 1 ? "" : "s"));
            }
            const Expr fx = real(*r, at);
            model_ = outer;
            return fx;
        } catch (...) {
            model_ = outer;
            throw;
        }
    };
    Expr root;
    try {
        root = algebra_solve(body, real(guess, loc(0)), reals, options);
    } catch (const ModelError& e) {
        fail(at, e.what());
    }
    return CallSite::vec(root, n);
}

}  // namespace advi::stan
