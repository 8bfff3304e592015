// Runaway checks on q and on the ELBO trace.
#include <advi/engine/runaway.hpp>

#include <cmath>

#include <fmt/format.h>

namespace advi {

namespace {

std::string coordinate(const Options& opts, int k) {
    return opts.describe_coordinate ? opts.describe_coordinate(k) : fmt::format("coordinate {}", k);
}

double limit(const Options& opts, int k) {
    return opts.runaway_limits.size() > k ? opts.runaway_limits[k] : kRunawayMagnitude;
}

bool runaway(double x, double bound) {
    return !std::isfinite(x) || std::fabs(x) > bound;
}

std::string message(const std::string& what, double value) {
    return fmt::format(
        "q ran off: {} reached {:.3g}; the posterior may be improper (is every parameter "
        "given a proper prior, and is the log density bounded above?)",
        what, value);
}

}  // namespace

std::optional<std::string> ran_off(const Approximation& q, const Options& opts) {
    const Eigen::VectorXd& mu = q.mu();
    for (int k = 0; k < q.dim(); ++k) {
        if (runaway(mu[k], limit(opts, k))) {
            return message(fmt::format("the mean of {} (unconstrained)", coordinate(opts, k)),
                           mu[k]);
        }
    }
    if (q.family() == Family::MeanField || q.family() == Family::LowRank) {
        // sd = exp(omega): compare omega with the log of the bound, so that sd never
        // overflows here.
        const Eigen::VectorXd& omega = q.omega();
        for (int k = 0; k < q.dim(); ++k) {
            if (!std::isfinite(omega[k]) || omega[k] > std::log(limit(opts, k))) {
                return message(fmt::format("the sd of {} (unconstrained)", coordinate(opts, k)),
                               std::exp(omega[k]));
            }
        }
        if (q.family() == Family::MeanField)
            return std::nullopt;
        const Eigen::MatrixXd& B = q.B();
        for (int j = 0; j < B.cols(); ++j) {
            for (int k = 0; k < q.dim(); ++k) {
                if (runaway(B(k, j), limit(opts, k))) {
                    return message(fmt::format("entry ({}, {}) of q's low-rank factor, row {} "
                                               "(unconstrained)",
                                               k, j, coordinate(opts, k)),
                                   B(k, j));
                }
            }
        }
        return std::nullopt;
    }
    const Eigen::MatrixXd& L = q.L();
    const int d = q.dim();
    Eigen::ArrayXd limits(d);
    for (int i = 0; i < d; ++i) limits[i] = limit(opts, i);
    for (int j = 0; j < d; ++j) {
        // A column at a time (vectorised; a NaN fails <=), then the entry for the message.
        if ((L.col(j).tail(d - j).array().abs() <= limits.tail(d - j)).all())
            continue;
        for (int i = j; i < d; ++i) {
            if (runaway(L(i, j), limits[i])) {
                return message(fmt::format("entry ({}, {}) of the Cholesky factor of q, row {} "
                                           "(unconstrained)",
                                           i, j, coordinate(opts, i)),
                               L(i, j));
            }
        }
    }
    return std::nullopt;
}

bool still_rising(const std::vector<double>& trace, int span, double* rise) {
    const auto n = static_cast<int>(trace.size());
    // Fewer than five evaluations make no trend: a fit that converges within its first few
    // evaluations is left to the convergence rule.
    if (span < 4 || n < span + 1) {
        return false;
    }
    const double* y = trace.data() + (n - 1 - span);
    if (rise != nullptr) {
        *rise = (y[span] - y[0]) / span;
    }
    // Least-squares slope over the span, against its standard error: other coordinates of q
    // jitter about their optimum and make single evaluations fall now and then, while the
    // runaway one keeps the trend. The differences y - y[0] keep the ELBO's constant out.
    const double m = span + 1;
    const double xbar = span / 2.0;
    double ybar = 0.0;
    for (int k = 0; k <= span; ++k) ybar += (y[k] - y[0]) / m;
    double sxx = 0.0, sxy = 0.0;
    for (int k = 0; k <= span; ++k) {
        sxx += (k - xbar) * (k - xbar);
        sxy += (k - xbar) * (y[k] - y[0] - ybar);
    }
    const double slope = sxy / sxx;
    double sse = 0.0;
    for (int k = 0; k <= span; ++k) {
        const double r = y[k] - y[0] - ybar - slope * (k - xbar);
        sse += r * r;
    }
    const double se = std::sqrt(sse / (m - 2.0) / sxx);
    constexpr double kTrendErrors = 4.0;
    if (!(slope > 0.0 && slope > kTrendErrors * se)) {
        return false;
    }
    // Not slowing down: the second half of the span rose at least half as much as the first.
    const int mid = span / 2;
    return (y[span] - y[mid]) / (span - mid) >= 0.5 * (y[mid] - y[0]) / mid;
}

ScaleBalance scale_balance(Target& target, const Approximation& q, const Eigen::MatrixXd& etas) {
    const int dim = q.dim();
    Eigen::VectorXd eta(q.noise_dim()), zeta(dim), grad(dim);
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(dim), sum_sq = Eigen::VectorXd::Zero(dim);
    Eigen::VectorXd loc_sum = Eigen::VectorXd::Zero(dim), loc_sq = Eigen::VectorXd::Zero(dim);
    const Eigen::ArrayXd sd = q.sd().array();
    ScaleBalance b;
    for (Eigen::Index s = 0; s < etas.rows(); ++s) {
        eta = etas.row(s).transpose();
        q.transform(eta, zeta);
        const double lp = evaluate(target, zeta, grad);
        if (!std::isfinite(lp) || !grad.allFinite()) {
            continue;
        }
        const Eigen::ArrayXd term = -(zeta - q.mu()).array() * grad.array();
        sum += term.matrix();
        sum_sq += term.square().matrix();
        const Eigen::ArrayXd loc = sd * grad.array();
        loc_sum += loc.matrix();
        loc_sq += loc.square().matrix();
        ++b.used;
    }
    const double n = b.used;
    b.mean = b.used > 0 ? Eigen::VectorXd(sum / n) : Eigen::VectorXd::Zero(dim);
    b.location = b.used > 0 ? Eigen::VectorXd(loc_sum / n) : Eigen::VectorXd::Zero(dim);
    b.se = Eigen::VectorXd::Zero(dim);
    b.location_se = Eigen::VectorXd::Zero(dim);
    if (b.used > 1) {
        auto se = [n](const Eigen::VectorXd& total_sq, const Eigen::VectorXd& mean) {
            const Eigen::ArrayXd var =
                ((total_sq.array() - n * mean.array().square()) / (n - 1.0)).max(0.0);
            return Eigen::VectorXd((var / n).sqrt().matrix());
        };
        b.se = se(sum_sq, b.mean);
        b.location_se = se(loc_sq, b.location);
    }
    return b;
}

std::optional<std::string> scale_not_at_optimum(const ScaleBalance& b, const Options& opts) {
    if (b.used < 2) {
        return std::nullopt;
    }
    for (Eigen::Index k = 0; k < b.mean.size(); ++k) {
        if (b.mean[k] + 3.0 * b.se[k] < kScaleBalanceFloor) {
            return fmt::format(
                "the scale of q along {} (unconstrained) is not at an optimum of its family: "
                "-E_q[(zeta - mu) d log p/d zeta] = {:.3g} (+- {:.2g}) where every optimum has 1, "
                "so the ELBO still rises as q widens; the posterior may be improper (is every "
                "parameter given a proper prior?) or q is still too narrow there",
                coordinate(opts, static_cast<int>(k)), b.mean[k], b.se[k]);
        }
    }
    return std::nullopt;
}

std::optional<std::string> location_not_at_optimum(const ScaleBalance& b, const Options& opts) {
    if (b.used < 2) {
        return std::nullopt;
    }
    for (Eigen::Index k = 0; k < b.location.size(); ++k) {
        if (std::fabs(b.location[k]) - 3.0 * b.location_se[k] > kLocationBalanceFloor) {
            return fmt::format(
                "the mean of q along {} (unconstrained) is not at an optimum of its family: "
                "sd_q E_q[d log p/d zeta] = {:.3g} (+- {:.2g}) where every optimum has 0, so the "
                "ELBO still rises as q moves; q is still short of the optimum there",
                coordinate(opts, static_cast<int>(k)), b.location[k], b.location_se[k]);
        }
    }
    return std::nullopt;
}

}  // namespace advi
