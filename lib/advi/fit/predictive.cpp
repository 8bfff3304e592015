#include <advi/fit/predictive.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>

#include <advi/engine/approximation.hpp>
#include <advi/engine/rng.hpp>

namespace advi {

HeldOutLikelihood::HeldOutLikelihood(const ModelSpec& fitted, const ModelSpec& held_out,
                                     NodeId pointwise) {
    if (pointwise < 0 || pointwise >= held_out.graph.size()) {
        throw ModelError(
            "held-out log-likelihood: the pointwise node is not in the held-out model");
    }
    const std::vector<int> from = fitted.theta_offsets();
    const std::vector<int> to = held_out.theta_offsets();
    for (std::size_t k = 0; k < held_out.latents.size(); ++k) {
        const LatentVariable& l = held_out.latents[k];
        int match = -1;
        for (std::size_t j = 0; j < fitted.latents.size(); ++j) {
            if (fitted.latents[j].name == l.name)
                match = static_cast<int>(j);
        }
        if (match < 0) {
            throw ModelError(fmt::format(
                "held-out model: latent `{}` is not a latent of the fitted model", l.name));
        }
        const LatentVariable& f = fitted.latents[static_cast<std::size_t>(match)];
        if (!(f.shape == l.shape)) {
            throw ShapeError(fmt::format(
                "held-out model: latent `{}` has shape {} there and {} in the fitted model", l.name,
                l.shape.str(), f.shape.str()));
        }
        segments_.push_back({from[static_cast<std::size_t>(match)], to[k], l.shape.size()});
    }
    program_ = std::make_unique<ThetaProgram>(held_out, std::vector<std::pair<std::string, NodeId>>{
                                                            {"log_lik", pointwise}
    });
    theta_ = Eigen::VectorXd::Zero(held_out.theta_dim());
}

const Eigen::VectorXd& HeldOutLikelihood::at(const Eigen::VectorXd& fitted_theta) {
    for (const Segment& s : segments_) {
        theta_.segment(s.to, s.size) = fitted_theta.segment(s.from, s.size);
    }
    return program_->evaluate(theta_);
}

LogPredictive log_predictive(HeldOutLikelihood& likelihood, const Eigen::MatrixXd& theta_draws) {
    const int n = likelihood.points();
    // Per point, a running log-sum-exp: max and the sum of exp(x - max).
    Eigen::VectorXd max = Eigen::VectorXd::Constant(n, -std::numeric_limits<double>::infinity());
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(n);
    LogPredictive out;
    for (Eigen::Index s = 0; s < theta_draws.rows(); ++s) {
        const Eigen::VectorXd& ll = likelihood.at(theta_draws.row(s).transpose());
        if (ll.hasNaN()) {
            ++out.dropped;
            continue;
        }
        ++out.draws;
        for (int i = 0; i < n; ++i) {
            if (ll[i] == -std::numeric_limits<double>::infinity())
                continue;
            if (ll[i] > max[i]) {
                sum[i] = sum[i] * std::exp(max[i] - ll[i]) + 1.0;
                max[i] = ll[i];
            } else {
                sum[i] += std::exp(ll[i] - max[i]);
            }
        }
    }
    if (out.draws == 0) {
        throw FitError(fmt::format(
            "held-out log predictive density: the log-likelihood was NaN at all {} draws",
            theta_draws.rows()));
    }
    out.pointwise = max.array() + sum.array().log() - std::log(static_cast<double>(out.draws));
    out.mean = n > 0 ? out.pointwise.mean() : 0.0;
    return out;
}

LogPredictive log_predictive(const Fit& fit, const ModelSpec& held_out, NodeId pointwise) {
    HeldOutLikelihood likelihood(fit.model(), held_out, pointwise);
    return log_predictive(likelihood, fit.theta_draws());
}

PredictiveTrace::PredictiveTrace(const ModelSpec& fitted, const ModelSpec& held_out,
                                 NodeId pointwise, int draws, std::uint64_t seed)
    : likelihood_(fitted, held_out, pointwise),
      to_theta_(compile_constrain_map(fitted)),
      draws_(draws),
      seed_(seed) {
    if (draws < 1) {
        throw FitError(fmt::format("PredictiveTrace: draws must be positive, got {}", draws));
    }
}

std::function<void(const FitProgress&)> PredictiveTrace::monitor() {
    return [this](const FitProgress& p) { record(p); };
}

void PredictiveTrace::record(const FitProgress& progress) {
    // Each record has its own stream, so the trace does not depend on how often it records.
    Rng rng(seed_ + static_cast<std::uint64_t>(progress.iteration) * 0x9E3779B97F4A7C15ull);
    const Eigen::MatrixXd zeta = progress.q.draw(rng, draws_);
    Eigen::MatrixXd theta(draws_, to_theta_.output_dim());
    Eigen::VectorXd z, t(to_theta_.output_dim());
    for (int s = 0; s < draws_; ++s) {
        z = zeta.row(s).transpose();
        to_theta_.run(z, t);
        theta.row(s) = t.transpose();
    }
    points_.push_back(
        {progress.iteration, progress.seconds, log_predictive(likelihood_, theta).mean});
}

}  // namespace advi
