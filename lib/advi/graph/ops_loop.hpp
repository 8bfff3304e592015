// A loop as one op, in the form of JAX's scan: for t = first..last, with the carried state s,
// loop-invariant inputs p, a slice x_t of the per-iteration inputs and an emitted y_t,
//   [s_t; y_t] = f(t, s_{t-1}, p, x_t),   s_{first-1} = s0.
// The body f is a program of its own (compile/loop_body.hpp builds it from a graph; the Stan
// lowering uses it for loops the vectoriser cannot lift, so the graph does not grow with the trip
// count); the op table sees it through the LoopBody interface, registered once and named by the
// node's `index`, as the ODE right-hand sides are.
//
//   loop(z)          z = [s0; p; x_first; ...; x_last], out [s_last; y_first; ...; y_last]
//   loop_vjp(z, G)   G of out's size, out of z's size: (d out / d z)' G
//
// The vector-Jacobian product is the body's, run backwards over the iterations: the adjoint of
// [s_t; y_t] is [g; G's y_t], the body's gives the adjoints of s_{t-1} (the next g), of x_t, and
// of p (summed). The states it needs are recomputed from checkpoints: every state where they fit
// in `stored_states` doubles, else one every sqrt(T) iterations and the rest segment by segment
// (two forward passes). Its own derivative (second-order adjoints of the body) is not built: the
// Hessian-vector product of a model with a loop op is refused by name (op_table.cpp). Slices and
// emissions keep the state small: a recurrence that fills an array carries the rows it reads
// back, not the array, so an iteration costs what its body does, not the array's length.
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
    // next = [s_t; y_t] = f(t, s, p, x) (S + E values).
    virtual void value(double t, const double* s, const double* p, const double* x,
                       double* next) = 0;
    // For g the adjoint of next (S + E values): g_s = (df/ds)' g, g_x = (df/dx)' g, and
    // (df/dp)' g added to g_p.
    virtual void vjp(double t, const double* s, const double* p, const double* x, const double* g,
                     double* g_s, double* g_p, double* g_x) = 0;
};

class LoopBody {
public:
    virtual ~LoopBody() = default;
    [[nodiscard]] virtual int states() const = 0;              // S
    [[nodiscard]] virtual int parameters() const = 0;          // P
    [[nodiscard]] virtual int slice() const { return 0; }      // X: per-iteration inputs
    [[nodiscard]] virtual int emissions() const { return 0; }  // E: per-iteration outputs
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

// The iterations of the loop.
[[nodiscard]] std::int64_t trip(const LoopSystem& s);
// out = [s_last; y_first..y_last] at z; with `g` (out's size) also the vector-Jacobian product
// into `vjp` (z's size). For tests and the kernels.
void run(const LoopSystem& s, const double* z, double* out, const double* g = nullptr,
         double* vjp = nullptr);

}  // namespace loop_ops

}  // namespace advi
