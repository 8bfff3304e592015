// The Auto rule: phases of constant step size, each ended when the running average of its
// iterates stops improving, that average compared with the best q so far under common random
// numbers, and a stop once a phase no longer gains enough and q passes the gradient-only
// optimality checks.
//
// Why this shape. Stochastic gradient ascent at a fixed step size does not converge to the
// optimum but to a stationary distribution around it, whose spread shrinks with the step size;
// the average of the iterates over that distribution is far closer to the optimum than any one
// iterate (Dhaka et al. 2020), and a smaller step size removes what bias is left (Welandawe et
// al. 2024). Every decision is a paired ELBO difference over the common draws (log p's additive
// constant cancels draw by draw) or a statistic of gradients, never a ratio to |ELBO|. The
// average over the last half to three quarters of a phase is scored once per block of
// eval_elbo iterations and compared with the score half a phase earlier: while q drifts, that
// gain grows with the phase's length, so a slow drift is not a plateau; once the iterates are
// stationary it shrinks like the averaging error. A step size too small to move q gains
// nothing, but its q fails the location check (runaway.hpp), so it is not called converged:
// the step size doubles instead.
#include <advi/engine/auto_rule.hpp>

#include <chrono>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/runaway.hpp>
#include <advi/engine/step_size.hpp>

namespace advi {

namespace {

constexpr int kMaxEtaReductions = 8;  // as run_advi's Robust back-off
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What a later q is compared with: its ELBO over the common draws, per draw, and its entropy.
struct Checkpoint {
    Eigen::VectorXd log_p;  // per common draw, NaN where dropped
    double elbo = -std::numeric_limits<double>::infinity();
    double entropy = 0.0;
};

// The ELBO of one candidate q over the common draws, per draw for paired comparisons.
struct Scored : Checkpoint {
    Approximation q;
    double se = kNaN;
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
    s.entropy = q.entropy();
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
    // The rounding of the per-draw differences: log p is held to 2^-52 of its magnitude, so
    // at |log p| = 1e200 a gain of 0.05 nats cannot be seen (it reads 0, exactly). Gains are
    // decided only where they are resolved: this is precision, not a scale of the decision.
    double resolution = 0.0;
    bool resolved(double nats) const { return resolution <= 0.1 * nats; }
};

Gain paired_gain(const Checkpoint& a, const Checkpoint& b) {
    Gain g;
    if (a.log_p.size() != b.log_p.size() || a.log_p.size() == 0) {
        g.value = b.elbo - a.elbo;
        return g;
    }
    const Eigen::VectorXd d = b.log_p - a.log_p;
    double sum = 0.0, magnitude = 0.0;
    int n = 0;
    for (Eigen::Index i = 0; i < d.size(); ++i) {
        if (std::isfinite(d[i])) {
            sum += d[i];
            magnitude = std::max({magnitude, std::fabs(a.log_p[i]), std::fabs(b.log_p[i])});
            ++n;
        }
    }
    g.resolution = magnitude * std::numeric_limits<double>::epsilon();
    if (n == 0)
        return g;
    g.value = sum / n + b.entropy - a.entropy;
    g.se = pair_mean_se(d);
    return g;
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

// A phase's running average: the mean of its block means from the last power of two of blocks
// on (two accumulators, so the average spans between half and three quarters of the phase and
// memory stays at two parameter vectors, whatever the family's size).
class PhaseAverage {
public:
    explicit PhaseAverage(Eigen::Index n) : older_(Eigen::VectorXd::Zero(n)), newer_(older_) {}
    void add_block(const Eigen::VectorXd& block_mean) {
        ++blocks_;
        if ((blocks_ & (blocks_ - 1)) == 0) {  // a power of two: the older span starts later
            older_ = newer_;
            older_count_ = newer_count_;
            newer_.setZero();
            newer_count_ = 0;
        }
        older_ += block_mean;
        ++older_count_;
        newer_ += block_mean;
        ++newer_count_;
    }
    int blocks() const { return blocks_; }
    Eigen::VectorXd average() const { return older_ / older_count_; }

private:
    Eigen::VectorXd older_, newer_;
    int older_count_ = 0, newer_count_ = 0, blocks_ = 0;
};

}  // namespace

void run_auto_rule(Estimator& est, const Approximation& q0, double eta, const Options& opts,
                   const std::function<void(int, const Approximation&)>& monitor, AdviResult& res,
                   const AutoRuleSettings& settings) {
    auto log = [&](const std::string& line) {
        if (opts.log != nullptr)
            *opts.log << line << '\n';
    };
    StepSize steps(eta, /*decay=*/false);
    int last_row = 0;  // the iteration of the last table row shown (opts.refresh)
    const auto loop_start = std::chrono::steady_clock::now();
    // The tolerances in nats grow with the number of coordinates beyond 100: the iterate
    // average's own error, a loss in ELBO of order (coordinates x step size / its length), is
    // a sum over coordinates, and 0.02 nats over 2600 of them (examples' ppca_ard) asks more
    // of each than a phase of 10000 iterations gives (its first phase never reached a plateau).
    const double per_size = std::max(1.0, q0.dim() / 100.0);
    const double plateau_gain = settings.plateau_gain * per_size;
    const double min_gain = settings.min_gain * per_size;
    // eta never doubles above this: the first phase's eta, lowered by every back-off from a
    // non-finite step (near a cliff of log p, doubling and backing off would alternate until
    // the back-offs ran out: a transformed parameter's bound, dsl/stan's constraints test).
    double eta_ceiling = eta;
    const int block = opts.eval_elbo;
    Approximation q = q0;

    Scored best = score(est, q0, 0);  // the best phase average so far (q0 at first)
    std::optional<Scored> phase_best;
    std::vector<Checkpoint> checks;
    PhaseAverage average(q0.num_params());
    Eigen::VectorXd block_sum = Eigen::VectorXd::Zero(q0.num_params());
    Eigen::VectorXd last_block_mean;
    int in_block = 0;
    int phases = 0;
    int grad_doublings = 0;
    int eta_doublings = 0;
    Gain last_gain;
    Gain last_within;            // the last gain within a phase
    std::string not_at_optimum;  // why the last small gain was not taken for convergence
    int iter = 1;
    int phase_start = 0;  // the iteration before the current step size's first
    auto new_phase = [&] {
        q = best.q;
        phase_start = iter;
        last_within = Gain{};
        checks.clear();
        phase_best.reset();
        average = PhaseAverage(q0.num_params());
        block_sum.setZero();
        in_block = 0;
    };
    log(
        fmt::format("Begin stochastic gradient ascent (Auto rule: eta = {:g}, fixed until the "
                    "iterate average stops improving, then smaller).",
                    eta));
    if (opts.refresh != 0)
        log(fmt::format("  {:>6}  {:>10}  {:>15}  {:>12}   notes", "iter", "eta", "ELBO(average)",
                        "gain"));

    bool interrupted = false;
    for (; iter <= opts.max_iterations; ++iter) {
        if (opts.interrupted()) {
            interrupted = true;
            break;
        }
        std::string failure = gradient_step(est, q, steps, iter);
        std::optional<std::string> off = failure.empty() ? ran_off(q, opts) : std::nullopt;
        if (off && iter - phase_start < block) {
            // Beyond the limit within a block of a new step size: that is one step too large
            // (an improper posterior's drift takes thousands of iterations to get there), so it
            // is backed off as a step that blew up. From the init point on a regression on raw
            // scales, the searched eta = 10 put the sd of log sigma at 2e4 in one step.
            failure = fmt::format("{} at iteration {}, {} iteration(s) into step size {:g}", *off,
                                  iter, iter - phase_start, steps.eta());
            off.reset();
        }
        if (off) {
            res.stop_reason = fmt::format("{} (iteration {})", *off, iter);
            res.iterations = iter;
            log("  " + res.stop_reason);
            res.q = q;
            res.elbo = est.elbo(q);
            return;
        }
        if (!failure.empty()) {
            // A step that blew up says the step size is too large here: back to the best q
            // with a ten times smaller eta.
            if (res.eta_reductions == kMaxEtaReductions) {
                throw FitError(fmt::format(
                    "{}, after eta had been reduced {} times (to {:g}) following non-finite or "
                    "runaway steps; the model may be severely ill-conditioned or misspecified: "
                    "check "
                    "it and its initial values (init)",
                    failure, res.eta_reductions, steps.eta()));
            }
            ++res.eta_reductions;
            steps.reset(steps.eta() / 10.0);
            eta_ceiling = std::min(eta_ceiling, steps.eta());
            log(fmt::format("  {}; restored q from iteration {}, eta reduced to {:g}", failure,
                            best.iteration, steps.eta()));
            new_phase();
            continue;
        }
        canonical_signs(q);
        if (opts.monitor_every > 0 && iter % opts.monitor_every == 0)
            monitor(iter, q);

        q.add_params_to(block_sum);
        if (++in_block < block)
            continue;
        last_block_mean = block_sum / block;
        average.add_block(last_block_mean);
        block_sum.setZero();
        in_block = 0;

        Scored avg = score(est, with_params(q, average.average()), iter);
        if (!std::isfinite(avg.elbo)) {
            // The average sits where log p fails: keep going, the next one may not.
            continue;
        }
        res.elbo_iterations.push_back(iter);
        res.elbo_trace.push_back(avg.elbo);
        res.trace.push_back(
            {.iteration = iter,
             .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start)
                            .count(),
             .eta = steps.eta(),
             .elbo = avg.elbo,
             .elbo_se = avg.se});
        if (!phase_best || avg.elbo > phase_best->elbo)
            phase_best = avg;
        checks.push_back(avg);
        const int j = average.blocks();
        const bool show_row = opts.row_due(iter, last_row);
        if (j < 2 || checks.size() < 2) {
            if (show_row)
                log(fmt::format("  {:>6}  {:>10.3g}  {:>15.7g}  {:>12}", iter, steps.eta(),
                                avg.elbo, "-"));
            continue;
        }
        // The gain over the average of half a phase earlier.
        const Checkpoint& earlier = checks[static_cast<size_t>(std::max(j / 2 - 1, 0))];
        const Gain within = paired_gain(earlier, avg);
        last_within = within;
        res.trace.back().gain = within.value;
        // Diminishing returns end a later phase too, where it has gained much (over
        // settings.diminishing_from min_gains over the best q before it) and its last half
        // gained under settings.diminishing of that: a phase whose average still creeps (ppca_ard
        // at eta 0.031: 46 nats in 14,000 iterations after 17,000 in the first 1,100) learns less
        // than the next, smaller step size does (1,000 nats at once there). Not in the first phase,
        // whose gain is the way from the start, nor in phases of small gains (the centred eight
        // schools then ended 0.5 to 1 nat short). Convergence is still decided between phases.
        double enough = plateau_gain;
        if (phases > 0) {
            const double phase_gain = paired_gain(best, avg).value;
            if (phase_gain > settings.diminishing_from * min_gain)
                enough = std::max(enough, settings.diminishing * phase_gain);
        }
        const bool plateau = !(within.value > enough) && within.resolved(plateau_gain);
        auto log_block = [&](const char* note) {
            if (!show_row)
                return;
            log(fmt::format("  {:>6}  {:>10.3g}  {:>15.7g}  {:>12.3g}{}", iter, steps.eta(),
                            avg.elbo, within.value, note));
        };
        if (!plateau) {
            // Still drifting? Then the average lags behind q: where the mean of the last block
            // of iterates beats it beyond the plateau tolerance and its noise, the average
            // starts again from that block. Without this, a q that drifts for thousands of
            // iterations (or along a curved valley, such as the rotations that leave PPCA's
            // Z W' unchanged) is averaged over the whole path, and the average of points on a
            // curve is off the curve: on examples' ppca_ard it scored 600 to 1,600 nats below
            // the last block's mean, and fell further as the phase went on.
            Scored recent = score(est, with_params(q, last_block_mean), iter);
            const Gain lead = paired_gain(avg, recent);
            if (std::isfinite(recent.elbo) && lead.value > plateau_gain &&
                !(lead.value < 2.0 * lead.se)) {
                if (recent.elbo > phase_best->elbo)
                    phase_best = recent;
                average = PhaseAverage(q0.num_params());
                average.add_block(last_block_mean);
                checks.clear();
                checks.push_back(std::move(recent));
                log_block("   behind the last block: average restarted");
            } else {
                log_block("");
            }
            continue;
        }
        log_block("   PLATEAU");

        // The phase is over: its best average against the best q so far.
        ++phases;
        last_gain = paired_gain(best, *phase_best);
        // Small: within min_gain of the best either way, and known to be (its MCSE below half
        // of min_gain; a smaller step size brings the next average closer to this one, so the
        // paired difference gets sharper). A phase that ended clearly below the best lost to
        // noise or to a step size too large (it blew up): a smaller step and more draws.
        const bool small = std::fabs(last_gain.value) <= min_gain &&
                           !(2.0 * last_gain.se > min_gain) && last_gain.resolved(min_gain);
        const bool lost = last_gain.value < -min_gain;
        if (last_gain.value > 0.0)
            best = *phase_best;
        if (small) {
            // Small gains also come from a step size too small to move q: converged only if
            // q's location and scale pass the gradient-only checks.
            // The location balance is 0 at an optimum of the ELBO over the whole of q's draws;
            // where some draws have no finite log density (a cliff, a rejected transformed
            // parameter) the ELBO is that of the finite ones, and the balance says nothing.
            const ScaleBalance balance = est.scale_balance(best.q);
            std::optional<std::string> off;
            if (balance.used < est.elbo_samples() / 2) {
                off = fmt::format(
                    "only {} of the {} draws of q have a finite log density and gradient, too "
                    "few for the gradient checks to vouch for q",
                    balance.used, est.elbo_samples());
            } else if (balance.used == est.elbo_samples()) {
                off = location_not_at_optimum(balance, opts);
            }
            if (!off)
                off = scale_not_at_optimum(balance, opts);
            if (!off) {
                res.converged = true;
                not_at_optimum.clear();
                break;
            }
            not_at_optimum = *off;
            if (steps.eta() * 2.0 <= eta_ceiling) {
                steps.set_eta(steps.eta() * 2.0);
                ++eta_doublings;
            }
            log(fmt::format("  NOT AT OPTIMUM: {}; eta {:g}", *off, steps.eta()));
        } else {
            if (lost && est.grad_samples() * 2 <= settings.max_grad_samples) {
                est.set_grad_samples(est.grad_samples() * 2);
                ++grad_doublings;
                log(fmt::format("  NOISY: grad_samples -> {}", est.grad_samples()));
            }
            // A smaller step size that gained G nats over the larger one says what the larger
            // one cost: the average's bias shrinks at least in proportion to eta (on examples'
            // ppca_ard about as eta squared: 0.1 -> 0.05 gained 9,000 nats, 0.05 -> 0.025 about
            // 2,300), so at least G is left to gain, and halving again and again spends a
            // whole phase, thousands of iterations there, per factor of 2. Where G is over
            // 4 min_gain the next eta is smaller by sqrt(min_gain / G), down to a quarter.
            // (The first phase's gain is mostly the way from the start: it does not count.)
            double factor = settings.decrease;
            if (phases >= 2 && last_gain.value > 0.0)
                factor = std::clamp(std::sqrt(min_gain / last_gain.value),
                                    settings.decrease * settings.decrease, settings.decrease);
            steps.set_eta(steps.eta() * factor);
        }
        new_phase();
    }
    res.iterations = interrupted ? iter - 1 : std::min(iter, opts.max_iterations);

    // The answer: the best average, of a finished phase or of the current one; unless the fit
    // stopped while q still drifted, where the mean of the last block of iterates can be ahead
    // of every average (the average of a phase that never reached a plateau lags a quarter to
    // half of it behind; the last iterate alone carries all of the step's noise).
    if (phase_best && paired_gain(best, *phase_best).value > 0.0)
        best = *phase_best;
    if (!res.converged && !interrupted && last_block_mean.size() != 0) {
        Scored last = score(est, with_params(q, last_block_mean), res.iterations);
        if (std::isfinite(last.elbo) && paired_gain(best, last).value > 0.0)
            best = std::move(last);
    }
    res.q = best.q;
    res.elbo = best.elbo;
    res.elbo_se = best.se;

    std::string extra;
    if (grad_doublings > 0)
        extra +=
            fmt::format("; phases lost to gradient noise: grad_samples doubled {} time(s), to {}",
                        grad_doublings, est.grad_samples());
    if (eta_doublings > 0)
        extra += fmt::format("; eta doubled {} time(s) where q was not moving", eta_doublings);
    if (interrupted) {
        res.stop_reason = fmt::format("interrupted after {} iterations", res.iterations);
        log(fmt::format("Interrupted at iteration {}: the fit is not converged.", res.iterations));
    } else if (res.converged) {
        res.stop_reason = fmt::format(
            "the iterate average reached a plateau at {} step size(s); the last phase gained "
            "{:.2g} +- {:.2g} nats (|gain| and 2 MCSE <= {:g}), and q's location and scale pass "
            "the gradient "
            "checks{}",
            phases, last_gain.value, last_gain.se, min_gain, extra);
    } else {
        res.stop_reason =
            phases == 0
                ? (std::isnan(last_within.value)
                       ? fmt::format("max_iterations reached before two blocks of eval_elbo = {} "
                                     "iterations could be compared",
                                     block)
                   : last_within.resolved(plateau_gain)
                       ? fmt::format("max_iterations reached before the iterate average reached a "
                                     "plateau: its ELBO still rose {:.3g} nats over the last half "
                                     "phase; the posterior may be improper or the log density "
                                     "unbounded, or q is still far from the optimum",
                                     last_within.value)
                       : fmt::format(
                             "max_iterations reached before the iterate average reached a "
                             "plateau: at a log density of magnitude {:.3g}, double precision "
                             "resolves its ELBO differences only to {:.2g} nats (the log density "
                             "may be unbounded)",
                             last_within.resolution / std::numeric_limits<double>::epsilon(),
                             last_within.resolution))
                : fmt::format(
                      "max_iterations reached in step size {} (eta {:g}) before its iterate "
                      "average reached a plateau{}; step size {} had gained {:.2g} +- {:.2g} "
                      "nats over the best q before it",
                      phases + 1, steps.eta(),
                      std::isnan(last_within.value)
                          ? std::string()
                          : fmt::format(" (its ELBO rose {:.3g} nats over the last half of it)",
                                        last_within.value),
                      phases, last_gain.value, last_gain.se);
        double rise = 0.0;
        const int span = std::min(10, static_cast<int>(res.elbo_trace.size()) - 1);
        if (phases > 0 && still_rising(res.elbo_trace, span, &rise)) {
            res.stop_reason += fmt::format(
                "; the ELBO kept rising over the last {} evaluations without slowing down (by "
                "{:.3g} every {} iterations): the posterior may be improper or the log density "
                "unbounded, or q is still far from the optimum",
                span, rise, block);
        }
        if (!not_at_optimum.empty()) {
            res.stop_reason += "; " + not_at_optimum;
        } else if (auto off = scale_not_at_optimum(est.scale_balance(res.q), opts)) {
            // Say which direction has no optimum, if one plainly has none (an improper
            // posterior: q drifts for ever).
            res.stop_reason += "; " + *off;
        }
        res.stop_reason += extra;
        log("Informational Message: The maximum number of iterations is reached! The algorithm "
            "may not have converged.");
    }
    if (res.eta_reductions > 0) {
        res.stop_reason += fmt::format("; eta reduced {} time(s) after non-finite or runaway steps",
                                       res.eta_reductions);
    }
}

}  // namespace advi
