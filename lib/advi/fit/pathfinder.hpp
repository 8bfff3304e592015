// Multi-path Pathfinder (Zhang, Carpenter, Gelman and Vehtari, JMLR 2022), as CmdStan's
// `pathfinder` method: num_paths single paths (engine/pathfinder.hpp) from random initial
// points, their draws pooled and, with psis_resample, resampled by their Pareto-smoothed
// importance weights log p - log q (each draw's q its own path's normal approximation, as
// CmdStan); with one path, that path's draws. The same verdict as every fit: PSIS k-hat of
// the pooled draws, the ELBO, whether every path's optimisation converged.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <advi/engine/optimizer.hpp>
#include <advi/fit/fit.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

struct PathfinderOptions {  // CmdStan's pathfinder defaults and names
    double init_alpha = 1e-3;
    double tol_obj = 1e-12;
    double tol_rel_obj = 1e4;  // in units of machine epsilon
    double tol_grad = 1e-8;
    double tol_rel_grad = 1e7;  // in units of machine epsilon
    double tol_param = 1e-8;
    int history_size = 5;
    int num_psis_draws = 1000;  // the draws kept after resampling (multi-path)
    int num_paths = 4;
    int max_lbfgs_iters = 1000;
    int num_draws = 1000;  // per path
    int num_elbo_draws = 25;
    bool psis_resample = true;
    // Every path's initial point in unconstrained space (zeta_dim() entries). Empty: each
    // coordinate uniform on (-init_radius, init_radius), a point per path drawn from `seed`;
    // path 1 starts where `optimize` with the same seed and radius does.
    Eigen::VectorXd init{};
    double init_radius = 2.0;
    std::uint64_t seed = 0;
    int threads = 0;  // of the gradient program (0: the hardware's)
    const std::atomic<bool>* interrupt = nullptr;
    // Progress lines (nothing when empty).
    std::function<void(const std::string&)> log{};
    // Iterations between a path's progress lines (CmdStan's refresh); 0: none.
    int refresh = 10;
};

// What one path did.
struct PathReport {
    int path = 1;  // 1-based, as path__
    OptimizeStatus status = OptimizeStatus::IterationLimit;
    std::string lbfgs_message;
    int iterations = 0;
    int best_iteration = -1;  // the iterate whose normal approximation was drawn from
    double best_elbo = 0.0;   // its ELBO estimate (num_elbo_draws draws)
    long gradient_evaluations = 0;
    long value_evaluations = 0;
    int skipped_pairs = 0;
    std::string failure;  // empty when the path gave draws
    // Its L-BFGS trace (the start, then every iterate), and per iterate l = 1.. the ELBO
    // estimate of its normal approximation (-inf where none) and that estimate's Monte Carlo
    // standard error: the rows of `--diagnostic-file`.
    std::vector<OptimizerTraceRow> trace;
    std::vector<double> elbo, elbo_se;
};

class PathfinderFit {
public:
    PathfinderFit(Fit draws, std::vector<PathReport> paths, std::vector<int> path_of_draw,
                  PathfinderOptions options, bool resampled, double seconds);

    [[nodiscard]] Eigen::VectorXd mean(std::string_view name) const { return fit_.mean(name); }
    [[nodiscard]] Eigen::VectorXd sd(std::string_view name) const { return fit_.sd(name); }
    [[nodiscard]] Eigen::VectorXd quantile(std::string_view name, double p) const {
        return fit_.quantile(name, p);
    }
    [[nodiscard]] Eigen::MatrixXd draws(std::string_view name) const { return fit_.draws(name); }
    // The verdict (fit/verdict.hpp) on the pooled draws before resampling.
    [[nodiscard]] const Verdict& verdict() const { return fit_.verdict(); }
    // The verdict, the paths (a line each), then the table of the draws.
    [[nodiscard]] std::string summary(int index_base = 0) const;

    [[nodiscard]] const std::vector<PathReport>& paths() const { return paths_; }
    // Per output draw, the path it came from (1-based): CmdStan's path__ column.
    [[nodiscard]] const std::vector<int>& path_of_draw() const { return path_of_draw_; }
    [[nodiscard]] const PathfinderOptions& options() const { return options_; }
    // The output draws were resampled by their PSIS weights (num_paths > 1 and psis_resample).
    [[nodiscard]] bool resampled() const { return resampled_; }
    [[nodiscard]] double seconds() const { return seconds_; }
    // Per output draw: the model's log density with the log-Jacobian, every constant (lp__),
    // and its path's normal approximation's, normalised (lp_approx__).
    [[nodiscard]] const Eigen::VectorXd& log_p() const { return fit_.log_p(); }
    [[nodiscard]] const Eigen::VectorXd& log_q() const { return fit_.log_g(); }
    [[nodiscard]] const ModelSpec& model() const { return fit_.model(); }
    // The draws as a Fit (q: the best path's normal approximation, its mean and marginal sds
    // as a mean-field q), for what takes one: generated quantities, the CSV's columns.
    [[nodiscard]] const Fit& as_fit() const { return fit_; }

private:
    Fit fit_;
    std::vector<PathReport> paths_;
    std::vector<int> path_of_draw_;
    PathfinderOptions options_;
    bool resampled_ = false;
    double seconds_ = 0.0;
};

// Runs the paths and pools their draws. Throws FitError for a bad option (naming it) and when
// no path gave draws (with each path's reason); ShapeError for an init of the wrong size.
[[nodiscard]] PathfinderFit pathfinder(const ModelSpec& m, const PathfinderOptions& options = {});

}  // namespace advi
