#include <advi/compile/loop_body.hpp>

#include <algorithm>
#include <mutex>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/program.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/diff/simplify.hpp>

namespace advi {
namespace {

class Instance final : public LoopBodyInstance {
public:
    Instance(const Program& value, const Program& vjp, int s, int p)
        : value_(value), vjp_(vjp), s_(s), p_(p), in_(1 + 2 * s + p) {
        in_.setZero();
    }

    void value(double t, const double* s, const double* p, double* next) override {
        load(t, s, p);
        value_.run(in_, out_);
        std::copy(out_.data(), out_.data() + s_, next);
    }
    void vjp(double t, const double* s, const double* p, const double* g, double* g_s,
             double* g_p) override {
        load(t, s, p);
        std::copy(g, g + s_, in_.data() + 1 + s_ + p_);
        out_.setZero(vjp_.output_dim());  // inputs the body does not read get 0
        vjp_.run(in_, out_);
        std::copy(out_.data(), out_.data() + s_, g_s);
        for (int k = 0; k < p_; ++k) g_p[k] += out_[s_ + k];
    }

private:
    void load(double t, const double* s, const double* p) {
        in_[0] = t;
        std::copy(s, s + s_, in_.data() + 1);
        std::copy(p, p + p_, in_.data() + 1 + s_);
    }
    Program value_, vjp_;
    int s_, p_;
    Eigen::VectorXd in_, out_;
};

// Evaluators not in use, kept for the next run (copying the programs' arenas per run would cost
// as much as a short loop).
struct Pool {
    std::mutex mutex;
    std::vector<std::unique_ptr<Instance>> free;
};

class CompiledBody final : public LoopBody {
public:
    CompiledBody(Program value, Program vjp, int s, int p, std::shared_ptr<const void> keep)
        : value_(std::move(value)),
          vjp_(std::move(vjp)),
          s_(s),
          p_(p),
          keep_(std::move(keep)),
          pool_(std::make_shared<Pool>()) {}
    [[nodiscard]] int states() const override { return s_; }
    [[nodiscard]] int parameters() const override { return p_; }
    [[nodiscard]] std::shared_ptr<LoopBodyInstance> instance() const override {
        std::unique_ptr<Instance> inst;
        {
            const std::lock_guard lock(pool_->mutex);
            if (!pool_->free.empty()) {
                inst = std::move(pool_->free.back());
                pool_->free.pop_back();
            }
        }
        if (!inst)
            inst = std::make_unique<Instance>(value_, vjp_, s_, p_);
        return {inst.release(), [pool = pool_](LoopBodyInstance* used) {
                    std::unique_ptr<Instance> back(static_cast<Instance*>(used));
                    const std::lock_guard lock(pool->mutex);
                    pool->free.push_back(std::move(back));
                }};
    }

private:
    Program value_, vjp_;
    int s_, p_;
    std::shared_ptr<const void> keep_;
    std::shared_ptr<Pool> pool_;
};

}  // namespace

std::shared_ptr<const LoopBody> compile_loop_body(const Graph& g, NodeId next,
                                                  std::vector<DataSlot> data, int states,
                                                  int parameters,
                                                  std::shared_ptr<const void> keep_alive) {
    const Shape& ns = g[next].shape;
    if (ns.size() != states || ns.cols != 1 || (ns.is_scalar() && states != 1)) {
        throw ModelError(fmt::format("a loop body returns {}, but the state has {} value{}",
                                     ns.str(), states, states == 1 ? "" : "s"));
    }
    const int m = states + parameters;
    Graph value = g;
    value.clear_outputs();
    value.set_output("next", next, 0);

    // The adjoint of g . next over the leaves of s and p (not t, not g).
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
    const int inputs = 1 + m + states;
    Program value_program = Program::compile(simplify(value), data, inputs, states, 1);
    Program vjp_program = Program::compile(simplify(vjp), data, inputs, m, 1);
    return std::make_shared<CompiledBody>(std::move(value_program), std::move(vjp_program), states,
                                          parameters, std::move(keep_alive));
}

}  // namespace advi
