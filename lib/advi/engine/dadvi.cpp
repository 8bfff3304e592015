// DADVI: the fixed-draw ELBO as a CurvatureTarget of (mu, omega), Newton-CG on it, then the
// linear-response covariance and the Monte Carlo error from its Hessian at the optimum.
#include <advi/engine/dadvi.hpp>

#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>

#include <Eigen/Cholesky>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/engine/hessian.hpp>
#include <advi/engine/newton_cg.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/start.hpp>

namespace advi {

namespace {

// F(mu, omega) on the fixed draws eps (D x N), with its gradient and Hessian-vector products:
// for the direction (a, b) the draw z_n = mu + s .* eps_n moves along u_n = a + s .* eps_n .* b,
// so  (H_F v)_mu = mean_n H_n u_n  and  (H_F v)_omega = mean_n s .* eps_n .* (H_n u_n + g_n .* b).
class FixedDrawElbo final : public CurvatureTarget {
public:
    FixedDrawElbo(CurvatureTarget& target, Eigen::MatrixXd eps)
        : target_(target), eps_(std::move(eps)), D_(static_cast<int>(eps_.rows())) {}
    int dim() const override { return 2 * D_; }

    double log_density_gradient(const Eigen::VectorXd& eta, Eigen::VectorXd& grad) override {
        return evaluate(eta, nullptr, grad, nullptr);
    }
    double hessian_vector(const Eigen::VectorXd& eta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv) override {
        return evaluate(eta, &v, grad, &hv);
    }
    // Per fixed draw n, column n: the gradient of its term of F (the sum of these over n, / N,
    // plus (0, 1), is F's gradient).
    Eigen::MatrixXd per_draw_gradients(const Eigen::VectorXd& eta) {
        Eigen::MatrixXd G(2 * D_, eps_.cols());
        const Eigen::VectorXd s = eta.tail(D_).array().exp().matrix();
        Eigen::VectorXd z(D_), g(D_);
        for (Eigen::Index n = 0; n < eps_.cols(); ++n) {
            z = eta.head(D_) + s.cwiseProduct(eps_.col(n));
            target_.log_density_gradient(z, g);
            G.col(n) << g, g.cwiseProduct(s).cwiseProduct(eps_.col(n));
        }
        gradients_ += eps_.cols();
        return G;
    }
    long gradients() const { return gradients_; }
    long hessian_vector_products() const { return hessian_vector_products_; }

private:
    double evaluate(const Eigen::VectorXd& eta, const Eigen::VectorXd* v, Eigen::VectorXd& grad,
                    Eigen::VectorXd* hv) {
        const Eigen::Index N = eps_.cols();
        const Eigen::VectorXd s = eta.tail(D_).array().exp().matrix();
        grad.setZero(2 * D_);
        if (hv != nullptr)
            hv->setZero(2 * D_);
        Eigen::VectorXd z(D_), g(D_), u(D_), h(D_);
        double sum = 0.0;
        for (Eigen::Index n = 0; n < N; ++n) {
            const auto e = eps_.col(n);
            z = eta.head(D_) + s.cwiseProduct(e);
            double lp;
            if (v != nullptr) {
                u = v->head(D_) + s.cwiseProduct(e).cwiseProduct(v->tail(D_));
                lp = evaluate_or_nan([&] { return target_.hessian_vector(z, u, g, h); });
                ++hessian_vector_products_;
            } else {
                lp = evaluate_or_nan([&] { return target_.log_density_gradient(z, g); });
                ++gradients_;
            }
            if (!std::isfinite(lp) || !g.allFinite())
                return -std::numeric_limits<double>::infinity();
            sum += lp;
            grad.head(D_) += g;
            grad.tail(D_) += g.cwiseProduct(s).cwiseProduct(e);
            if (hv != nullptr) {
                hv->head(D_) += h;
                hv->tail(D_) += s.cwiseProduct(e).cwiseProduct(h + g.cwiseProduct(v->tail(D_)));
            }
        }
        grad /= static_cast<double>(N);
        grad.tail(D_).array() += 1.0;
        if (hv != nullptr)
            *hv /= static_cast<double>(N);
        return sum / static_cast<double>(N) + eta.tail(D_).sum() +
               0.5 * D_ * (1.0 + std::log(2.0 * std::numbers::pi));
    }

    CurvatureTarget& target_;
    Eigen::MatrixXd eps_;
    int D_;
    long gradients_ = 0;
    long hessian_vector_products_ = 0;
};

}  // namespace

DadviResult run_dadvi(CurvatureTarget& target, const Options& opts, const DadviSettings& settings) {
    const auto t0 = std::chrono::steady_clock::now();
    const int D = target.dim();
    if (opts.family == Family::FullRank) {
        throw ModelError(
            "DADVI fits a mean-field q, as its paper does (full-rank DADVI is not built); its "
            "linear-response covariance (`linear_response`) is the correlated answer");
    }
    if (!opts.minibatch.empty())
        throw ModelError("DADVI's fixed draws need the full data: a minibatch is not supported");
    if (settings.draws < 2) {
        throw ModelError(
            fmt::format("DADVI needs at least 2 fixed draws (for its Monte Carlo error); got {}",
                        settings.draws));
    }
    // Where q starts: the start of ADVI (the mode and curvature where they exist, else the
    // init point with unit scales); DADVI's Newton-CG then needs few steps.
    Options for_start = opts;
    for_start.convergence = ConvergenceRule::Auto;
    const Start start = find_start(target, for_start);
    Eigen::VectorXd eta0(2 * D);
    eta0 << start.mean, start.scale.array().log().matrix();

    Rng rng(opts.seed);
    FixedDrawElbo objective(target, rng.normal_matrix(settings.draws, D).transpose());
    OptimizerSettings os;
    os.interrupt = opts.interrupt;
    os.runaway_limits.resize(2 * D);
    os.runaway_limits.head(D) =
        opts.runaway_limits.size() == D ? opts.runaway_limits : Eigen::VectorXd::Constant(D, 1e50);
    os.runaway_limits.tail(D).setConstant(700.0);  // exp(omega) overflows beyond
    os.describe_coordinate = [&opts, D](int k) {
        const int d = k < D ? k : k - D;
        const std::string name = opts.describe_coordinate ? opts.describe_coordinate(d)
                                                          : fmt::format("coordinate {}", d);
        return fmt::format("{} of {}", k < D ? "the mean" : "the log sd", name);
    };
    OptimizerResult opt;
    try {
        opt = maximize_newton_cg(objective, eta0, os);
    } catch (const FitError& e) {
        throw FitError(fmt::format("DADVI ({} fixed draws): {}", settings.draws, e.what()));
    }
    if (opt.status == OptimizeStatus::NoMode || opt.status == OptimizeStatus::NonFiniteStart) {
        throw FitError(fmt::format("DADVI ({} fixed draws): no optimum of the fixed-draw ELBO: {}",
                                   settings.draws, opt.message));
    }
    DadviResult out;
    const Eigen::VectorXd mu = opt.zeta.head(D), omega = opt.zeta.tail(D);
    out.mean_field_sd = omega.array().exp().matrix();

    // The Hessian of F at the optimum: linear response and the Monte Carlo error.
    long hessian_products = 0;
    Eigen::MatrixXd cov_lr;
    try {
        const DenseHessian h = dense_hessian(objective, opt.zeta, os.describe_coordinate);
        hessian_products = 2L * D * settings.draws;
        const Eigen::LLT<Eigen::MatrixXd> neg(-h.H);
        if (neg.info() != Eigen::Success) {
            out.notes =
                "no linear response or Monte Carlo error: the Hessian of the fixed-draw "
                "ELBO is not negative definite at its optimum";
        } else {
            const Eigen::MatrixXd inv = neg.solve(Eigen::MatrixXd::Identity(2 * D, 2 * D));
            cov_lr = inv.topLeftCorner(D, D);
            out.linear_response_sd = cov_lr.diagonal().cwiseSqrt();
            const Eigen::MatrixXd G = objective.per_draw_gradients(opt.zeta);
            const Eigen::MatrixXd centred = G.colwise() - G.rowwise().mean();
            const Eigen::MatrixXd cov_g =
                centred * centred.transpose() / static_cast<double>(G.cols() - 1);
            const Eigen::MatrixXd cov_eta = inv * cov_g * inv / static_cast<double>(settings.draws);
            out.mean_mc_se = cov_eta.topLeftCorner(D, D).diagonal().cwiseSqrt();
        }
    } catch (const SizeError& e) {
        out.notes = fmt::format("no linear response or Monte Carlo error: {}", e.what());
    } catch (const FitError& e) {
        out.notes = fmt::format("no linear response or Monte Carlo error: {}", e.what());
    }
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
        r.q = Approximation::mean_field(mu, omega);
    }
    r.eta = std::numeric_limits<double>::quiet_NaN();
    r.iterations = opt.iterations;
    r.converged = opt.converged();
    r.stop_reason =
        fmt::format("Newton-CG on the ELBO of {} fixed draws: {}", settings.draws, opt.message);
    if (out.mean_mc_se.size() == D) {
        // In units of the posterior sd the answer gives.
        const Eigen::VectorXd sd =
            settings.linear_response ? out.linear_response_sd : out.mean_field_sd;
        Eigen::Index worst = 0;
        const double rel = out.mean_mc_se.cwiseQuotient(sd).maxCoeff(&worst);
        r.stop_reason += fmt::format(
            "; Monte Carlo error of the means from the fixed draws: at most {:.3g} sds ({})", rel,
            os.describe_coordinate(static_cast<int>(worst)));
    } else if (!out.notes.empty()) {
        r.stop_reason += "; " + out.notes;
    }
    r.start = start.description;
    r.other_mode = start.other_mode;
    // The ELBO of the returned q on fresh draws (not the fixed ones it was fitted to).
    Rng fresh(opts.seed ^ 0x4441445649000000ull);
    const int elbo_draws = std::max(opts.elbo_samples, 1000);
    const Eigen::MatrixXd z = r.q.draw(fresh, elbo_draws).transpose();
    Eigen::VectorXd lp;
    target.log_densities(z, lp);
    const Eigen::ArrayXd finite = lp.array().isFinite().select(lp.array(), 0.0);
    const long n_finite = lp.array().isFinite().count();
    r.dropped_draws = elbo_draws - n_finite;
    if (n_finite > 1) {
        const double mean = finite.sum() / n_finite;
        double ss = 0.0;
        for (Eigen::Index i = 0; i < lp.size(); ++i)
            if (std::isfinite(lp[i]))
                ss += (lp[i] - mean) * (lp[i] - mean);
        r.elbo = mean + r.q.entropy();
        r.elbo_se = std::sqrt(ss / (n_finite - 1) / n_finite);
    }
    r.elbo_iterations = {opt.iterations};
    r.elbo_trace = {r.elbo};
    r.draws = r.q.draw(fresh, opts.output_samples);
    r.gradient_evaluations = start.gradient_evaluations + start.hessian_vector_products +
                             objective.gradients() + objective.hessian_vector_products() +
                             hessian_products;
    r.value_evaluations = elbo_draws;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace advi
