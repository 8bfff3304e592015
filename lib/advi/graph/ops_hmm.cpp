#include <advi/graph/ops_hmm.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi::hmm_ops {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Stan's tolerance on a simplex's sum (CONSTRAINT_TOLERANCE).
constexpr double kSimplexTolerance = 1e-8;

using MatrixMap = Eigen::Map<const Eigen::MatrixXd>;
using VectorMap = Eigen::Map<const Eigen::VectorXd>;

// K, checking the three inputs agree: log_omega K x N (N >= 1), Gamma K x K, rho of K values
// (the first K values of input 2 for hmm_latent, whose input 2 is [rho; u]).
int states(const Graph& g, const Node& n, bool rho_then_uniforms) {
    const Shape& omega = g[n.in[0]].shape;
    const Shape& gamma = g[n.in[1]].shape;
    const Shape& rho = g[n.in[2]].shape;
    const std::string_view f = op_name(n.op);
    if (omega.is_scalar())
        throw ShapeError(
            fmt::format("{}: argument `log_omega` must be a matrix (states by "
                        "observations), got {}",
                        f, omega.str()));
    const int K = omega.rows;
    const int N = omega.is_matrix() ? omega.cols : 1;
    if (K < 1 || N < 1)
        throw ShapeError(
            fmt::format("{}: argument `log_omega` must have at least one state and "
                        "one observation, got {}",
                        f, omega.str()));
    if (!gamma.is_matrix() || gamma.rows != K || gamma.cols != K) {
        if (!(K == 1 && gamma.size() == 1))
            throw ShapeError(
                fmt::format("{}: argument `Gamma` must be {} x {} (log_omega has "
                            "{} rows, one per state), got {}",
                            f, K, K, K, gamma.str()));
    }
    const int want = rho_then_uniforms ? K + N : K;
    if (rho.is_matrix() || rho.size() != want)
        throw ShapeError(
            fmt::format("{}: argument `rho` must be a vector of {} (one per state), "
                        "got {}",
                        f, K, rho_then_uniforms ? Shape::vector(rho.size() - N).str() : rho.str()));
    return K;
}

// Stan's checks of the arguments: finite log densities (or -inf), Gamma's rows and rho simplexes.
bool valid(const MatrixMap& log_omega, const MatrixMap& Gamma, const VectorMap& rho) {
    for (Eigen::Index j = 0; j < log_omega.size(); ++j) {
        const double v = log_omega.data()[j];
        if (std::isnan(v) || v == std::numeric_limits<double>::infinity())
            return false;
    }
    auto simplex = [](const auto& v) {
        return v.allFinite() && (v.array() >= 0).all() &&
               std::abs(v.sum() - 1) <= kSimplexTolerance;
    };
    for (Eigen::Index i = 0; i < Gamma.rows(); ++i) {
        if (!simplex(Gamma.row(i)))
            return false;
    }
    return simplex(rho);
}

// The forward pass with each step rescaled: omega(:, n) = exp(log_omega(:, n) - c_n),
// alpha(:, n) = (Gamma' alpha(:, n - 1)) o omega(:, n) / s_n, s_n its sum before the division;
// log p(y) = sum_n log s_n + c_n (-inf where some s_n is 0: y impossible).
struct Forward {
    Eigen::MatrixXd omega, alpha;
    Eigen::VectorXd s;
    double log_p = 0;
};

Forward forward(const MatrixMap& log_omega, const MatrixMap& Gamma, const VectorMap& rho) {
    const Eigen::Index K = log_omega.rows(), N = log_omega.cols();
    Forward f;
    f.omega.resize(K, N);
    f.alpha.resize(K, N);
    f.s.resize(N);
    for (Eigen::Index n = 0; n < N; ++n) {
        const double c = log_omega.col(n).maxCoeff();
        if (c == -std::numeric_limits<double>::infinity()) {
            f.log_p = c;
            return f;
        }
        f.omega.col(n) = (log_omega.col(n).array() - c).exp().matrix();
        if (n == 0)
            f.alpha.col(0) = rho.cwiseProduct(f.omega.col(0));
        else
            f.alpha.col(n) = (Gamma.transpose() * f.alpha.col(n - 1)).cwiseProduct(f.omega.col(n));
        f.s[n] = f.alpha.col(n).sum();
        if (!(f.s[n] > 0)) {
            f.log_p = -std::numeric_limits<double>::infinity();
            return f;
        }
        f.alpha.col(n) /= f.s[n];
        f.log_p += std::log(f.s[n]) + c;
    }
    return f;
}

struct Inputs {
    MatrixMap log_omega, Gamma;
    VectorMap rho;
};

Inputs inputs(const KernelArgs& a) {
    const int K = a.in[0].rows, N = a.in[0].cols;
    return {MatrixMap(a.in[0].x, K, N), MatrixMap(a.in[1].x, K, K), VectorMap(a.in[2].x, K)};
}

}  // namespace

Shape hmm_marginal_shape(const Graph& g, const Node& n) {
    states(g, n, false);
    return Shape::scalar();
}

Shape hmm_grad_shape(const Graph& g, const Node& n) {
    states(g, n, false);
    if (n.index < 0 || n.index > 2)
        throw InternalError(fmt::format("hmm_grad: index {} (expected 0, 1 or 2)", n.index));
    return g[n.in[n.index]].shape;
}

Shape hmm_latent_shape(const Graph& g, const Node& n) {
    states(g, n, true);
    const Shape& omega = g[n.in[0]].shape;
    return Shape::vector(omega.is_matrix() ? omega.cols : 1);
}

void hmm_marginal_kernel(const KernelArgs& a) {
    const Inputs in = inputs(a);
    if (!valid(in.log_omega, in.Gamma, in.rho)) {
        a.out[0] = kNaN;
        return;
    }
    a.out[0] = forward(in.log_omega, in.Gamma, in.rho).log_p;
}

// One backward pass: beta(:, N) = 1, beta(:, n - 1) = Gamma (omega(:, n) o beta(:, n)) / s_n, so
// that alpha(:, n) o beta(:, n) is P(z_n | y) (it sums to 1).
void hmm_grad_kernel(const KernelArgs& a) {
    const Inputs in = inputs(a);
    const Eigen::Index K = in.log_omega.rows(), N = in.log_omega.cols();
    Eigen::Map<Eigen::MatrixXd> out(a.out, a.out_rows, a.out_cols);
    if (!valid(in.log_omega, in.Gamma, in.rho)) {
        out.setConstant(kNaN);
        return;
    }
    const Forward f = forward(in.log_omega, in.Gamma, in.rho);
    if (!std::isfinite(f.log_p)) {
        out.setConstant(kNaN);
        return;
    }
    Eigen::VectorXd beta = Eigen::VectorXd::Ones(K);
    Eigen::MatrixXd gamma_bar = Eigen::MatrixXd::Zero(K, K);
    Eigen::Map<Eigen::VectorXd> flat(a.out, a.out_size());
    for (Eigen::Index n = N - 1; n >= 0; --n) {
        if (a.node->index == 0)
            flat.segment(n * K, K) = f.alpha.col(n).cwiseProduct(beta);
        const Eigen::VectorXd weighted = f.omega.col(n).cwiseProduct(beta) / f.s[n];
        if (n == 0) {
            if (a.node->index == 2)
                flat = weighted;
            break;
        }
        if (a.node->index == 1)
            gamma_bar.noalias() += f.alpha.col(n - 1) * weighted.transpose();
        beta = in.Gamma * weighted;
    }
    if (a.node->index == 1)
        flat = Eigen::Map<const Eigen::VectorXd>(gamma_bar.data(), K * K);
}

// Forward filtering, backward sampling: z_N from alpha(:, N), then z_n from
// alpha(:, n) o Gamma(:, z_{n+1}), each by the smallest k whose cumulative weight reaches u times
// the total (u the step's uniform).
void hmm_latent_kernel(const KernelArgs& a) {
    const Inputs in = inputs(a);
    const Eigen::Index K = in.log_omega.rows(), N = in.log_omega.cols();
    const VectorMap u(a.in[2].x + K, N);
    if (!valid(in.log_omega, in.Gamma, in.rho)) {
        std::fill(a.out, a.out + N, kNaN);
        return;
    }
    const Forward f = forward(in.log_omega, in.Gamma, in.rho);
    if (!std::isfinite(f.log_p)) {
        std::fill(a.out, a.out + N, kNaN);
        return;
    }
    auto draw = [&](const Eigen::VectorXd& w, double uniform) {
        const double target = uniform * w.sum();
        double total = 0;
        Eigen::Index last_positive = 0;
        for (Eigen::Index k = 0; k < K; ++k) {
            if (w[k] <= 0)
                continue;
            last_positive = k;
            total += w[k];
            if (total >= target)
                return k;
        }
        return last_positive;
    };
    Eigen::Index next = draw(f.alpha.col(N - 1), u[N - 1]);
    a.out[N - 1] = static_cast<double>(next + 1);
    for (Eigen::Index n = N - 2; n >= 0; --n) {
        next = draw(f.alpha.col(n).cwiseProduct(in.Gamma.col(next)), u[n]);
        a.out[n] = static_cast<double>(next + 1);
    }
}

NodeId hmm_grad(Graph& g, NodeId log_omega, NodeId Gamma, NodeId rho, int index) {
    Node n;
    n.op = Op::HmmGrad;
    n.in = {log_omega, Gamma, rho};
    n.index = index;
    return g.intern(n);
}

void adj_hmm_marginal(Graph& g, NodeId y, NodeId adj, std::array<NodeId, 3>& c) {
    const Node n = g[y];
    for (int k = 0; k < 3; ++k)
        c[k] = g.apply(Op::Mul, adj, hmm_grad(g, n.in[0], n.in[1], n.in[2], k));
}

}  // namespace advi::hmm_ops
