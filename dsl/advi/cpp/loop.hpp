// Loops in models that stay one op however long they run: state_t = f(t, state_{t-1}, args)
// for t = first..last, from `init`. f is written as expressions too, in a model of its own that
// the loop op's programs are compiled from (compile/loop_body.hpp); the gradient runs f's
// vector-Jacobian product backwards over the iterations (graph/ops_loop.hpp). For recurrences
// that a vectorised expression cannot state (a nonlinear h_t = g(h_{t-1}), a forward algorithm)
// and trip counts too long to unroll into the graph.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <advi/cpp/expr.hpp>

namespace advi {

// f's body: given its own model `body`, the iteration t (a scalar, an integral real), the state
// (a vector of init's size) and the arguments (expressions of `body` in the shapes of those
// given to loop), the next state, a vector of init's size. Arguments that depend on latent
// variables are inputs the gradient flows through; the others are constants of `body`.
using LoopBodyFunction = std::function<Expr(Model& body, const Expr& t, const Expr& state,
                                            const std::vector<Expr>& args)>;

// The state after iterations first..last (init itself when last < first). init is a vector.
[[nodiscard]] Expr loop(const LoopBodyFunction& f, const Expr& init, std::int64_t first,
                        std::int64_t last, const std::vector<Expr>& args = {},
                        const std::string& name = "loop");

}  // namespace advi
