// DADVI: the fixed-draw ELBO as a CurvatureTarget of (mu, omega), Newton-CG on it, then the
// linear-response covariance and the Monte Carlo error from its Hessian at the optimum.
#include <advi/engine/dadvi.hpp>

#include <chrono>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/hessian.hpp>
#include <advi/engine/newton_cg.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/start.hpp>

namespace advi {

namespace {

// F on the fixed draws eps (D x N) in q's own parameters eta = q.params() (mean-field
// (mu, omega), s = exp(omega); full-rank (mu, L's lower triangle)), with its gradient and
// Hessian-vector products. The draw z_n = mu + S eps_n moves, along the direction (a, b), by
// u_n = a + s .* eps_n .* b (mean-field) or a + B eps_n (full-rank), so
//   (H_F v)_mu = mean_n H_n u_n,
//   (H_F v)_omega = mean_n s .* eps_n .* (H_n u_n + g_n .* b),
//   (H_F v)_L = mean_n lower((H_n u_n) eps_n') - diag(B_ii / L_ii^2)   (the entropy's term).
class FixedDrawElbo final : public CurvatureTarget {
public:
    FixedDrawElbo(CurvatureTarget& target, Family family, Eigen::MatrixXd eps)
        : target_(target),
          family_(family),
          eps_(std::move(eps)),
          D_(static_cast<int>(eps_.rows())),
          q_(family == Family::MeanField
                 ? Approximation::mean_field(Eigen::VectorXd::Zero(D_), Eigen::VectorXd::Zero(D_))
                 : Approximation::initial(Family::FullRank, Eigen::VectorXd::Zero(D_))) {}
    int dim() const override { return q_.num_params(); }

    double log_density_gradient(const Eigen::VectorXd& eta, Eigen::VectorXd& grad) override {
        return evaluate(eta, nullptr, grad, nullptr);
    }
    double hessian_vector(const Eigen::VectorXd& eta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv) override {
        return evaluate(eta, &v, grad, &hv);
    }
    // Per fixed draw n, column n: the gradient of its log-density term of F in eta (their mean
    // plus the entropy's gradient is F's gradient).
    Eigen::MatrixXd per_draw_gradients(const Eigen::VectorXd& eta) {
        q_.set_params(eta);
        Eigen::MatrixXd G(dim(), eps_.cols());
        Eigen::VectorXd z(D_), g(D_), column;
        for (Eigen::Index n = 0; n < eps_.cols(); ++n) {
            q_.transform(eps_.col(n), z);
            target_.log_density_gradient(z, g);
            pack(g, g, eps_.col(n), column);
            G.col(n) = column;
        }
        gradients_ += eps_.cols();
        return G;
    }
    long gradients() const { return gradients_; }
    long hessian_vector_products() const { return hessian_vector_products_; }

private:
    // [m; the scale part of x (the derivative of z along the scale's parameters) for e]:
    // mean-field s .* e .* x, full-rank lower(x e').
    void pack(const Eigen::VectorXd& m, const Eigen::VectorXd& x, const Eigen::VectorXd& e,
              Eigen::VectorXd& out) const {
        if (family_ == Family::MeanField) {
            out.resize(2 * D_);
            out << m, x.cwiseProduct(q_.sd()).cwiseProduct(e);
        } else {
            Approximation::pack_full_rank(m, x * e.transpose(), out);
        }
    }

    double evaluate(const Eigen::VectorXd& eta, const Eigen::VectorXd* v, Eigen::VectorXd& grad,
                    Eigen::VectorXd* hv) {
        const Eigen::Index N = eps_.cols();
        q_.set_params(eta);
        const bool mf = family_ == Family::MeanField;
        grad.setZero(dim());
        if (hv != nullptr)
            hv->setZero(dim());
        // The direction's scale part: mean-field b; full-rank B (lower triangular).
        Eigen::VectorXd b;
        Eigen::MatrixXd B;
        if (v != nullptr) {
            if (mf) {
                b = v->tail(D_);
            } else {
                Approximation dir = Approximation::initial(Family::FullRank, v->head(D_));
                dir.set_params(*v);
                B = dir.L();
            }
        }
        Eigen::VectorXd z(D_), g(D_), u(D_), h(D_), part;
        double sum = 0.0;
        for (Eigen::Index n = 0; n < N; ++n) {
            const Eigen::VectorXd e = eps_.col(n);
            q_.transform(e, z);
            double lp;
            if (v != nullptr) {
                u = v->head(D_) +
                    (mf ? Eigen::VectorXd(q_.sd().cwiseProduct(e).cwiseProduct(b)) : B * e);
                lp = evaluate_or_nan([&] { return target_.hessian_vector(z, u, g, h); });
                ++hessian_vector_products_;
            } else {
                lp = evaluate_or_nan([&] { return target_.log_density_gradient(z, g); });
                ++gradients_;
            }
            if (!std::isfinite(lp) || !g.allFinite())
                return -std::numeric_limits<double>::infinity();
            sum += lp;
            pack(g, g, e, part);
            grad += part;
            if (hv != nullptr) {
                pack(h, mf ? Eigen::VectorXd(h + g.cwiseProduct(b)) : h, e, part);
                *hv += part;
            }
        }
        const double n = static_cast<double>(N);
        grad /= n;
        if (hv != nullptr)
            *hv /= n;
        // The entropy: sum omega, or sum log |L_ii|.
        if (mf) {
            grad.tail(D_).array() += 1.0;
        } else {
            const Eigen::VectorXd d = q_.L().diagonal();
            Eigen::Index k = D_;
            for (int j = 0; j < D_; ++j) {
                grad[k] += 1.0 / d[j];
                if (hv != nullptr)
                    (*hv)[k] -= B(j, j) / (d[j] * d[j]);
                k += D_ - j;
            }
        }
        return sum / n + q_.entropy();
    }

    CurvatureTarget& target_;
    Family family_;
    Eigen::MatrixXd eps_;
    int D_;
    Approximation q_;  // decodes eta
    long gradients_ = 0;
    long hessian_vector_products_ = 0;
};

}  // namespace

DadviResult run_dadvi(CurvatureTarget& target, const Options& opts, const DadviSettings& settings) {
    const auto t0 = std::chrono::steady_clock::now();
    const int D = target.dim();
    const bool full_rank = opts.family == Family::FullRank;
    if (subsamples(opts))
        throw ModelError("DADVI's fixed draws need the full data: a minibatch is not supported");
    if (opts.family == Family::LowRank)
        throw ModelError("DADVI is built for the mean-field and full-rank families, not low-rank");
    if (settings.draws != 0 && settings.draws < 2) {
        throw ModelError(
            fmt::format("DADVI needs at least 2 fixed draws (for its Monte Carlo error); got {}",
                        settings.draws));
    }
    if (settings.draws == 0 && !(settings.mc_error_target > 0.0 && settings.max_draws >= 2)) {
        throw ModelError(fmt::format(
            "DADVI's choice of draws needs mc_error_target > 0 and max_draws >= 2; got {} and {}",
            settings.mc_error_target, settings.max_draws));
    }
    // Full-rank needs more draws than coordinates; where the number is chosen, it starts there.
    const int first_draws = settings.draws != 0 ? settings.draws
                            : full_rank         ? std::max(kDadviFirstDraws, 2 * D)
                                                : kDadviFirstDraws;
    if (full_rank && first_draws <= D) {
        throw ModelError(fmt::format(
            "full-rank DADVI needs more fixed draws than unconstrained coordinates ({} draws, {} "
            "coordinates): with fewer, the fixed-draw ELBO has no maximum (q's factor grows "
            "along directions no draw spans, unseen by the log density, while its entropy rises)",
            first_draws, D));
    }
    // Where q starts: the start of ADVI (the mode and curvature where they exist, else the
    // init point with unit scales); DADVI's Newton-CG then needs few steps.
    Options for_start = opts;
    for_start.convergence = ConvergenceRule::Auto;
    const Start start = find_start(target, for_start);
    const Approximation q0 =
        full_rank ? Approximation::full_rank(start.mean, start.factor.size() != 0
                                                             ? start.factor
                                                             : Eigen::MatrixXd::Identity(D, D))
                  : Approximation::mean_field(start.mean, start.scale.array().log().matrix());
    const Eigen::VectorXd eta0 = q0.params();
    const int P = q0.num_params();

    OptimizerSettings os;
    os.interrupt = opts.interrupt;
    os.runaway_limits = Eigen::VectorXd::Constant(P, 1e50);
    if (opts.runaway_limits.size() == D)
        os.runaway_limits.head(D) = opts.runaway_limits;
    if (!full_rank)
        os.runaway_limits.tail(D).setConstant(700.0);  // exp(omega) overflows beyond
    // Parameter k of eta: a mean, a log sd, or an element of the factor (column by column).
    os.describe_coordinate = [&opts, D, full_rank](int k) {
        const auto name = [&opts](int d) {
            return opts.describe_coordinate ? opts.describe_coordinate(d)
                                            : fmt::format("coordinate {}", d);
        };
        if (k < D)
            return fmt::format("the mean of {}", name(k));
        if (!full_rank)
            return fmt::format("the log sd of {}", name(k - D));
        int j = 0, at = D;
        while (k >= at + (D - j)) at += D - j++;
        return fmt::format("the factor's element ({}, {}) (rows: {}, columns: {})", j + (k - at), j,
                           name(j + (k - at)), name(j));
    };

    // One round: the fixed-draw ELBO of N draws maximised from eta_start, then its Hessian at
    // the optimum for the linear response and the Monte Carlo error.
    struct Round {
        int draws = 0;
        OptimizerResult opt;
        DadviResult out;  // q_sd, linear_response_sd, mean_mc_se, notes
        Eigen::MatrixXd cov_lr;
        Approximation fitted;
        long evaluations = 0;
        // The largest Monte Carlo error of a mean in sds of the answer's sds (NaN: none).
        double worst_mc_error = std::numeric_limits<double>::quiet_NaN();
        Eigen::Index worst = 0;
    };
    Rng rng(opts.seed);
    const auto round = [&](int N, const Eigen::VectorXd& eta_start) {
        Round rd;
        rd.draws = N;
        FixedDrawElbo objective(target, opts.family, rng.normal_matrix(N, D).transpose());
        try {
            rd.opt = maximize_newton_cg(objective, eta_start, os);
        } catch (const FitError& e) {
            throw FitError(fmt::format("DADVI ({} fixed draws): {}", N, e.what()));
        }
        if (rd.opt.status == OptimizeStatus::NoMode ||
            rd.opt.status == OptimizeStatus::NonFiniteStart) {
            throw FitError(
                fmt::format("DADVI ({} fixed draws): no optimum of the fixed-draw ELBO: {}", N,
                            rd.opt.message));
        }
        DadviResult& out = rd.out;
        rd.fitted = q0;
        rd.fitted.set_params(rd.opt.zeta);
        out.q_sd = rd.fitted.sd();
        long hessian_products = 0;
        try {
            if (P > kMaxDadviHessianDim) {
                throw SizeError(
                    fmt::format("its Hessian in q's {} parameters is over the budget of {}", P,
                                kMaxDadviHessianDim));
            }
            const DenseHessian h = dense_hessian(objective, rd.opt.zeta, os.describe_coordinate);
            hessian_products = static_cast<long>(P) * N;
            const Eigen::LLT<Eigen::MatrixXd> neg(-h.H);
            if (neg.info() != Eigen::Success) {
                out.notes = fmt::format(
                    "no linear response or Monte Carlo error: the Hessian of the fixed-draw ELBO "
                    "is not negative definite at {}",
                    rd.opt.converged() ? "its optimum"
                                       : "Newton-CG's end (no optimum was reached)");
            } else {
                const Eigen::MatrixXd inv = neg.solve(Eigen::MatrixXd::Identity(P, P));
                rd.cov_lr = inv.topLeftCorner(D, D);
                out.linear_response_sd = rd.cov_lr.diagonal().cwiseSqrt();
                const Eigen::MatrixXd G = objective.per_draw_gradients(rd.opt.zeta);
                const Eigen::MatrixXd centred = G.colwise() - G.rowwise().mean();
                const Eigen::MatrixXd cov_g =
                    centred * centred.transpose() / static_cast<double>(G.cols() - 1);
                const Eigen::MatrixXd cov_eta = inv * cov_g * inv / static_cast<double>(N);
                out.mean_mc_se = cov_eta.topLeftCorner(D, D).diagonal().cwiseSqrt();
                // In units of the posterior sd the answer gives.
                const Eigen::VectorXd sd =
                    settings.linear_response ? out.linear_response_sd : out.q_sd;
                rd.worst_mc_error = out.mean_mc_se.cwiseQuotient(sd).maxCoeff(&rd.worst);
            }
        } catch (const SizeError& e) {
            out.notes = fmt::format("no linear response or Monte Carlo error: {}", e.what());
        } catch (const FitError& e) {
            out.notes = fmt::format("no linear response or Monte Carlo error: {}", e.what());
        }
        rd.evaluations =
            objective.gradients() + objective.hessian_vector_products() + hessian_products;
        return rd;
    };

    // A fixed N, or N chosen: kDadviFirstDraws, then more (from the last optimum: few Newton
    // steps) while the Monte Carlo error of some mean is over the target. The error falls as
    // 1/sqrt(N), so the next N is the one that would meet the target, with a margin of 20%.
    Round rd = round(first_draws, eta0);
    long evaluations = rd.evaluations;
    std::string chosen;
    if (settings.draws == 0) {
        chosen = fmt::format("{}", rd.draws);
        while (std::isfinite(rd.worst_mc_error) && rd.worst_mc_error > settings.mc_error_target &&
               rd.draws < settings.max_draws && !opts.interrupted()) {
            const double grow = 1.2 * (rd.worst_mc_error / settings.mc_error_target) *
                                (rd.worst_mc_error / settings.mc_error_target);
            const int next = static_cast<int>(
                std::min<double>(settings.max_draws, std::ceil(std::max(2.0, grow) * rd.draws)));
            const Eigen::VectorXd from = rd.opt.zeta;
            rd = round(next, from);
            evaluations += rd.evaluations;
            chosen += fmt::format(" -> {}", rd.draws);
        }
    }
    DadviResult out = std::move(rd.out);
    const OptimizerResult& opt = rd.opt;
    const Eigen::MatrixXd& cov_lr = rd.cov_lr;
    const Eigen::VectorXd mu = rd.fitted.mu();
    const Approximation& fitted = rd.fitted;
    if (settings.linear_response && cov_lr.size() == 0) {
        throw FitError(
            fmt::format("DADVI: the linear-response covariance was asked for but "
                        "cannot be computed: {}",
                        out.notes));
    }

    AdviResult& r = out.fit;
    if (settings.linear_response) {
        const Eigen::LLT<Eigen::MatrixXd> c(cov_lr);
        r.q = Approximation::full_rank(mu, c.matrixL());
    } else {
        r.q = fitted;
    }
    r.eta = std::numeric_limits<double>::quiet_NaN();
    r.iterations = opt.iterations;
    r.converged = opt.converged();
    r.stop_reason =
        fmt::format("Newton-CG on the ELBO of {} fixed draws: {}", rd.draws, opt.message);
    if (out.mean_mc_se.size() == D) {
        r.stop_reason += fmt::format(
            "; Monte Carlo error of the means from the fixed draws: at most {:.3g} sds ({})",
            rd.worst_mc_error, os.describe_coordinate(static_cast<int>(rd.worst)));
    } else if (!out.notes.empty()) {
        r.stop_reason += "; " + out.notes;
    }
    r.start = start.description;
    r.other_mode = start.other_mode;
    // The ELBO of the returned q on fresh draws (not the fixed ones it was fitted to), by the
    // engine's estimator (elbo.hpp), with its standard error from the per-draw log densities.
    Rng fresh(opts.seed ^ 0x4441445649000000ull);
    const int elbo_draws = std::max(opts.elbo_samples, 1000);
    const Eigen::MatrixXd elbo_eta = fresh.normal_matrix(elbo_draws, D);
    const ElboEstimate e = elbo_estimate(target, r.q, elbo_eta);
    r.dropped_draws = e.dropped;
    r.elbo = e.value;
    if (e.used > 1) {
        const Eigen::ArrayXd lp = e.log_p.array();
        const Eigen::ArrayXd kept = lp.isNaN().select(0.0, lp - (e.value - r.q.entropy()));
        r.elbo_se = std::sqrt(kept.square().sum() / (e.used - 1) / e.used);
    }
    if (settings.linear_response) {
        // The linear response is the posterior's covariance where the posterior is Gaussian,
        // and then its q fits at least as well as the mean-field q it corrects (the exact
        // posterior against a factorised one). Where its ELBO is lower, over the same draws, by
        // more than kLinearResponseElboSlack, the posterior is too far from Gaussian for it.
        // No allowance for the difference's standard error: where the linear response is worst
        // the log ratios are heavy-tailed and that error is larger than the gap (Neal's funnel:
        // gaps of 40 to 340 nats, tests/engine/dadvi_test.cpp); it is reported.
        const ElboEstimate m = elbo_estimate(target, fitted, elbo_eta);
        const Eigen::ArrayXd both = (e.log_p.array().isNaN() || m.log_p.array().isNaN())
                                        .select(0.0, e.log_p.array() - m.log_p.array());
        const Eigen::Index n = (e.log_p.array().isNaN() || m.log_p.array().isNaN()).count();
        const double used = static_cast<double>(elbo_draws - n);
        if (used > 1 && std::isfinite(m.value)) {
            const double mean = both.sum() / used;
            const double var =
                std::max(0.0, (both.square().sum() - used * mean * mean) / (used - 1.0));
            const double se = std::sqrt(var / used);
            const double gap = m.value - e.value;
            if (gap > kLinearResponseElboSlack) {
                r.doubts.push_back(fmt::format(
                    "the linear-response q's ELBO is {:.3g} nats below the mean-field q's it "
                    "corrects (standard error {:.2g}): the posterior is too far from Gaussian "
                    "for the linear response",
                    gap, se));
            }
        }
    }
    r.elbo_iterations = {opt.iterations};
    r.elbo_trace = {r.elbo};
    r.draws = r.q.draw(fresh, opts.output_samples);
    if (!chosen.empty()) {
        r.stop_reason += fmt::format(
            "; fixed draws chosen: {} ({})", chosen,
            !std::isfinite(rd.worst_mc_error) ? "no Monte Carlo error to choose by"
            : rd.worst_mc_error <= settings.mc_error_target
                ? fmt::format("until every mean's Monte Carlo error was at most {:.3g} sds",
                              settings.mc_error_target)
                : fmt::format("stopped at the cap of {} draws, over the target of {:.3g} sds",
                              settings.max_draws, settings.mc_error_target));
    }
    r.gradient_evaluations =
        start.gradient_evaluations + start.hessian_vector_products + evaluations;
    r.value_evaluations = elbo_draws;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace advi
