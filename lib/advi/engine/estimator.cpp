// Draw sources and the gradient-ascent update for one ADVI fit.
#include <advi/engine/estimator.hpp>

#include <fmt/format.h>

#include <Eigen/Cholesky>

namespace advi {

namespace {

// Each purpose gets its own stream, seeded from a master generator in a fixed order, so
// that e.g. changing output_samples does not change the fit, and the common ELBO draws do
// not depend on how many gradient draws were made before them.
struct Streams {
    Rng common, elbo, grad, output;
};

Streams derive_streams(std::uint64_t seed) {
    Rng master(seed);
    Rng common = master.split();
    Rng elbo = master.split();
    Rng grad = master.split();
    Rng output = master.split();
    return {std::move(common), std::move(elbo), std::move(grad), std::move(output)};
}

// The common ELBO draws: elbo_samples standard-normal vectors, made "balanced" so that the
// fixed set's error does not masquerade as movement of q. Half the rows are the negatives
// of the other half (antithetic: sample mean exactly 0), and when there are enough rows the
// set is whitened so that its second moment is exactly I. Then E_q[log p] is exact for a
// quadratic log density and has no odd-order error otherwise, which removes the
// dominant (first-order) part of the difference between the estimated and the true ELBO
// surface; without it, the estimated ELBO has a non-zero slope at the optimum and the
// jitter of q near convergence shows up in it at first order.
Eigen::MatrixXd balanced_normal_draws(Rng& rng, int n, int dim) {
    Eigen::MatrixXd etas = Eigen::MatrixXd::Zero(n, dim);  // an odd n keeps one eta = 0 row
    const int half = n / 2;
    etas.topRows(half) = rng.normal_matrix(half, dim);
    etas.middleRows(half, half) = -etas.topRows(half);
    // Whitening needs a full-rank sample covariance; it costs O(n dim^2 + dim^3), once.
    if (half > dim) {
        const Eigen::MatrixXd second_moment = etas.transpose() * etas / static_cast<double>(n);
        const Eigen::LLT<Eigen::MatrixXd> llt(second_moment);
        if (llt.info() == Eigen::Success) {
            // Rows eta^T -> (L^-1 eta)^T, i.e. etas * L^-T.
            etas = llt.matrixL().solve(etas.transpose()).transpose();
        }
    }
    return etas;
}

}  // namespace

Estimator::Estimator(Target& target, const Options& opts)
    : target_(target),
      rule_(opts.convergence),
      grad_samples_(opts.grad_samples),
      elbo_samples_(opts.elbo_samples),
      // Stan's rule keeps Stan's estimator; Auto sticks the landing unless told not to.
      estimator_(opts.convergence == ConvergenceRule::Auto && opts.sticking_the_landing
                     ? GradientEstimator::StickingTheLanding
                     : GradientEstimator::Standard),
      grad_rng_(0),
      elbo_rng_(0),
      output_rng_(0) {
    Streams s = derive_streams(opts.seed);
    grad_rng_ = std::move(s.grad);
    elbo_rng_ = std::move(s.elbo);
    output_rng_ = std::move(s.output);
    // eta has a coordinate per dimension, and the low-rank family's rank more.
    const int noise_dim = target.dim() + (opts.family == Family::LowRank ? opts.rank : 0);
    if (rule_ == ConvergenceRule::Auto) {
        common_etas_ = balanced_normal_draws(s.common, elbo_samples_, noise_dim);
    }
    if (opts.draws == DrawScheme::Rqmc)
        rqmc_.emplace(noise_dim);
    minibatch_ = subsamples(opts);
}

double Estimator::elbo(const Approximation& q) {
    target_.use_evaluation_batch();
    last_elbo_ = rule_ == ConvergenceRule::Auto ? elbo_estimate(target_, q, common_etas_)
                 : rqmc_ ? elbo_estimate(target_, q, rqmc_->draw(elbo_rng_, elbo_samples_))
                         : elbo_estimate(target_, q, elbo_rng_, elbo_samples_);
    dropped_ += last_elbo_.dropped;
    return last_elbo_.value;
}

ElboGradient Estimator::gradient(const Approximation& q) {
    if (minibatch_)
        target_.offer_anchor(q);  // control variates: the target may move its anchor to q
    if (minibatch_ && grad_samples_ > 1 && !rqmc_) {
        // A batch for each draw: more draws then average out the batches' noise too, which
        // dominates a minibatch gradient's (one batch for all draws would leave it as it is
        // however many draws the Auto rule asks for).
        ElboGradient g;
        g.grad = Eigen::VectorXd::Zero(q.num_params());
        while (g.used < grad_samples_ && g.used + g.dropped < max_grad_draws()) {
            target_.next_minibatch();
            const ElboGradient one = elbo_gradient(target_, q, grad_rng_, 1, 1, estimator_);
            g.dropped += one.dropped;
            if (one.ok()) {
                g.grad += one.grad;
                ++g.used;
            }
        }
        if (g.used > 0)
            g.grad /= static_cast<double>(g.used);
        dropped_ += g.dropped;
        return g;
    }
    target_.next_minibatch();
    if (!rqmc_) {
        ElboGradient g =
            elbo_gradient(target_, q, grad_rng_, grad_samples_, max_grad_draws(), estimator_);
        dropped_ += g.dropped;
        return g;
    }
    ElboGradient g = elbo_gradient(target_, q, rqmc_->draw(grad_rng_, grad_samples_), estimator_);
    if (g.used < grad_samples_ && g.used + g.dropped < max_grad_draws()) {
        // Points where the density was not finite: made up by Monte Carlo draws, as the plain
        // estimator redraws, and averaged in by their numbers (the gradients' constant terms
        // are the same in both, so the weighted mean keeps them).
        const ElboGradient more = elbo_gradient(target_, q, grad_rng_, grad_samples_ - g.used,
                                                max_grad_draws() - g.used - g.dropped, estimator_);
        if (more.used > 0) {
            g.grad = g.used == 0 ? more.grad
                                 : ((g.used * g.grad + more.used * more.grad) /
                                    static_cast<double>(g.used + more.used))
                                       .eval();
        }
        g.used += more.used;
        g.dropped += more.dropped;
    }
    dropped_ += g.dropped;
    return g;
}

namespace {

// Each evaluation on a batch of its own (Estimator::scale_balance on minibatches).
class FreshBatchEach final : public Target {
public:
    explicit FreshBatchEach(Target& inner) : inner_(inner) {}
    int dim() const override { return inner_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        inner_.next_minibatch();
        return inner_.log_density_gradient(zeta, grad);
    }

private:
    Target& inner_;
};

}  // namespace

ScaleBalance Estimator::scale_balance(const Approximation& q) {
    if (minibatch_) {
        FreshBatchEach fresh(target_);
        const Eigen::MatrixXd& etas = rule_ == ConvergenceRule::Auto
                                          ? common_etas_
                                          : elbo_rng_.normal_matrix(elbo_samples_, q.noise_dim());
        ScaleBalance b = advi::scale_balance(fresh, q, etas);
        dropped_ += etas.rows() - b.used;
        target_.use_evaluation_batch();
        return b;
    }
    target_.use_evaluation_batch();
    const Eigen::MatrixXd fresh = rule_ == ConvergenceRule::Auto
                                      ? Eigen::MatrixXd()
                                      : elbo_rng_.normal_matrix(elbo_samples_, q.noise_dim());
    const Eigen::MatrixXd& etas = rule_ == ConvergenceRule::Auto ? common_etas_ : fresh;
    ScaleBalance b = advi::scale_balance(target_, q, etas);
    dropped_ += etas.rows() - b.used;  // every failed evaluation is a dropped draw
    return b;
}

std::string gradient_step(Estimator& est, Approximation& q, StepSize& steps, int iteration) {
    const ElboGradient g = est.gradient(q);
    if (!g.ok()) {
        return fmt::format(
            "the log density or its gradient was not finite at any of the {} draws tried at "
            "iteration {}",
            g.dropped, iteration);
    }
    if (!ascend(q, steps, g.grad))
        return fmt::format("the variational parameters became non-finite at iteration {}",
                           iteration);
    return {};
}

bool ascend(Approximation& q, StepSize& steps, const Eigen::VectorXd& grad) {
    return q.step(steps.next(grad), grad);
}

}  // namespace advi
