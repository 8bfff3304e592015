// ELBO and ELBO-gradient estimators. Derivation (paper appendix A): with zeta = S^-1(eta),
//   d/dmu    E[log p(zeta)] = E[grad]
//   d/domega E[log p(zeta)] = E[grad .* eta .* exp(omega)]   (dzeta_k/domega_k = eta_k e^omega_k)
//   d/dL_ij  E[log p(zeta)] = E[grad_i eta_j], i >= j         (dzeta_i/dL_ij = eta_j)
// and the entropy adds 1 per omega_k (d/domega sum omega) or 1/L_ii on L's diagonal
// (d/dL log|det L| = L^-T, whose lower triangle is diag(1/L_ii)).
//
// Sticking the landing (Roeder, Wu and Duvenaud 2017): the ELBO is E[log p(zeta) - log q(zeta;
// phi)], and the gradient of -log q has two parts: through zeta = S^-1(eta) and through phi
// with zeta held. The second has expectation 0 (the score), so STL drops it and keeps
//   h = grad log p(zeta) - grad_zeta log q(zeta) = grad + (zeta - mu) / sigma^2 = grad + eta /
//   sigma (mean-field), grad + Sigma^-1 (zeta - mu) = grad + L^-T eta (full-rank),
// pushed through zeta like grad above: g_mu = E[h], g_omega = E[h .* eta] .* sigma, g_L =
// lower(E[h eta^T]). The expectations equal the standard ones (E[eta eta^T] = I gives back the
// entropy terms), and where q equals the target h = 0 at every draw: no variance at the optimum.
//
// Low-rank (zeta = mu + d .* e + B f, d = exp(omega), eta = [e; f], Sigma = D^2 + B B'): with
// W = D^-2 B and C = I + B' W, the entropy's gradients are Sigma^-1 B = W C^-1 for B and
// 1 - d_k^2 (W C^-1 W')_kk for omega_k, and g_omega = E[grad .* e] .* d, g_B = E[grad f'];
// sticking the landing uses h = grad + Sigma^-1 (zeta - mu) (Woodbury, O(D R) per draw).
#include <advi/engine/elbo.hpp>

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <limits>

namespace advi {

namespace {

// Sums the per-draw terms; the family's factors (exp(omega), the entropy) are applied once
// at the end.
class GradientAccumulator {
public:
    GradientAccumulator(const Approximation& q, GradientEstimator estimator)
        : q_(q),
          stl_(estimator == GradientEstimator::StickingTheLanding),
          zeta_(q.dim()),
          g_(q.dim()),
          mu_sum_(Eigen::VectorXd::Zero(q.dim())) {
        if (q.family() == Family::MeanField) {
            if (stl_)
                inv_sigma_ = (-q.omega().array()).exp();
            omega_sum_ = Eigen::VectorXd::Zero(q.dim());
        } else if (q.family() == Family::LowRank) {
            omega_sum_ = Eigen::VectorXd::Zero(q.dim());
            B_sum_ = Eigen::MatrixXd::Zero(q.dim(), q.rank());
            if (stl_) {
                // Sigma^-1 r = D^-2 r - W C^-1 B' D^-2 r: C factorised once, not per draw.
                inv_var_ = (-2.0 * q.omega().array()).exp();
                W_ = inv_var_.matrix().asDiagonal() * q.B();
                Eigen::MatrixXd C = q.B().transpose() * W_;
                C.diagonal().array() += 1.0;
                C_llt_.compute(C);
            }
        } else {
            L_sum_ = Eigen::MatrixXd::Zero(q.dim(), q.dim());
        }
    }

    // Returns whether the draw was finite (and so counted).
    bool add(Target& target, const Eigen::VectorXd& eta) {
        q_.transform(eta, zeta_);
        g_.setZero();
        const double lp = evaluate(target, zeta_, g_);
        if (!std::isfinite(lp) || !g_.allFinite()) {
            ++result_.dropped;
            return false;
        }
        ++result_.used;
        if (stl_) {
            if (q_.family() == Family::MeanField) {
                g_.array() += eta.array() * inv_sigma_.array();
            } else if (q_.family() == Family::LowRank) {
                dr_ = inv_var_ * (zeta_ - q_.mu()).array();
                g_ += dr_.matrix() - W_ * C_llt_.solve(q_.B().transpose() * dr_.matrix());
            } else {
                g_ += q_.L().transpose().triangularView<Eigen::Upper>().solve(eta);
            }
        }
        mu_sum_ += g_;
        if (q_.family() == Family::MeanField) {
            omega_sum_.array() += g_.array() * eta.array();
        } else if (q_.family() == Family::LowRank) {
            omega_sum_.array() += g_.array() * eta.head(q_.dim()).array();
            B_sum_.noalias() += g_ * eta.tail(q_.rank()).transpose();
        } else {
            L_sum_.triangularView<Eigen::Lower>() += g_ * eta.transpose();
        }
        return true;
    }

    int used() const { return result_.used; }
    int dropped() const { return result_.dropped; }

    ElboGradient finish() {
        if (result_.used == 0) {
            result_.grad = Eigen::VectorXd::Zero(q_.num_params());
            return result_;
        }
        const double n = result_.used;
        // The flat layout of Approximation::params().
        if (q_.family() == Family::MeanField) {
            const int d = q_.dim();
            result_.grad.resize(2 * d);
            result_.grad.head(d) = mu_sum_ / n;
            result_.grad.tail(d) =
                (omega_sum_.array() / n * q_.omega().array().exp() + (stl_ ? 0.0 : 1.0)).matrix();
        } else if (q_.family() == Family::LowRank) {
            const int d = q_.dim();
            result_.grad.resize(q_.num_params());
            result_.grad.head(d) = mu_sum_ / n;
            result_.grad.segment(d, d) =
                (omega_sum_.array() / n * q_.omega().array().exp()).matrix();
            Eigen::MatrixXd gB = B_sum_ / n;
            if (!stl_) {
                // The entropy's: W C^-1 for B, 1 - d^2 .* diag(W C^-1 W') for omega.
                const Eigen::ArrayXd inv_var = (-2.0 * q_.omega().array()).exp();
                const Eigen::MatrixXd W = inv_var.matrix().asDiagonal() * q_.B();
                Eigen::MatrixXd C = q_.B().transpose() * W;
                C.diagonal().array() += 1.0;
                const Eigen::MatrixXd WCinv =
                    Eigen::LLT<Eigen::MatrixXd>(C).solve(W.transpose()).transpose();
                gB += WCinv;
                result_.grad.segment(d, d).array() +=
                    1.0 - WCinv.cwiseProduct(W).rowwise().sum().array() / inv_var;
            }
            result_.grad.tail(gB.size()) = gB.reshaped();
        } else {
            L_sum_.triangularView<Eigen::Lower>() = L_sum_ / n;  // in place: no copy of D x D
            if (!stl_)
                L_sum_.diagonal().array() += q_.L().diagonal().array().inverse();
            Approximation::pack_full_rank(mu_sum_ / n, L_sum_, result_.grad);
        }
        return result_;
    }

private:
    const Approximation& q_;
    bool stl_;
    Eigen::VectorXd inv_sigma_;  // mean-field STL: 1 / exp(omega)
    Eigen::VectorXd zeta_;
    Eigen::VectorXd g_;
    Eigen::VectorXd mu_sum_;
    Eigen::VectorXd omega_sum_;
    Eigen::MatrixXd L_sum_;
    Eigen::MatrixXd B_sum_;              // low-rank
    Eigen::ArrayXd inv_var_, dr_;        // low-rank STL: exp(-2 omega), D^-2 (zeta - mu)
    Eigen::MatrixXd W_;                  // low-rank STL: D^-2 B
    Eigen::LLT<Eigen::MatrixXd> C_llt_;  // low-rank STL: I + B' D^-2 B
    ElboGradient result_;
};

// log p(zeta) for each draw (one eta per row of etas), NaN where it is not finite: the value
// alone (Target::log_density), all draws in one batch that a compiled model spreads over
// threads. The gradient estimator checks gradients; the ELBO needs none.
Eigen::VectorXd log_densities_at(Target& target, const Approximation& q,
                                 const Eigen::MatrixXd& etas) {
    Eigen::MatrixXd zetas(q.dim(), etas.rows());
    Eigen::VectorXd eta(q.noise_dim()), zeta(q.dim());
    for (Eigen::Index r = 0; r < etas.rows(); ++r) {
        eta = etas.row(r).transpose();
        q.transform(eta, zeta);
        zetas.col(r) = zeta;
    }
    Eigen::VectorXd lp;
    target.log_densities(zetas, lp);
    for (Eigen::Index r = 0; r < lp.size(); ++r) {
        if (!std::isfinite(lp[r]))
            lp[r] = std::numeric_limits<double>::quiet_NaN();
    }
    return lp;
}

ElboEstimate finish_estimate(const Approximation& q, double sum, int used, int dropped) {
    ElboEstimate e;
    e.used = used;
    e.dropped = dropped;
    e.value = used > 0 ? sum / used + q.entropy() : -std::numeric_limits<double>::infinity();
    return e;
}

}  // namespace

ElboGradient elbo_gradient(Target& target, const Approximation& q, const Eigen::MatrixXd& etas,
                           GradientEstimator estimator) {
    GradientAccumulator acc(q, estimator);
    Eigen::VectorXd eta(q.noise_dim());
    for (Eigen::Index r = 0; r < etas.rows(); ++r) {
        eta = etas.row(r).transpose();
        acc.add(target, eta);
    }
    return acc.finish();
}

ElboGradient elbo_gradient(Target& target, const Approximation& q, Rng& rng, int grad_samples,
                           int max_draws, GradientEstimator estimator) {
    GradientAccumulator acc(q, estimator);
    Eigen::VectorXd eta(q.noise_dim());
    while (acc.used() < grad_samples && acc.used() + acc.dropped() < max_draws) {
        rng.fill_normal(eta);
        acc.add(target, eta);
    }
    return acc.finish();
}

ElboEstimate elbo_estimate(Target& target, const Approximation& q, const Eigen::MatrixXd& etas) {
    Eigen::VectorXd log_p = log_densities_at(target, q, etas);
    double sum = 0.0;  // in draw order, whatever thread computed each value
    int used = 0, dropped = 0;
    for (Eigen::Index r = 0; r < log_p.size(); ++r) {
        if (std::isnan(log_p[r])) {
            ++dropped;
        } else {
            sum += log_p[r];
            ++used;
        }
    }
    ElboEstimate e = finish_estimate(q, sum, used, dropped);
    e.log_p = std::move(log_p);
    return e;
}

ElboEstimate elbo_estimate(Target& target, const Approximation& q, Rng& rng, int samples) {
    Eigen::VectorXd eta(q.noise_dim());
    double sum = 0.0;
    int used = 0, dropped = 0;
    // Draws until `samples` are finite or `samples` were dropped, as one draw at a time would:
    // each round takes as many draws as can be counted before either limit is reached, so the
    // draws made, and the generator's state after them, are those of the one-at-a-time loop.
    while (used < samples && dropped < samples) {
        const int n = std::min(samples - used, samples - dropped);
        Eigen::MatrixXd etas(n, q.noise_dim());
        for (int r = 0; r < n; ++r) {
            rng.fill_normal(eta);
            etas.row(r) = eta.transpose();
        }
        const Eigen::VectorXd lp = log_densities_at(target, q, etas);
        for (int r = 0; r < n; ++r) {
            if (std::isnan(lp[r])) {
                ++dropped;
            } else {
                sum += lp[r];
                ++used;
            }
        }
    }
    // Stan's calc_ELBO throws once n_monte_carlo_elbo draws were dropped, even if some
    // were finite; -inf carries the same verdict.
    if (dropped >= samples) {
        used = 0;
    }
    return finish_estimate(q, sum, used, dropped);
}

}  // namespace advi
