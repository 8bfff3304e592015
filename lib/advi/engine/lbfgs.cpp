// L-BFGS ascent of the log density (as descent of f = -lp) with CmdStan's tolerances.
// Written here rather than on Debian's liblbfgspp 0.1.0, which has no per-iteration callback
// and only two stopping tests: we need CmdStan's five, the runaway check, interruption and a
// line search that backs off from non-finite values.
#include <advi/engine/lbfgs.hpp>

#include <chrono>
#include <cmath>
#include <deque>
#include <limits>

#include <fmt/format.h>

#include <advi/engine/line_search.hpp>

namespace advi {
namespace {

// The (s, y) pairs of the last steps and the two-loop recursion (Nocedal & Wright, Algorithm
// 7.4): H g in O(m dim) with H the inverse-Hessian approximation of f, scaled initially by
// s'y / y'y of the newest pair.
class History {
public:
    explicit History(int m) : m_(m) {}
    void add(const Eigen::VectorXd& s, const Eigen::VectorXd& y) {
        const double sy = s.dot(y);
        // Only pairs of positive curvature keep H positive definite (a step across a region
        // where f is not convex, or a line search without the curvature condition, may not).
        if (!(sy > std::numeric_limits<double>::epsilon() * y.squaredNorm()))
            return;
        if (static_cast<int>(s_.size()) == m_) {
            s_.pop_front();
            y_.pop_front();
            rho_.pop_front();
        }
        s_.push_back(s);
        y_.push_back(y);
        rho_.push_back(1.0 / sy);
    }
    void clear() {
        s_.clear();
        y_.clear();
        rho_.clear();
    }
    [[nodiscard]] bool empty() const { return s_.empty(); }
    // H g.
    [[nodiscard]] Eigen::VectorXd apply(const Eigen::VectorXd& g) const {
        Eigen::VectorXd q = g;
        const std::size_t n = s_.size();
        std::vector<double> alpha(n);
        for (std::size_t i = n; i-- > 0;) {
            alpha[i] = rho_[i] * s_[i].dot(q);
            q -= alpha[i] * y_[i];
        }
        if (n > 0)
            q *= s_.back().dot(y_.back()) / y_.back().squaredNorm();
        for (std::size_t i = 0; i < n; ++i) {
            const double beta = rho_[i] * y_[i].dot(q);
            q += (alpha[i] - beta) * s_[i];
        }
        return q;
    }

private:
    int m_;
    std::deque<Eigen::VectorXd> s_, y_;
    std::deque<double> rho_;
};

}  // namespace

OptimizerResult maximize_lbfgs(Target& target, const Eigen::VectorXd& init,
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

    // f = -lp: the line search and the recursion are written for minimisation.
    const Objective f = [&](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
        ++r.gradient_evaluations;
        const double lp = evaluate(target, x, g);
        g = -g;
        return -lp;
    };
    Eigen::VectorXd x = init, g(dim);
    double fx = f(x, g);
    r.zeta = x;
    r.lp = -fx;
    r.grad = -g;
    if (!std::isfinite(fx) || !g.allFinite())
        return finish(OptimizeStatus::NonFiniteStart,
                      optimizer::nonfinite_start(-fx, -g, settings));
    optimizer::record_row(r, settings, start, 0.0, 0.0);
    if (settings.on_iterate)
        settings.on_iterate(x, r.lp, r.grad);
    if (auto c = optimizer::gradient_converged(settings, g.norm(), std::nan(""))) {
        r.criterion = c->criterion;
        return finish(OptimizeStatus::Converged, c->message);
    }

    History history(settings.history_size);
    Eigen::VectorXd p = -g, x_new(dim), g_new(dim);
    double alpha0 = settings.init_alpha;
    bool restarted = false;  // the last line search was already a restart along -g
    while (r.iterations < settings.iter) {
        if (settings.interrupt != nullptr && settings.interrupt->load(std::memory_order_relaxed))
            return finish(OptimizeStatus::Interrupted,
                          fmt::format("interrupted after {} iterations", r.iterations));
        const LineSearchResult ls = strong_wolfe_search(f, x, fx, g, p, alpha0, x_new, g_new);
        if (ls.minus_infinity)
            return finish(OptimizeStatus::NoMode, optimizer::unbounded(p, settings));
        if (!ls.ok) {
            if (!restarted && !history.empty()) {
                // The quasi-Newton direction failed: forget the curvature pairs and try the
                // gradient, with CmdStan's first step length.
                history.clear();
                p = -g;
                alpha0 = settings.init_alpha;
                restarted = true;
                continue;
            }
            if (auto why = trend.no_mode(-fx, x, -g))
                return finish(OptimizeStatus::NoMode, *why);
            return finish(OptimizeStatus::LineSearchFailed,
                          fmt::format("line search failed after {} iterations: no step along the "
                                      "search direction increased the log density{} (lp = {:.6g}, "
                                      "gradient norm {:.3g})",
                                      r.iterations,
                                      ls.met_nonfinite ? " (the density was not finite at the "
                                                         "longer steps tried)"
                                                       : "",
                                      -fx, g.norm()));
        }
        restarted = false;
        ++r.iterations;
        const Eigen::VectorXd s = x_new - x;
        history.add(s, g_new - g);
        const double f_prev = fx;
        x.swap(x_new);
        g.swap(g_new);
        fx = ls.f;
        r.zeta = x;
        r.lp = -fx;
        r.grad = -g;
        optimizer::record_row(r, settings, start, s.norm(), ls.alpha);
        if (settings.on_iterate)
            settings.on_iterate(x, r.lp, r.grad);
        if (auto why = optimizer::ran_off(x, -fx, r.grad, settings))
            return finish(OptimizeStatus::NoMode, *why);
        trend.record(-fx, x);
        // The next direction, and with it g' H g for the relative-gradient test.
        p = -history.apply(g);
        const double rel_grad = -g.dot(p) / std::max(std::abs(fx), 1.0);
        if (auto c =
                optimizer::converged_by(settings, -f_prev, -fx, g.norm(), rel_grad, s.norm())) {
            r.criterion = c->criterion;
            return finish(OptimizeStatus::Converged, c->message);
        }
        // A quasi-Newton step has its own scale; without curvature pairs, CmdStan's first step.
        alpha0 = history.empty() ? settings.init_alpha : 1.0;
        if (!(g.dot(p) < 0.0)) {  // H lost positive definiteness numerically
            history.clear();
            p = -g;
            alpha0 = settings.init_alpha;
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
