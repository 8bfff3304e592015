#include <advi/graph/ops_integrate.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <vector>

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/sinh_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi {

namespace {

std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
}
std::deque<IntegralSystem>& registry() {
    static std::deque<IntegralSystem> r;
    return r;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::int64_t register_integral(IntegralSystem s) {
    if (s.f == nullptr || s.f->states() != 1)
        throw InternalError(fmt::format("{}: no integrand of one variable", s.name));
    if (!(s.relative_tolerance > 0) || !std::isfinite(s.relative_tolerance))
        throw ModelError(fmt::format("{}: relative_tolerance must be positive and finite, got {}",
                                     s.name, s.relative_tolerance));
    if (!(s.absolute_tolerance >= 0) || !std::isfinite(s.absolute_tolerance))
        throw ModelError(
            fmt::format("{}: absolute_tolerance must be non-negative and finite, got {}", s.name,
                        s.absolute_tolerance));
    if (s.max_depth < 0)
        throw ModelError(
            fmt::format("{}: max_depth must be non-negative, got {}", s.name, s.max_depth));
    const std::lock_guard lock(registry_mutex());
    registry().push_back(std::move(s));
    return static_cast<std::int64_t>(registry().size()) - 1;
}

const IntegralSystem& integral_system(std::int64_t id) {
    const std::lock_guard lock(registry_mutex());
    if (id < 0 || id >= static_cast<std::int64_t>(registry().size()))
        throw InternalError(fmt::format("integrate_1d: no integrand {}", id));
    return registry()[static_cast<std::size_t>(id)];
}

namespace integrate_ops {

namespace {

namespace quad = boost::math::quadrature;

// One integral of g(x, xc) over [a, b] by the system's rule, as Stan runs it; false if its error
// estimate is above the tolerance.
template <class G>
bool one_integral(const IntegralSystem& s, const G& g, double a, double b, double& out) {
    const double rel = s.relative_tolerance, abs = s.absolute_tolerance;
    // Boost's double-exponential rules end their refinement on their own criteria, and their
    // error estimate (the last two levels' difference) can land a little above rel |I|_1 where
    // the integral is accurate to far better (0.6e-10 against 0.26e-10 asked for a smooth
    // integrand): a factor kSlack allows for that; an integral that is not converging misses
    // by orders of magnitude.
    constexpr double kSlack = 10;
    const auto within = [&](double error, double l1) {
        return error <= kSlack * std::max(rel * l1, abs);
    };
    const auto no_xc = [&](double x) { return g(x, kNaN); };
    double error = 0, l1 = 0, error2 = 0, l2 = 0;
    std::size_t levels = 0;
    try {
        if (s.method == QuadratureMethod::GaussKronrod) {
            out = quad::gauss_kronrod<double, 21>::integrate(
                no_xc, a, b, static_cast<unsigned>(s.max_depth), rel, &error, &l1);
            return std::isfinite(out) && within(error, l1);
        }
        const auto refinements = static_cast<std::size_t>(s.max_depth);
        if (std::isinf(a) && std::isinf(b)) {
            quad::sinh_sinh<double> rule(refinements);
            out = rule.integrate(no_xc, rel, &error, &l1, &levels);
            return std::isfinite(out) && within(error, l1);
        }
        if (std::isinf(a) || std::isinf(b)) {
            // split where the integral crosses zero (Boost's advice, as Stan)
            quad::exp_sinh<double> tail(refinements);
            quad::tanh_sinh<double> finite(refinements);
            if (std::isinf(a) ? b <= 0.0 : a >= 0.0) {
                out = tail.integrate(no_xc, a, b, rel, &error, &l1, &levels);
                return std::isfinite(out) && within(error, l1);
            }
            const double q1 = std::isinf(a)
                                  ? tail.integrate(no_xc, a, 0.0, rel, &error, &l1, &levels)
                                  : finite.integrate(no_xc, a, 0.0, rel, &error, &l1, &levels);
            const double q2 = std::isinf(a)
                                  ? finite.integrate(no_xc, 0.0, b, rel, &error2, &l2, &levels)
                                  : tail.integrate(no_xc, 0.0, b, rel, &error2, &l2, &levels);
            out = q1 + q2;
            return std::isfinite(out) && within(error, l1) && within(error2, l2);
        }
        quad::tanh_sinh<double> rule(refinements);
        const auto with_xc = [&](double x, double xc) { return g(x, xc); };
        if (a < 0.0 && b > 0.0) {
            out = rule.integrate(with_xc, a, 0.0, rel, &error, &l1, &levels) +
                  rule.integrate(with_xc, 0.0, b, rel, &error2, &l2, &levels);
            return std::isfinite(out) && within(error, l1) && within(error2, l2);
        }
        out = rule.integrate(with_xc, a, b, rel, &error, &l1, &levels);
        return std::isfinite(out) && within(error, l1);
    } catch (const std::exception&) {
        return false;  // Boost's evaluation errors (an integrand that is not finite)
    }
}

}  // namespace

bool integrate(const IntegralSystem& s, const double* z, double a, double b, double* value,
               double* grad) {
    const int p = s.f->parameters();
    const double* params = z + 1;
    if (std::isnan(a) || std::isnan(b) || a > b || (a == b && std::isinf(a)))
        return false;  // (Stan: the lower limit above the upper, both limits infinite)
    const std::shared_ptr<OdeRhsInstance> f = s.f->instance();
    const auto at = [&](double x, double xc) {
        double out = 0;
        f->value(x, &xc, params, &out);
        return out;
    };
    if (a == b) {
        *value = 0;
    } else if (!one_integral(s, at, a, b, *value)) {
        return false;
    }
    if (grad == nullptr)
        return true;
    std::fill(grad, grad + 1 + p + 2, 0.0);
    std::vector<double> jacobian(static_cast<std::size_t>(1 + p));
    for (int k = 0; k < p && a != b; ++k) {
        // d/dp_k of the integral: the integral of df/dp_k (the Jacobian's column 1 + k)
        const auto partial = [&](double x, double xc) {
            double v = 0;
            f->jacobian(x, &xc, params, &v, jacobian.data());
            return jacobian[static_cast<std::size_t>(1 + k)];
        };
        if (!one_integral(s, partial, a, b, grad[1 + k]))
            return false;
    }
    // the limits: -f(a) and f(b), their distance to the nearest limit 0 (NaN for Gauss-Kronrod)
    const double xc = s.method == QuadratureMethod::GaussKronrod ? kNaN : 0.0;
    if (std::isfinite(a))
        grad[1 + p] = -at(a, xc);
    if (std::isfinite(b))
        grad[2 + p] = at(b, xc);
    return std::isfinite(grad[1 + p]) && std::isfinite(grad[2 + p]);
}

namespace {

void check_inputs(const Graph& g, const Node& n, const IntegralSystem& s) {
    const Node& z = g[n.in[0]];
    const int size = 1 + s.f->parameters();
    if (z.dtype != DType::Real || z.shape.cols != 1 || z.shape.size() != size) {
        throw ShapeError(
            fmt::format("{}: input 0 must be the real vector [0; parameters] of {}, "
                        "got {}",
                        op_name(n.op), size, z.shape.str()));
    }
    for (int k = 1; k < 3; ++k) {
        if (!g[n.in[static_cast<std::size_t>(k)]].shape.is_scalar())
            throw ShapeError(fmt::format("{}: the limits must be scalars", op_name(n.op)));
    }
}

}  // namespace

Shape integrate_shape(const Graph& g, const Node& n) {
    check_inputs(g, n, integral_system(n.index));
    return Shape::scalar();
}

Shape integrate_grad_shape(const Graph& g, const Node& n) {
    const IntegralSystem& s = integral_system(n.index);
    check_inputs(g, n, s);
    return Shape::vector(1 + s.f->parameters() + 2);
}

void integrate_kernel(const KernelArgs& a) {
    const IntegralSystem& s = integral_system(a.node->index);
    if (!integrate(s, a.in[0].x, a.in[1].x[0], a.in[2].x[0], a.out))
        a.out[0] = kNaN;
}

void integrate_grad_kernel(const KernelArgs& a) {
    const IntegralSystem& s = integral_system(a.node->index);
    double value = 0;
    if (!integrate(s, a.in[0].x, a.in[1].x[0], a.in[2].x[0], &value, a.out))
        std::fill(a.out, a.out + a.out_size(), kNaN);
}

void adj_integrate(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    Node n;
    n.op = Op::Integrate1dGrad;
    n.in = g[y].in;
    n.index = g[y].index;
    const NodeId grad = g.intern(n);
    const int p = integral_system(g[y].index).f->parameters();
    // adj times [the parameters' part (with z's leading 0); -f(a); f(b)]
    c[0] = g.apply(Op::Mul, adj, linalg::block(g, grad, 0, 0, Shape::vector(1 + p)));
    for (int k = 1; k < 3; ++k) {
        const NodeId limit = linalg::block(g, grad, p + k, 0, Shape::vector(1));
        c[static_cast<std::size_t>(k)] = g.apply(Op::Mul, adj, g.apply(Op::Sum, limit));
    }
}

}  // namespace integrate_ops

}  // namespace advi
