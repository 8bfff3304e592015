#include <advi/cpp/loop.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/loop_body.hpp>
#include <advi/cpp/distributions.hpp>
#include <advi/cpp/model.hpp>
#include <advi/cpp/submodel.hpp>
#include <advi/graph/ops_loop.hpp>

namespace advi {

Expr loop(const LoopBodyFunction& f, const Expr& init, std::int64_t first, std::int64_t last,
          const std::vector<Expr>& args, const std::string& name) {
    Model& model = init.model();
    Graph& g = const_cast<Graph&>(model.nodes());
    const Shape s0 = init.shape();
    if (s0.cols != 1 || s0.is_scalar() || s0.kind == Shape::Kind::Matrix) {
        throw ModelError(
            fmt::format("{}: the initial state must be a vector, got {}", name, s0.str()));
    }
    const int states = s0.rows;

    // The body's model: t, the state and the arguments that depend on latents are its latents
    // (the Zeta inputs of its programs), the others its constants.
    auto body = std::make_shared<Model>();
    std::vector<int> offsets{0, 1};
    const Expr t = body->param("t", flat());
    const Expr state = body->param("state", flat(), states);
    int p = 0;
    std::vector<Expr> inner;
    NodeId z = submodel::as_column(g, init.id());
    for (std::size_t k = 0; k < args.size(); ++k) {
        const Expr& a = args[k];
        if (&a.model() != &model)
            throw ModelError(fmt::format("{}: argument {} is of another model", name, k + 1));
        if (!g.is_variable(a.id())) {
            inner.push_back(submodel::copy_constant(model, a, *body));
            continue;
        }
        offsets.push_back(1 + states + p);
        inner.push_back(submodel::latent(*body, fmt::format("arg{}", k + 1), a.shape()));
        p += a.shape().size();
        z = g.apply(Op::AppendRow, z, submodel::as_column(g, a.id()));
    }
    Expr next = f(*body, t, state, inner);
    if (!next.valid() || &next.model() != body.get())
        throw ModelError(
            fmt::format("{}: the body must return an expression of its own model", name));
    if (next.shape().size() != states) {
        throw ModelError(fmt::format("{}: the body returns {}, but the state has {} value{}", name,
                                     next.shape().str(), states, states == 1 ? "" : "s"));
    }
    const Graph zeta = submodel::with_zeta_leaves(*body, next, offsets);
    LoopSystem system;
    system.body = compile_loop_body(zeta, *zeta.output("f"), body->spec().data, states, p, body);
    system.first = first;
    system.last = last;
    system.name = name;
    Node n;
    n.op = Op::Loop;
    n.in = {z, kNoNode, kNoNode};
    n.index = register_loop_system(std::move(system));
    return model.wrap(g.intern(n));
}

}  // namespace advi
