// The Laplace approximation of a model's posterior (CmdStan's `laplace` method): the Gaussian
// N(mode, (-H)^-1) in unconstrained space at the mode of the log density (with the log-Jacobian
// by default: the mode in zeta), its draws mapped back through T^-1, with log_p and log_g per
// draw and the PSIS k-hat of their difference, answering by variable name as Fit does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <Eigen/Core>

#include <advi/engine/laplace.hpp>
#include <advi/engine/target.hpp>
#include <advi/fit/fit.hpp>
#include <advi/fit/optimize.hpp>
#include <advi/fit/psis.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

struct LaplaceOptions {
    int draws = 1000;  // CmdStan's default
    // Include the log-Jacobian in the density whose mode and Hessian are taken (CmdStan's
    // default, true: the Gaussian approximates the posterior of zeta). False: the Hessian of
    // the penalised likelihood at its optimum (standard errors of the MLE, as CmdStan).
    bool jacobian = true;
    std::uint64_t seed = 0;
    // lambda I added to -H before factorising; 0: none, and a -H that is not positive definite
    // is an error naming its directions.
    double regularization = 0.0;
    // The gradient program's threads (0: the hardware's); the same bits on any count.
    int threads = 0;
    // The mode in unconstrained space (zeta_dim() values; read_mode_file gives it from a
    // file of constrained values). Empty: advi::laplace finds it with optimize.
    Eigen::VectorXd mode{};
    // Where a given mode came from, for the summary and the CSV ("file mode.csv").
    std::string mode_source = "given";
    // How the mode is found when none is given; its jacobian, seed and threads are the
    // fields above.
    OptimizeOptions optimize{};
};

class LaplaceFit {
public:
    LaplaceFit(Fit draws, LaplaceGaussian gaussian, Psis psis, bool jacobian,
               std::string mode_source, double seconds);

    // In constrained space, from the draws mapped through T^-1 (as Fit's).
    [[nodiscard]] Eigen::VectorXd mean(std::string_view name) const { return fit_.mean(name); }
    [[nodiscard]] Eigen::VectorXd sd(std::string_view name) const { return fit_.sd(name); }
    [[nodiscard]] Eigen::VectorXd quantile(std::string_view name, double p) const {
        return fit_.quantile(name, p);
    }
    [[nodiscard]] Eigen::MatrixXd draws(std::string_view name) const { return fit_.draws(name); }
    // T^-1(mode): the mode in constrained space (not the mode of the constrained density).
    [[nodiscard]] Eigen::VectorXd at_mode(std::string_view name) const { return fit_.at_mu(name); }
    // The facts (mode, regularization, asymmetry, k-hat, ESS), then the table of Fit's summary.
    [[nodiscard]] std::string summary(int index_base = 0) const;

    [[nodiscard]] const ModelSpec& model() const { return fit_.model(); }
    [[nodiscard]] const LaplaceGaussian& gaussian() const { return gaussian_; }
    [[nodiscard]] const Eigen::VectorXd& mode() const { return gaussian_.mode(); }
    [[nodiscard]] const Psis& psis() const { return psis_; }
    [[nodiscard]] bool jacobian() const { return jacobian_; }
    [[nodiscard]] const std::string& mode_source() const { return mode_source_; }
    [[nodiscard]] double seconds() const { return seconds_; }
    // Per draw: the model's log density at zeta (the log-Jacobian included when jacobian(),
    // every constant), -inf where it is not finite; and the Gaussian's, normalised.
    [[nodiscard]] const Eigen::VectorXd& log_p() const { return fit_.log_p(); }
    [[nodiscard]] const Eigen::VectorXd& log_g() const { return fit_.log_g(); }
    [[nodiscard]] const Eigen::MatrixXd& zeta_draws() const { return fit_.zeta_draws(); }
    [[nodiscard]] const Eigen::MatrixXd& theta_draws() const { return fit_.theta_draws(); }
    // Draws whose log density was not finite (kept, with log_p = -inf: an importance weight of
    // 0, as CmdStan writes them).
    [[nodiscard]] long nonfinite_log_p() const { return fit_.nonfinite_log_p(); }
    // The draws as a Fit (q the Laplace Gaussian as a full-rank Gaussian, at_mu the mode), for
    // what takes one: generated quantities (stan::report), log_predictive.
    [[nodiscard]] const Fit& as_fit() const { return fit_; }

private:
    Fit fit_;
    LaplaceGaussian gaussian_;
    Psis psis_;
    bool jacobian_;
    std::string mode_source_;
    double seconds_;
};

// The Laplace approximation at a given mode (unconstrained; refined by Newton steps on the exact
// Hessian when it is not within 1e-6 posterior sds of the maximum, laplace_gaussian), with
// `curvature` the model's log density in zeta (with the log-Jacobian when options.jacobian, without
// otherwise) giving H v. `mode_source` says where the mode came from, for the summary and the CSV,
// and `mode_gradient_evaluations` what finding it cost (added to the fit's count).
// Throws SizeError before allocating when the dense Hessian or the draws exceed the memory budget,
// ModelError for bad options or a mode of the wrong size or not finite, FitError where -H is not
// positive definite (laplace_gaussian).
[[nodiscard]] LaplaceFit laplace_at(const ModelSpec& m, CurvatureTarget& curvature,
                                    const Eigen::VectorXd& mode, const LaplaceOptions& options,
                                    std::string mode_source = "given",
                                    long mode_gradient_evaluations = 0);

// Compiles the model's Hessian-vector program (with the log-Jacobian when options.jacobian)
// and takes laplace_at at options.mode, or at the mode optimize finds with the same jacobian;
// an optimize that does not converge is a FitError with its status (no mode, iteration
// limit, ...), as a Gaussian at a point that is not a mode would be a silent wrong answer.
[[nodiscard]] LaplaceFit laplace(const ModelSpec& m, const LaplaceOptions& options = {});

}  // namespace advi
