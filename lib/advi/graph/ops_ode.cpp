#include <advi/graph/ops_ode.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>

#include <boost/numeric/odeint.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi {

namespace {

std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
}
// A deque: references to registered systems stay valid as more are added.
std::deque<OdeSystem>& registry() {
    static std::deque<OdeSystem> r;
    return r;
}

}  // namespace

std::int64_t register_ode_system(OdeSystem s) {
    if (s.rhs == nullptr)
        throw InternalError(fmt::format("{}: no right-hand side", s.name));
    if (s.times.empty())
        throw ModelError(fmt::format("{}: no output times (ts is empty)", s.name));
    if (!std::isfinite(s.t0))
        throw ModelError(fmt::format("{}: the initial time is {}", s.name, s.t0));
    for (std::size_t i = 0; i < s.times.size(); ++i) {
        const double t = s.times[i];
        if (!std::isfinite(t))
            throw ModelError(fmt::format("{}: ts[{}] is {}", s.name, i + 1, t));
        if (i == 0 && !(t > s.t0)) {
            throw ModelError(fmt::format(
                "{}: the initial time ({}) must be before the first output time ts[1] = {}", s.name,
                s.t0, t));
        }
        if (i > 0 && t < s.times[i - 1]) {
            throw ModelError(fmt::format("{}: ts must be sorted, but ts[{}] = {} < ts[{}] = {}",
                                         s.name, i + 1, t, i, s.times[i - 1]));
        }
    }
    if (!(s.relative_tolerance > 0) || !std::isfinite(s.relative_tolerance))
        throw ModelError(fmt::format("{}: relative_tolerance must be positive and finite, got {}",
                                     s.name, s.relative_tolerance));
    if (!(s.absolute_tolerance > 0) || !std::isfinite(s.absolute_tolerance))
        throw ModelError(fmt::format("{}: absolute_tolerance must be positive and finite, got {}",
                                     s.name, s.absolute_tolerance));
    if (s.max_num_steps < 1)
        throw ModelError(
            fmt::format("{}: max_num_steps must be positive, got {}", s.name, s.max_num_steps));
    const std::lock_guard lock(registry_mutex());
    registry().push_back(std::move(s));
    return static_cast<std::int64_t>(registry().size()) - 1;
}

const OdeSystem& ode_system(std::int64_t id) {
    const std::lock_guard lock(registry_mutex());
    if (id < 0 || id >= static_cast<std::int64_t>(registry().size()))
        throw InternalError(fmt::format("ode_solve: no system {}", id));
    return registry()[static_cast<std::size_t>(id)];
}

namespace ode_ops {

namespace {

namespace odeint = boost::numeric::odeint;
using State = std::vector<double>;

int params_of(const OdeSystem& s) {
    return s.rhs->parameters();
}

// Runs the integrator from t0 through every output time, calling observe(x, row) at each
// (rows of equal times observed together). False if it failed.
template <class System, class Observe>
bool integrate(const OdeSystem& s, State& x, System system, Observe observe) {
    std::vector<double> times{s.t0};
    std::vector<int> first_row;  // of each distinct output time
    for (std::size_t i = 0; i < s.times.size(); ++i) {
        if (i == 0 || s.times[i] != s.times[i - 1]) {
            times.push_back(s.times[i]);
            first_row.push_back(static_cast<int>(i));
        }
    }
    const int rows = static_cast<int>(s.times.size());
    auto observer = [&, k = 0](const State& state, double) mutable {
        if (k > 0) {
            const int from = first_row[k - 1];
            const int to = k < static_cast<int>(first_row.size()) ? first_row[k] : rows;
            for (int r = from; r < to; ++r) observe(state, r);
        }
        ++k;
    };
    // Stan's first step: a tenth of the way to the first output time; the error control adapts it.
    const double dt = 0.1 * (times[1] - times[0]);
    // Both steppers run the same way: integrate_times over the output times, at most
    // max_num_steps steps between two of them.
    auto run = [&](auto stepper) {
        odeint::integrate_times(stepper, system, x, times.begin(), times.end(), dt, observer,
                                odeint::max_step_checker(static_cast<int>(std::min<std::int64_t>(
                                    s.max_num_steps, std::numeric_limits<int>::max()))));
    };
    try {
        switch (s.method) {
            case OdeMethod::Rk45:
                run(odeint::make_dense_output(s.absolute_tolerance, s.relative_tolerance,
                                              odeint::runge_kutta_dopri5<State>()));
                break;
            case OdeMethod::CashKarp:
                run(odeint::make_controlled(s.absolute_tolerance, s.relative_tolerance,
                                            odeint::runge_kutta_cash_karp54<State>()));
                break;
        }
    } catch (const std::exception&) {
        return false;  // max_num_steps, or a step size that cannot meet the tolerances
    }
    return std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
}

}  // namespace

bool solve(const OdeSystem& s, const double* z, double* states, const double* g, double* vjp) {
    const int n = s.rhs->states();
    const int m = n + params_of(s);
    const int rows = static_cast<int>(s.times.size());
    const double* p = z + n;
    const std::shared_ptr<OdeRhsInstance> f = s.rhs->instance();
    auto write_states = [&](const State& x, int r) {
        for (int j = 0; j < n; ++j) states[r + rows * j] = x[j];
    };
    if (g == nullptr) {
        State x(z, z + n);
        auto system = [&](const State& y, State& dydt, double t) {
            f->value(t, y.data(), p, dydt.data());
        };
        return integrate(s, x, system, write_states);
    }
    // [y; S] with S (n x m, column-major) = dy/dz.
    State x(static_cast<std::size_t>(n) * (1 + m), 0.0);
    std::copy(z, z + n, x.begin());
    for (int j = 0; j < n; ++j) x[n + j + n * j] = 1.0;
    std::fill(vjp, vjp + m, 0.0);
    State jac(static_cast<std::size_t>(n) * m);
    auto system = [&](const State& y, State& dydt, double t) {
        f->jacobian(t, y.data(), p, dydt.data(), jac.data());
        const double* S = y.data() + n;
        double* dS = dydt.data() + n;
        for (int k = 0; k < m; ++k) {
            for (int j = 0; j < n; ++j) {
                double acc = k >= n ? jac[j * m + k] : 0.0;
                for (int l = 0; l < n; ++l) acc += jac[j * m + l] * S[l + n * k];
                dS[j + n * k] = acc;
            }
        }
    };
    auto observe = [&](const State& y, int r) {
        write_states(y, r);
        const double* S = y.data() + n;
        for (int k = 0; k < m; ++k) {
            double acc = 0.0;
            for (int j = 0; j < n; ++j) acc += S[j + n * k] * g[r + rows * j];
            vjp[k] += acc;
        }
    };
    return integrate(s, x, system, observe);
}

namespace {

const Shape& z_shape(const Graph& g, const Node& n, const OdeSystem& s) {
    const Node& z = g[n.in[0]];
    const int size = s.rhs->states() + s.rhs->parameters();
    if (z.dtype != DType::Real || z.shape.cols != 1 || z.shape.size() != size) {
        throw ShapeError(
            fmt::format("{}: input 0 must be the real vector [y0; parameters] of {}, "
                        "got {}",
                        op_name(n.op), size, z.shape.str()));
    }
    return z.shape;
}

}  // namespace

Shape ode_solve_shape(const Graph& g, const Node& n) {
    const OdeSystem& s = ode_system(n.index);
    z_shape(g, n, s);
    return Shape::matrix(static_cast<int>(s.times.size()), s.rhs->states());
}

Shape ode_solve_vjp_shape(const Graph& g, const Node& n) {
    const OdeSystem& s = ode_system(n.index);
    const Shape& z = z_shape(g, n, s);
    const Shape& adj = g[n.in[1]].shape;
    const Shape out = Shape::matrix(static_cast<int>(s.times.size()), s.rhs->states());
    if (adj.size() != out.size()) {
        throw ShapeError(
            fmt::format("ode_solve_vjp: the adjoint is {}, the solution {}", adj.str(), out.str()));
    }
    return z;
}

// A failed solve gives NaN (the density is then not finite at this point, as where Stan's
// solver throws): the engine treats it as any other non-finite evaluation. The kernels allocate
// their integrator's state, unlike other kernels: its size depends on the integrator.
void ode_solve_kernel(const KernelArgs& a) {
    const OdeSystem& s = ode_system(a.node->index);
    if (!solve(s, a.in[0].x, a.out))
        std::fill(a.out, a.out + a.out_size(), std::numeric_limits<double>::quiet_NaN());
}

void ode_solve_vjp_kernel(const KernelArgs& a) {
    const OdeSystem& s = ode_system(a.node->index);
    std::vector<double> states(s.times.size() * static_cast<std::size_t>(s.rhs->states()));
    if (!solve(s, a.in[0].x, states.data(), a.in[1].x, a.out))
        std::fill(a.out, a.out + a.out_size(), std::numeric_limits<double>::quiet_NaN());
}

void adj_ode_solve(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    Node n;
    n.op = Op::OdeSolveVjp;
    n.in = {g[y].in[0], adj, kNoNode};
    n.index = g[y].index;
    c[0] = g.intern(n);
}

}  // namespace ode_ops

}  // namespace advi
