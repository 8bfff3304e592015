// The BBVI score-function estimator. grad_phi ELBO = E_q[grad_phi log q (log p - log q)]: the
// other term of the derivative, E_q[grad_phi log q] = 0, drops out (Ranganath et al. 2014,
// Eq. 3), so only log p's value enters, never its gradient.
#include <advi/engine/score_gradient.hpp>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/base/error.hpp>

namespace advi {

namespace {

// grad_phi log q(zeta; phi) at zeta = S^-1(eta), in params() layout.
Eigen::VectorXd score(const Approximation& q, const Eigen::VectorXd& eta) {
    if (q.family() == Family::MeanField) {
        // log q = sum_k -(zeta_k - mu_k)^2 / (2 e^(2 omega_k)) - omega_k + const:
        // d/dmu_k = eta_k / e^omega_k, d/domega_k = eta_k^2 - 1.
        Eigen::VectorXd h_mu = (eta.array() * (-q.omega().array()).exp()).matrix();
        Eigen::VectorXd h_omega = (eta.array().square() - 1.0).matrix();
        return Approximation::mean_field(std::move(h_mu), std::move(h_omega)).params();
    }
    // log q = -|L^-1 (zeta - mu)|^2 / 2 - sum log|L_ii| + const:
    // d/dmu = L^-T eta, d/dL = lower(L^-T eta eta^T) - diag(1 / L_ii).
    const auto L = q.L().triangularView<Eigen::Lower>();
    Eigen::VectorXd h_mu = L.transpose().solve(eta);
    Eigen::MatrixXd h_L = h_mu * eta.transpose();
    h_L.diagonal().array() -= q.L().diagonal().array().inverse();
    return Approximation::full_rank(std::move(h_mu), std::move(h_L)).params();
}

}  // namespace

ElboGradient score_function_gradient(Target& target, const Approximation& q, int M, Rng& rng,
                                     bool control_variate) {
    if (M < 1) {
        throw ModelError("score_function_gradient: M (the number of draws) must be >= 1, got " +
                         std::to_string(M));
    }
    if (q.family() == Family::LowRank)
        throw ModelError("score_function_gradient: the low-rank family is not supported");
    const int D = q.dim(), P = q.num_params();
    // log q(zeta) = -|eta|^2 / 2 - D/2 log 2 pi - log|det S^-1|, and entropy() =
    // D/2 (1 + log 2 pi) + log|det S^-1|.
    const double log_q_const = -0.5 * D * std::log(2.0 * std::numbers::pi) -
                               (q.entropy() - 0.5 * D * (1.0 + std::log(2.0 * std::numbers::pi)));

    // Row m: h_m; weights: log p - log q of draw m.
    Eigen::MatrixXd H(M, P);
    Eigen::VectorXd weights(M);
    Eigen::VectorXd eta(D), zeta(D), g(D);
    ElboGradient result;
    const int max_draws = 10 * M;
    while (result.used < M && result.used + result.dropped < max_draws) {
        rng.fill_normal(eta);
        q.transform(eta, zeta);
        const double lp = evaluate(target, zeta, g);
        if (!std::isfinite(lp)) {
            ++result.dropped;
            continue;
        }
        H.row(result.used) = score(q, eta).transpose();
        weights[result.used] = lp - (log_q_const - 0.5 * eta.squaredNorm());
        ++result.used;
    }
    const int n = result.used;
    if (n == 0) {
        result.grad = Eigen::VectorXd::Zero(P);
        return result;
    }
    const auto h = H.topRows(n);
    const Eigen::MatrixXd F = h.array().colwise() * weights.head(n).array();
    const Eigen::RowVectorXd f_mean = F.colwise().mean();
    const Eigen::RowVectorXd h_mean = h.colwise().mean();
    result.grad = f_mean.transpose();
    if (control_variate && n >= 2) {
        // a_d = Cov(f_d, h_d) / Var(h_d), per coordinate (the common 1 / (n - 1) cancels).
        const Eigen::MatrixXd hc = h.rowwise() - h_mean;
        const Eigen::MatrixXd fc = F.rowwise() - f_mean;
        const Eigen::ArrayXd cov = (fc.array() * hc.array()).colwise().sum().transpose();
        const Eigen::ArrayXd var = hc.array().square().colwise().sum().transpose();
        const Eigen::ArrayXd a = (var > 0).select(cov / var, 0.0);
        result.grad.array() -= a * h_mean.transpose().array();
    }
    return result;
}

}  // namespace advi
