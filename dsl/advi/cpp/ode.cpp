#include <advi/cpp/ode.hpp>

#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/ode_rhs.hpp>
#include <advi/cpp/distributions.hpp>
#include <advi/cpp/model.hpp>
#include <advi/cpp/submodel.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi {
namespace {

Graph& graph_of(Model& m) {
    return const_cast<Graph&>(m.nodes());
}

}  // namespace

using submodel::as_column;
using submodel::copy_constant;
using submodel::latent;

namespace detail {

CompiledRhs compile_rhs(const OdeRhsFunction& f, const Expr& y0, const std::vector<Expr>& args,
                        const std::string& name) {
    Model& model = y0.model();
    Graph& g = graph_of(model);
    const Shape y0_shape = y0.shape();
    if (y0_shape.cols != 1 || y0_shape.is_scalar() || y0_shape.kind == Shape::Kind::Matrix) {
        throw ModelError(
            fmt::format("{}: the initial state must be a vector, got {}", name, y0_shape.str()));
    }
    const int n = y0_shape.rows;

    // f's model: t, y and the arguments that depend on latents are its latents (the Zeta
    // inputs of its programs), the others its constants.
    auto rhs = std::make_shared<Model>();
    std::vector<int> offsets{0, 1};
    const Expr t = rhs->param("t", flat());
    const Expr y = rhs->param("y", flat(), n);
    int p = 0;
    std::vector<Expr> inner;
    NodeId z = as_column(g, y0.id());
    for (std::size_t k = 0; k < args.size(); ++k) {
        const Expr& a = args[k];
        if (&a.model() != &model)
            throw ModelError(fmt::format("{}: argument {} is of another model", name, k + 1));
        if (!g.is_variable(a.id())) {
            inner.push_back(copy_constant(model, a, *rhs));
            continue;
        }
        offsets.push_back(1 + n + p);
        inner.push_back(latent(*rhs, fmt::format("arg{}", k + 1), a.shape()));
        p += a.shape().size();
        z = g.apply(Op::AppendRow, z, as_column(g, a.id()));
    }
    const Expr dydt = f(*rhs, t, y, inner);
    if (!dydt.valid() || &dydt.model() != rhs.get())
        throw ModelError(
            fmt::format("{}: the right-hand side must be an expression of its own model", name));
    const Graph zeta = submodel::with_zeta_leaves(*rhs, dydt, offsets);
    return {compile_ode_rhs(zeta, *zeta.output("f"), rhs->spec().data, n, p, rhs), z};
}

}  // namespace detail

Expr ode_solve(const OdeRhsFunction& f, const Expr& y0, double t0, const std::vector<double>& ts,
               const std::vector<Expr>& args, const OdeOptions& options) {
    Model& model = y0.model();
    Graph& g = graph_of(model);
    const detail::CompiledRhs c = detail::compile_rhs(f, y0, args, options.name);
    OdeSystem system;
    system.rhs = c.rhs;
    system.t0 = t0;
    system.times = ts;
    system.relative_tolerance = options.relative_tolerance;
    system.absolute_tolerance = options.absolute_tolerance;
    system.max_num_steps = options.max_num_steps;
    system.method = options.method;
    system.name = options.name;
    Node solve;
    solve.op = Op::OdeSolve;
    solve.in = {c.z, kNoNode, kNoNode};
    solve.index = register_ode_system(std::move(system));
    return model.wrap(g.intern(solve));
}

}  // namespace advi
