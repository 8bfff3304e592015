// A fit of a model: compiles it, runs ADVI on the gradient program, maps the draws of q
// back through T^-1, and answers per latent variable in constrained space.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <advi/engine/dadvi.hpp>
#include <advi/engine/engine.hpp>
#include <advi/fit/verdict.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

// The log densities of the output draws of q, as CmdStan writes them (log_p__, log_g__), and
// of q's mean. Both carry every normalising constant, so that mean(log_p - log_g) over the
// draws estimates the ELBO and log_p - log_g serves as log importance weights (PSIS).
struct DrawDensities {
    // log p(x, T^-1(zeta)) + log|det J_T^-1(zeta)|: the gradient program's lp, per draw.
    Eigen::VectorXd log_p;
    // log q(zeta), normalised: mean-field sum_d log N(zeta_d | mu_d, exp(omega_d)),
    // full-rank log N(zeta | mu, L L'), per draw.
    Eigen::VectorXd log_g;
    double log_p_at_mu = 0.0;
    double log_g_at_mu = 0.0;
    // Output draws whose log_p (or constrained value) was not finite: dropped, each replaced
    // by a new draw from q (at most 10 times output_samples draws in all), so that no NaN
    // reaches the output; the count is reported by summary() and in the CSV's trailer.
    long nonfinite_log_p = 0;
    // Output draws rejected because a transformed parameter violated its declared constraint
    // (their log_p is -inf, as Stan rejects them), replaced likewise and counted apart, with
    // the first violation as a message.
    long rejected_tp_constraint = 0;
    std::string first_tp_violation;
    // The mean row, T^-1(mu), against the same constraints: Stan rejects such a point, but the
    // row is CmdStan's layout and is written as computed, so the violation is said instead
    // (summary and CSV trailer). Unset when the model declares no such constraint; "" when
    // the mean satisfies them; else the first violation ("transformed parameter `tp` is ...").
    std::optional<std::string> mean_tp_violation;
};

class Fit {
public:
    // `verdict`: nothing to assess the draws given (assess(result, log_p, log_g)); a verdict
    // made elsewhere for draws that are not q's own (psis_resample, fit_runs).
    Fit(ModelSpec spec, AdviResult result, Eigen::MatrixXd theta_draws, Eigen::VectorXd theta_at_mu,
        DrawDensities densities = {}, std::optional<Verdict> verdict = std::nullopt);

    // Posterior summaries of a latent in constrained space, from the draws of q mapped
    // through T^-1; matrices are flattened column-major.
    [[nodiscard]] Eigen::VectorXd mean(std::string_view name) const;
    [[nodiscard]] Eigen::VectorXd sd(std::string_view name) const;
    [[nodiscard]] Eigen::VectorXd quantile(std::string_view name, double p) const;
    // One row per draw, one column per element.
    [[nodiscard]] Eigen::MatrixXd draws(std::string_view name) const;
    // T^-1(mu): the constrained image of q's mean (CmdStan's first output row).
    [[nodiscard]] Eigen::VectorXd at_mu(std::string_view name) const;

    // The verdict (verdict.hpp): "reliable" or "not reliable: <why>" and the statistics behind
    // it, from the output draws (no extra evaluation).
    [[nodiscard]] const Verdict& verdict() const { return verdict_; }

    // A table per latent element: mean, sd, 5%, 50%, 95%; above it the verdict's line and its
    // details first, then the fit's facts.
    // `index_base` 1 labels elements as Stan does (beta[1]); 0 as C++ (beta[0]).
    [[nodiscard]] std::string summary(int index_base = 0) const;

    [[nodiscard]] const AdviResult& result() const { return result_; }
    [[nodiscard]] const ModelSpec& model() const { return spec_; }
    [[nodiscard]] const Eigen::MatrixXd& theta_draws() const { return theta_draws_; }
    // T^-1(mu) of every latent, at ModelSpec::theta_offsets().
    [[nodiscard]] const Eigen::VectorXd& theta_at_mu() const { return theta_at_mu_; }

    // The draws of q in unconstrained space (output_samples x dim), row i the zeta whose image
    // is theta_draws().row(i).
    [[nodiscard]] const Eigen::MatrixXd& zeta_draws() const { return result_.draws; }
    // Per draw: the model's log density at zeta with the log-Jacobian and every constant.
    [[nodiscard]] const Eigen::VectorXd& log_p() const { return densities_.log_p; }
    // Per draw: log q(zeta), normalised.
    [[nodiscard]] const Eigen::VectorXd& log_g() const { return densities_.log_g; }
    // The same two at q's mean mu (CmdStan writes 0, 0 in its mean row; these are the values).
    [[nodiscard]] double log_p_at_mu() const { return densities_.log_p_at_mu; }
    [[nodiscard]] double log_g_at_mu() const { return densities_.log_g_at_mu; }
    // Output draws dropped because their log_p was not finite (replaced by new draws).
    [[nodiscard]] long nonfinite_log_p() const { return densities_.nonfinite_log_p; }
    // Output draws rejected (and replaced) because a transformed parameter violated its
    // declared constraint.
    [[nodiscard]] long rejected_tp_constraint_draws() const {
        return densities_.rejected_tp_constraint;
    }
    // The first declared constraint of a transformed parameter that q's mean row T^-1(mu)
    // violates ("" when none is violated, nothing when the model declares none).
    [[nodiscard]] const std::optional<std::string>& mean_tp_violation() const {
        return densities_.mean_tp_violation;
    }
    [[nodiscard]] const DrawDensities& densities() const { return densities_; }

private:
    [[nodiscard]] std::pair<int, int> columns(std::string_view name) const;

    ModelSpec spec_;
    AdviResult result_;
    Eigen::MatrixXd theta_draws_;  // output_samples x theta_dim
    Eigen::VectorXd theta_at_mu_;
    DrawDensities densities_;
    Verdict verdict_;
};

// The final ELBO as the summary and the CSV trailer print it: the number (`significant`
// digits; 0: the shortest text that reads back to the same double), or a statement that there
// is none ("not computed: ..."), never "nan".
[[nodiscard]] std::string elbo_text(double elbo, int significant = 6);

// Labels of the constrained elements of `spec` in ModelSpec::theta_offsets() order: `mu`,
// `beta[1]`, `Sigma[1,2]` (index_base 1, Stan's) or `beta[0]` (0).
[[nodiscard]] std::vector<std::string> theta_labels(const ModelSpec& spec, int index_base = 0);

// The table of Fit::summary: per latent element of `spec`, the mean, sd, 5%, 50% and 95% of
// its column of `theta_draws` (laid out at ModelSpec::theta_offsets()), labelled beta[1] or
// beta[0] by `index_base`; for any draws in constrained space (ADVI's, Laplace's).
[[nodiscard]] std::string latent_summary_table(const ModelSpec& spec,
                                               const Eigen::MatrixXd& theta_draws,
                                               int index_base = 0);

// Compiles the model and fits it with ADVI.
[[nodiscard]] Fit fit(const ModelSpec& m, const Options& options = {});

// Deterministic ADVI (engine/dadvi.hpp) beside fit(): q of options.family (mean-field, as the
// paper; full-rank with more draws than coordinates) by Newton-CG on the ELBO of
// `settings.draws` fixed draws, or with `settings.linear_response` q = N(DADVI's means, the
// linear-response covariance); the same Fit, output draws, log_p/log_g and verdict. The
// step-size options do not apply.
[[nodiscard]] Fit fit_dadvi(const ModelSpec& m, const Options& options = {},
                            const DadviSettings& settings = {});

}  // namespace advi
