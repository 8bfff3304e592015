// Natural-gradient Newton steps on a full-rank Gaussian's ELBO, each checked on fixed draws.
#include <advi/engine/gaussian_newton.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <ostream>
#include <vector>

#include <Eigen/Cholesky>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/engine/hessian.hpp>
#include <advi/engine/rng.hpp>

namespace advi {

namespace {

// The ELBO of N(m, L L') on the fixed standard-normal draws `eps` (one per column): the mean
// log density plus the entropy; -inf where any draw's log density is not finite (a candidate
// that reaches where the density fails is refused, not averaged over). Not elbo_estimate
// (elbo.hpp): at a Gaussian's optimum the next step must tie it to the bit, which that
// estimator's different summation order does not give (it then takes a rounding-level step).
double elbo_on(Target& target, const Eigen::VectorXd& m, const Eigen::MatrixXd& L,
               const Eigen::MatrixXd& eps, long& evaluations) {
    const Eigen::MatrixXd z = (L.triangularView<Eigen::Lower>() * eps).colwise() + m;
    Eigen::VectorXd lp;
    target.log_densities(z, lp);
    evaluations += eps.cols();
    if (!lp.allFinite())
        return -std::numeric_limits<double>::infinity();
    const double K = static_cast<double>(m.size());
    return lp.mean() + 0.5 * K * (1.0 + std::log(2.0 * M_PI)) +
           L.diagonal().array().abs().log().sum();
}

// n standard-normal draws of K coordinates, one per column, in antithetic pairs (eps, -eps):
// where log p is near quadratic its gradient is near linear in z, and the pairs cancel the
// linear part of the noise in E_q[g] and the ELBO. Without them the mean step's noise alone
// costs about beta^2 D / (2 n) nats (16 at D = 503, n = 16), more than most steps gain.
Eigen::MatrixXd antithetic(Rng& rng, int n, int K) {
    Eigen::MatrixXd eps(K, n);
    const int half = (n + 1) / 2;
    eps.leftCols(half) = rng.normal_matrix(half, K).transpose();
    eps.rightCols(n - half) = -eps.leftCols(n - half);
    return eps;
}

}  // namespace

std::optional<GaussianNewtonResult> gaussian_newton(CurvatureTarget& target,
                                                    const Approximation& q0,
                                                    const GaussianNewtonSettings& settings,
                                                    std::string* why_not) {
    const int K = target.dim();
    const auto refuse = [why_not](std::string why) {
        if (why_not != nullptr)
            *why_not = std::move(why);
        return std::nullopt;
    };
    try {
        require_dense_memory("the Gaussian Newton steps' Hessians and factors", K, 5);
    } catch (const SizeError& e) {
        return refuse(e.what());
    }
    Rng rng(settings.seed);
    const Eigen::MatrixXd eps = antithetic(rng, settings.elbo_draws, K);
    GaussianNewtonResult out;
    out.mean = q0.mu();
    out.factor = q0.cholesky_factor();
    out.start_elbo = out.elbo = elbo_on(target, out.mean, out.factor, eps, out.value_evaluations);
    if (!std::isfinite(out.start_elbo))
        return refuse("the log density is not finite at a draw of the starting q");
    // P = C^-1 of the current q, for the blend.
    Eigen::MatrixXd P;
    {
        const Eigen::MatrixXd Linv =
            out.factor.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(K, K));
        P = Linv.transpose() * Linv;
    }
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(K, K);
    std::vector<double> recent_gains;
    while (out.steps < settings.max_steps) {
        if (out.hessian_vector_products + static_cast<long>(settings.hessian_draws) * K >
            settings.max_hessian_vector_products) {
            out.stop = fmt::format("the budget of {} Hessian-vector products is spent",
                                   settings.max_hessian_vector_products);
            break;
        }
        if (settings.interrupt != nullptr && settings.interrupt->load(std::memory_order_relaxed)) {
            out.stop = "interrupted";
            break;
        }
        // E_q[-H] and E_q[g] over fresh draws of the current q.
        Eigen::MatrixXd expected_precision = Eigen::MatrixXd::Zero(K, K);
        Eigen::VectorXd expected_gradient = Eigen::VectorXd::Zero(K);
        const Eigen::MatrixXd draws =
            (out.factor.triangularView<Eigen::Lower>() * antithetic(rng, settings.hessian_draws, K))
                .colwise() +
            out.mean;
        try {
            for (int s = 0; s < settings.hessian_draws; ++s) {
                const DenseHessian h = dense_hessian(target, draws.col(s));
                out.hessian_vector_products += K;
                expected_precision -= h.H;
                expected_gradient += h.gradient;
            }
        } catch (const FitError& e) {
            out.stop = fmt::format("a Hessian at a draw failed: {}", e.what());
            break;
        }
        expected_precision /= settings.hessian_draws;
        expected_gradient /= settings.hessian_draws;
        if (out.steps == 0 &&
            Eigen::LLT<Eigen::MatrixXd>(expected_precision).info() != Eigen::Success) {
            // At the optimum E_q[-H] = C^-1 is positive definite. Where it is not at the start,
            // some direction has no curvature where q is (a flat or unbounded direction of an
            // improper posterior, or q far out on a funnel's neck): the blend would only
            // spread q along it, which is the fit's run-off check's to report, not ours to
            // follow.
            return refuse("the expected Hessian over the starting q is not negative definite");
        }
        // The candidate at step size beta; its ELBO on the fixed draws, -inf where the blend
        // or its inverse is not positive definite.
        struct Candidate {
            double beta = 0.0, elbo = -std::numeric_limits<double>::infinity();
            Eigen::VectorXd mean;
            Eigen::MatrixXd factor, precision;
        };
        const auto candidate = [&](double beta) {
            Candidate c;
            c.beta = beta;
            c.precision = (1.0 - beta) * P + beta * expected_precision;
            const Eigen::LLT<Eigen::MatrixXd> p(c.precision);
            if (p.info() != Eigen::Success)
                return c;
            if (settings.family == Family::MeanField) {
                // Mean-field's optimum: 1 / sd_d^2 = E_q[-H]_dd; its mean step is still the
                // full Newton step (the ELBO's Hessian in m is E_q[H] for either family).
                c.factor = c.precision.diagonal().cwiseInverse().cwiseSqrt().asDiagonal();
            } else {
                const Eigen::LLT<Eigen::MatrixXd> cov(p.solve(I));
                if (cov.info() != Eigen::Success)
                    return c;
                c.factor = cov.matrixL();
            }
            c.mean = out.mean + beta * p.solve(expected_gradient);
            if (c.factor.allFinite() && c.mean.allFinite())
                c.elbo = elbo_on(target, c.mean, c.factor, eps, out.value_evaluations);
            return c;
        };
        // beta = 1, halved until the ELBO rises. (Doubling beta where 1 rose was tried on the
        // stochastic volatility model: it never rose further.)
        Candidate best;
        bool any_definite = false;  // some beta gave a positive definite precision
        for (double beta = 1.0; beta >= settings.min_beta; beta /= 2) {
            best = candidate(beta);
            any_definite = any_definite || best.factor.size() != 0;
            if (best.elbo > out.elbo)
                break;
        }
        if (!(best.elbo > out.elbo)) {
            if (any_definite) {
                // At the optimum on the fixed draws, within E_q[g]'s noise, after a step.
                out.converged = out.steps > 0;
                out.stop =
                    fmt::format("no step down to beta {:g} raised the ELBO", settings.min_beta);
            } else {
                out.stop = fmt::format(
                    "no step down to beta {:g} gave a positive definite precision: the "
                    "expected Hessian is not negative definite where q is",
                    settings.min_beta);
            }
            break;
        }
        const double gain = best.elbo - out.elbo;
        out.mean = std::move(best.mean);
        out.factor = std::move(best.factor);
        out.elbo = best.elbo;
        P = std::move(best.precision);
        ++out.steps;
        if (settings.log != nullptr && (out.steps % 10 == 0 || out.steps == 1)) {
            *settings.log << fmt::format(
                "    Newton step {:4d}: beta {:<6g} ELBO {:.7g} (fixed draws)\n", out.steps,
                best.beta, out.elbo);
        }
        // The steps end when the last few together gained under the tolerance each: one
        // short step (a noisy E_q[g], a halved beta) is not the end of a slow climb.
        recent_gains.push_back(gain);
        if (recent_gains.size() > static_cast<std::size_t>(settings.patience))
            recent_gains.erase(recent_gains.begin());
        const double recent = std::accumulate(recent_gains.begin(), recent_gains.end(), 0.0);
        if (recent_gains.size() == static_cast<std::size_t>(settings.patience) &&
            recent < settings.patience * settings.tolerance) {
            out.converged = true;
            out.stop =
                fmt::format("the last {} steps gained {:.3g} nats", settings.patience, recent);
            break;
        }
    }
    if (out.stop.empty())
        out.stop = fmt::format("{} steps taken", settings.max_steps);
    if (out.steps == 0)
        return refuse(out.stop);
    return out;
}

}  // namespace advi
