// Single-path Pathfinder: the normal approximations along L-BFGS's path, built as the path is
// walked (no iterate is kept but the best approximation), their ELBOs, the best one's draws.
#include <advi/engine/pathfinder.hpp>

#include <cmath>
#include <limits>
#include <numbers>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/lbfgs.hpp>

namespace advi {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A pair whose curvature y'y / s'y exceeds this says more about rounding than about the
// density (the paper's check, and Stan's).
constexpr double kMaxCurvature = 1e12;

}  // namespace

PathGaussian::PathGaussian(Eigen::VectorXd mean, Eigen::VectorXd alpha, const Eigen::MatrixXd& beta,
                           const Eigen::MatrixXd& gamma)
    : mean_(std::move(mean)), alpha_(std::move(alpha)) {
    const Eigen::Index D = mean_.size();
    const Eigen::Index r = beta.cols();
    dense_ = 2 * r >= D || r == 0;
    if (dense_) {
        Eigen::MatrixXd sigma = beta * gamma * beta.transpose();
        sigma.diagonal() += alpha_;
        sigma = 0.5 * (sigma + sigma.transpose()).eval();
        Eigen::LLT<Eigen::MatrixXd> llt(sigma);
        if (llt.info() != Eigen::Success)
            throw FitError("Pathfinder: the covariance estimate is not positive definite");
        L_ = llt.matrixL();
        half_log_det_ = L_.diagonal().array().log().sum();
    } else {
        // Sigma = A^1/2 (I + W gamma W') A^1/2 with W = A^-1/2 beta = Q R: on span(Q) the
        // factor is chol(I + R gamma R'), elsewhere the identity.
        const Eigen::MatrixXd W = alpha_.array().rsqrt().matrix().asDiagonal() * beta;
        Eigen::HouseholderQR<Eigen::MatrixXd> qr(W);
        Q_ = qr.householderQ() * Eigen::MatrixXd::Identity(D, r);
        const Eigen::MatrixXd R = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
        Eigen::MatrixXd M = R * gamma * R.transpose();
        M.diagonal().array() += 1.0;
        M = 0.5 * (M + M.transpose()).eval();
        Eigen::LLT<Eigen::MatrixXd> llt(M);
        if (llt.info() != Eigen::Success)
            throw FitError("Pathfinder: the covariance estimate is not positive definite");
        L_ = llt.matrixL();
        half_log_det_ = 0.5 * alpha_.array().log().sum() + L_.diagonal().array().log().sum();
    }
    if (!std::isfinite(half_log_det_) || !alpha_.allFinite() || !(alpha_.array() > 0).all())
        throw FitError("Pathfinder: the covariance estimate is not finite");
}

Eigen::VectorXd PathGaussian::sd() const {
    if (dense_)
        return L_.rowwise().norm();
    // diag(Sigma)_d = alpha_d (1 + q_d' (M - I) q_d), q_d row d of Q.
    Eigen::MatrixXd M_minus_I = L_ * L_.transpose();
    M_minus_I.diagonal().array() -= 1.0;
    const Eigen::VectorXd quad = (Q_ * M_minus_I).cwiseProduct(Q_).rowwise().sum();
    return (alpha_.array() * (1.0 + quad.array())).max(0.0).sqrt();
}

Eigen::VectorXd PathGaussian::covariance_times(const Eigen::VectorXd& v) const {
    if (dense_)
        return L_ * (L_.transpose() * v);
    const Eigen::VectorXd w = alpha_.array().sqrt() * v.array();
    Eigen::VectorXd c = Q_.transpose() * w;
    c = L_ * (L_.transpose() * c) - c;
    return alpha_.array().sqrt() * (w + Q_ * c).array();
}

void PathGaussian::transform(const Eigen::VectorXd& u, Eigen::VectorXd& zeta) const {
    if (dense_) {
        zeta = mean_ + L_ * u;
        return;
    }
    const Eigen::VectorXd c = Q_.transpose() * u;
    const Eigen::VectorXd lc = L_ * c - c;
    zeta = mean_ + (alpha_.array().sqrt() * (Q_ * lc + u).array()).matrix();
}

Eigen::MatrixXd PathGaussian::draw(Rng& rng, int n, Eigen::VectorXd& log_q) const {
    const int D = dim();
    const Eigen::MatrixXd u = rng.normal_matrix(n, D);
    Eigen::MatrixXd out(n, D);
    log_q.resize(n);
    const double constant = -0.5 * D * std::log(2.0 * std::numbers::pi) - half_log_det_;
    Eigen::VectorXd ui(D), zeta(D);
    for (int i = 0; i < n; ++i) {
        ui = u.row(i).transpose();
        transform(ui, zeta);
        out.row(i) = zeta.transpose();
        log_q[i] = constant - 0.5 * ui.squaredNorm();
    }
    return out;
}

bool PathInverseHessian::add(const Eigen::VectorXd& s, const Eigen::VectorXd& y) {
    const double sy = s.dot(y);
    if (!(sy > 0.0) || !(y.squaredNorm() / sy <= kMaxCurvature))
        return false;
    const double y_alpha_y = y.dot(alpha_.cwiseProduct(y));
    const double s_alpha_inv_s = s.dot(s.cwiseQuotient(alpha_));
    const Eigen::ArrayXd denom =
        y_alpha_y / alpha_.array() + y.array().square() -
        (y_alpha_y / s_alpha_inv_s) * (s.array() / alpha_.array()).square();
    const Eigen::VectorXd next = (sy / denom).matrix();
    // The update keeps alpha positive in exact arithmetic; where rounding does not, the
    // diagonal stays as it was.
    if (next.allFinite() && (next.array() > 0.0).all())
        alpha_ = next;
    if (static_cast<int>(s_.size()) == J_) {
        s_.pop_front();
        y_.pop_front();
    }
    s_.push_back(s);
    y_.push_back(y);
    return true;
}

PathGaussian PathInverseHessian::at(const Eigen::VectorXd& x, const Eigen::VectorXd& g) const {
    const Eigen::Index D = x.size();
    const auto m = static_cast<Eigen::Index>(s_.size());
    Eigen::MatrixXd S(D, m), Y(D, m);
    for (Eigen::Index j = 0; j < m; ++j) {
        S.col(j) = s_[static_cast<std::size_t>(j)];
        Y.col(j) = y_[static_cast<std::size_t>(j)];
    }
    const Eigen::MatrixXd SY = S.transpose() * Y;
    const Eigen::MatrixXd R = SY.triangularView<Eigen::Upper>();
    const Eigen::MatrixXd R_inv =
        R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(m, m));
    const Eigen::MatrixXd AY = alpha_.asDiagonal() * Y;
    Eigen::MatrixXd middle = Y.transpose() * AY;
    middle.diagonal() += SY.diagonal();
    Eigen::MatrixXd gamma = Eigen::MatrixXd::Zero(2 * m, 2 * m);
    gamma.topLeftCorner(m, m) = R_inv.transpose() * middle * R_inv;
    gamma.topRightCorner(m, m) = -R_inv.transpose();
    gamma.bottomLeftCorner(m, m) = -R_inv;
    Eigen::MatrixXd beta(D, 2 * m);
    beta << S, AY;
    const Eigen::VectorXd Hg = alpha_.cwiseProduct(g) + beta * (gamma * (beta.transpose() * g));
    return PathGaussian(x + Hg, alpha_, beta, gamma);
}

namespace {

// The log densities of the rows of `zeta`, -inf where not finite.
Eigen::VectorXd log_densities_of(Target& target, const Eigen::MatrixXd& zeta) {
    Eigen::VectorXd lp;
    target.log_densities(zeta.transpose(), lp);
    for (Eigen::Index i = 0; i < lp.size(); ++i) {
        if (!std::isfinite(lp[i]))
            lp[i] = -kInf;
    }
    return lp;
}

}  // namespace

PathfinderPath pathfinder_path(Target& target, const Eigen::VectorXd& init,
                               const PathfinderSettings& settings) {
    if (settings.num_elbo_draws < 1 || settings.num_draws < 1) {
        throw FitError(
            fmt::format("Pathfinder: `num_elbo_draws` and `num_draws` must be >= 1, got {} and {}",
                        settings.num_elbo_draws, settings.num_draws));
    }
    const int D = target.dim();
    PathfinderPath path;
    PathInverseHessian inverse_hessian(D, settings.lbfgs.history_size);
    Rng rng(settings.seed);
    Eigen::VectorXd x_prev, g_prev;
    int l = 0;
    OptimizerSettings lbfgs = settings.lbfgs;
    lbfgs.on_iterate = [&](const Eigen::VectorXd& x, double, const Eigen::VectorXd& g) {
        if (l++ == 0) {
            x_prev = x;
            g_prev = g;
            return;
        }
        // f = -log p: its gradient changes by -(g - g_prev).
        if (!inverse_hessian.add(x - x_prev, g_prev - g))
            ++path.skipped_pairs;
        x_prev = x;
        g_prev = g;
        double elbo = -kInf, elbo_se = std::nan("");
        if (!inverse_hessian.empty()) {
            try {
                PathGaussian q = inverse_hessian.at(x, g);
                Eigen::VectorXd log_q;
                const Eigen::MatrixXd draws = q.draw(rng, settings.num_elbo_draws, log_q);
                const Eigen::VectorXd log_p = log_densities_of(target, draws);
                path.value_evaluations += settings.num_elbo_draws;
                const Eigen::ArrayXd ratio = (log_p - log_q).array();
                elbo = ratio.mean();  // -inf when a draw's density was not finite
                if (std::isnan(elbo))
                    elbo = -kInf;
                if (std::isfinite(elbo) && ratio.size() > 1)
                    elbo_se = std::sqrt((ratio - elbo).square().sum() /
                                        static_cast<double>(ratio.size() - 1) /
                                        static_cast<double>(ratio.size()));
                if (elbo > path.best_elbo) {
                    path.best_elbo = elbo;
                    path.best = l - 1;
                    path.gaussian = std::move(q);
                }
            } catch (const FitError&) {
                // Sigma not positive definite here: no approximation at this iterate.
            }
        }
        path.elbo.push_back(elbo);
        path.elbo_se.push_back(elbo_se);
        if (settings.log && settings.refresh > 0 && (l - 1) % settings.refresh == 0) {
            settings.log(fmt::format("  iteration {:>4}: ELBO {:.6g} (best {:.6g} at {})", l - 1,
                                     elbo, path.best_elbo, path.best));
        }
    };
    path.lbfgs = maximize_lbfgs(target, init, lbfgs);
    path.gradient_evaluations = path.lbfgs.gradient_evaluations;
    if (path.best < 0) {
        path.failure =
            path.lbfgs.iterations == 0
                ? fmt::format("L-BFGS took no step: {}", path.lbfgs.message)
                : fmt::format(
                      "none of the {} iterates had a normal approximation with a finite ELBO (a "
                      "draw's log density was not finite, or the curvature was not positive; "
                      "L-BFGS: {})",
                      path.lbfgs.iterations, path.lbfgs.message);
        return path;
    }
    path.draws = path.gaussian.draw(rng, settings.num_draws, path.log_q);
    path.log_p = log_densities_of(target, path.draws);
    path.value_evaluations += settings.num_draws;
    return path;
}

}  // namespace advi
