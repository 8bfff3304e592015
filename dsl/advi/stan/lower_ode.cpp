// ODE solver calls: the function named first is lowered once more, with the model pointer moved
// to a model of its own (its right-hand side, compiled to programs of their own), and the call
// becomes one ode_solve node of the program's graph (dsl/advi/cpp/ode.hpp).
#include <algorithm>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/cpp/ode.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

std::vector<double> Lowerer::known_numbers(const Call& c, const Value& v, Loc at,
                                           const char* what) {
    if (v.is_known_int())
        return {v.ints.begin(), v.ints.end()};
    if (v.is_runtime_int())
        fail(at, fmt::format("`{}`: {} must be known before the fit", c.name, what));
    try {
        return m().evaluate(real(v, at));
    } catch (const ModelError&) {
        fail(at, fmt::format("`{}`: {} that depend on parameters are not supported yet: advi "
                             "solves from numbers known before the fit",
                             c.name, what));
    }
}

Lowerer::PassedOn Lowerer::passed_on(const Call& c, const std::vector<Value>& args,
                                     std::size_t first, std::size_t last) {
    PassedOn p;
    p.first = first;
    p.last = last;
    p.real_at.assign(args.size(), -1);
    for (std::size_t k = first; k < last; ++k) {
        const Loc at = c.args[k + 1].loc;
        if (args[k].is_runtime_int()) {
            fail(at, fmt::format("`{}`: an integer known only per draw cannot be passed to `{}`",
                                 c.name, c.args.at(0).as<Variable>()->name));
        }
        if (args[k].is_int() || args[k].size() == 0)
            continue;  // passed as they are (an empty x_r has no node)
        p.real_at[k] = static_cast<int>(p.reals.size());
        p.reals.push_back(real(args[k], at));
    }
    return p;
}

Value Lowerer::call_in_model(Model& own_model, const Call& c, std::vector<Value> own,
                             const std::vector<Value>& args, const PassedOn& p,
                             const std::vector<Expr>& inner, Loc at) {
    for (std::size_t k = p.first; k < p.last; ++k) {
        Value v = args[k];
        if (p.real_at[k] >= 0)
            v.expr = inner[static_cast<std::size_t>(p.real_at[k])];
        own.push_back(v);
    }
    const std::string& f = c.args.at(0).as<Variable>()->name;  // the checker made sure
    Model* const outer = model_;
    model_ = &own_model;
    try {
        const std::optional<Value> r = call_user_function(f, own, at);
        model_ = outer;
        if (!r)
            fail(at, fmt::format("`{}` returned nothing", f));
        return *r;
    } catch (...) {
        model_ = outer;
        throw;
    }
}

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
        return known_numbers(c, args[k], loc(k), what);
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
    const PassedOn passed = passed_on(c, args, first, last);
    const OdeRhsFunction body = [&](Model& rhs, const Expr& t, const Expr& y,
                                    const std::vector<Expr>& inner) -> Expr {
        Value state;
        state.expr = y;
        if (arrays) {
            state.base = Base::Real;
            state.dims = {n};
        } else {
            state.base = Base::Vector;
            state.sizes = {n};
        }
        const Value r =
            call_in_model(rhs, c, {CallSite::real_scalar(t), state}, args, passed, inner, at);
        if (static_cast<int>(r.size()) != n || r.is_int()) {
            fail(at, fmt::format("`{}` returned {} for a state of {} element{}", f, type_str(r), n,
                                 n == 1 ? "" : "s"));
        }
        return real(r, at);
    };
    Expr solution;
    try {
        solution = ode_solve(body, real(y0, loc(0)), t0, ts, passed.reals, options);
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
