// The Laplace approximation at a mode of the unconstrained log density: the Gaussian
// N(mode, (-H)^-1), H the Hessian at the mode, held as the Cholesky factor L of the precision
// -H = L L' (draws are mode + L^-T z, z ~ N(0, I)), never as an inverted matrix.
#pragma once

#include <functional>
#include <string>

#include <Eigen/Core>

#include <advi/engine/rng.hpp>
#include <advi/engine/target.hpp>

namespace advi {

struct LaplaceSettings {
    // lambda >= 0 added to the precision (-H + lambda I) before factorising. 0: none, and a
    // precision that is not positive definite is an error naming its directions.
    double regularization = 0.0;
    // Names unconstrained coordinate k in messages; empty: "coordinate k".
    std::function<std::string(int)> describe_coordinate{};
    // Newton steps on the exact Hessian from the point given, until it is within
    // mode_tolerance posterior sds (the Newton decrement |L^-1 g|) of the maximum of the
    // quadratic model; 0 steps: the point must already be that close.
    int max_newton_steps = 50;
    double mode_tolerance = 1e-6;
    // After max_newton_steps, a point still farther than mode_tolerance is accepted when it is
    // within this many posterior sds (0: never), e.g. for a start that needs the mode only
    // to a fraction of a posterior sd (engine/start).
    double accept_tolerance = 0.0;
    // Every Newton step after the first reuses the first point's Hessian (the chord method:
    // one gradient per step instead of K Hessian-vector products), and the Gaussian returned
    // has that Hessian's factor at the point reached. For a start that needs the curvature
    // only roughly (engine/start); `advi laplace` keeps the exact Hessian at the mode.
    bool reuse_hessian = false;
};

class LaplaceGaussian {
public:
    LaplaceGaussian(Eigen::VectorXd mode, Eigen::MatrixXd L, double regularization,
                    double hessian_asymmetry, double log_density_at_mode, int newton_steps = 0,
                    double initial_decrement = 0.0, double decrement = 0.0);

    [[nodiscard]] int dim() const { return static_cast<int>(mode_.size()); }
    [[nodiscard]] const Eigen::VectorXd& mode() const { return mode_; }
    // Lower triangular, L L' = -H + lambda I.
    [[nodiscard]] const Eigen::MatrixXd& precision_cholesky() const { return L_; }
    // (-H + lambda I)^-1, formed on demand (K x K).
    [[nodiscard]] Eigen::MatrixXd covariance() const;
    [[nodiscard]] double regularization() const { return regularization_; }
    [[nodiscard]] double hessian_asymmetry() const { return hessian_asymmetry_; }
    [[nodiscard]] double log_density_at_mode() const { return log_density_at_mode_; }
    // Newton steps taken from the point given to the mode, and the Newton decrement (in
    // posterior sds) before them and at the mode.
    [[nodiscard]] int newton_steps() const { return newton_steps_; }
    [[nodiscard]] double initial_decrement() const { return initial_decrement_; }
    [[nodiscard]] double decrement() const { return decrement_; }

    // One row per draw: zeta = mode + L^-T z.
    [[nodiscard]] Eigen::MatrixXd draw(Rng& rng, int n) const;
    // The normalised log density of the Gaussian at each row of `zeta`:
    // -K/2 log 2 pi + sum log L_dd - |L' (zeta - mode)|^2 / 2.
    [[nodiscard]] Eigen::VectorXd log_density(const Eigen::MatrixXd& zeta) const;

private:
    Eigen::VectorXd mode_;
    Eigen::MatrixXd L_;
    double regularization_;
    double hessian_asymmetry_;
    double log_density_at_mode_;
    int newton_steps_;
    double initial_decrement_;
    double decrement_;
};

// The Laplace approximation of `target` at its mode, reached from `start` by Newton steps on
// the exact Hessian (LaplaceSettings: at most max_newton_steps, to mode_tolerance posterior
// sds; a FitError when the point cannot be brought there): dense_hessian, then the Cholesky
// factor of -H + lambda I. Throws SizeError before allocating when the Hessian, its factor and an
// eigendecomposition (3 K x K matrices) exceed the memory budget; FitError when the precision
// is not positive definite, naming each direction with an eigenvalue <= 0 by the coordinates
// it loads on, and the regularization that would make it positive definite.
[[nodiscard]] LaplaceGaussian laplace_gaussian(CurvatureTarget& target,
                                               const Eigen::VectorXd& start,
                                               const LaplaceSettings& settings = {});

}  // namespace advi
