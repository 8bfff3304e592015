#include <advi/cpp/integrate.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/cpp/linalg.hpp>
#include <advi/cpp/model.hpp>
#include <advi/cpp/ode.hpp>

namespace advi {

Expr integrate_1d(const IntegrandFunction& f, const Expr& a, const Expr& b,
                  const std::vector<Expr>& args, const IntegrateOptions& options) {
    Model& model = a.model();
    if (&b.model() != &model)
        throw ModelError(fmt::format("{}: the limits are of different models", options.name));
    if (!a.shape().is_scalar() || !b.shape().is_scalar())
        throw ModelError(fmt::format("{}: the limits must be scalars, got {} and {}", options.name,
                                     a.shape().str(), b.shape().str()));
    // the integrand as a right-hand side: its time is x, its one state xc
    const OdeRhsFunction as_rhs = [&](Model& fm, const Expr& x, const Expr& xc,
                                      const std::vector<Expr>& inner) {
        const Expr v = f(fm, x, sum(xc), inner);
        if (!v.valid() || !v.shape().is_scalar())
            throw ModelError(fmt::format("{}: the integrand must be a scalar", options.name));
        return rep_vector(v, 1);
    };
    const detail::CompiledRhs c =
        detail::compile_rhs(as_rhs, rep_vector(model.constant(0.0), 1), args, options.name);
    IntegralSystem system;
    system.f = c.rhs;
    system.method = options.method;
    system.relative_tolerance = options.relative_tolerance;
    system.absolute_tolerance = options.absolute_tolerance;
    system.max_depth = options.max_depth;
    system.name = options.name;
    Node n;
    n.op = Op::Integrate1d;
    n.in = {c.z, a.id(), b.id()};
    n.index = register_integral(std::move(system));
    return model.wrap(const_cast<Graph&>(model.nodes()).intern(n));
}

}  // namespace advi
