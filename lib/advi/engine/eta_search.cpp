// The eta search, in Stan's form and in the Robust form that never picks a diverged run.
#include <advi/engine/eta_search.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

namespace {

// adapt_iter iterations from q0 with a fresh step-size sequence; returns the final ELBO.
// Robust stops a run at its first failure; Stan, like adapt_eta, treats a failed gradient
// as zero and keeps going (the ELBO then tells).
// An interrupt (opts.interrupt) ends the run at once: nullopt.
std::optional<EtaTrial> run_candidate(Estimator& est, const Approximation& q0, double eta,
                                      const Options& opts) {
    Approximation q = q0;
    StepSize steps(eta);
    const bool robust = est.rule() == ConvergenceRule::Robust;
    bool diverged = false;
    for (int it = 1; it <= opts.adapt_iter; ++it) {
        if (opts.interrupted())
            return std::nullopt;
        ElboGradient g = est.gradient(q);
        if (!g.ok() && robust) {
            diverged = true;
            break;
        }
        if (!ascend(q, steps, g.grad) && robust) {
            diverged = true;
            break;
        }
    }
    double elbo = -std::numeric_limits<double>::infinity();
    if (!diverged) {
        elbo = est.elbo(q);
        diverged = !std::isfinite(elbo);
    }
    if (diverged) {
        elbo = -std::numeric_limits<double>::infinity();
    }
    return EtaTrial{eta, elbo, diverged};
}

void log_header(const Options& opts, double elbo_init) {
    if (opts.log != nullptr) {
        *opts.log << fmt::format("Begin eta adaptation ({} iterations per candidate).\n",
                                 opts.adapt_iter)
                  << fmt::format("  initial ELBO {:.3f}\n", elbo_init)
                  << fmt::format("  {:>10}  {:>15}  {}\n", "eta", "ELBO", "notes");
    }
}

void log_trial(const Options& opts, const EtaTrial& t, const char* note) {
    if (opts.log != nullptr) {
        *opts.log << fmt::format("  {:>10g}  {:>15.3f}  {}\n", t.eta, t.elbo,
                                 t.diverged ? "diverged" : note);
    }
}

void log_choice(const Options& opts, double eta, bool early) {
    if (opts.log != nullptr) {
        *opts.log << fmt::format("Success! Found best value [eta = {:g}]{}\n\n", eta,
                                 early ? " earlier than expected." : ".");
    }
}

std::string list_etas(const std::vector<EtaTrial>& trials) {
    std::string s;
    for (const EtaTrial& t : trials) {
        s += fmt::format("{}{:g}", s.empty() ? "" : ", ", t.eta);
    }
    return s;
}

// Stan's adapt_eta, line for line: `best` is reset to the current candidate whenever the
// search goes on, even if the current one is worse (Stan's behaviour, kept on purpose), and
// the search fails when it reaches the last candidate and that one is no better than q0.
EtaSearch search_eta_stan(Estimator& est, const Approximation& q0, double elbo_init,
                          const Options& opts) {
    constexpr double lowest = -std::numeric_limits<double>::max();
    EtaSearch out{0.0, lowest, {}};
    double elbo_best = lowest;
    double eta_best = 0.0;
    const int n = static_cast<int>(std::size(kEtaCandidates));
    for (int k = 0; k < n; ++k) {
        const std::optional<EtaTrial> run = run_candidate(est, q0, kEtaCandidates[k], opts);
        if (!run) {
            out.interrupted = true;
            return out;
        }
        const EtaTrial t = out.trials.emplace_back(*run);
        // Stan maps a failed ELBO to -max(double), not -inf; the comparisons below rely on it.
        const double elbo = t.diverged ? lowest : t.elbo;
        if (elbo < elbo_best && elbo_best > elbo_init) {
            log_trial(opts, t, "");
            log_choice(opts, eta_best, k < n - 1);
            out.eta = eta_best;
            out.elbo = elbo_best;
            return out;
        }
        if (k < n - 1) {
            log_trial(opts, t, "");
            elbo_best = elbo;
            eta_best = t.eta;
        } else if (elbo > elbo_init) {
            log_trial(opts, t, "");
            log_choice(opts, t.eta, false);
            out.eta = t.eta;
            out.elbo = elbo;
            return out;
        } else {
            log_trial(opts, t, "no better than the initial ELBO");
        }
    }
    throw FitError(fmt::format(
        "eta search: all proposed step-sizes failed (tried eta = {}; Stan rule: the last "
        "candidate's ELBO must beat the initial ELBO {:.6g}). Your model may be either "
        "severely ill-conditioned or misspecified; check its initial values, or set "
        "adapt_engaged = false and a small eta",
        list_etas(out.trials), elbo_init));
}

// The Robust search differs from Stan's in three ways, each for a failure we measured:
//  - a diverged candidate is never chosen (Stan can pick one whose ELBO failed, when the
//    ones before it failed too);
//  - all five candidates are run. Stan stops at the first candidate worse than the best so
//    far, so one lucky 50-iteration run with eta = 100 locks in a step size whose main loop
//    then jitters for thousands of iterations without converging (2-D Gaussian, full-rank);
//  - among candidates that did about as well as the best (within 5% of the best's gain
//    over q0, or within the convergence tolerance), the smallest eta wins: equal progress
//    in adapt_iter iterations means the larger eta is not faster, only noisier later.
EtaSearch search_eta_robust(Estimator& est, const Approximation& q0, double elbo_init,
                            const Options& opts) {
    EtaSearch out{0.0, 0.0, {}};
    // When every candidate diverges the model's scale is far from the candidates'; two
    // retries three orders of magnitude lower each cover step sizes down to 1e-8.
    constexpr double kScales[] = {1.0, 1e-3, 1e-6};
    constexpr double kNearBest = 0.05;
    for (double scale : kScales) {
        const size_t first = out.trials.size();
        double best = -std::numeric_limits<double>::infinity();
        for (double candidate : kEtaCandidates) {
            const std::optional<EtaTrial> run = run_candidate(est, q0, candidate * scale, opts);
            if (!run) {
                out.interrupted = true;
                return out;
            }
            const EtaTrial t = out.trials.emplace_back(*run);
            log_trial(opts, t, "");
            if (!t.diverged) {
                best = std::max(best, t.elbo);
            }
        }
        if (std::isfinite(best)) {
            const double margin = std::max(kNearBest * (best - elbo_init),
                                           opts.tol_rel_obj * std::max(std::fabs(best), 1.0));
            // Candidates run from large to small eta: the last near-best one is the smallest.
            for (size_t k = first; k < out.trials.size(); ++k) {
                const EtaTrial& t = out.trials[k];
                if (!t.diverged && t.elbo >= best - margin) {
                    out.eta = t.eta;
                    out.elbo = t.elbo;
                }
            }
            log_choice(opts, out.eta, false);
            return out;
        }
        if (opts.log != nullptr && scale != kScales[std::size(kScales) - 1]) {
            *opts.log << "  every candidate diverged; retrying with the candidates x 1e-3\n";
        }
    }
    throw FitError(fmt::format(
        "eta search: every candidate step size diverged (non-finite ELBO or variational "
        "parameters within adapt_iter = {} iterations); tried eta = {}. The model may be "
        "severely ill-conditioned or misspecified; check it and its initial values",
        opts.adapt_iter, list_etas(out.trials)));
}

}  // namespace

EtaSearch search_eta(Estimator& est, const Approximation& q0, double elbo_init,
                     const Options& opts) {
    log_header(opts, elbo_init);
    if (est.rule() == ConvergenceRule::Stan) {
        return search_eta_stan(est, q0, elbo_init, opts);
    }
    return search_eta_robust(est, q0, elbo_init, opts);
}

}  // namespace advi
