// Loops in models that stay one op however long they run (JAX's scan): for t = first..last,
//   [state_t; y_t] = f(t, state_{t-1}, args, x_t),   state_{first-1} = init,
// where x_t is iteration t's slice of per-iteration inputs and y_t what it emits. f is written as
// expressions too, in a model of its own that the loop op's programs are compiled from
// (compile/loop_body.hpp); the gradient runs f's vector-Jacobian product backwards over the
// iterations (graph/ops_loop.hpp). For recurrences that a vectorised expression cannot state (a
// nonlinear h_t = g(h_{t-1}), a forward algorithm) and trip counts too long to unroll into the
// graph. Slices and emissions keep the state small: an array filled by the recurrence is
// emitted, not carried.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <advi/cpp/expr.hpp>

namespace advi {

// One iteration's result: the next state (a vector of init's size) and what it emits (a vector
// of the same size every iteration; none: an empty Expr).
struct LoopStep {
    Expr state;
    Expr emit;
};

// f's body: given its own model `body`, the iteration t (a scalar, an integral real), the state
// (a vector of init's size), the arguments (expressions of `body` in the shapes of those given)
// and the iteration's slices (a vector each). Arguments and slices that depend on latent variables
// are inputs the gradient flows through; the other arguments are constants of `body`.
using ScanBodyFunction =
    std::function<LoopStep(Model& body, const Expr& t, const Expr& state,
                           const std::vector<Expr>& args, const std::vector<Expr>& slices)>;

struct ScanResult {
    Expr state;    // after the last iteration (init when last < first)
    Expr emitted;  // vec[T * E], iteration-major: iteration k's E values at k E; none if E = 0
};

// `slices`: vectors of T * n values each, iteration-major (iteration k's n values at k n).
[[nodiscard]] ScanResult scan(const ScanBodyFunction& f, const Expr& init, std::int64_t first,
                              std::int64_t last, const std::vector<Expr>& args = {},
                              const std::vector<Expr>& slices = {},
                              const std::string& name = "loop");

// The state-only form: state_t = f(t, state_{t-1}, args).
using LoopBodyFunction = std::function<Expr(Model& body, const Expr& t, const Expr& state,
                                            const std::vector<Expr>& args)>;
[[nodiscard]] Expr loop(const LoopBodyFunction& f, const Expr& init, std::int64_t first,
                        std::int64_t last, const std::vector<Expr>& args = {},
                        const std::string& name = "loop");

}  // namespace advi
