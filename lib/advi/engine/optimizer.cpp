// CmdStan's stopping tests and the endings the two optimisers share.
#include <advi/engine/optimizer.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/runaway.hpp>

namespace advi {

const char* status_name(OptimizeStatus s) {
    switch (s) {
        case OptimizeStatus::Converged: return "converged";
        case OptimizeStatus::IterationLimit: return "iteration limit";
        case OptimizeStatus::LineSearchFailed: return "line search failed";
        case OptimizeStatus::NonFiniteStart: return "non-finite start";
        case OptimizeStatus::NoMode: return "no mode";
        case OptimizeStatus::Interrupted: return "interrupted";
    }
    return "unknown";
}

namespace optimizer {

void validate(const OptimizerSettings& s, int dim, const Eigen::VectorXd& init) {
    if (dim < 1)
        throw ModelError(fmt::format("the model has {} parameters: nothing to optimise", dim));
    if (s.iter < 1)
        throw FitError(fmt::format("option `iter` = {} must be a positive integer", s.iter));
    if (s.history_size < 1)
        throw FitError(
            fmt::format("option `history_size` = {} must be a positive integer", s.history_size));
    if (!(s.init_alpha > 0.0) || !std::isfinite(s.init_alpha))
        throw FitError(
            fmt::format("option `init_alpha` = {} must be finite and > 0", s.init_alpha));
    const std::pair<const char*, double> tols[] = {
        {"tol_obj",      s.tol_obj     },
        {"tol_rel_obj",  s.tol_rel_obj },
        {"tol_grad",     s.tol_grad    },
        {"tol_rel_grad", s.tol_rel_grad},
        {"tol_param",    s.tol_param   }
    };
    for (const auto& [name, v] : tols) {
        if (!(v >= 0.0) || !std::isfinite(v))
            throw FitError(fmt::format("option `{}` = {} must be finite and >= 0", name, v));
    }
    if (init.size() != dim)
        throw ShapeError(
            fmt::format("the initial point has {} entries; the model has {} "
                        "unconstrained parameters",
                        init.size(), dim));
    if (!init.allFinite())
        throw FitError("the initial point has a non-finite entry");
    if (s.runaway_limits.size() != 0 && s.runaway_limits.size() != dim)
        throw ShapeError(
            fmt::format("runaway_limits has {} entries, not {}", s.runaway_limits.size(), dim));
}

std::string describe(const OptimizerSettings& s, int k) {
    return s.describe_coordinate ? s.describe_coordinate(k) : fmt::format("coordinate {}", k);
}

std::optional<Convergence> gradient_converged(const OptimizerSettings& s, double grad_norm,
                                              double rel_grad) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    if (grad_norm < s.tol_grad) {
        return Convergence{
            "tol_grad",
            fmt::format("converged: gradient norm {:.3g} < tol_grad {:g}", grad_norm, s.tol_grad)};
    }
    if (std::isfinite(rel_grad) && rel_grad < s.tol_rel_grad * eps) {
        return Convergence{"tol_rel_grad",
                           fmt::format("converged: relative gradient {:.3g} < tol_rel_grad {:g} * "
                                       "epsilon ({:.3g})",
                                       rel_grad, s.tol_rel_grad, s.tol_rel_grad * eps)};
    }
    return std::nullopt;
}

std::optional<Convergence> converged_by(const OptimizerSettings& s, double lp_prev, double lp,
                                        double grad_norm, double rel_grad, double step_norm) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    const double change = std::abs(lp - lp_prev);
    if (change < s.tol_obj) {
        return Convergence{"tol_obj", fmt::format("converged: lp change {:.3g} < tol_obj {:g}",
                                                  change, s.tol_obj)};
    }
    const double rel = change / std::max({std::abs(lp), std::abs(lp_prev), 1.0});
    if (rel < s.tol_rel_obj * eps) {
        return Convergence{"tol_rel_obj",
                           fmt::format("converged: relative lp change {:.3g} < tol_rel_obj {:g} * "
                                       "epsilon ({:.3g})",
                                       rel, s.tol_rel_obj, s.tol_rel_obj * eps)};
    }
    if (auto c = gradient_converged(s, grad_norm, rel_grad))
        return c;
    if (step_norm < s.tol_param) {
        return Convergence{"tol_param",
                           fmt::format("converged: parameter change {:.3g} < tol_param {:g}",
                                       step_norm, s.tol_param)};
    }
    return std::nullopt;
}

namespace {

// "`a`, `b` and 3 more", the coordinates in `ks`, named.
std::string list(const OptimizerSettings& s, const std::vector<int>& ks,
                 const std::function<std::string(int)>& detail) {
    std::string out;
    const std::size_t shown = std::min<std::size_t>(ks.size(), 3);
    for (std::size_t i = 0; i < shown; ++i) {
        if (i > 0)
            out += i + 1 == shown && ks.size() == shown ? " and " : ", ";
        out += describe(s, ks[i]) + detail(ks[i]);
    }
    if (ks.size() > shown)
        out += fmt::format(" and {} more", ks.size() - shown);
    return out;
}

}  // namespace

std::optional<std::string> ran_off(const Eigen::VectorXd& zeta, double lp,
                                   const Eigen::VectorXd& grad_lp, const OptimizerSettings& s) {
    std::vector<int> off;
    for (Eigen::Index k = 0; k < zeta.size(); ++k) {
        const double limit = s.runaway_limits.size() != 0 ? s.runaway_limits[k] : kRunawayMagnitude;
        if (!(std::abs(zeta[k]) <= limit) && !(grad_lp[k] * zeta[k] <= 0.0))
            off.push_back(static_cast<int>(k));
    }
    if (off.empty())
        return std::nullopt;
    return fmt::format(
        "no mode: the log density kept rising (lp = {:.6g}) while {} ran off in unconstrained "
        "space; the density has no maximum (is every parameter given a proper prior, is a scale "
        "free to go to 0?)",
        lp, list(s, off, [&](int k) { return fmt::format(" (to {:.4g})", zeta[k]); }));
}

std::string unbounded(const Eigen::VectorXd& step, const OptimizerSettings& s) {
    std::vector<int> ks(step.size());
    std::iota(ks.begin(), ks.end(), 0);
    std::stable_sort(ks.begin(), ks.end(),
                     [&](int a, int b) { return std::abs(step[a]) > std::abs(step[b]); });
    const double biggest = ks.empty() ? 0.0 : std::abs(step[ks[0]]);
    std::vector<int> moving;
    for (int k : ks) {
        if (std::abs(step[k]) >= 0.1 * biggest && biggest > 0.0)
            moving.push_back(k);
    }
    return fmt::format(
        "no mode: the log density reached +inf moving {}; the density has no maximum (is a "
        "scale free to go to 0?)",
        list(s, moving, [&](int k) { return step[k] < 0 ? " down" : " up"; }));
}

std::string nonfinite_start(double lp, const Eigen::VectorXd& grad, const OptimizerSettings& s) {
    if (!std::isfinite(lp))
        return fmt::format(
            "the log density is {} at the initial point; choose other initial "
            "values (--init)",
            std::isnan(lp) ? "NaN" : (lp > 0 ? "+inf" : "-inf"));
    std::vector<int> bad;
    for (Eigen::Index k = 0; k < grad.size(); ++k) {
        if (!std::isfinite(grad[k]))
            bad.push_back(static_cast<int>(k));
    }
    return fmt::format("the gradient of the log density is not finite at the initial point, in {}",
                       list(s, bad, [](int) { return std::string(); }));
}

void TrendWatch::record(double lp, const Eigen::VectorXd& zeta) {
    ++steps_;
    if ((steps_ & (steps_ - 1)) == 0) {
        lp_.push_back(lp);
        zeta_.push_back(zeta);
    }
}

std::optional<std::string> TrendWatch::no_mode(double lp, const Eigen::VectorXd& zeta,
                                               const Eigen::VectorXd& grad) const {
    // b = 2^j <= steps_ / 2 is entry j; a is entry j - 1.
    int j = -1;
    while (j + 1 < static_cast<int>(lp_.size()) && (2 << (j + 1)) <= steps_) ++j;
    if (j < 2)  // fewer than 8 steps make no trend
        return std::nullopt;
    const Eigen::VectorXd &a = zeta_[j - 1], &b = zeta_[j];
    const double lp_a = lp_[j - 1], lp_b = lp_[j];
    const Eigen::VectorXd d1 = b - a, d2 = zeta - b;
    const double n1 = d1.norm(), n2 = d2.norm();
    if (!(n1 > 0.0 && n2 > 0.0) || !(lp > lp_b && lp_b > lp_a))
        return std::nullopt;
    const double cosine = d1.dot(d2) / (n1 * n2);
    const double slope1 = (lp_b - lp_a) / n1, slope2 = (lp - lp_b) / n2;
    if (!(cosine > 0.9 && slope2 >= 0.5 * slope1))
        return std::nullopt;
    if (!(grad.dot(d2) / n2 >= 0.5 * slope2))  // lp has stopped rising that way: a mode
        return std::nullopt;
    // The coordinates that carry the move, and move away from 0.
    const double most = d2.cwiseAbs().maxCoeff();
    std::vector<int> off;
    for (Eigen::Index k = 0; k < zeta.size(); ++k) {
        if (std::abs(d2[k]) >= 0.5 * most && std::abs(zeta[k]) > std::abs(b[k]))
            off.push_back(static_cast<int>(k));
    }
    if (off.empty())
        return std::nullopt;
    return fmt::format(
        "no mode: over {} steps the log density kept rising at a steady {:.3g} per unit moved "
        "(lp = {:.6g}) as {} moved off in unconstrained space; the density appears to grow "
        "without bound (is every parameter given a proper prior, is a scale free to go to 0?)",
        steps_, slope2, lp, list(s_, off, [&](int k) {
            return fmt::format(" (from {:.4g} to {:.4g})", a[k], zeta[k]);
        }));
}

void record_row(OptimizerResult& r, const OptimizerSettings& s,
                std::chrono::steady_clock::time_point start, double step_norm, double alpha) {
    const OptimizerTraceRow row{
        .iteration = r.iterations,
        .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
        .lp = r.lp,
        .grad_norm = r.grad.norm(),
        .step_norm = step_norm,
        .alpha = alpha,
        .gradient_evaluations = r.gradient_evaluations};
    r.trace.push_back(row);
    if (s.on_row)
        s.on_row(row);
}

OptimizerResult& finish_run(OptimizerResult& r, const TrendWatch& trend, OptimizeStatus status,
                            std::string message, std::chrono::steady_clock::time_point start) {
    if (status == OptimizeStatus::Converged) {
        if (auto why = trend.no_mode(r.lp, r.zeta, r.grad)) {
            message = fmt::format(
                "{} (the test `{}` was met there, but lp was still rising along the way)", *why,
                r.criterion);
            status = OptimizeStatus::NoMode;
            r.criterion.clear();
        }
    }
    r.status = status;
    r.message = std::move(message);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace optimizer
}  // namespace advi
