#include <advi/compile/loop_body.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/instance_pool.hpp>
#include <advi/compile/program.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/diff/simplify.hpp>

namespace advi {
namespace {

class Instance final : public LoopBodyInstance {
public:
    Instance(const Program& value, const Program& vjp, LoopBodySizes n)
        : value_(value),
          vjp_(vjp),
          n_(n),
          in_(1 + 2 * n.states + n.parameters + n.slice + n.emissions) {
        in_.setZero();
    }

    void value(double t, const double* s, const double* p, const double* x, double* next) override {
        load(t, s, p, x);
        value_.run(in_, out_);
        std::copy(out_.data(), out_.data() + n_.states + n_.emissions, next);
    }
    void vjp(double t, const double* s, const double* p, const double* x, const double* g,
             double* g_s, double* g_p, double* g_x) override {
        load(t, s, p, x);
        const int m = n_.states + n_.parameters + n_.slice;
        std::copy(g, g + n_.states + n_.emissions, in_.data() + 1 + m);
        out_.setZero(vjp_.output_dim());  // inputs the body does not read get 0
        vjp_.run(in_, out_);
        std::copy(out_.data(), out_.data() + n_.states, g_s);
        for (int k = 0; k < n_.parameters; ++k) g_p[k] += out_[n_.states + k];
        std::copy(out_.data() + n_.states + n_.parameters, out_.data() + m, g_x);
    }

private:
    void load(double t, const double* s, const double* p, const double* x) {
        in_[0] = t;
        double* at = in_.data() + 1;
        at = std::copy(s, s + n_.states, at);
        at = std::copy(p, p + n_.parameters, at);
        std::copy(x, x + n_.slice, at);
    }
    Program value_, vjp_;
    LoopBodySizes n_;
    Eigen::VectorXd in_, out_;
};

class CompiledBody final : public LoopBody {
public:
    CompiledBody(Program value, Program vjp, LoopBodySizes n, std::shared_ptr<const void> keep)
        : value_(std::move(value)),
          vjp_(std::move(vjp)),
          n_(n),
          keep_(std::move(keep)),
          pool_(std::make_shared<InstancePool<Instance>>()) {}
    [[nodiscard]] int states() const override { return n_.states; }
    [[nodiscard]] int parameters() const override { return n_.parameters; }
    [[nodiscard]] int slice() const override { return n_.slice; }
    [[nodiscard]] int emissions() const override { return n_.emissions; }
    [[nodiscard]] std::shared_ptr<LoopBodyInstance> instance() const override {
        return InstancePool<Instance>::take<LoopBodyInstance>(
            pool_, [&] { return std::make_unique<Instance>(value_, vjp_, n_); });
    }

private:
    Program value_, vjp_;
    LoopBodySizes n_;
    std::shared_ptr<const void> keep_;
    std::shared_ptr<InstancePool<Instance>> pool_;
};

}  // namespace

std::shared_ptr<const LoopBody> compile_loop_body(const Graph& g, NodeId next,
                                                  std::vector<DataSlot> data, LoopBodySizes n,
                                                  std::shared_ptr<const void> keep_alive) {
    const Shape& ns = g[next].shape;
    const int out = n.states + n.emissions;
    if (ns.size() != out || ns.cols != 1 || (ns.is_scalar() && out != 1)) {
        throw ModelError(
            fmt::format("a loop body returns {}, but its state and emission have {} "
                        "value{}",
                        ns.str(), out, out == 1 ? "" : "s"));
    }
    const int m = n.states + n.parameters + n.slice;
    Graph value = g;
    value.clear_outputs();
    value.set_output("next", next, 0);

    // The adjoint of g . next over the leaves of s, p and x (not t, not g).
    Graph vjp = value;
    const int leaves = vjp.size();
    const NodeId adj = vjp.leaf(Op::Zeta, ns, DType::Real, 1 + m, "adjoint");
    const NodeId root = vjp.apply(Op::Sum, vjp.apply(Op::Mul, adj, next));
    Adjoints a =
        reverse_pass(vjp, root, [m](const Node& z) { return z.index >= 1 && z.index <= m; });
    vjp = std::move(a.graph);
    vjp.clear_outputs();
    for (NodeId id = 0; id < leaves; ++id) {
        const Node& leaf = vjp[id];
        if (leaf.op != Op::Zeta || leaf.index < 1 || leaf.index > m || a.adj[id] == kNoNode)
            continue;
        vjp.set_output(fmt::format("adj{}", id), a.adj[id], static_cast<int>(leaf.index) - 1);
    }
    const int inputs = 1 + m + out;
    Program value_program = Program::compile(simplify(value), data, inputs, out, 1);
    Program vjp_program = Program::compile(simplify(vjp), data, inputs, m, 1);
    return std::make_shared<CompiledBody>(std::move(value_program), std::move(vjp_program), n,
                                          std::move(keep_alive));
}

}  // namespace advi
