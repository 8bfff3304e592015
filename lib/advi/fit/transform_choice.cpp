// Greedy choice of T1 or T2 per bounded latent, by the fits' ELBOs.
#include <advi/fit/transform_choice.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

const char* positive_transform_name(PositiveTransform t) {
    return t == PositiveTransform::Log ? "log" : "softplus";
}

std::string AutoTransformFit::summary(int) const {
    if (choices.empty())
        return "Transforms: no parameter has a lower or an upper bound only; nothing to choose\n";
    std::string s = "Transforms chosen by ELBO (T1 log or T2 softplus, paper section 3.3):\n";
    for (const TransformChoice& c : choices) {
        s += fmt::format(
            "  {}: {} (ELBO with log {:.6g} +- {:.2g}, with softplus {:.6g} +- {:.2g}){}\n",
            c.variable, positive_transform_name(c.chosen), c.elbo_log, c.elbo_log_se,
            c.elbo_softplus, c.elbo_softplus_se, c.error.empty() ? std::string() : "; " + c.error);
    }
    return s;
}

namespace {

// The ELBO of a fit's q from its output draws, mean(log p - log q) over the finite ratios, and
// that mean's standard error: 1,000 draws by default, against the 100 of the engine's last
// estimate (a standard error of 0.1 nats on a one-dimensional Gamma, as large as the
// difference between the transforms). NaN with fewer than 2 finite ratios.
std::pair<double, double> draws_elbo(const Fit& f) {
    double sum = 0.0, sum_sq = 0.0;
    int n = 0;
    for (Eigen::Index i = 0; i < f.log_p().size(); ++i) {
        const double r = f.log_p()[i] - f.log_g()[i];
        if (!std::isfinite(r))
            continue;
        sum += r;
        sum_sq += r * r;
        ++n;
    }
    if (n < 2)
        return {std::nan(""), std::nan("")};
    const double mean = sum / n;
    const double var = std::max(0.0, (sum_sq - n * mean * mean) / (n - 1.0));
    return {mean, std::sqrt(var / n)};
}

}  // namespace

AutoTransformFit fit_auto_transform(const ModelSpec& m, const Options& options) {
    if (options.output_samples < 2) {
        throw FitError(fmt::format(
            "the transform choice compares ELBOs over the output draws: `output_samples` must be "
            ">= 2, got {}",
            options.output_samples));
    }
    ModelSpec current = m;
    std::optional<Fit> best(fit(current, options));
    std::vector<TransformChoice> choices;
    for (std::size_t k = 0; k < current.latents.size(); ++k) {
        const Support::Kind kind = current.latents[k].support.kind;
        if (kind != Support::Kind::Lower && kind != Support::Kind::Upper)
            continue;
        TransformChoice c;
        c.variable = current.latents[k].name;
        const PositiveTransform had = current.latents[k].positive;
        const PositiveTransform other =
            had == PositiveTransform::Log ? PositiveTransform::Softplus : PositiveTransform::Log;
        ModelSpec candidate = current;
        candidate.latents[k].positive = other;
        const auto [elbo_had, se_had] = draws_elbo(*best);
        double elbo_other = std::numeric_limits<double>::quiet_NaN();
        double se_other = std::numeric_limits<double>::quiet_NaN();
        std::optional<Fit> tried;
        try {
            tried.emplace(fit(candidate, options));
            std::tie(elbo_other, se_other) = draws_elbo(*tried);
        } catch (const FitError& e) {
            c.error =
                fmt::format("the fit with {} failed: {}", positive_transform_name(other), e.what());
        }
        // The higher ELBO wins; NaN (a failed fit, no finite draw) never does.
        const bool switch_to_other = tried && std::isfinite(elbo_other) &&
                                     (!std::isfinite(elbo_had) || elbo_other > elbo_had);
        if (had == PositiveTransform::Log) {
            c.elbo_log = elbo_had, c.elbo_log_se = se_had;
            c.elbo_softplus = elbo_other, c.elbo_softplus_se = se_other;
        } else {
            c.elbo_softplus = elbo_had, c.elbo_softplus_se = se_had;
            c.elbo_log = elbo_other, c.elbo_log_se = se_other;
        }
        if (switch_to_other) {
            current = std::move(candidate);
            best = std::move(tried);
        }
        c.chosen = current.latents[k].positive;
        choices.push_back(std::move(c));
    }
    return AutoTransformFit{std::move(current), std::move(*best), std::move(choices)};
}

}  // namespace advi
