#include <advi/cpp/loop.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/loop_body.hpp>
#include <advi/cpp/distributions.hpp>
#include <advi/cpp/linalg.hpp>
#include <advi/cpp/model.hpp>
#include <advi/cpp/submodel.hpp>
#include <advi/graph/ops_linalg.hpp>
#include <advi/graph/ops_loop.hpp>

namespace advi {

ScanResult scan(const ScanBodyFunction& f, const Expr& init, std::int64_t first, std::int64_t last,
                const std::vector<Expr>& args, const std::vector<Expr>& slices,
                const std::string& name) {
    Model& model = init.model();
    Graph& g = const_cast<Graph&>(model.nodes());
    const Shape s0 = init.shape();
    if (s0.cols != 1 || s0.is_scalar() || s0.kind == Shape::Kind::Matrix) {
        throw ModelError(
            fmt::format("{}: the initial state must be a vector, got {}", name, s0.str()));
    }
    const int states = s0.rows;
    const std::int64_t T = std::max<std::int64_t>(0, last - first + 1);

    // The body's model: t, the state, the arguments that depend on latents and the slices are
    // its latents (the Zeta inputs of its programs), the other arguments its constants.
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
    // The slices, interleaved iteration-major: iteration k's values of every slice in turn.
    int x = 0;
    std::vector<Expr> rows;
    std::vector<int> widths;
    NodeId all = kNoNode;
    for (std::size_t k = 0; k < slices.size(); ++k) {
        const Expr& v = slices[k];
        if (&v.model() != &model)
            throw ModelError(fmt::format("{}: slice {} is of another model", name, k + 1));
        const std::int64_t n = v.shape().size();
        if (T == 0 || n % T != 0 || n == 0) {
            throw ModelError(
                fmt::format("{}: slice {} has {} values, not a multiple of the {} "
                            "iterations",
                            name, k + 1, n, T));
        }
        const int width = static_cast<int>(n / T);
        offsets.push_back(1 + states + p + x);
        rows.push_back(
            submodel::latent(*body, fmt::format("slice{}", k + 1), Shape::vector(width)));
        widths.push_back(width);
        x += width;
        const NodeId col = submodel::as_column(g, v.id());
        all = all == kNoNode ? col : g.apply(Op::AppendRow, all, col);
    }
    if (x > 0) {
        Eigen::VectorXi order(T * x);
        std::int64_t at = 0;
        for (std::int64_t k = 0; k < T; ++k) {
            std::int64_t base = 0;
            for (const int w : widths) {
                for (int j = 0; j < w; ++j) order[at++] = static_cast<int>(base + k * w + j);
                base += T * w;
            }
        }
        const Expr idx = model.owned_data(fmt::format("{}_slices_{}", name, g.size()), order);
        z = g.apply(Op::AppendRow, z, g.apply(Op::Gather, all, idx.id()));
    }
    const LoopStep step = f(*body, t, state, inner, rows);
    for (const Expr* e : {&step.state, &step.emit}) {
        if (e->valid() && &e->model() != body.get())
            throw ModelError(
                fmt::format("{}: the body must return expressions of its own model", name));
    }
    if (!step.state.valid() || step.state.shape().size() != states) {
        throw ModelError(
            fmt::format("{}: the body returns a state of {}, but the state has {} "
                        "value{}",
                        name, step.state.valid() ? step.state.shape().str() : "none", states,
                        states == 1 ? "" : "s"));
    }
    Graph& bg = const_cast<Graph&>(body->nodes());
    NodeId next = submodel::as_column(bg, step.state.id());
    const int emissions = step.emit.valid() ? step.emit.shape().size() : 0;
    if (emissions > 0)
        next = bg.apply(Op::AppendRow, next, submodel::as_column(bg, step.emit.id()));
    const Graph zeta = submodel::with_zeta_leaves(*body, body->wrap(next), offsets);
    LoopSystem system;
    system.body = compile_loop_body(zeta, *zeta.output("f"), body->spec().data,
                                    {states, p, x, emissions}, body);
    system.first = first;
    system.last = last;
    system.name = name;
    Node n;
    n.op = Op::Loop;
    n.in = {z, kNoNode, kNoNode};
    n.index = register_loop_system(std::move(system));
    const NodeId out = g.intern(n);
    ScanResult r;
    r.state = model.wrap(linalg::block(g, out, 0, 0, Shape::vector(states)));
    if (emissions > 0 && T > 0) {
        r.emitted = model.wrap(
            linalg::block(g, out, states, 0, Shape::vector(static_cast<int>(T * emissions))));
    }
    return r;
}

Expr loop(const LoopBodyFunction& f, const Expr& init, std::int64_t first, std::int64_t last,
          const std::vector<Expr>& args, const std::string& name) {
    return scan(
               [&](Model& body, const Expr& t, const Expr& state, const std::vector<Expr>& a,
                   const std::vector<Expr>&) {
                   return LoopStep{f(body, t, state, a), Expr()};
               },
               init, first, last, args, {}, name)
        .state;
}

}  // namespace advi
