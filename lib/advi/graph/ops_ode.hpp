// The solution of an ODE initial-value problem as one op: y' = f(t, y, p), y(t0) = y0, observed
// at times t1 < ... < tT. The right-hand side f is a program of its own (compile/ode_rhs.hpp
// builds it from a graph); the op table sees it through the OdeRhs interface, registered once
// and named by the node's `index`, so that the graph room does not depend on the compiler.
//
//   ode_solve(z)          z = [y0; p], out mat[T, N]: row i is y(t_i)
//   ode_solve_vjp(z, G)   G mat[T, N], out vec[N + P]: sum_i S_i' G_i, S_i = dy(t_i)/dz
//
// The vector-Jacobian product integrates the forward sensitivity equations
// S' = J_y S + [0 | J_p], S(t0) = [I | 0], beside y, with the same error control (Stan's coupled
// system for rk45). Its own derivative (second-order sensitivities) is not built: the
// Hessian-vector product of a model with an ODE solve is refused by name (op_table.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <advi/graph/op.hpp>

namespace advi {

// One evaluator of f (not thread-safe: a solve takes one for itself, OdeRhs::instance).
class OdeRhsInstance {
public:
    virtual ~OdeRhsInstance() = default;
    // dydt = f(t, y, p).
    virtual void value(double t, const double* y, const double* p, double* dydt) = 0;
    // dydt, and J = [df/dy | df/dp] row-major (N rows of N + P).
    virtual void jacobian(double t, const double* y, const double* p, double* dydt, double* j) = 0;
};

class OdeRhs {
public:
    virtual ~OdeRhs() = default;
    [[nodiscard]] virtual int states() const = 0;      // N
    [[nodiscard]] virtual int parameters() const = 0;  // P
    // An evaluator for one solve, not shared with another solve while held.
    [[nodiscard]] virtual std::shared_ptr<OdeRhsInstance> instance() const = 0;
};

// Stan's integrators, by the methods advi runs for them: rk45 (Dormand-Prince 5(4), as Stan),
// ckrk (Cash-Karp 5(4), as Stan). Stan's adams and bdf (CVODES) are run with Dormand-Prince too:
// the same solution to the same tolerances, slower on stiff systems, where max_num_steps stops it
// with an error that says so.
enum class OdeMethod : std::uint8_t { Rk45, CashKarp };

struct OdeSystem {
    std::shared_ptr<const OdeRhs> rhs;
    double t0 = 0.0;
    std::vector<double> times;  // t1 < ... < tT, all > t0
    double relative_tolerance = 1e-6;
    double absolute_tolerance = 1e-6;
    std::int64_t max_num_steps = 1000000;
    OdeMethod method = OdeMethod::Rk45;
    std::string name;  // the function as the program called it, for messages ("ode_rk45")
};

// Registers a system for ode_solve nodes (their `index`); systems live for the whole process.
// Checks the times and tolerances (ModelError naming `name`).
[[nodiscard]] std::int64_t register_ode_system(OdeSystem s);
[[nodiscard]] const OdeSystem& ode_system(std::int64_t id);

namespace ode_ops {

Shape ode_solve_shape(const Graph& g, const Node& n);
Shape ode_solve_vjp_shape(const Graph& g, const Node& n);
void ode_solve_kernel(const KernelArgs& a);
void ode_solve_vjp_kernel(const KernelArgs& a);
void adj_ode_solve(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c);

// Solves the system at z (for tests and the kernels): states mat[T, N] column-major; with
// `g` (T x N, column-major) also sum_i S_i' G_i into `vjp` (N + P). False when the integrator
// failed (max_num_steps, a step size that underflows, a non-finite f).
bool solve(const OdeSystem& s, const double* z, double* states, const double* g = nullptr,
           double* vjp = nullptr);

}  // namespace ode_ops

}  // namespace advi
