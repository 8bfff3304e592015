// Validation of ADVI options: each message names the option and the value it got.
#include <advi/engine/options.hpp>

#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

namespace {

void require_positive(int value, const char* name) {
    if (value <= 0) {
        throw FitError(fmt::format("option `{}` must be positive, got {}", name, value));
    }
}

void require_positive(double value, const char* name) {
    // Written so that NaN fails too.
    if (!(value > 0.0) || !std::isfinite(value)) {
        throw FitError(fmt::format("option `{}` must be positive and finite, got {}", name, value));
    }
}

}  // namespace

void validate_options(const Options& opts, int dim) {
    if (dim < 1) {
        throw ModelError(
            fmt::format("the model has no parameters to fit (its unconstrained dimension is {}; "
                        "ADVI needs at least 1)",
                        dim));
    }
    if (!(opts.init_radius >= 0.0) || !std::isfinite(opts.init_radius))
        throw FitError(
            fmt::format("option `init_radius` must be finite and >= 0, got {}", opts.init_radius));
    require_positive(opts.grad_samples, "grad_samples");
    require_positive(opts.elbo_samples, "elbo_samples");
    require_positive(opts.eval_elbo, "eval_elbo");
    require_positive(opts.tol_rel_obj, "tol_rel_obj");
    require_positive(opts.max_iterations, "max_iterations");
    if (opts.adapt_engaged) {
        require_positive(opts.adapt_iter, "adapt_iter");
    } else {
        require_positive(opts.eta, "eta");
    }
    if (opts.threads < 0) {
        throw FitError(fmt::format(
            "option `threads` must be non-negative (0: the hardware's), got {}", opts.threads));
    }
    if (opts.refresh < -1) {
        throw FitError(fmt::format(
            "option `refresh` must be -1 (every ELBO evaluation), 0 (none) or positive, got {}",
            opts.refresh));
    }
    if (opts.output_samples < 0) {
        throw FitError(fmt::format("option `output_samples` must be non-negative, got {}",
                                   opts.output_samples));
    }
    if (opts.family != Family::MeanField && opts.family != Family::FullRank &&
        opts.family != Family::LowRank) {
        throw FitError(
            fmt::format("option `family` has unknown value {}", static_cast<int>(opts.family)));
    }
    if (opts.family == Family::LowRank && (opts.rank < 1 || opts.rank >= dim)) {
        throw FitError(fmt::format(
            "option `rank` = {}: the low-rank family needs 1 <= rank < {} (the unconstrained "
            "coordinates){}",
            opts.rank, dim, opts.rank >= dim ? "; with rank >= dim use the full-rank family" : ""));
    }
    if (opts.convergence != ConvergenceRule::Auto && opts.convergence != ConvergenceRule::Stan) {
        throw FitError(fmt::format("option `convergence` has unknown value {}",
                                   static_cast<int>(opts.convergence)));
    }
    if (opts.draws == DrawScheme::Rqmc && opts.grad_samples < 2) {
        throw FitError(
            fmt::format("option `draws` = rqmc needs `grad_samples` >= 2 (got {}): one randomised "
                        "quasi-Monte Carlo point is one Monte Carlo draw",
                        opts.grad_samples));
    }
    if (opts.control_variates && !subsamples(opts)) {
        throw FitError(
            "option `control_variates` is for minibatch gradients: it needs `minibatch` (and "
            "not `row_shards`, whose gradients are the full data's already)");
    }
    if (opts.start == StartFrom::Pathfinder && subsamples(opts)) {
        throw FitError(
            "option `start` = pathfinder needs the full data: its L-BFGS path on a minibatch's "
            "noisy log density would end anywhere");
    }
    if (opts.start == StartFrom::Pathfinder && opts.convergence == ConvergenceRule::Stan) {
        throw FitError(
            "option `start` = pathfinder is not Stan's start: with `convergence` = stan use "
            "start = init (Stan's rule keeps Stan's start)");
    }
    if (opts.monitor_every < 0 || (opts.monitor_every > 0 && !opts.monitor)) {
        throw FitError(fmt::format(
            "option `monitor_every` must be non-negative and needs a `monitor`, got {}{}",
            opts.monitor_every, opts.monitor ? "" : " without a monitor"));
    }
    if (opts.runaway_limits.size() != 0 &&
        (opts.runaway_limits.size() != dim || !(opts.runaway_limits.array() > 0.0).all())) {
        throw ShapeError(fmt::format(
            "option `runaway_limits`: expected vector({}) of positive values, got vector({})", dim,
            opts.runaway_limits.size()));
    }
    if (opts.init.size() != 0) {
        if (opts.init.size() != dim) {
            throw ShapeError(fmt::format("option `init`: expected vector({}), got vector({})", dim,
                                         opts.init.size()));
        }
        if (!opts.init.allFinite()) {
            throw FitError("option `init` has a non-finite entry");
        }
    }
}

}  // namespace advi
