// Trust-region Newton-CG ascent of the log density, as descent of f = -lp with B = -H the
// Hessian of f, applied as B v = -(H v) from the target.
#include <advi/engine/newton_cg.hpp>

#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace advi {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The step p with ||p|| = radius along z + tau d, tau >= 0.
Eigen::VectorXd to_boundary(const Eigen::VectorXd& z, const Eigen::VectorXd& d, double radius) {
    const double a = d.squaredNorm(), b = 2.0 * z.dot(d), c = z.squaredNorm() - radius * radius;
    const double tau = (-b + std::sqrt(std::max(b * b - 4.0 * a * c, 0.0))) / (2.0 * a);
    return z + tau * d;
}

struct CgStep {
    Eigen::VectorXd p;
    bool interior = false;   // CG converged inside the region: p ~ -B^-1 g
    bool nonfinite = false;  // an H v product was not finite
};

}  // namespace

OptimizerResult maximize_newton_cg(CurvatureTarget& target, const Eigen::VectorXd& init,
                                   const OptimizerSettings& settings) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const int dim = target.dim();
    optimizer::validate(settings, dim, init);
    OptimizerResult r;
    optimizer::TrendWatch trend(settings);
    const auto finish = [&](OptimizeStatus status, std::string message) {
        return optimizer::finish_run(r, trend, status, std::move(message), start);
    };

    Eigen::VectorXd hv_grad(dim), hv(dim);
    // B v at x; NaN entries when the product fails (a library's exception, as evaluate()).
    const auto apply_b = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                             Eigen::VectorXd& out) {
        ++r.hessian_vector_products;
        // NaN only when the product threw; a non-finite lp alone does not spoil H v.
        const double failed = evaluate_or_nan([&] {
            target.hessian_vector(x, v, hv_grad, hv);
            return 0.0;
        });
        if (std::isnan(failed)) {
            out.setConstant(kNaN);
        } else {
            out = -hv;
        }
        return out.allFinite();
    };
    // Steihaug-Toint CG on B p = -g within ||p|| <= radius.
    Eigen::VectorXd bd(dim);
    // `forcing`: CG stops when the residual is below forcing * |g| (Eisenstat-Walker's
    // min(0.5, sqrt|g|) for the steps: superlinear near the mode, cheap far from it).
    const auto cg = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& g, double radius,
                        double forcing) {
        CgStep out;
        if (g.squaredNorm() == 0.0) {  // a stationary point: the Newton step is 0
            out.p = Eigen::VectorXd::Zero(dim);
            out.interior = true;
            return out;
        }
        Eigen::VectorXd z = Eigen::VectorXd::Zero(dim), rr = g, d = -g;
        const double tol = forcing * g.norm();
        for (int j = 0; j < 2 * dim + 10; ++j) {
            if (!apply_b(x, d, bd)) {
                out.nonfinite = true;
                out.p = j == 0 ? Eigen::VectorXd(-g * (radius / g.norm())) : z;
                return out;
            }
            const double dbd = d.dot(bd);
            if (dbd <= 0.0) {  // not convex along d: f falls without bound to the boundary
                out.p = to_boundary(z, d, radius);
                return out;
            }
            const double rr2 = rr.squaredNorm();
            const double alpha = rr2 / dbd;
            Eigen::VectorXd z_next = z + alpha * d;
            if (z_next.norm() >= radius) {
                out.p = to_boundary(z, d, radius);
                return out;
            }
            z = std::move(z_next);
            rr += alpha * bd;
            if (rr.norm() < tol) {
                out.p = z;
                out.interior = true;
                return out;
            }
            d = -rr + (rr.squaredNorm() / rr2) * d;
        }
        out.p = z;
        return out;
    };

    Eigen::VectorXd x = init, g(dim), x_new(dim), g_new(dim), bp(dim);
    ++r.gradient_evaluations;
    double lp = evaluate(target, x, g);
    r.zeta = x;
    r.lp = lp;
    r.grad = g;
    if (!std::isfinite(lp) || !g.allFinite())
        return finish(OptimizeStatus::NonFiniteStart, optimizer::nonfinite_start(lp, g, settings));
    optimizer::record_row(r, settings, start, 0.0, 1.0);
    g = -g;  // of f
    double fx = -lp;
    double radius = 1.0;
    constexpr double kMaxRadius = 1e12;
    bool rel_known = false;
    double rel_grad = kNaN;
    if (auto c = optimizer::gradient_converged(settings, g.norm(), kNaN)) {
        r.criterion = c->criterion;
        return finish(OptimizeStatus::Converged, c->message);
    }
    int rejected_in_a_row = 0;
    while (r.iterations < settings.iter) {
        if (settings.interrupt != nullptr && settings.interrupt->load(std::memory_order_relaxed))
            return finish(OptimizeStatus::Interrupted,
                          fmt::format("interrupted after {} iterations", r.iterations));
        const CgStep step = cg(x, g, radius, std::min(0.5, std::sqrt(g.norm())));
        // The relative-gradient test needs g' B^-1 g, which CG gives when it ended inside the
        // region (p = -B^-1 g to CG's tolerance); it is checked at the point it belongs to.
        if (step.interior && !rel_known) {
            rel_grad = -g.dot(step.p) / std::max(std::abs(fx), 1.0);
            rel_known = true;
            // A loose solve can make g' B^-1 g look small where B is nearly singular (along
            // a funnel's ridge): before claiming convergence, solve again to 1e-8 without a
            // region; negative curvature on the way means no maximum here.
            Eigen::VectorXd newton_step = step.p;
            if (optimizer::gradient_converged(settings, g.norm(), rel_grad) &&
                !(g.norm() < settings.tol_grad)) {
                const CgStep exact = cg(x, g, std::numeric_limits<double>::infinity(), 1e-8);
                rel_grad = exact.interior ? -g.dot(exact.p) / std::max(std::abs(fx), 1.0)
                                          : std::numeric_limits<double>::infinity();
                if (exact.interior)
                    newton_step = exact.p;
            }
            if (auto c = optimizer::gradient_converged(settings, g.norm(), rel_grad)) {
                // The Newton step is at hand: take it when it increases lp, which makes the
                // point as accurate as the curvature allows for one more gradient.
                x_new = x + newton_step;
                ++r.gradient_evaluations;
                const double lp_new = evaluate(target, x_new, g_new);
                if (std::isfinite(lp_new) && g_new.allFinite() && lp_new >= -fx) {
                    r.zeta = x_new;
                    r.lp = lp_new;
                    r.grad = g_new;
                }
                r.criterion = c->criterion;
                return finish(OptimizeStatus::Converged, c->message);
            }
        }
        const Eigen::VectorXd& p = step.p;
        const double p_norm = p.norm();
        // The model's predicted decrease of f, g'p + p'Bp / 2, with B p computed afresh.
        double predicted = kNaN;
        if (apply_b(x, p, bp))
            predicted = -(g.dot(p) + 0.5 * p.dot(bp));
        x_new = x + p;
        ++r.gradient_evaluations;
        const double lp_new = evaluate(target, x_new, g_new);
        if (lp_new == std::numeric_limits<double>::infinity())
            return finish(OptimizeStatus::NoMode, optimizer::unbounded(p, settings));
        const double f_new = -lp_new;
        const bool finite = std::isfinite(f_new) && g_new.allFinite();
        const double actual = fx - f_new;
        const double rho = finite && predicted > 0.0 ? actual / predicted : kNaN;
        if (!finite || !(rho >= 0.25)) {
            radius = 0.25 * p_norm;
        } else if (rho > 0.75 && p_norm >= 0.99 * radius) {
            radius = std::min(2.0 * radius, kMaxRadius);
        }
        // Accept any finite increase the model predicted at least a little of.
        const bool accept = finite && actual > 0.0 && (rho > 1e-4 || !(predicted > 0.0));
        ++r.iterations;
        if (!accept) {
            ++rejected_in_a_row;
            if (radius < std::numeric_limits<double>::epsilon() * std::max(1.0, x.norm()) ||
                rejected_in_a_row > 60) {
                if (auto why = trend.no_mode(-fx, x, -g))
                    return finish(OptimizeStatus::NoMode, *why);
                return finish(OptimizeStatus::LineSearchFailed,
                              fmt::format("trust region collapsed after {} iterations: no step "
                                          "increased the log density{} (lp = {:.6g}, gradient "
                                          "norm {:.3g})",
                                          r.iterations,
                                          finite ? ""
                                                 : " (the density was not finite at the "
                                                   "steps tried)",
                                          -fx, g.norm()));
            }
            continue;
        }
        rejected_in_a_row = 0;
        g_new = -g_new;
        const double step_norm = (x_new - x).norm();
        x.swap(x_new);
        g.swap(g_new);
        fx = f_new;
        rel_known = false;
        r.zeta = x;
        r.lp = -fx;
        r.grad = -g;
        optimizer::record_row(r, settings, start, step_norm, radius);
        if (auto why = optimizer::ran_off(x, -fx, r.grad, settings))
            return finish(OptimizeStatus::NoMode, *why);
        trend.record(-fx, x);
        // Newton-CG stops by the gradient tests only: tol_grad here, tol_rel_grad (the Newton
        // decrement g' (-H)^-1 g) at the next CG solve. A trust-region step's length and the
        // change of lp it makes are set by the radius and by how well CG solved, not by the
        // distance to the mode (along a funnel's ridge a tiny step in the stiff direction can
        // leave a gradient of 1 in the other), so tol_obj, tol_rel_obj and tol_param would
        // claim a mode where there is none.
        if (auto c = optimizer::gradient_converged(settings, g.norm(), kNaN)) {
            r.criterion = c->criterion;
            return finish(OptimizeStatus::Converged, c->message);
        }
    }
    if (auto why = trend.no_mode(-fx, x, -g))
        return finish(OptimizeStatus::NoMode, *why);
    return finish(OptimizeStatus::IterationLimit,
                  fmt::format("not converged: iteration limit {} reached (lp = {:.6g}, gradient "
                              "norm {:.3g})",
                              settings.iter, r.lp, r.grad.norm()));
}

}  // namespace advi
