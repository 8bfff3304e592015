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
        return known_numbers(c, args[k], loc(k), what).at(0);
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
    const PassedOn passed = passed_on(c, args, first, last);
    const IntegrandFunction body = [&](Model& fm, const Expr& x, const Expr& xc,
                                       const std::vector<Expr>& inner) -> Expr {
        const Value r = call_in_model(fm, c, {CallSite::real_scalar(x), CallSite::real_scalar(xc)},
                                      args, passed, inner, at);
        if (!r.is_scalar() || r.is_tuple() || r.is_complex())
            fail(at, fmt::format("`{}` returned {}, not a real", f, type_str(r)));
        return real(r, at);
    };
    Expr integral;
    try {
        integral =
            integrate_1d(body, real(args[0], loc(0)), real(args[1], loc(1)), passed.reals, options);
    } catch (const ModelError& e) {
        fail(at, e.what());
    }
    return CallSite::real_scalar(integral);
}

}  // namespace advi::stan
