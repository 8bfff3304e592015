// The whitened target: the change of variables zeta = m + S u and its inverse on q.
#include <advi/engine/whitened_target.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/runaway.hpp>

namespace advi {

WhitenedTarget::WhitenedTarget(Target& inner, Eigen::VectorXd shift, Eigen::VectorXd scale)
    : inner_(inner), m_(std::move(shift)), s_(std::move(scale)) {
    if (m_.size() != inner.dim() || s_.size() != inner.dim() || !(s_.array() > 0).all() ||
        !s_.allFinite()) {
        throw ModelError(fmt::format(
            "whitened target: the shift and the scale must have {} entries, the scale finite "
            "and positive",
            inner.dim()));
    }
    log_det_ = s_.array().log().sum();
}

WhitenedTarget::WhitenedTarget(Target& inner, Eigen::VectorXd shift, Eigen::MatrixXd factor)
    : inner_(inner), m_(std::move(shift)), full_rank_(true) {
    const int d = inner.dim();
    if (m_.size() != d || factor.rows() != d || factor.cols() != d ||
        !(factor.diagonal().array() > 0).all() || !factor.allFinite()) {
        throw ModelError(fmt::format(
            "whitened target: the shift must have {} entries and the factor be {} x {}, finite, "
            "with a positive diagonal",
            d, d, d));
    }
    L_ = factor.triangularView<Eigen::Lower>();
    log_det_ = L_.diagonal().array().log().sum();
}

Eigen::VectorXd WhitenedTarget::to_original(const Eigen::VectorXd& u) const {
    if (full_rank_)
        return m_ + L_.triangularView<Eigen::Lower>() * u;
    return m_ + s_.cwiseProduct(u);
}

Eigen::MatrixXd WhitenedTarget::to_original_rows(const Eigen::MatrixXd& u) const {
    Eigen::MatrixXd z(u.rows(), u.cols());
    if (full_rank_)
        z.noalias() = u * L_.transpose();
    else
        z = u * s_.asDiagonal();
    z.rowwise() += m_.transpose();
    return z;
}

double WhitenedTarget::log_density_gradient(const Eigen::VectorXd& u, Eigen::VectorXd& grad) {
    zeta_ = to_original(u);
    grad_zeta_.resize(dim());
    // Through advi::evaluate: a library exception inside the target is NaN here as there.
    const double lp = evaluate(inner_, zeta_, grad_zeta_);
    // d/du log p(m + S u) = S' grad_zeta.
    if (full_rank_)
        grad.noalias() = L_.transpose().triangularView<Eigen::Upper>() * grad_zeta_;
    else
        grad = s_.cwiseProduct(grad_zeta_);
    return lp + log_det_;
}

double WhitenedTarget::log_density(const Eigen::VectorXd& u) {
    return inner_.log_density(to_original(u)) + log_det_;
}

void WhitenedTarget::log_densities(const Eigen::MatrixXd& us, Eigen::VectorXd& out) {
    Eigen::MatrixXd zetas = full_rank_ ? Eigen::MatrixXd(L_.triangularView<Eigen::Lower>() * us)
                                       : Eigen::MatrixXd(s_.asDiagonal() * us);
    zetas.colwise() += m_;
    inner_.log_densities(zetas, out);
    out.array() += log_det_;
}

Approximation WhitenedTarget::to_original(const Approximation& q) const {
    const Eigen::VectorXd mu = to_original(q.mu());
    if (q.family() == Family::MeanField && !full_rank_) {
        return Approximation::mean_field(mu, q.omega() + s_.array().log().matrix());
    }
    if (q.family() == Family::LowRank) {
        // zeta - m = S u: diag(exp(omega)) and B scale by S's rows; a full-rank whitening
        // has no low-rank image.
        if (full_rank_)
            throw ModelError("whitened target: a low-rank q needs a diagonal whitening");
        return Approximation::low_rank(mu, q.omega() + s_.array().log().matrix(),
                                       s_.asDiagonal() * q.B());
    }
    const Eigen::MatrixXd Lu = q.cholesky_factor();
    if (full_rank_)
        return Approximation::full_rank(mu, L_.triangularView<Eigen::Lower>() * Lu);
    return Approximation::full_rank(mu, s_.asDiagonal() * Lu);
}

Eigen::VectorXd WhitenedTarget::limits_in_u(const Eigen::VectorXd& zeta_limits) const {
    const int d = dim();
    const auto limit = [&](int k) {
        const double l = zeta_limits.size() == d ? zeta_limits[k] : kRunawayMagnitude;
        // The start lies within the limits (a run-off mode is no mode); keep some room even
        // when it lies close to one.
        return std::max(l - std::fabs(m_[k]), 1e-3 * l);
    };
    Eigen::VectorXd out(d);
    for (int j = 0; j < d; ++j) {
        double best = std::numeric_limits<double>::infinity();
        if (full_rank_) {
            for (int k = j; k < d; ++k) {
                if (L_(k, j) != 0.0)
                    best = std::min(best, limit(k) / std::fabs(L_(k, j)));
            }
        } else {
            best = limit(j) / s_[j];
        }
        out[j] = std::isfinite(best) ? best : kRunawayMagnitude;
    }
    return out;
}

}  // namespace advi
