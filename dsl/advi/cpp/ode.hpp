// ODE solutions in models: y' = f(t, y, args...), y(t0) = y0, at output times ts (Stan's
// ode_rk45 and friends). f is written as expressions too, in a model of its own that the
// solver's right-hand-side programs are compiled from (compile/ode_rhs.hpp); its gradient
// comes from forward sensitivities (graph/ops_ode.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <advi/cpp/expr.hpp>
#include <advi/graph/ops_ode.hpp>

namespace advi {

struct OdeOptions {
    OdeMethod method = OdeMethod::Rk45;
    double relative_tolerance = 1e-6;
    double absolute_tolerance = 1e-6;
    std::int64_t max_num_steps = 1000000;
    std::string name = "ode_solve";  // for messages
};

// f's body: given its own model `rhs`, the time t (a scalar), the state y (a vector) and the
// arguments (expressions of `rhs` with the shapes of those given to ode_solve), dy/dt as a
// vector of y's size. Arguments that depend on latent variables are inputs of f that the
// gradient flows through; the others are constants of `rhs`.
using OdeRhsFunction =
    std::function<Expr(Model& rhs, const Expr& t, const Expr& y, const std::vector<Expr>& args)>;

// y at each output time: a matrix with a row per time of ts (ts sorted, t0 before ts[0]).
// y0 is a vector; t0 and ts are numbers.
[[nodiscard]] Expr ode_solve(const OdeRhsFunction& f, const Expr& y0, double t0,
                             const std::vector<double>& ts, const std::vector<Expr>& args = {},
                             const OdeOptions& options = {});

namespace detail {

// f's own model, with t (a scalar), y (a vector of y0's size) and the arguments that depend on
// latent variables as its inputs (the others its constants), compiled; and the outer model's
// vector z = [y0; those arguments] that a solve node reads. Shared by ode_solve and
// algebra_solve (algebra.hpp), whose f ignores t.
struct CompiledRhs {
    std::shared_ptr<const OdeRhs> rhs;
    NodeId z;
};
[[nodiscard]] CompiledRhs compile_rhs(const OdeRhsFunction& f, const Expr& y0,
                                      const std::vector<Expr>& args, const std::string& name);

}  // namespace detail

}  // namespace advi
