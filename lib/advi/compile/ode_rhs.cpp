#include <advi/compile/ode_rhs.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/instance_pool.hpp>
#include <advi/compile/program.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/diff/simplify.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi {
namespace {

class Instance final : public OdeRhsInstance {
public:
    Instance(const Program& value, const Program& jacobian, int n, int p)
        : value_(value), jacobian_(jacobian), n_(n), p_(p), in_(1 + n + p) {}

    void value(double t, const double* y, const double* p, double* dydt) override {
        load(t, y, p);
        value_.run(in_, out_);
        std::copy(out_.data(), out_.data() + n_, dydt);
    }
    void jacobian(double t, const double* y, const double* p, double* dydt, double* j) override {
        load(t, y, p);
        out_.setZero(jacobian_.output_dim());  // entries of inputs f does not read stay 0
        jacobian_.run(in_, out_);
        std::copy(out_.data(), out_.data() + n_, dydt);
        std::copy(out_.data() + n_, out_.data() + jacobian_.output_dim(), j);
    }

private:
    void load(double t, const double* y, const double* p) {
        in_[0] = t;
        std::copy(y, y + n_, in_.data() + 1);
        std::copy(p, p + p_, in_.data() + 1 + n_);
    }
    Program value_, jacobian_;
    int n_, p_;
    Eigen::VectorXd in_, out_;
};

class CompiledRhs final : public OdeRhs {
public:
    CompiledRhs(Program value, Program jacobian, int n, int p, std::shared_ptr<const void> keep)
        : value_(std::move(value)),
          jacobian_(std::move(jacobian)),
          n_(n),
          p_(p),
          keep_(std::move(keep)),
          pool_(std::make_shared<InstancePool<Instance>>()) {}
    [[nodiscard]] int states() const override { return n_; }
    [[nodiscard]] int parameters() const override { return p_; }
    // An evaluator of its own per solve (a solve may run on any thread), back to the pool after.
    [[nodiscard]] std::shared_ptr<OdeRhsInstance> instance() const override {
        return InstancePool<Instance>::take<OdeRhsInstance>(
            pool_, [&] { return std::make_unique<Instance>(value_, jacobian_, n_, p_); });
    }

private:
    Program value_, jacobian_;
    int n_, p_;
    std::shared_ptr<const void> keep_;
    std::shared_ptr<InstancePool<Instance>> pool_;
};

}  // namespace

std::shared_ptr<const OdeRhs> compile_ode_rhs(const Graph& g, NodeId f, std::vector<DataSlot> data,
                                              int n, int p,
                                              std::shared_ptr<const void> keep_alive) {
    if (g[f].shape.size() != n || g[f].shape.cols != 1) {
        throw ModelError(
            fmt::format("the ODE right-hand side returns {}, but the state has {} element{}",
                        g[f].shape.str(), n, n == 1 ? "" : "s"));
    }
    const int m = n + p;
    Graph value = g;
    value.clear_outputs();
    value.set_output("f", f, 0);

    // Row i of the Jacobian: the gradient of f[i] over the Zeta leaves of y and p (not t).
    Graph jac = value;
    const int leaves = jac.size();
    std::vector<NodeId> roots;
    for (int i = 0; i < n; ++i) {
        roots.push_back(
            linalg::reshape(jac, linalg::block(jac, f, i, 0, Shape::vector(1)), Shape::scalar()));
    }
    for (int i = 0; i < n; ++i) {
        Adjoints a = reverse_pass(jac, roots[i], [](const Node& z) { return z.index >= 1; });
        jac = std::move(a.graph);
        for (NodeId id = 0; id < leaves; ++id) {
            const Node& leaf = jac[id];
            if (leaf.op != Op::Zeta || leaf.index < 1 || a.adj[id] == kNoNode)
                continue;
            jac.set_output(fmt::format("J{}_{}", i, id), a.adj[id],
                           n + i * m + static_cast<int>(leaf.index) - 1);
        }
    }
    Program value_program = Program::compile(simplify(value), data, 1 + m, n, 1);
    Program jacobian_program = Program::compile(simplify(jac), data, 1 + m, n + n * m, 1);
    return std::make_shared<CompiledRhs>(std::move(value_program), std::move(jacobian_program), n,
                                         p, std::move(keep_alive));
}

}  // namespace advi
