// A target seen in coordinates whitened by a known scale (issue 19, item 1): zeta = m + S u,
// with S diagonal (mean-field) or lower triangular (full-rank). ADVI then starts from the
// standard q (mu = 0, omega = 0 or L = I) in u, which is q(zeta) = N(m, S S'), and its step
// sizes, tuned for unit scales, see unit scales: a regression on raw dollars and the same
// regression on standardised predictors take the same path.
#pragma once

#include <Eigen/Core>

#include <advi/engine/approximation.hpp>
#include <advi/engine/target.hpp>

namespace advi {

class WhitenedTarget final : public Target {
public:
    // Mean-field: S = diag(scale), every entry > 0.
    WhitenedTarget(Target& inner, Eigen::VectorXd shift, Eigen::VectorXd scale);
    // Full-rank: S = factor's lower triangle, positive diagonal.
    WhitenedTarget(Target& inner, Eigen::VectorXd shift, Eigen::MatrixXd factor);

    int dim() const override { return inner_.dim(); }
    // log p(m + S u) + log|det S|. The constant is kept on purpose: with it the density of u
    // is the density of zeta carried over, so every ELBO in u (the trace, the eta search's,
    // the final one) is the ELBO of the original target, with nothing to add back.
    double log_density_gradient(const Eigen::VectorXd& u, Eigen::VectorXd& grad) override;
    double log_density(const Eigen::VectorXd& u) override;
    // The batch mapped to zeta in one product and handed to the inner target's batch (a
    // compiled model evaluates it over threads).
    void log_densities(const Eigen::MatrixXd& us, Eigen::VectorXd& out) override;
    void next_minibatch() override { inner_.next_minibatch(); }
    void use_evaluation_batch() override { inner_.use_evaluation_batch(); }
    void offer_anchor(const Approximation& q) override { inner_.offer_anchor(to_original(q)); }

    bool full_rank() const { return full_rank_; }
    const Eigen::VectorXd& shift() const { return m_; }
    double log_det_scale() const { return log_det_; }

    // zeta = m + S u.
    [[nodiscard]] Eigen::VectorXd to_original(const Eigen::VectorXd& u) const;
    // Rows of u draws to rows of zeta draws.
    [[nodiscard]] Eigen::MatrixXd to_original_rows(const Eigen::MatrixXd& u) const;
    // q(u) to q(zeta) in the same family: mean-field mu = m + s .* mu_u, omega = omega_u +
    // log s; full-rank mu = m + L0 mu_u, L = L0 L_u (lower times lower stays lower). A q in u
    // of the other family (full-rank q on a diagonal S) maps too.
    [[nodiscard]] Approximation to_original(const Approximation& q) const;
    // The runaway limits (Options::runaway_limits, empty: kRunawayMagnitude each) of zeta
    // carried to u: u_j may move until some zeta_k it moves would reach its limit,
    // min_k (limit_k - |m_k|) / |S_kj|.
    [[nodiscard]] Eigen::VectorXd limits_in_u(const Eigen::VectorXd& zeta_limits) const;

private:
    Target& inner_;
    Eigen::VectorXd m_;
    Eigen::VectorXd s_;  // mean-field
    Eigen::MatrixXd L_;  // full-rank
    bool full_rank_ = false;
    double log_det_ = 0.0;
    Eigen::VectorXd zeta_, grad_zeta_;
};

}  // namespace advi
