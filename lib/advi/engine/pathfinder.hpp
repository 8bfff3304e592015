// Single-path Pathfinder (Zhang, Carpenter, Gelman and Vehtari, JMLR 2022): along the path of
// L-BFGS on the log density, the normal approximation N(mu_l, Sigma_l) at each iterate, with
// Sigma_l the inverse-Hessian estimate of the last J (s, y) pairs over a diagonal that is
// updated at every pair (the paper's Algorithms 3 and 4: diag(alpha) + beta gamma beta' in
// the compact form of Byrd, Nocedal and Schnabel 1994), mu_l = theta_l + Sigma_l grad_l (the
// quasi-Newton step); its ELBO estimated with K draws, and the approximation of the largest
// ELBO drawn from. Multi-path Pathfinder (several paths, importance resampling) is
// fit/pathfinder.hpp's: it needs PSIS.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/engine/optimizer.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// N(mean, Sigma), Sigma = diag(alpha) + beta gamma beta' (beta dim x 2m, gamma 2m x 2m, m
// pairs of the history), positive definite. Drawn from in O(dim m) per draw when 2m < dim
// (the thin QR of alpha^-1/2 beta), through Sigma's dense Cholesky factor otherwise.
class PathGaussian {
public:
    PathGaussian() = default;
    // Throws FitError when Sigma is not positive definite (numerically).
    PathGaussian(Eigen::VectorXd mean, Eigen::VectorXd alpha, const Eigen::MatrixXd& beta,
                 const Eigen::MatrixXd& gamma);

    [[nodiscard]] int dim() const { return static_cast<int>(mean_.size()); }
    [[nodiscard]] const Eigen::VectorXd& mean() const { return mean_; }
    // The marginal sds, sqrt(diag Sigma).
    [[nodiscard]] Eigen::VectorXd sd() const;
    // Sigma v, without forming Sigma where it is low rank.
    [[nodiscard]] Eigen::VectorXd covariance_times(const Eigen::VectorXd& v) const;
    // n draws, one per row, and each draw's log density (normalised) in `log_q`.
    [[nodiscard]] Eigen::MatrixXd draw(Rng& rng, int n, Eigen::VectorXd& log_q) const;
    // log |det Sigma| / 2.
    [[nodiscard]] double half_log_det() const { return half_log_det_; }

private:
    // zeta = mean + S u for a standard normal u, S Sigma's square root.
    void transform(const Eigen::VectorXd& u, Eigen::VectorXd& zeta) const;

    Eigen::VectorXd mean_;
    Eigen::VectorXd alpha_;
    bool dense_ = true;
    Eigen::MatrixXd L_;  // dense: Sigma's Cholesky factor; low rank: chol(I + R gamma R')
    Eigen::MatrixXd Q_;  // low rank: the thin QR's Q of alpha^-1/2 beta
    double half_log_det_ = 0.0;
};

// The inverse-Hessian estimate of f = -log p along the path: a diagonal alpha, updated at
// every pair (Gilbert and Lemarechal 1989, eq. 4.9: the diagonal of the BFGS update of the
// diagonal Hessian scaled by y' alpha y / s'y), and the last J pairs; its normal
// approximation in the compact form of BFGS with H0 = diag(alpha).
class PathInverseHessian {
public:
    PathInverseHessian(int dim, int history) : alpha_(Eigen::VectorXd::Ones(dim)), J_(history) {}

    // Takes the pair of a step s and the change y of f's gradient when its curvature is
    // positive and tame (s'y > 0, y'y / s'y <= 1e12); returns false (keeping nothing) otherwise.
    bool add(const Eigen::VectorXd& s, const Eigen::VectorXd& y);
    [[nodiscard]] bool empty() const { return s_.empty(); }
    [[nodiscard]] const Eigen::VectorXd& alpha() const { return alpha_; }
    [[nodiscard]] int pairs() const { return static_cast<int>(s_.size()); }

    // The normal approximation at a point x with log-density gradient g: N(x + H g, H), H =
    // diag(alpha) + beta gamma beta' (Byrd, Nocedal and Schnabel 1994, eq. 2.6: beta = [S, A Y],
    // gamma = [[R^-T (E + Y' A Y) R^-1, -R^-T], [-R^-1, 0]], R the upper triangle of S'Y, E its
    // diagonal): the BFGS updates of diag(alpha) by the kept pairs, oldest first. Throws
    // FitError when H is not positive definite.
    [[nodiscard]] PathGaussian at(const Eigen::VectorXd& x, const Eigen::VectorXd& g) const;

private:
    Eigen::VectorXd alpha_;
    int J_;
    std::deque<Eigen::VectorXd> s_, y_;
};

struct PathfinderSettings {
    // L-BFGS on the log density: CmdStan's pathfinder defaults are optimize's, with
    // max_lbfgs_iters = 1000 as `iter` and history_size = 5 as J.
    OptimizerSettings lbfgs{.iter = 1000};
    int num_elbo_draws = 25;  // K: draws per ELBO estimate along the path
    int num_draws = 1000;     // draws from the chosen approximation
    std::uint64_t seed = 0;
    // Progress, one line per line written (nothing when empty).
    std::function<void(const std::string&)> log{};
    // Iterations between the progress lines of the path (CmdStan's refresh); 0: none.
    int refresh = 10;
};

struct PathfinderPath {
    OptimizerResult lbfgs;  // the optimisation the path follows
    // Per iterate l = 1..L of the path: the ELBO estimate of its normal approximation (-inf
    // where it had none: no pair of positive curvature yet, or Sigma not positive definite;
    // or where a draw's log density was not finite).
    std::vector<double> elbo;
    // Their Monte Carlo standard errors: sd(log p - log q) / sqrt(num_elbo_draws); NaN where
    // the ELBO is -inf.
    std::vector<double> elbo_se;
    int best = -1;  // the iterate whose approximation was drawn from (1-based l)
    double best_elbo = -std::numeric_limits<double>::infinity();
    PathGaussian gaussian;          // its approximation
    Eigen::MatrixXd draws;          // num_draws x dim
    Eigen::VectorXd log_p;          // per draw: the log density (-inf where not finite)
    Eigen::VectorXd log_q;          // per draw: the approximation's, normalised
    long gradient_evaluations = 0;  // L-BFGS's
    long value_evaluations = 0;     // the ELBO estimates' and the draws'
    int skipped_pairs = 0;          // (s, y) pairs without positive curvature, not used
    // Empty when the path gave draws; else why not ("no iterate had a finite ELBO: ...").
    std::string failure;
    [[nodiscard]] bool ok() const { return failure.empty(); }
};

// One path from `init`. Throws FitError for a bad setting (non-positive draws), ShapeError
// for an init of the wrong size; every other ending is in the result (failure, lbfgs.status).
[[nodiscard]] PathfinderPath pathfinder_path(Target& target, const Eigen::VectorXd& init,
                                             const PathfinderSettings& settings);

}  // namespace advi
