// The Auto rule: phases of constant step size, each ended by stationarity (split-R-hat of
// the iterates), its iterate average compared with the previous phase's under common random
// numbers, and a stop once a smaller step size no longer pays.
//
// Why this shape. Stochastic gradient ascent at a fixed step size does not converge to the
// optimum but to a stationary distribution around it, whose spread shrinks with the step size;
// the average of the iterates over that distribution is far closer to the optimum than any one
// iterate (Dhaka et al. 2020). Stationarity is a statistic of the iterates, not of the ELBO's
// size: R-hat compares the drift between batches of iterates with their noise, so a step size
// too small to move q is never "converged" (it drifts for ever, slowly), and nothing depends on
// the magnitude of log p. Whether a smaller step size is worth its cost is measured directly:
// the ELBO of the new average minus the old, per common draw (paired, so log p's additive
// constant cancels), with its Monte Carlo standard error.
#include <advi/engine/auto_rule.hpp>

#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/runaway.hpp>
#include <advi/engine/stationarity.hpp>
#include <advi/engine/step_size.hpp>

namespace advi {

namespace {

constexpr int kMaxEtaReductions = 8;  // as run_advi's Robust back-off
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A trace that has converged to a point (no gradient noise left: sticking the landing on a
// target in q's family) has no noise to compare its drift with; movements below this fraction
// of q's own scale count as none. Slow drift from a tiny step size is far above it over a
// window (1e-6 per iteration is 1e-4 over 100 iterations).
constexpr double kRelativeFloor = 1e-9;

// The ELBO of one candidate q over the common draws, per draw for paired comparisons.
struct Scored {
    Approximation q;
    double elbo = -std::numeric_limits<double>::infinity();
    double se = kNaN;
    Eigen::VectorXd log_p;  // per common draw, NaN where dropped
    int iteration = 0;
};

// The MCSE of an ELBO estimate over the common draws: half of them are the negatives of the
// other half (estimator.cpp), so the pair means are the independent terms.
double pair_mean_se(const Eigen::VectorXd& x) {
    const Eigen::Index half = x.size() / 2;
    double sum = 0.0, sum2 = 0.0;
    int n = 0;
    for (Eigen::Index i = 0; i < half; ++i) {
        const double v = 0.5 * (x[i] + x[i + half]);
        if (!std::isfinite(v))
            continue;
        sum += v;
        sum2 += v * v;
        ++n;
    }
    if (n < 2)
        return kNaN;
    const double mean = sum / n;
    return std::sqrt(std::max(sum2 / n - mean * mean, 0.0) / (n - 1));
}

Scored score(Estimator& est, const Approximation& q, int iteration) {
    Scored s;
    s.q = q;
    s.iteration = iteration;
    s.elbo = est.elbo(q);
    s.log_p = est.last_elbo().log_p;
    if (s.log_p.size() > 0) {
        // Centre before the squares: log p may carry a constant of 1e9.
        const double centre = s.elbo - q.entropy();
        s.se = pair_mean_se((s.log_p.array() - centre).matrix());
    }
    return s;
}

// ELBO(b) - ELBO(a) with its MCSE, per common draw: no additive constant survives.
struct Gain {
    double value = kNaN;
    double se = kNaN;
};

Gain paired_gain(const Scored& a, const Scored& b) {
    Gain g;
    if (a.log_p.size() != b.log_p.size() || a.log_p.size() == 0) {
        g.value = b.elbo - a.elbo;
        return g;
    }
    const Eigen::VectorXd d = b.log_p - a.log_p;
    double sum = 0.0;
    int n = 0;
    for (Eigen::Index i = 0; i < d.size(); ++i) {
        if (std::isfinite(d[i])) {
            sum += d[i];
            ++n;
        }
    }
    if (n == 0)
        return g;
    g.value = sum / n + b.q.entropy() - a.q.entropy();
    g.se = pair_mean_se(d);
    return g;
}

// The floor under R-hat's drift, per variational parameter: a fraction of q's scale for the
// means and the full-rank factor's rows, of 1 for mean-field's log-scales.
Eigen::VectorXd movement_floor(const Approximation& q) {
    const int d = q.dim();
    Eigen::VectorXd floor(q.num_params());
    const Eigen::VectorXd sd = q.sd();
    floor.head(d) = kRelativeFloor * sd;
    if (q.family() == Family::MeanField) {
        floor.tail(d).setConstant(kRelativeFloor);
    } else {
        int k = d;
        for (int j = 0; j < d; ++j) {
            for (int i = j; i < d; ++i) floor[k++] = kRelativeFloor * sd[i];
        }
    }
    return floor;
}

// Full-rank q is the same with any column of L negated; its iterates must not wander between
// such twins, or their average (of L and -L) is no q at all. Keep L's diagonal positive.
void canonical_signs(Approximation& q) {
    if (q.family() != Family::FullRank || (q.L().diagonal().array() >= 0.0).all())
        return;
    Eigen::MatrixXd L = q.L();
    for (Eigen::Index j = 0; j < L.cols(); ++j) {
        if (L(j, j) < 0.0)
            L.col(j) = -L.col(j);
    }
    q = Approximation::full_rank(q.mu(), std::move(L));
}

Approximation with_params(const Approximation& like, const Eigen::VectorXd& p) {
    Approximation q = like;
    q.set_params(p);
    return q;
}

}  // namespace

void run_auto_rule(Estimator& est, const Approximation& q0, double eta, const Options& opts,
                   const std::function<void(int, const Approximation&)>& monitor, AdviResult& res,
                   const AutoRuleSettings& settings) {
    auto log = [&](const std::string& line) {
        if (opts.log != nullptr)
            *opts.log << line << '\n';
    };
    // The searched eta was chosen for Stan's decaying sequence, whose steps are eta / 7 by
    // iteration 50. Measured: a first phase at 0.2 x eta improved hier_logistic's held-out
    // density within 10000 iterations (-0.616 against -0.699 at 1 x eta) but left full-rank
    // fits of 2-D Gaussians unconverged at 10000; the default stays 1 until the rule is faster.
    StepSize steps(eta * settings.initial_scale, /*decay=*/false);
    IterateWindow window(settings.batches, settings.batch_length);
    Approximation q = q0;

    // The last good point to back off to, and the averages of finished phases.
    Scored last_good = score(est, q0, 0);
    std::optional<Scored> best;  // the best phase average so far
    int phase = 0;               // phases ended by stationarity
    int grad_doublings = 0;
    int unsettled = 0;  // failed R-hat checks since the window last grew
    bool stationary_once = false;
    std::string stop;
    Gain last_gain;
    log(
        fmt::format("Begin stochastic gradient ascent (Auto rule: fixed eta = {:g} until the "
                    "iterates are stationary, then smaller).",
                    eta));
    log(fmt::format("  {:>6}  {:>10}  {:>8}  {:>15}  {:>12}   notes", "iter", "eta", "R-hat",
                    "ELBO(average)", "gain"));

    int iter = 1;
    bool interrupted = false;
    for (; iter <= opts.max_iterations; ++iter) {
        if (opts.interrupted()) {
            interrupted = true;
            break;
        }
        std::string failure;
        const ElboGradient g = est.gradient(q);
        if (!g.ok()) {
            failure = fmt::format(
                "the log density or its gradient was not finite at any of the {} draws tried "
                "at iteration {}",
                g.dropped, iter);
        } else if (!ascend(q, steps, g.grad)) {
            failure =
                fmt::format("the variational parameters became non-finite at iteration {}", iter);
        } else if (auto off = ran_off(q, opts)) {
            res.stop_reason = fmt::format("{} (iteration {})", *off, iter);
            res.iterations = iter;
            log("  " + res.stop_reason);
            res.q = q;
            res.elbo = est.elbo(q);
            return;
        }
        if (!failure.empty()) {
            // A step that blew up says the step size is too large here: back to the last
            // good q with a ten times smaller eta.
            if (res.eta_reductions == kMaxEtaReductions) {
                throw FitError(fmt::format(
                    "{}, after eta had been reduced {} times (to {:g}) following non-finite "
                    "steps; the model may be severely ill-conditioned or misspecified: check "
                    "it and its initial values (init)",
                    failure, res.eta_reductions, steps.eta()));
            }
            ++res.eta_reductions;
            steps.reset(steps.eta() / 10.0);
            q = last_good.q;
            window.clear();
            unsettled = 0;
            log(fmt::format("  {}; restored q from iteration {}, eta reduced to {:g}", failure,
                            last_good.iteration, steps.eta()));
            continue;
        }
        canonical_signs(q);
        if (opts.monitor_every > 0 && iter % opts.monitor_every == 0)
            monitor(iter, q);

        window.add(q.params());
        // Check once per completed batch of a full window.
        if (!window.full() || !window.just_completed())
            continue;
        const Eigen::VectorXd rhat = window.rhat(movement_floor(q));
        const double rhat_max = rhat.maxCoeff();
        if (!(rhat_max < settings.rhat_max)) {
            // Not stationary over this window: let it grow, so that it spans enough
            // autocorrelation times. After a first stationary phase the transient is over,
            // and a window that must grow past an eighth of the budget means the gradient
            // noise makes the iterates mix too slowly: more draws per gradient instead.
            const bool noisy = stationary_once &&
                               window.length() * 8L >= static_cast<long>(opts.max_iterations) &&
                               est.grad_samples() * 2 <= settings.max_grad_samples;
            if (noisy) {
                est.set_grad_samples(est.grad_samples() * 2);
                ++grad_doublings;
                window.clear();
                unsettled = 0;
                log(fmt::format(
                    "  {:>6}  {:>10.3g}  {:>8.3f}  {:>15}  {:>12}   NOISY: grad_samples "
                    "-> {}",
                    iter, steps.eta(), rhat_max, "", "", est.grad_samples()));
            } else if (++unsettled >= settings.batches) {
                // The window has slid its whole length without settling: the drift is slower
                // than the window spans (or the transient is longer), so double it.
                window.merge();
                unsettled = 0;
            }
            continue;
        }

        // Stationary: the window's average is this phase's q.
        stationary_once = true;
        ++phase;
        Scored avg = score(est, with_params(q, window.average()), iter);
        if (!std::isfinite(avg.elbo)) {
            // Treated like a non-finite step: the average sits where log p fails.
            window.clear();
            unsettled = 0;
            continue;
        }
        res.elbo_iterations.push_back(iter);
        res.elbo_trace.push_back(avg.elbo);
        std::string note;
        bool done = false;
        if (best) {
            last_gain = paired_gain(*best, avg);
            // Not worth another decrease: the new average gained less than min_gain nats
            // (or lost). Gains are paired differences: no |ELBO| enters.
            // Stop when the gain is below min_gain nats and also within 2 MCSEs of
            // zero: a gain that is small but plainly real says the optimum is still some way
            // off (gains shrink like the distance squared, their MCSE like the distance).
            done =
                !(last_gain.value > settings.min_gain) && !(last_gain.value > 2.0 * last_gain.se);
            note = done ? "   GAIN TOO SMALL" : "";
        }
        log(fmt::format("  {:>6}  {:>10.3g}  {:>8.3f}  {:>15.7g}  {:>12}{}", iter, steps.eta(),
                        rhat_max, avg.elbo,
                        best ? fmt::format("{:.3g}", last_gain.value) : std::string("-"), note));
        if (!best || last_gain.value > 0.0)
            best = avg;
        last_good = *best;
        if (done) {
            // A claim of convergence must also pass the gradient-only scale check.
            if (auto off = scale_not_at_optimum(est.scale_balance(best->q), opts)) {
                log("  SCALE NOT AT OPTIMUM: " + *off);
                stop = *off;
            } else {
                res.converged = true;
                stop.clear();
                break;
            }
        }
        // Next phase: a smaller step size from the average, a fresh window.
        q = best->q;
        steps.set_eta(steps.eta() * settings.decrease);
        window.clear();
        unsettled = 0;
    }
    res.iterations = interrupted ? iter - 1 : std::min(iter, opts.max_iterations);

    // The answer: the best phase average; without one (not yet stationary), the better of
    // the current window's average and the last iterate.
    if (!best) {
        Scored last = score(est, q, res.iterations);
        if (window.full()) {
            Scored avg = score(est, with_params(q, window.average()), res.iterations);
            if (avg.elbo > last.elbo)
                last = avg;
        }
        best = last;
    }
    res.q = best->q;
    res.elbo = best->elbo;
    res.elbo_se = best->se;

    const std::string extra =
        grad_doublings > 0 ? fmt::format(
                                 "; gradient noise too large to progress: grad_samples doubled {} "
                                 "time(s), to {}",
                                 grad_doublings, est.grad_samples())
                           : std::string();
    if (interrupted) {
        res.stop_reason = fmt::format("interrupted after {} iterations", res.iterations);
        log(fmt::format("Interrupted at iteration {}: the fit is not converged.", res.iterations));
    } else if (res.converged) {
        res.stop_reason = fmt::format(
            "stationary at {} step size(s) (split-R-hat of the iterates < {:g}); the last "
            "decrease gained {:.2g} +- {:.2g} nats (< {:g} and < 2 MCSE){}",
            phase, settings.rhat_max, last_gain.value, last_gain.se, settings.min_gain, extra);
    } else {
        res.stop_reason = phase == 0
                              ? fmt::format(
                                    "max_iterations reached before the iterates were stationary "
                                    "(split-R-hat >= {:g}): q is still moving",
                                    settings.rhat_max)
                              : fmt::format(
                                    "max_iterations reached after {} stationary phase(s); the last "
                                    "decrease still gained {:.2g} +- {:.2g} nats",
                                    phase, last_gain.value, last_gain.se);
        if (phase == 1) {
            // No decrease was compared yet: say so instead of "gained nan".
            res.stop_reason =
                "max_iterations reached after 1 stationary phase: the iterates at the next, "
                "smaller step size were not yet stationary";
        }
        if (!stop.empty()) {
            res.stop_reason += "; " + stop;
        } else if (auto off = scale_not_at_optimum(est.scale_balance(res.q), opts)) {
            // Say which direction has no optimum, if one plainly has none (an improper
            // posterior: q drifts for ever, so it is never stationary).
            res.stop_reason += "; " + *off;
        }
        res.stop_reason += extra;
        log("Informational Message: The maximum number of iterations is reached! The algorithm "
            "may not have converged.");
    }
    if (res.eta_reductions > 0) {
        res.stop_reason +=
            fmt::format("; eta reduced {} time(s) after non-finite steps", res.eta_reductions);
    }
}

}  // namespace advi
