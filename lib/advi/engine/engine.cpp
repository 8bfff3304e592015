// run_advi: paper Algorithm 1 with Stan's eta search and convergence rule, plus the Robust
// rule's safeguards (see the comments at each).
#include <advi/engine/engine.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include <boost/circular_buffer.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>

#include <advi/engine/auto_rule.hpp>
#include <advi/engine/counting_target.hpp>
#include <advi/engine/estimator.hpp>
#include <advi/engine/gaussian_newton.hpp>
#include <advi/engine/initial_point.hpp>
#include <advi/engine/pathfinder.hpp>
#include <advi/engine/runaway.hpp>
#include <advi/engine/start.hpp>
#include <advi/engine/step_size.hpp>
#include <advi/engine/whitened_target.hpp>

namespace advi {

namespace {

// Each back-off divides eta by 10; after this many the step sizes are too small to make
// progress and the divergence is the model's, not the optimiser's.
constexpr int kMaxEtaReductions = 8;

constexpr const char* kAdvice =
    "the model may be severely ill-conditioned or misspecified: check it and its initial "
    "values (init)";

// Stan's circ_buff_median: the upper median (element n/2 after a partial sort).
double upper_median(const boost::circular_buffer<double>& cb) {
    std::vector<double> v(cb.begin(), cb.end());
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

// The relative ELBO change between two evaluations.
//  Stan: |prev - elbo| / |elbo|. Two things make this misbehave. (1) Each estimate uses
//  fresh draws, so the change includes Monte Carlo noise of order sd(log p)/sqrt(S) even
//  when q does not move; (2) dividing by |elbo| blows that noise up when the ELBO is near 0,
//  as it is for a normalised target (ELBO = -KL(q||p) -> 0), so such fits never converge.
//  Robust: (1) every estimate reuses one set of draws (common random numbers, see
//  Estimator), so the change measures how far q moved; (2) the denominator has a floor of
//  1, making the tolerance absolute (in nats) for ELBOs smaller than 1 in magnitude.
double relative_change(double elbo, double prev, ConvergenceRule rule) {
    if (rule == ConvergenceRule::Stan) {
        return std::fabs((prev - elbo) / elbo);
    }
    return std::fabs(elbo - prev) / std::max(std::fabs(elbo), 1.0);
}

// The progress tables print significant digits, never fixed-point decimals: an ELBO of
// 1.6e187 printed as 188 digits with %.3f, and relative changes below 5e-4 as 0.000.
void log_table_header(const Options& opts, double eta) {
    if (opts.log != nullptr) {
        *opts.log << fmt::format("Begin stochastic gradient ascent (eta = {:g}).\n", eta);
        if (opts.refresh != 0)
            *opts.log << fmt::format("  {:>6}  {:>15}  {:>16}  {:>15}   notes\n", "iter", "ELBO",
                                     "delta_ELBO_mean", "delta_ELBO_med");
    }
}

}  // namespace

// Every buffer whose size an option sets, refused before anything is allocated (a fit with
// elbo_samples = 2147483647 grew past 5 GB before any check): the common ELBO draws and the
// per-draw log densities the eta search keeps (elbo_samples x (dim + ...)), the output draws
// (output_samples x dim), and full-rank's factor with its gradient, step-size state and
// covariance (about 4 dim^2). Gradient draws are made one at a time and need no buffer.
void require_engine_memory(const Options& opts, int dim_int) {
    const std::int64_t dim = dim_int;
    if (opts.family == Family::FullRank) {
        require_memory(fmt::format("the full-rank approximation of {} dimensions", dim),
                       checked_product({4, dim, dim}));
    }
    if (opts.family == Family::LowRank) {
        // B, its gradient, its step sizes and the averages, with omega's and mu's alike.
        require_memory(
            fmt::format("the low-rank approximation of {} dimensions, rank {}", dim, opts.rank),
            checked_product({6, dim, std::int64_t{opts.rank} + 2}));
    }
    require_memory(fmt::format("option `output_samples` = {} (the output draws: {} x {} values)",
                               opts.output_samples, opts.output_samples, dim),
                   checked_product({opts.output_samples, dim}));
    if (opts.convergence == ConvergenceRule::Auto) {
        // The draws, a copy made while whitening them, and the log densities of q0 and of
        // the five eta candidates.
        require_memory(fmt::format("option `elbo_samples` = {} (the common ELBO draws: {} x {} "
                                   "values, twice, and {} log densities per eta candidate)",
                                   opts.elbo_samples, opts.elbo_samples, dim, opts.elbo_samples),
                       checked_product({opts.elbo_samples, 2 * dim + 7}));
    }
}

namespace {

// The fit cannot start from its initial approximation (run_with_start retries a default init).
class InitialApproximationError : public FitError {
public:
    using FitError::FitError;
};

// The fit proper, from opts.init with the standard scales (omega = 0, L = I) on `target`:
// run_advi below gives it the original target, or the whitened one with init zero.
AdviResult run_from_start(Target& target, const Options& opts) {
    const auto start = std::chrono::steady_clock::now();
    const int dim = target.dim();
    validate_options(opts, dim);
    require_engine_memory(opts, dim);
    const ConvergenceRule rule = opts.convergence;
    const bool robust = rule == ConvergenceRule::Auto;

    Estimator est(target, opts);
    const Eigen::VectorXd mu0 = opts.init.size() != 0 ? opts.init : Eigen::VectorXd::Zero(dim);
    const Approximation q0 = Approximation::initial(opts.family, mu0, opts.rank);

    // Fail early and clearly when the model cannot be evaluated around the initial values;
    // otherwise the same fault would surface later as "every eta candidate diverged".
    const double elbo_init = est.elbo(q0);
    const ElboEstimate init = est.last_elbo();
    if (!std::isfinite(elbo_init)) {
        const ElboEstimate& e = est.last_elbo();
        throw InitialApproximationError(fmt::format(
            "cannot compute the ELBO of the initial approximation (iteration 0): the log "
            "density was not finite at {} of the {} draws tried; {}",
            e.dropped, e.dropped + e.used, kAdvice));
    }
    {
        const ElboGradient g = est.gradient(q0);
        if (!g.ok()) {
            throw InitialApproximationError(fmt::format(
                "cannot compute the ELBO gradient at the initial approximation (iteration 0): "
                "the log density or its gradient was not finite at any of the {} draws tried; "
                "{}",
                g.dropped, kAdvice));
        }
    }

    AdviResult res;
    double eta = opts.eta;
    bool search_interrupted = false;
    if (opts.adapt_engaged) {
        EtaSearch search = search_eta(est, q0, init, opts);
        // Interrupted: no eta was chosen; the main loop below stops before its first step.
        search_interrupted = search.interrupted;
        if (!search_interrupted)
            eta = search.eta;
        res.eta_trials = std::move(search.trials);
    }
    res.eta = search_interrupted ? std::numeric_limits<double>::quiet_NaN() : eta;
    res.eta_search_interrupted = search_interrupted;

    // The main loop restarts from q0 with the chosen eta and a fresh sequence (as Stan).
    Approximation q = q0;
    Approximation last_good = q0;  // q at the last finite ELBO evaluation
    int last_good_iter = 0;
    double last_good_elbo = robust ? elbo_init : std::numeric_limits<double>::quiet_NaN();
    // Stan starts from elbo = 0, so its first relative change is 1; the Robust rule has a
    // real ELBO for q0, under the same common draws.
    double elbo_prev = robust ? elbo_init : 0.0;
    StepSize steps(eta);
    const int window = static_cast<int>(std::max(0.1 * opts.max_iterations / opts.eval_elbo, 2.0));
    boost::circular_buffer<double> rel_window(static_cast<size_t>(window));
    if (!search_interrupted && !robust)
        log_table_header(opts, eta);

    // The monitor's own time (e.g. a held-out log predictive density) is not the fit's.
    double monitor_seconds = 0.0;
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
               monitor_seconds;
    };
    auto monitor = [&](int iteration, const Approximation& at) {
        const auto t0 = std::chrono::steady_clock::now();
        opts.monitor(FitProgress{iteration, elapsed(), at});
        monitor_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    if (opts.monitor_every > 0) {
        monitor(0, q);
    }
    if (robust && !search_interrupted) {
        // The Auto rule's main loop (auto_rule.cpp).
        run_auto_rule(est, q0, eta, opts, monitor, res);
        res.draws = res.q.draw(est.output_rng(), opts.output_samples);
        res.dropped_draws = est.dropped();
        res.seconds = elapsed();
        return res;
    }

    // The ELBO of q as it is now, NaN once q has moved since its last evaluation.
    double q_elbo = robust ? elbo_init : std::numeric_limits<double>::quiet_NaN();
    bool stopped = false;
    bool ran_away = false;
    std::vector<double> trend{elbo_init};
    std::string scale_note;  // Robust: why the last claim of convergence was withdrawn  // Robust:
                             // the ELBO at q0, then at every evaluation
    int last_row = 0;        // the iteration of the last table row shown (opts.refresh)
    const auto loop_start = std::chrono::steady_clock::now();
    int iter = 1;
    for (; iter <= opts.max_iterations; ++iter) {
        if (opts.interrupted()) {
            stopped = true;
            break;
        }
        std::string failure = gradient_step(est, q, steps, iter);
        q_elbo = std::numeric_limits<double>::quiet_NaN();
        if (auto off = failure.empty() ? ran_off(q, opts) : std::nullopt) {
            // Not a step to undo: q has been heading there all along (an improper or
            // unbounded posterior has no optimum), and the relative-change rule would
            // soon call it converged.
            ran_away = true;
            res.stop_reason = fmt::format("{} (iteration {})", *off, iter);
            if (opts.log != nullptr) {
                *opts.log << fmt::format("  {}\n", res.stop_reason);
            }
            break;
        }
        const bool evaluate = iter % opts.eval_elbo == 0;
        double elbo = std::numeric_limits<double>::quiet_NaN();
        if (failure.empty() && evaluate) {
            elbo = est.elbo(q);
            if (!std::isfinite(elbo)) {
                const ElboEstimate& e = est.last_elbo();
                failure = fmt::format(
                    "the ELBO was not finite at iteration {} (log density not finite at {} of "
                    "the {} draws)",
                    iter, e.dropped, e.dropped + e.used);
            }
        }
        if (!failure.empty()) {
            if (!robust) {
                throw FitError(fmt::format("{} (eta = {:g}); {}", failure, steps.eta(), kAdvice));
            }
            // Robust: a step that blew up says the step sizes are too large here, not that
            // the fit is hopeless. Go back to the last q whose ELBO was finite and continue
            // with a ten times smaller eta and a fresh step-size sequence.
            if (res.eta_reductions == kMaxEtaReductions) {
                throw FitError(fmt::format(
                    "{}, after eta had been reduced {} times (to {:g}) following non-finite "
                    "steps; {}",
                    failure, res.eta_reductions, steps.eta(), kAdvice));
            }
            ++res.eta_reductions;
            steps.reset(steps.eta() / 10.0);
            q = last_good;
            q_elbo = last_good_elbo;
            if (opts.log != nullptr) {
                *opts.log << fmt::format(
                    "  {}; restored q from iteration {}, eta reduced to {:g}\n", failure,
                    last_good_iter, steps.eta());
            }
            continue;
        }
        if (opts.monitor_every > 0 && iter % opts.monitor_every == 0) {
            monitor(iter, q);
        }
        if (!evaluate) {
            continue;
        }

        const double rel = relative_change(elbo, elbo_prev, rule);
        rel_window.push_back(rel);
        const double rel_mean = std::accumulate(rel_window.begin(), rel_window.end(), 0.0) /
                                static_cast<double>(rel_window.size());
        const double rel_median = upper_median(rel_window);
        res.elbo_iterations.push_back(iter);
        res.elbo_trace.push_back(elbo);
        res.relative_changes.push_back(rel);
        res.trace.push_back(
            {.iteration = iter,
             .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start)
                            .count(),
             .eta = steps.eta(),
             .elbo = elbo,
             .rel_mean = rel_mean,
             .rel_median = rel_median});
        last_good = q;
        last_good_iter = iter;
        last_good_elbo = elbo;
        q_elbo = elbo;
        elbo_prev = elbo;

        std::string notes;
        if (rel_mean < opts.tol_rel_obj) {
            notes += "   MEAN ELBO CONVERGED";
            res.converged = true;
            res.stop_reason = fmt::format("relative ELBO change {:.2g} < tol_rel_obj {:g} (mean)",
                                          rel_mean, opts.tol_rel_obj);
        }
        if (rel_median < opts.tol_rel_obj) {
            notes += "   MEDIAN ELBO CONVERGED";
            if (!res.converged) {
                res.stop_reason =
                    fmt::format("relative ELBO change {:.2g} < tol_rel_obj {:g} (median)",
                                rel_median, opts.tol_rel_obj);
            }
            res.converged = true;
        }
        // Robust: a relative change is small against a large |ELBO| also when the ELBO
        // rises for ever (a flat improper posterior: ELBO = entropy of q, growing without
        // bound); a fit whose ELBO still rises steadily has not converged.
        double rise = 0.0;
        trend.push_back(elbo);
        if (res.converged && robust &&
            still_rising(trend, std::min(window, static_cast<int>(trend.size()) - 1), &rise)) {
            res.converged = false;
            notes = "   ELBO STILL RISING";
        }
        // Robust: a relative change is small also when the ELBO creeps up slowly without
        // bound (full-rank on a flat posterior: log(i) / 4), or against a large additive
        // constant in |ELBO| before any trend can show. Neither fools a test that reads
        // gradients only: is q's scale at an optimum of its family?
        if (res.converged && robust) {
            if (auto off = scale_not_at_optimum(est.scale_balance(q), opts)) {
                res.converged = false;
                notes = "   SCALE NOT AT OPTIMUM";
                scale_note = std::move(*off);
            } else {
                scale_note.clear();
            }
        }
        if (iter > 10 * opts.eval_elbo && (rel_median > 0.5 || rel_mean > 0.5)) {
            notes += "   MAY BE DIVERGING... INSPECT ELBO";
        }
        if (opts.log != nullptr && opts.row_due(iter, last_row)) {
            *opts.log << fmt::format("  {:>6}  {:>15.7g}  {:>16.4g}  {:>15.4g}{}\n", iter, elbo,
                                     rel_mean, rel_median, notes);
        }
        if (res.converged) {
            break;
        }
    }
    res.iterations = std::min(iter, opts.max_iterations);
    if (stopped) {
        res.iterations = iter - 1;
        res.stop_reason =
            search_interrupted
                ? fmt::format("interrupted during the eta search, after {} of its candidates",
                              res.eta_trials.size())
                : fmt::format("interrupted after {} iterations", res.iterations);
        if (opts.log != nullptr) {
            *opts.log << (search_interrupted
                              ? std::string("Interrupted during the eta search: the fit is "
                                            "not converged (q is the initial approximation).\n")
                              : fmt::format(
                                    "Interrupted at iteration {}: the fit is not converged.\n",
                                    res.iterations));
        }
    } else if (ran_away) {
        res.iterations = iter;
        if (opts.log != nullptr) {
            *opts.log << "The fit ran off and is not converged.\n";
        }
    } else if (!res.converged) {
        res.stop_reason = "max_iterations reached";
        double rise = 0.0;
        if (robust && still_rising(trend, window, &rise)) {
            res.stop_reason += fmt::format(
                "; the ELBO kept rising over the last {} evaluations without slowing down (by "
                "{:.3g} every {} iterations): the posterior may be improper or the log density "
                "unbounded, or q is still far from the optimum",
                window, rise, opts.eval_elbo);
        }
        if (!scale_note.empty()) {
            res.stop_reason += fmt::format("; the relative rule was met, but {}", scale_note);
        } else if (robust) {
            // Say which direction has no optimum, if one plainly has none.
            if (auto off = scale_not_at_optimum(est.scale_balance(q), opts))
                res.stop_reason += "; " + *off;
        }
        if (opts.log != nullptr) {
            *opts.log << "Informational Message: The maximum number of iterations is reached! "
                         "The algorithm may not have converged.\n";
        }
    }
    if (res.eta_reductions > 0) {
        res.stop_reason += fmt::format("; eta reduced {} time(s) after non-finite steps, to {:g}",
                                       res.eta_reductions, steps.eta());
    }

    res.q = q;
    res.elbo = std::isnan(q_elbo) ? est.elbo(q) : q_elbo;
    res.draws = q.draw(est.output_rng(), opts.output_samples);
    res.dropped_draws = est.dropped();
    res.seconds = elapsed();
    return res;
}

// Where q starts (start.hpp), and the fit in coordinates whitened by that start's scale
// (whitened_target.hpp) when it came from the mode and curvature; q, its draws and the
// monitor's view are mapped back to the original coordinates, and every ELBO already is the
// original target's (the whitened density keeps log|det S|).
// A fit from the init point (no mode, no Newton steps), with what the start did.
AdviResult from_init(AdviResult res, const Start& start, double start_seconds) {
    res.start = start.description;
    res.other_mode = start.other_mode;
    res.gradient_evaluations += start.gradient_evaluations;
    res.seconds += start_seconds;
    return res;
}

// Stan's rule where the default initial values fail: random ones, each unconstrained coordinate
// uniform on (-2, 2), up to 100 tries: the points `advi optimize --seed S` tries (its default
// --init 2).
constexpr double kRandomInitRadius = 2.0;
std::optional<FiniteInit> random_finite_init(Target& target, std::uint64_t seed) {
    return finite_uniform_init(target, seed ^ kInitStream, kRandomInitRadius);
}

AdviResult run_with_start(Target& target, const Options& opts, CurvatureTarget* curvature);

AdviResult run_with_start_given(Target& target, const Options& opts, CurvatureTarget* curvature) {
    const auto t0 = std::chrono::steady_clock::now();
    validate_options(opts, target.dim());
    require_engine_memory(opts, target.dim());
    if (opts.start == StartFrom::Pathfinder) {
        // One Pathfinder path from the init point (engine/pathfinder.hpp); the start is then
        // Auto's from the mean of the path's best normal approximation. Where there is a mode,
        // L-BFGS goes on to it from there; where there is none, the mean-field fit below
        // starts there instead of at the init point.
        PathfinderSettings ps;
        ps.lbfgs.runaway_limits = opts.runaway_limits;
        ps.lbfgs.describe_coordinate = opts.describe_coordinate;
        ps.lbfgs.interrupt = opts.interrupt;
        ps.num_draws = 1;
        ps.seed = opts.seed;
        const Eigen::VectorXd init =
            opts.init.size() != 0 ? opts.init : Eigen::VectorXd::Zero(target.dim());
        const PathfinderPath path = pathfinder_path(target, init, ps);
        Options from_path = opts;
        from_path.start = StartFrom::Auto;
        std::string how;
        if (path.ok()) {
            from_path.init = path.gaussian.mean();
            how = fmt::format("Pathfinder's point (iterate {} of {}, ELBO {:.6g}), then ",
                              path.best, path.elbo.size(), path.best_elbo);
        } else {
            how = fmt::format("the init point (Pathfinder gave no point: {}), then ", path.failure);
        }
        if (opts.log != nullptr)
            *opts.log << "Start from " << how << "as --start auto.\n";
        AdviResult r = run_with_start(target, from_path, curvature);
        r.start = how + r.start;
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }
    Start start = find_start(target, opts, curvature);
    // The search for the mode is part of the fit's time.
    const auto start_seconds = [t0] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    // Newton steps on the family's ELBO (gaussian_newton.hpp) need the dense Hessian.
    // (The low-rank family has no such steps: it starts from the mean-field fit's means and sds.)
    const bool newton_steps = curvature != nullptr && target.dim() <= kMaxStartHessianDim &&
                              opts.family != Family::LowRank;
    if (!start.curvature && (opts.family != Family::MeanField || newton_steps) &&
        opts.start == StartFrom::Auto && opts.convergence == ConvergenceRule::Auto &&
        !subsamples(opts)) {
        // No mode gave q its start: it starts from a first mean-field fit instead, its means and
        // sds, then Newton steps on the family's ELBO from there where they are affordable,
        // and the fit runs in coordinates whitened by that q, as from a mode. Full-rank from
        // unit scales has D (D + 1) / 2 parameters to move from far off with one step size:
        // measured on examples/stochastic_volatility (503 coordinates, no mode), it ended 127
        // nats below mean-field after 10,000 iterations; the Newton steps take both families
        // to where stochastic steps had not reached in 10,000 iterations (README, "Where q
        // starts").
        // (Full-rank or low-rank: a family that starts from the mean-field fit.)
        const bool full_rank = opts.family != Family::MeanField;
        const std::string family = family_name(opts.family, opts.rank);
        // For mean-field this first fit is the fit from the init point as it would run
        // without the Newton steps (below), and is the result where they cannot be taken.
        Options mf = opts;
        mf.family = Family::MeanField;
        mf.init = start.mean;
        mf.sticking_the_landing = false;
        if (full_rank) {
            mf.output_samples = 1;
            mf.monitor = {};
        }
        if (opts.log != nullptr)
            *opts.log << fmt::format("q starts at {}: {} starts from a mean-field fit.\n",
                                     start.description, family);
        AdviResult m;
        try {
            m = run_from_start(target, mf);
        } catch (const FitError&) {
            if (!full_rank)
                throw;
            m.elbo = std::numeric_limits<double>::quiet_NaN();  // from the init point
        }
        // Its q where it converged or ran out of iterations; not where it ran off (an improper
        // posterior: a fit from there would run off at once) or was interrupted.
        const bool usable = m.converged || m.iterations >= mf.max_iterations;
        if (usable && std::isfinite(m.elbo) && m.q.mu().allFinite() && m.q.sd().allFinite()) {
            Start from_mf;
            from_mf.curvature = true;
            from_mf.mean = m.q.mu();
            from_mf.scale = m.q.sd();
            // Full-rank is whitened by a dense factor (D x D); the other families by the scales
            // alone (a dense diagonal at 10,000 coordinates is 800 MB).
            if (opts.family == Family::FullRank)
                from_mf.factor = m.q.sd().asDiagonal();
            from_mf.gradient_evaluations = start.gradient_evaluations;
            from_mf.hessian_vector_products = start.hessian_vector_products;
            from_mf.other_mode = start.other_mode;
            std::string refined = "its sds";
            if (newton_steps) {
                std::string why_not;
                GaussianNewtonSettings gn;
                gn.family = opts.family;
                gn.seed = opts.seed;
                gn.interrupt = opts.interrupt;
                gn.log = opts.log;
                if (opts.log != nullptr)
                    *opts.log << fmt::format("Newton steps on {}'s ELBO from the mean-field fit:\n",
                                             family);
                auto r = gaussian_newton(*curvature, m.q, gn, &why_not);
                if (!r && !full_rank)
                    return from_init(std::move(m), start, start_seconds() - m.seconds);
                if (r) {
                    from_mf.mean = std::move(r->mean);
                    from_mf.scale = r->factor.diagonal().cwiseAbs();
                    from_mf.factor = std::move(r->factor);
                    from_mf.hessian_vector_products += r->hessian_vector_products;
                    refined = fmt::format(
                        "then {} Newton step{} on {}'s ELBO, from {:.6g} to {:.6g} ({})", r->steps,
                        r->steps == 1 ? "" : "s", family, r->start_elbo, r->elbo, r->stop);
                } else {
                    refined =
                        fmt::format("its sds (no Newton step on {}'s ELBO: {})", family, why_not);
                }
            }
            from_mf.description = fmt::format(
                "the mean-field fit ({} iterations, ELBO {:.6g}, {}; {}), from {}", m.iterations,
                m.elbo, m.converged ? "converged" : "not converged", refined, start.description);
            // (Its evaluations went through `target`: run_advi's counter has them.)
            start = std::move(from_mf);
        } else if (!full_rank) {
            return from_init(std::move(m), start, start_seconds() - m.seconds);
        }
    }
    if (opts.log != nullptr)
        *opts.log << fmt::format("q starts at {}.\n", start.description);
    if (!start.curvature) {
        Options at = opts;
        at.init = start.mean;
        // Sticking the landing only where q starts near the posterior, at its mode and scale:
        // its gradient's variance vanishes at the optimum, but far from it the dropped score
        // term leaves steps that ran off (examples' nmf_gap at eta 0.3 from the init point:
        // theta at 1e30 after 16 iterations) or stalled (full-rank from L = I).
        at.sticking_the_landing = false;
        // (The start's time is taken before the fit: the fit's own seconds are its own.)
        const double seconds = start_seconds();
        return from_init(run_from_start(target, at), start, seconds);
    }
    const double start_seconds_total = start_seconds();
    WhitenedTarget whitened = opts.family == Family::FullRank
                                  ? WhitenedTarget(target, start.mean, start.factor)
                                  : WhitenedTarget(target, start.mean, start.scale);
    Options in_u = opts;
    in_u.init = Eigen::VectorXd::Zero(target.dim());
    in_u.runaway_limits = whitened.limits_in_u(opts.runaway_limits);
    // The scale is known at a mode: no eta search (unless the caller fixed eta, which stands);
    // from a mean-field fit's sds it is an estimate, and the search runs.
    if (opts.adapt_engaged && start.from_mode) {
        in_u.adapt_engaged = false;
        in_u.eta = kWhitenedEta;
    }
    if (opts.monitor) {
        in_u.monitor = [&](const FitProgress& p) {
            const Approximation q = whitened.to_original(p.q);
            opts.monitor(FitProgress{p.iteration, p.seconds, q});
        };
    }
    AdviResult res = run_from_start(whitened, in_u);
    res.q = whitened.to_original(res.q);
    res.draws = whitened.to_original_rows(res.draws);
    res.start = start.description;
    res.other_mode = start.other_mode;
    res.gradient_evaluations += start.gradient_evaluations + start.hessian_vector_products;
    res.seconds += start_seconds_total;
    return res;
}

// Why the default init point (zeros) cannot start a fit: the log density or its gradient is not
// finite there (Stan's test of an initial point); empty where it can.
std::string nonfinite_at_zero(Target& target) {
    Eigen::VectorXd grad(target.dim());
    const double lp = target.log_density_gradient(Eigen::VectorXd::Zero(target.dim()), grad);
    if (!std::isfinite(lp))
        return fmt::format("the log density is {} at zero", lp);
    if (!grad.allFinite())
        return "the gradient of the log density is not finite at zero";
    return {};
}

// The fit from opts.init; where the default init (zeros) cannot start it (the log density or
// its gradient is not finite there, or the ELBO or its gradient at the initial approximation:
// an ODE solution below a declared bound there), Stan's random initial values. A chosen init
// stands: its failure is the error.
AdviResult run_with_start(Target& target, const Options& opts, CurvatureTarget* curvature) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto from_random = [&](const std::string& why) -> std::optional<AdviResult> {
        auto found = random_finite_init(target, opts.seed);
        if (!found)
            return std::nullopt;
        Options from = opts;
        from.init = std::move(found->point);
        const std::string how = fmt::format(
            "random initial values (uniform on (-{0}, {0}) in unconstrained space, as Stan; try "
            "{1}: from zeros, {2}), then ",
            kRandomInitRadius, found->tries, why);
        if (opts.log != nullptr)
            *opts.log << "Start from " << how << "as from an init point.\n";
        AdviResult r = run_with_start_given(target, from, curvature);
        r.start = how + r.start;  // the tries are counted by run_advi's counter
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    };
    if (opts.init.size() == 0 && opts.init_radius > 0.0 && target.dim() > 0) {
        // Random initial values asked for (Options::init_radius): Stan's rule, tries until
        // the density and its gradient are finite; the point then stands as a given init.
        const auto found = finite_uniform_init(target, opts.seed ^ kInitStream, opts.init_radius);
        if (!found)
            throw FitError(fmt::format(
                "the log density or its gradient is not finite at any of the {0} random initial "
                "points tried (uniform on (-{1}, {1}) in unconstrained space, as Stan tries them)",
                kRandomInitTries, opts.init_radius));
        Options from = opts;
        from.init = found->point;
        from.init_radius = 0.0;
        const std::string how =
            found->tries == 1
                ? std::string()
                : fmt::format(
                      "random initial values of try {} (the log density or its gradient "
                      "was not finite at the {} before, as Stan retries), then ",
                      found->tries, found->tries - 1);
        AdviResult r = run_with_start_given(target, from, curvature);
        r.start = how + r.start;
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }
    if (opts.init.size() == 0 && target.dim() > 0) {
        const std::string why = nonfinite_at_zero(target);
        if (!why.empty()) {
            if (auto r = from_random(why))
                return std::move(*r);
        }
    }
    try {
        return run_with_start_given(target, opts, curvature);
    } catch (const InitialApproximationError& e) {
        if (opts.init.size() != 0)
            throw;
        if (auto r = from_random(e.what()))
            return std::move(*r);
        throw;
    }
}

}  // namespace

// Every evaluation of the target by the fit goes through the counter; the start's own search
// for the mode runs on the uncounted curvature target and reports its evaluations itself.
AdviResult run_advi(Target& target, const Options& opts, CurvatureTarget* curvature) {
    if (curvature == nullptr)
        curvature = dynamic_cast<CurvatureTarget*>(&target);
    auto run = [&opts, curvature](auto& counted) {
        AdviResult result = run_with_start(counted, opts, curvature);
        result.gradient_evaluations += counted.gradient_evaluations();
        result.value_evaluations += counted.value_evaluations();
        return result;
    };
    if (auto* curved = dynamic_cast<CurvatureTarget*>(&target)) {
        CountingCurvatureTarget counted(*curved);
        return run(counted);
    }
    CountingTarget counted(target);
    return run(counted);
}

}  // namespace advi
