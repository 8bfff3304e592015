// Deterministic ADVI (Giordano, Ingram and Broderick, "Black box variational inference with a
// deterministic objective: faster, more accurate, and even more accurate than you might
// think", JMLR 2024; issue 20, item 2). The ELBO of a mean-field Gaussian q = N(mu, diag(s^2)),
// s = exp(omega) (or of a full-rank one, N(mu, L L')), is replaced by its estimate on N draws
// eps_n ~ N(0, I) fixed once,
//     F(mu, omega) = (1/N) sum_n log p(mu + s .* eps_n) + sum_d omega_d + D (1 + log 2 pi) / 2,
// a deterministic function that a second-order optimiser takes to numerical convergence:
// trust-region Newton-CG (engine/newton_cg.hpp) on the Hessian-vector products of F, each N
// Hessian-vector products of log p. Then, from the Hessian of F at its optimum:
//   - the linear-response covariance of the posterior, (-H_F^-1)_{mu mu}: the sensitivity of
//     q's mean to a linear perturbation of log p, which is the posterior's covariance where p
//     is Gaussian (exact there, where mean-field's own sds are too small along correlations);
//   - the Monte Carlo error of the fixed draws, by the sandwich H_F^-1 Cov_n(G_n) H_F^-1 / N
//     of the per-draw gradients G_n: how far another set of N draws would move q's mean.
#pragma once

#include <optional>
#include <string>

#include <Eigen/Core>

#include <advi/engine/engine.hpp>
#include <advi/engine/options.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// Beyond this many parameters of q (2 D mean-field, D + D (D + 1) / 2 full-rank) the Hessian of
// the fixed-draw ELBO is not formed (it costs that many times N Hessian-vector products):
// no linear response or Monte Carlo error, said in DadviResult::notes.
inline constexpr int kMaxDadviHessianDim = 4000;

// The linear-response q may fit worse than the mean-field q it corrects by this many nats
// (ELBOs over common draws) before the fit says it doubts it (AdviResult::doubts). On the
// reference models' near-Gaussian posteriors it fits 0.02 to 2.5 nats better; on the
// non-centred eight schools 0.7 to 0.9 nats worse (sds up to 2.3 times the reference's), on
// the centred one (a funnel) 2.3 nats worse, means 1.1 sds off.
inline constexpr double kLinearResponseElboSlack = 0.5;

// Where DADVI chooses its number of draws, it starts at the paper's default.
inline constexpr int kDadviFirstDraws = 30;

struct DadviSettings {
    // N, the fixed draws. 0 (the default): chosen, kDadviFirstDraws (the paper's default; for
    // full-rank at least 2 D), then more until the Monte Carlo error of every mean from the
    // fixed draws is at most mc_error_target of its posterior sd (the answer's: mean-field's,
    // or the linear response's), or max_draws. Measured on report/references' near-Gaussian
    // posteriors (README, "Deterministic ADVI"): at 30 draws DADVI+LR's means were up to 0.29
    // reference sds off, the Monte Carlo error of the fixed draws, not a bias; with a target
    // of 0.1 still 0.29 on the logistic regression (the worst of 10 means is about 3 standard
    // errors out), so the target is 0.05.
    int draws = 0;
    // Return q with the linear-response covariance (a full-rank Gaussian with DADVI's means),
    // not mean-field's own sds.
    bool linear_response = false;
    double mc_error_target = 0.05;
    int max_draws = 1000;
};

struct DadviResult {
    AdviResult fit;        // q (mean-field, or full-rank with the linear-response covariance)
    Eigen::VectorXd q_sd;  // the sds of the fixed-draw optimum's q (mean-field's s)
    // Per coordinate: the linear-response sds, and the Monte Carlo standard errors of the mean
    // from the fixed draws; empty where the Hessian of F was not formed (over the dense
    // budget) or is not negative definite at the optimum (both said in `notes`).
    Eigen::VectorXd linear_response_sd;
    Eigen::VectorXd mean_mc_se;
    std::string notes;
};

// Fits q of opts.family by DADVI on `target` (`opts`: family, seed, init, output_samples,
// interrupt, describe_coordinate, runaway_limits; the step-size options do not apply): the
// paper's mean-field, or full-rank (F in (mu, L); it needs more draws than coordinates).
// Throws FitError where the optimiser cannot start (F not finite at the init) or finds no
// optimum (F rises without bound: an improper posterior), and ModelError for a minibatch, fewer
// than 2 draws, or full-rank with no more draws than coordinates.
[[nodiscard]] DadviResult run_dadvi(CurvatureTarget& target, const Options& opts,
                                    const DadviSettings& settings = {});

}  // namespace advi
