// A fit of a model: compiles it, runs ADVI on the gradient program, maps the draws of q
// back through T^-1, and answers per latent variable in constrained space.
#pragma once

#include <string>
#include <string_view>

#include <Eigen/Core>

#include <advi/advi/engine.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

class Fit {
public:
    Fit(ModelSpec spec, AdviResult result, Eigen::MatrixXd theta_draws, Eigen::VectorXd theta_at_mu);

    // Posterior summaries of a latent in constrained space, from the draws of q mapped
    // through T^-1; matrices are flattened column-major.
    [[nodiscard]] Eigen::VectorXd mean(std::string_view name) const;
    [[nodiscard]] Eigen::VectorXd sd(std::string_view name) const;
    [[nodiscard]] Eigen::VectorXd quantile(std::string_view name, double p) const;
    // One row per draw, one column per element.
    [[nodiscard]] Eigen::MatrixXd draws(std::string_view name) const;
    // T^-1(mu): the constrained image of q's mean (CmdStan's first output row).
    [[nodiscard]] Eigen::VectorXd at_mu(std::string_view name) const;

    // A table per latent element: mean, sd, 5%, 50%, 95%; with the fit's facts above it.
    [[nodiscard]] std::string summary() const;

    [[nodiscard]] const AdviResult& result() const { return result_; }
    [[nodiscard]] const ModelSpec& model() const { return spec_; }
    [[nodiscard]] const Eigen::MatrixXd& theta_draws() const { return theta_draws_; }

private:
    [[nodiscard]] std::pair<int, int> columns(std::string_view name) const;

    ModelSpec spec_;
    AdviResult result_;
    Eigen::MatrixXd theta_draws_;  // output_samples x theta_dim
    Eigen::VectorXd theta_at_mu_;
};

// Compiles the model and fits it with ADVI.
[[nodiscard]] Fit fit(const ModelSpec& m, const Options& options = {});

}  // namespace advi
