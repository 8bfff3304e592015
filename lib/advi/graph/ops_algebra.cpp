#include <advi/graph/ops_algebra.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <vector>

#include <Eigen/Dense>
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
std::deque<AlgebraSystem>& registry() {
    static std::deque<AlgebraSystem> r;
    return r;
}

}  // namespace

std::int64_t register_algebra_system(AlgebraSystem s) {
    if (s.f == nullptr)
        throw InternalError(fmt::format("{}: no system", s.name));
    for (const auto& [what, v] : {
             std::pair{"relative_tolerance", s.relative_tolerance},
             std::pair{"function_tolerance", s.function_tolerance}
    }) {
        if (!(v > 0) || !std::isfinite(v))
            throw ModelError(
                fmt::format("{}: {} must be positive and finite, got {}", s.name, what, v));
    }
    if (s.max_num_steps < 1)
        throw ModelError(
            fmt::format("{}: max_num_steps must be positive, got {}", s.name, s.max_num_steps));
    const std::lock_guard lock(registry_mutex());
    registry().push_back(std::move(s));
    return static_cast<std::int64_t>(registry().size()) - 1;
}

const AlgebraSystem& algebra_system(std::int64_t id) {
    const std::lock_guard lock(registry_mutex());
    if (id < 0 || id >= static_cast<std::int64_t>(registry().size()))
        throw InternalError(fmt::format("algebra_solve: no system {}", id));
    return registry()[static_cast<std::size_t>(id)];
}

namespace algebra_ops {

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// f and J = [df/dx | df/dp] at x (J row-major in the OdeRhs layout, here as a matrix).
struct Evaluation {
    VectorXd f;
    MatrixXd j;  // N x (N + P)
};

bool finite(const VectorXd& v) {
    return v.allFinite();
}

}  // namespace

bool solve(const AlgebraSystem& s, const double* z, double* x_out, const double* g, double* vjp) {
    const int n = s.f->states(), p = s.f->parameters(), m = n + p;
    const double* params = z + n;
    const std::shared_ptr<OdeRhsInstance> f = s.f->instance();
    std::vector<double> row_major(static_cast<std::size_t>(n) * m);
    auto evaluate = [&](const VectorXd& x, Evaluation& e) {
        e.f.resize(n);
        f->jacobian(0.0, x.data(), params, e.f.data(), row_major.data());
        e.j = Eigen::Map<
            const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            row_major.data(), n, m);
        return finite(e.f) && e.j.allFinite();
    };
    auto value = [&](const VectorXd& x, VectorXd& out) {
        out.resize(n);
        f->value(0.0, x.data(), params, out.data());
        return finite(out);
    };
    VectorXd x = Eigen::Map<const VectorXd>(z, n);
    Evaluation e;
    if (!evaluate(x, e))
        return false;
    double lambda = 0;  // Levenberg-Marquardt damping: 0 is Newton's step
    VectorXd trial_f;
    for (std::int64_t step = 0; step < s.max_num_steps; ++step) {
        if (e.f.lpNorm<Eigen::Infinity>() == 0)
            break;
        const MatrixXd jx = e.j.leftCols(n);
        const double phi = e.f.squaredNorm();
        bool moved = false;
        VectorXd dx;
        for (int attempt = 0; attempt < 60 && !moved; ++attempt) {
            if (lambda == 0) {
                Eigen::PartialPivLU<MatrixXd> lu(jx);
                dx = -lu.solve(e.f);
                if (!dx.allFinite() || lu.determinant() == 0) {
                    lambda = 1e-6 * std::max(1.0, (jx.transpose() * jx).diagonal().maxCoeff());
                    continue;
                }
            } else {
                const MatrixXd a = jx.transpose() * jx + lambda * MatrixXd::Identity(n, n);
                dx = -a.ldlt().solve(jx.transpose() * e.f);
            }
            const VectorXd trial = x + dx;
            if (value(trial, trial_f) && trial_f.squaredNorm() < phi) {
                x = trial;
                moved = true;
                lambda = lambda == 0 ? 0 : lambda / 10;
                if (lambda < 1e-12)
                    lambda = 0;
            } else {
                lambda = lambda == 0
                             ? 1e-6 * std::max(1.0, (jx.transpose() * jx).diagonal().maxCoeff())
                             : lambda * 10;
            }
        }
        if (!moved || !evaluate(x, e))
            break;  // no step lowers |f|: at a root to rounding, or stuck (judged below)
        if (dx.lpNorm<Eigen::Infinity>() <=
            s.relative_tolerance * std::max(1.0, x.lpNorm<Eigen::Infinity>()))
            break;
    }
    if (!(e.f.lpNorm<Eigen::Infinity>() <= s.function_tolerance))
        return false;
    std::copy(x.data(), x.data() + n, x_out);
    if (g == nullptr)
        return true;
    // x*(p): f(x*(p), p) = 0, so dx*/dp = -J_x^-1 J_p and g' dx*/dp = -(J_x^-T g)' J_p
    Eigen::PartialPivLU<MatrixXd> lu(e.j.leftCols(n).transpose());
    const VectorXd w = lu.solve(Eigen::Map<const VectorXd>(g, n));
    if (!w.allFinite())
        return false;
    std::fill(vjp, vjp + n, 0.0);
    const VectorXd dp = -e.j.rightCols(p).transpose() * w;
    std::copy(dp.data(), dp.data() + p, vjp + n);
    return true;
}

namespace {

const Shape& z_shape(const Graph& g, const Node& n, const AlgebraSystem& s) {
    const Node& z = g[n.in[0]];
    const int size = s.f->states() + s.f->parameters();
    if (z.dtype != DType::Real || z.shape.cols != 1 || z.shape.size() != size) {
        throw ShapeError(
            fmt::format("{}: input 0 must be the real vector [guess; parameters] of {}, got {}",
                        op_name(n.op), size, z.shape.str()));
    }
    return z.shape;
}

}  // namespace

Shape algebra_solve_shape(const Graph& g, const Node& n) {
    const AlgebraSystem& s = algebra_system(n.index);
    z_shape(g, n, s);
    return Shape::vector(s.f->states());
}

Shape algebra_solve_vjp_shape(const Graph& g, const Node& n) {
    const AlgebraSystem& s = algebra_system(n.index);
    const Shape& z = z_shape(g, n, s);
    if (g[n.in[1]].shape.size() != s.f->states()) {
        throw ShapeError(fmt::format("algebra_solve_vjp: the adjoint is {}, the root vec[{}]",
                                     g[n.in[1]].shape.str(), s.f->states()));
    }
    return z;
}

// A failed solve gives NaN (the density is then not finite at this point, as where Stan's solver
// throws). The kernels allocate their solver's matrices, unlike other kernels.
void algebra_solve_kernel(const KernelArgs& a) {
    const AlgebraSystem& s = algebra_system(a.node->index);
    if (!solve(s, a.in[0].x, a.out))
        std::fill(a.out, a.out + a.out_size(), std::numeric_limits<double>::quiet_NaN());
}

void algebra_solve_vjp_kernel(const KernelArgs& a) {
    const AlgebraSystem& s = algebra_system(a.node->index);
    std::vector<double> x(static_cast<std::size_t>(s.f->states()));
    if (!solve(s, a.in[0].x, x.data(), a.in[1].x, a.out))
        std::fill(a.out, a.out + a.out_size(), std::numeric_limits<double>::quiet_NaN());
}

void adj_algebra_solve(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    Node n;
    n.op = Op::AlgebraSolveVjp;
    n.in = {g[y].in[0], adj, kNoNode};
    n.index = g[y].index;
    c[0] = g.intern(n);
}

}  // namespace algebra_ops

}  // namespace advi
