// One-dimensional integrals: the integrand named first is lowered once more, in a model of its
// own (compiled as an ODE right-hand side is), and the call becomes one integrate_1d node of the
// program's graph (dsl/advi/cpp/integrate.hpp).
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/cpp/integrate.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

Value Lowerer::integrate_call(const Call& c, const IntegratorRow& row, Loc at) {
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
    IntegrateOptions options;
    options.name = c.name;
    options.method = row.method;
    std::size_t first = 2;  // the arguments passed on to f after x and xc
    std::size_t last = args.size();
    if (row.interface == IntegratorInterface::Legacy) {
        last = 5;
        if (args.size() == 6)
            options.relative_tolerance = known(5, "the relative tolerance");
    } else if (row.interface == IntegratorInterface::VariadicTolerances) {
        options.relative_tolerance = known(2, "the relative tolerance");
        options.absolute_tolerance = known(3, "the absolute tolerance");
        const double depth = known(4, "max_depth");
        options.max_depth = static_cast<int>(depth);
        first = 5;
    }
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
    const IntegrandFunction body = [&](Model& fm, const Expr& x, const Expr& xc,
                                       const std::vector<Expr>& inner) -> Expr {
        std::vector<Value> passed{CallSite::real_scalar(x), CallSite::real_scalar(xc)};
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
            if (!r || !r->is_scalar() || r->is_tuple() || r->is_complex()) {
                fail(at,
                     fmt::format("`{}` returned {}, not a real", f, r ? type_str(*r) : "nothing"));
            }
            const Expr v = real(*r, at);
            model_ = outer;
            return v;
        } catch (...) {
            model_ = outer;
            throw;
        }
    };
    Expr integral;
    try {
        integral = integrate_1d(body, real(args[0], loc(0)), real(args[1], loc(1)), reals, options);
    } catch (const ModelError& e) {
        fail(at, e.what());
    }
    return CallSite::real_scalar(integral);
}

}  // namespace advi::stan
