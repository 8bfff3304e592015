// ODE solver calls: the function named first is lowered once more, with the model pointer moved
// to a model of its own (its right-hand side, compiled to programs of their own), and the call
// becomes one ode_solve node of the program's graph (dsl/advi/cpp/ode.hpp).
#include <algorithm>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/cpp/ode.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

Value Lowerer::ode_call(const Call& c, const OdeSolverRow& row, Loc at) {
    if (!levels_.empty()) {
        throw NotVectorisable(at,
                              fmt::format("`{}` in a loop whose iterations run at once", c.name));
    }
    const std::string& f = c.args.at(0).as<Variable>()->name;  // the checker made sure
    std::vector<Value> args;
    for (std::size_t k = 1; k < c.args.size(); ++k) args.push_back(expr(c.args[k]));
    auto loc = [&](std::size_t k) { return c.args[k + 1].loc; };
    // Times and tolerances: numbers known before the fit.
    auto known = [&](std::size_t k, const char* what) {
        const Value& v = args[k];
        std::vector<double> out;
        if (v.is_known_int()) {
            out.assign(v.ints.begin(), v.ints.end());
            return out;
        }
        if (v.is_runtime_int()) {
            fail(loc(k), fmt::format("`{}`: {} must be known before the fit", c.name, what));
        }
        try {
            return m().evaluate(v.expr);
        } catch (const ModelError&) {
            fail(loc(k), fmt::format("`{}`: {} that depend on parameters are not supported yet: "
                                     "advi solves ODEs from times and tolerances known before "
                                     "the fit",
                                     c.name, what));
        }
    };
    OdeOptions options;
    options.name = c.name;
    options.method = row.method;
    const double t0 = known(1, "the initial time")[0];
    const std::vector<double> ts = known(2, "the output times");
    std::size_t first = 3;  // the arguments passed on to f
    std::size_t last = args.size();
    const bool arrays = row.interface == OdeInterface::Arrays;
    std::size_t control = 0;  // where rel_tol, abs_tol, max_num_steps are
    if (row.interface == OdeInterface::VariadicTolerances) {
        control = 3;
        first = 6;
    } else if (row.interface == OdeInterface::AdjointControl) {
        first = 14;
        options.relative_tolerance = known(3, "the relative tolerance")[0];
        const std::vector<double> abs = known(4, "the absolute tolerances");
        if (abs.size() != static_cast<std::size_t>(args[0].size())) {
            fail(loc(4), fmt::format("`{}`: abs_tol_forward has {} elements for a state of {}",
                                     c.name, abs.size(), args[0].size()));
        }
        options.absolute_tolerance = *std::min_element(abs.begin(), abs.end());
        options.max_num_steps = static_cast<std::int64_t>(known(9, "max_num_steps")[0]);
    } else if (arrays && args.size() == 9) {
        control = 6;
        last = 6;
    }
    if (control > 0) {
        options.relative_tolerance = known(control, "the relative tolerance")[0];
        options.absolute_tolerance = known(control + 1, "the absolute tolerance")[0];
        const double steps = known(control + 2, "max_num_steps")[0];
        options.max_num_steps = static_cast<std::int64_t>(steps);
    }
    const Value& y0 = args[0];
    const int n = static_cast<int>(y0.size());
    // The arguments f reads as reals go through the solve (those that depend on parameters are
    // differentiated); known ints are passed to f as they are.
    std::vector<Expr> reals;
    std::vector<int> real_at(args.size(), -1);
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
    const OdeRhsFunction body = [&](Model& rhs, const Expr& t, const Expr& y,
                                    const std::vector<Expr>& inner) -> Expr {
        std::vector<Value> passed{CallSite::real_scalar(t)};
        Value state;
        state.expr = y;
        if (arrays) {
            state.base = Base::Real;
            state.dims = {n};
        } else {
            state.base = Base::Vector;
            state.sizes = {n};
        }
        passed.push_back(state);
        for (std::size_t k = first; k < last; ++k) {
            Value v = args[k];
            if (real_at[k] >= 0)
                v.expr = inner[static_cast<std::size_t>(real_at[k])];
            passed.push_back(v);
        }
        Model* const outer = model_;
        model_ = &rhs;
        try {
            const std::optional<Value> r = call_user_function(f, passed, at);
            if (!r || static_cast<int>(r->size()) != n || r->is_int()) {
                fail(at, fmt::format("`{}` returned {} for a state of {} element{}", f,
                                     r ? type_str(*r) : "nothing", n, n == 1 ? "" : "s"));
            }
            const Expr dydt = real(*r, at);
            model_ = outer;
            return dydt;
        } catch (...) {
            model_ = outer;
            throw;
        }
    };
    Expr solution;
    try {
        solution = ode_solve(body, real(y0, loc(0)), t0, ts, reals, options);
    } catch (const ModelError& e) {
        fail(at, e.what());
    }
    Value out;
    out.expr = solution;
    if (arrays) {
        out.base = Base::Real;
        out.dims = {static_cast<int>(ts.size()), n};
    } else {
        out.base = Base::Vector;
        out.dims = {static_cast<int>(ts.size())};
        out.sizes = {n};
    }
    return out;
}

}  // namespace advi::stan
