// The variational family q(zeta; phi) in unconstrained space: mean-field Gaussian
// (mu, omega = log sigma) or full-rank Gaussian (mu, L lower triangular), paper Section 2.3;
// or low-rank plus diagonal (mu, omega, B): covariance B B' + diag(exp(2 omega)) (issue 20).
#pragma once

#include <iosfwd>
#include <string>

#include <Eigen/Core>

#include <advi/engine/options.hpp>
#include <advi/engine/rng.hpp>

namespace advi {

// zeta = S^-1(eta) = mu + exp(omega) .* eta (mean-field) or mu + L eta (full-rank), with
// eta ~ N(0, I_D); low-rank: zeta = mu + exp(omega) .* eta[0..D) + B eta[D..D+R), eta ~
// N(0, I_{D+R}) (noise_dim() = D + R). The optimiser sees the parameters as one flat vector
// (params()):
//   mean-field: [mu; omega]                                    (2 D entries)
//   full-rank:  [mu; L's lower triangle, column by column]     (D + D(D+1)/2 entries)
//   low-rank:   [mu; omega; B column by column]                (2 D + D R entries)
// so that the step-size sequence keeps one s per variational parameter.
class Approximation {
public:
    Approximation() = default;
    // The paper's starting point: the given mu, omega = 0 or L = I.
    // Low-rank: initial_low_rank(mu, rank) (rank >= 1, else ModelError).
    [[nodiscard]] static Approximation initial(Family family, const Eigen::VectorXd& mu,
                                               int rank = 0);
    [[nodiscard]] static Approximation mean_field(Eigen::VectorXd mu, Eigen::VectorXd omega);
    // Only L's lower triangle is used; the strict upper triangle is set to zero.
    [[nodiscard]] static Approximation full_rank(Eigen::VectorXd mu, Eigen::MatrixXd L);
    [[nodiscard]] static Approximation low_rank(Eigen::VectorXd mu, Eigen::VectorXd omega,
                                                Eigen::MatrixXd B);
    // The low-rank family's start: omega = 0 and B small (1e-2 / sqrt(rank) times a fixed
    // pseudo-random pattern): B = 0 is a stationary point of the ELBO in B, which gradient
    // steps would never leave.
    [[nodiscard]] static Approximation initial_low_rank(const Eigen::VectorXd& mu, int rank);

    Family family() const { return family_; }
    int dim() const { return static_cast<int>(mu_.size()); }
    // The entries of eta: dim(), or dim() + rank() for the low-rank family.
    int noise_dim() const { return dim() + rank(); }
    // Low-rank: the columns of B; 0 for the other families.
    int rank() const { return static_cast<int>(B_.cols()); }
    const Eigen::VectorXd& mu() const { return mu_; }
    // Mean-field and low-rank (ModelError otherwise).
    const Eigen::VectorXd& omega() const;
    // Low-rank only (ModelError otherwise).
    const Eigen::MatrixXd& B() const;
    // Full-rank only (ModelError otherwise).
    const Eigen::MatrixXd& L() const;
    // The scale factor: diag(exp(omega)), L, or the Cholesky factor of the low-rank
    // covariance (dim x dim: for small dims only).
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

    // Analytic: D/2 (1 + log 2 pi) + sum omega, or + sum log|L_ii|; low-rank: + sum omega +
    // log det(I + B' diag(exp(-2 omega)) B) / 2 (the matrix determinant lemma).
    double entropy() const;
    // log q(zeta) for each row of `zeta`, normalised (low-rank: by the Woodbury identity, in
    // O(D R) per row).
    [[nodiscard]] Eigen::VectorXd log_density(const Eigen::MatrixXd& zeta) const;
    // Sigma^-1 V for the columns of V; low-rank: D^-2 V - W C^-1 W' V, W = D^-2 B, C = I + B'
    // D^-2 B (Woodbury), C factorised once for all the columns: O(D R) per column.
    [[nodiscard]] Eigen::MatrixXd precision_times(const Eigen::MatrixXd& V) const;
    Eigen::VectorXd mean() const { return mu_; }
    Eigen::VectorXd sd() const;  // marginal standard deviations
    Eigen::MatrixXd covariance() const;

    // zeta = S^-1(eta) (eta of noise_dim() entries); zeta must already have dim() entries.
    void transform(const Eigen::VectorXd& eta, Eigen::VectorXd& zeta) const;
    // One row per draw: n draws of zeta from q.
    [[nodiscard]] Eigen::MatrixXd draw(Rng& rng, int n) const;

    // "mean-field q, dim 2\n  mu    = [...]\n  omega = [...]\n  sd    = [...]\n"
    std::string str() const;

private:
    Family family_ = Family::MeanField;
    Eigen::VectorXd mu_;
    Eigen::VectorXd omega_;  // mean-field, low-rank
    Eigen::MatrixXd L_;      // full-rank
    Eigen::MatrixXd B_;      // low-rank (0 columns otherwise)
};

std::ostream& operator<<(std::ostream& os, const Approximation& q);

// "mean-field", "full-rank", "low-rank (rank 10)".
[[nodiscard]] std::string family_name(Family family, int rank = 0);

}  // namespace advi
