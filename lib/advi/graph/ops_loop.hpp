// A loop as one op: the state s_t = f(t, s_{t-1}, p) for t = first..last, from s_{first-1} =
// s0, with loop-invariant inputs p. The body f is a program of its own (compile/loop_body.hpp
// builds it from a graph; the Stan lowering uses it for loops the vectoriser cannot lift, so the
// graph does not grow with the trip count); the op table sees it through the LoopBody interface,
// registered once and named by the node's `index`, as the ODE right-hand sides are.
//
//   loop(z)          z = [s0; p], out vec[S]: the final state
//   loop_vjp(z, G)   G vec[S], out vec[S + P]: (d s_last / d z)' G
//
// The vector-Jacobian product is the body's, run backwards over the iterations (JAX's scan):
// g <- (d f / d s)' g at each t from last to first, (d f / d p)' g summed. The states it needs
// are recomputed from checkpoints: every state where they fit in `stored_states` doubles, else
// one every sqrt(T) iterations and the rest segment by segment (two forward passes). Its own
// derivative (second-order adjoints of the body) is not built: the Hessian-vector product of a
// model with a loop op is refused by name (op_table.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <advi/graph/op.hpp>

namespace advi {

// One evaluator of the body (not thread-safe: a run takes one for itself, LoopBody::instance).
class LoopBodyInstance {
public:
    virtual ~LoopBodyInstance() = default;
    // next = f(t, s, p).
    virtual void value(double t, const double* s, const double* p, double* next) = 0;
    // g_s = (df/ds)' g, and (df/dp)' g added to g_p.
    virtual void vjp(double t, const double* s, const double* p, const double* g, double* g_s,
                     double* g_p) = 0;
};

class LoopBody {
public:
    virtual ~LoopBody() = default;
    [[nodiscard]] virtual int states() const = 0;      // S
    [[nodiscard]] virtual int parameters() const = 0;  // P
    [[nodiscard]] virtual std::shared_ptr<LoopBodyInstance> instance() const = 0;
};

struct LoopSystem {
    std::shared_ptr<const LoopBody> body;
    std::int64_t first = 1;
    std::int64_t last = 0;  // last < first: no iteration, the state is s0
    std::string name;       // for messages and printing ("for (t in 2:T) at m.stan:12")
    // Doubles of states the vector-Jacobian product may keep: every state where they fit, else
    // checkpoints every sqrt(T) iterations.
    std::int64_t stored_states = std::int64_t{1} << 22;
};

// Registers a loop for loop nodes (their `index`); loops live for the whole process.
[[nodiscard]] std::int64_t register_loop_system(LoopSystem s);
[[nodiscard]] const LoopSystem& loop_system(std::int64_t id);

namespace loop_ops {

Shape loop_shape(const Graph& g, const Node& n);
Shape loop_vjp_shape(const Graph& g, const Node& n);
void loop_kernel(const KernelArgs& a);
void loop_vjp_kernel(const KernelArgs& a);
void adj_loop(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

// The final state at z (S values); with `g` (S values) also the vector-Jacobian product into
// `vjp` (S + P values). For tests and the kernels.
void run(const LoopSystem& s, const double* z, double* final_state, const double* g = nullptr,
         double* vjp = nullptr);

}  // namespace loop_ops

}  // namespace advi
