// The Monte Carlo side of one ADVI fit: where ELBO and gradient draws come from (common
// random numbers under the Robust rule, fresh draws under Stan's), dropped-draw bookkeeping,
// and the stochastic-gradient update itself.
#pragma once

#include <optional>

#include <algorithm>
#include <limits>
#include <string>

#include <Eigen/Core>

#include <advi/engine/approximation.hpp>
#include <advi/engine/elbo.hpp>
#include <advi/engine/options.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/rqmc.hpp>
#include <advi/engine/runaway.hpp>
#include <advi/engine/step_size.hpp>
#include <advi/engine/target.hpp>

namespace advi {

class Estimator {
public:
    // A gradient gets at most this many draws per requested sample before giving up.
    static constexpr int kRedrawFactor = 10;

    // All randomness derives from opts.seed, in a fixed order, so a fit is reproducible.
    Estimator(Target& target, const Options& opts);

    Target& target() { return target_; }
    ConvergenceRule rule() const { return rule_; }
    int elbo_samples() const { return elbo_samples_; }
    int grad_samples() const { return grad_samples_; }
    // More draws per gradient when the Auto rule finds the gradient noise too large to make
    // progress (auto_rule.cpp).
    void set_grad_samples(int n) { grad_samples_ = n; }
    GradientEstimator gradient_estimator() const { return estimator_; }
    // In 64 bits and clamped: 10 x grad_samples overflowed int for grad_samples > 214748364
    // and the gradient then gave up after 0 draws.
    int max_grad_draws() const {
        return static_cast<int>(
            std::min<long long>(static_cast<long long>(kRedrawFactor) * grad_samples_,
                                std::numeric_limits<int>::max()));
    }

    // ELBO estimate; -inf when no draw was usable. Robust: the same elbo_samples eta
    // vectors every call (antithetic and whitened, see estimator.cpp), so two estimates
    // differ only because q moved. Stan: fresh draws each call.
    double elbo(const Approximation& q);
    // Draw counts of the last elbo() call (for error messages).
    const ElboEstimate& last_elbo() const { return last_elbo_; }
    // Gradient from grad_samples finite draws (redrawing up to max_grad_draws()).
    ElboGradient gradient(const Approximation& q);

    // Whether q's scale is at an optimum of its family (runaway.hpp), over the ELBO's draws:
    // the common ones under the Robust rule, fresh ones under Stan's. On minibatches each draw
    // reads a fresh batch: a fixed batch's gradient is not zero at the full data's optimum,
    // while the mean over draws and batches estimates the full data's, with the batches'
    // spread in its standard error.
    ScaleBalance scale_balance(const Approximation& q);

    long dropped() const { return dropped_; }
    Rng& output_rng() { return output_rng_; }

private:
    Target& target_;
    ConvergenceRule rule_;
    int grad_samples_;
    int elbo_samples_;
    GradientEstimator estimator_;
    Rng grad_rng_;
    Rng elbo_rng_;
    Rng output_rng_;
    Eigen::MatrixXd common_etas_;      // elbo_samples x dim, Robust only
    std::optional<RqmcNormals> rqmc_;  // DrawScheme::Rqmc only
    ElboEstimate last_elbo_;
    long dropped_ = 0;
    bool minibatch_ = false;  // the target reads minibatches (Options::minibatch)
};

// q += rho^(i) .* grad (paper Algorithm 1); returns whether q is still finite.
bool ascend(Approximation& q, StepSize& steps, const Eigen::VectorXd& grad);

// One iteration's gradient and step, as both main loops take it: empty when q moved to finite
// values, else why not ("the log density or its gradient was not finite at any of the N draws
// tried at iteration i", "the variational parameters became non-finite at iteration i").
[[nodiscard]] std::string gradient_step(Estimator& est, Approximation& q, StepSize& steps,
                                        int iteration);

}  // namespace advi
