// The variational family q(zeta; phi) in unconstrained space: mean-field Gaussian
// (mu, omega = log sigma) or full-rank Gaussian (mu, L lower triangular), paper Section 2.3.
#pragma once

#include <iosfwd>
#include <string>

#include <Eigen/Core>

#include <advi/engine/options.hpp>
#include <advi/engine/rng.hpp>

namespace advi {

// zeta = S^-1(eta) = mu + exp(omega) .* eta (mean-field) or mu + L eta (full-rank), with
// eta ~ N(0, I). The optimiser sees the parameters as one flat vector (params()):
//   mean-field: [mu; omega]                                    (2 D entries)
//   full-rank:  [mu; L's lower triangle, column by column]     (D + D(D+1)/2 entries)
// so that the step-size sequence keeps one s per variational parameter.
class Approximation {
public:
    Approximation() = default;
    // The paper's starting point: the given mu, omega = 0 or L = I.
    [[nodiscard]] static Approximation initial(Family family, const Eigen::VectorXd& mu);
    [[nodiscard]] static Approximation mean_field(Eigen::VectorXd mu, Eigen::VectorXd omega);
    // Only L's lower triangle is used; the strict upper triangle is set to zero.
    [[nodiscard]] static Approximation full_rank(Eigen::VectorXd mu, Eigen::MatrixXd L);

    Family family() const { return family_; }
    int dim() const { return static_cast<int>(mu_.size()); }
    const Eigen::VectorXd& mu() const { return mu_; }
    // Mean-field only (ModelError otherwise).
    const Eigen::VectorXd& omega() const;
    // Full-rank only (ModelError otherwise).
    const Eigen::MatrixXd& L() const;
    // The scale factor of either family: diag(exp(omega)) or L.
    Eigen::MatrixXd cholesky_factor() const;

    int num_params() const;
    Eigen::VectorXd params() const;
    void set_params(const Eigen::VectorXd& p);
    bool is_finite() const;
    // params() += rho .* grad, in place (no copy of the D(D+1)/2 entries of a full-rank q
    // out and back), and then is_finite(): the gradient-ascent step.
    bool step(const Eigen::VectorXd& rho, const Eigen::VectorXd& grad);
    // sum += params(), without a copy of them.
    void add_params_to(Eigen::VectorXd& sum) const;
    // The gradient of a full-rank q in params() layout from its parts: [g_mu; g_L's lower
    // triangle, column by column], written into `out` (resized).
    static void pack_full_rank(const Eigen::VectorXd& g_mu, const Eigen::MatrixXd& g_L,
                               Eigen::VectorXd& out);

    // Analytic: D/2 (1 + log 2 pi) + sum omega, or + sum log|L_ii|.
    double entropy() const;
    Eigen::VectorXd mean() const { return mu_; }
    Eigen::VectorXd sd() const;  // marginal standard deviations
    Eigen::MatrixXd covariance() const;

    // zeta = S^-1(eta); zeta must already have dim() entries.
    void transform(const Eigen::VectorXd& eta, Eigen::VectorXd& zeta) const;
    // One row per draw: n draws of zeta from q.
    [[nodiscard]] Eigen::MatrixXd draw(Rng& rng, int n) const;

    // "mean-field q, dim 2\n  mu    = [...]\n  omega = [...]\n  sd    = [...]\n"
    std::string str() const;

private:
    Family family_ = Family::MeanField;
    Eigen::VectorXd mu_;
    Eigen::VectorXd omega_;  // mean-field
    Eigen::MatrixXd L_;      // full-rank
};

std::ostream& operator<<(std::ostream& os, const Approximation& q);

}  // namespace advi
