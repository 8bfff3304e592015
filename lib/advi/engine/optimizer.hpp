// What the mode finders (lbfgs.hpp, newton_cg.hpp) share: CmdStan's optimize settings by
// their meaning, and an honest ending: converged by which tolerance, or not, and why.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace advi {

enum class OptimizerAlgorithm { Lbfgs, Newton };

// CmdStan's `optimize` defaults. A tolerance of 0 switches its test off. With f the log
// density at iteration i and g its gradient:
//  tol_obj       |f_i - f_{i-1}| < tol_obj
//  tol_rel_obj   |f_i - f_{i-1}| / max(|f_i|, |f_{i-1}|, 1) < tol_rel_obj * epsilon
//  tol_grad      ||g_i|| < tol_grad
//  tol_rel_grad  g_i' H^-1 g_i / max(|f_i|, 1) < tol_rel_grad * epsilon, with H^-1 the
//                optimiser's inverse-Hessian approximation (L-BFGS) or the inverse negative
//                Hessian applied by CG (Newton)
//  tol_param     ||zeta_i - zeta_{i-1}|| < tol_param
// (epsilon: the machine epsilon of double, 2.2e-16.)
// One row of an optimiser's trace: the start (iteration 0), then every accepted step; what
// `--diagnostic-file` writes and `--refresh` prints.
struct OptimizerTraceRow {
    int iteration = 0;
    double seconds = 0.0;  // since the run started
    double lp = 0.0;
    double grad_norm = 0.0;
    double step_norm = 0.0;  // ||zeta_i - zeta_{i-1}||; 0 at the start
    // L-BFGS: the line search's step length along its direction; Newton: the trust radius
    // after the step.
    double alpha = 0.0;
    long gradient_evaluations = 0;  // so far
};

struct OptimizerSettings {
    int iter = 2000;           // iterations (accepted steps) at most
    double init_alpha = 1e-3;  // L-BFGS: the first line search's step length
    double tol_obj = 1e-12;
    double tol_rel_obj = 1e4;
    double tol_grad = 1e-8;
    double tol_rel_grad = 1e7;
    double tol_param = 1e-8;
    int history_size = 5;  // L-BFGS: the (s, y) pairs kept
    // Per coordinate, the magnitude beyond which zeta is not an answer but a density rising
    // without bound (no mode); empty: 1e50 for every coordinate.
    Eigen::VectorXd runaway_limits{};
    // Names coordinate k in messages ("`sigma`"); empty: "coordinate k".
    std::function<std::string(int)> describe_coordinate{};
    // Set from elsewhere (SIGINT): the optimiser stops after the current iteration.
    const std::atomic<bool>* interrupt = nullptr;
    // L-BFGS only: called with each point of the path (the start, then every accepted step),
    // the log density there and its gradient: what Pathfinder (pathfinder.hpp) builds its
    // normal approximations from. Empty: nothing is called.
    std::function<void(const Eigen::VectorXd& zeta, double lp, const Eigen::VectorXd& grad)>
        on_iterate{};
    // Called with each row of the trace as it is recorded (progress); empty: nothing.
    std::function<void(const OptimizerTraceRow&)> on_row{};
};

enum class OptimizeStatus {
    Converged,         // `criterion` names the tolerance met
    IterationLimit,    // `iter` iterations without meeting any tolerance
    LineSearchFailed,  // no step along the search direction increased the log density
    NonFiniteStart,    // the log density or its gradient is not finite at the initial point
    NoMode,            // the log density rises without bound: some coordinates run off
    Interrupted,
};

struct OptimizerResult {
    Eigen::VectorXd zeta;  // the last accepted point (the mode when converged)
    double lp = 0.0;       // the log density there
    Eigen::VectorXd grad;  // its gradient there
    OptimizeStatus status = OptimizeStatus::IterationLimit;
    // For Converged, the tolerance met, e.g. "tol_rel_grad"; else empty.
    std::string criterion;
    // One line: "converged: relative gradient 3.1e-10 < tol_rel_grad 1e+07 * epsilon", or why
    // not ("no mode: the log density kept rising (lp = 812.4) while `tau` (unconstrained)
    // ran off to -351; ...").
    std::string message;
    int iterations = 0;
    long gradient_evaluations = 0;     // log density + gradient evaluations
    long hessian_vector_products = 0;  // Newton only
    double seconds = 0.0;
    std::vector<OptimizerTraceRow> trace;  // the start and every accepted step

    [[nodiscard]] bool converged() const { return status == OptimizeStatus::Converged; }
};

// "converged", "iteration limit", "line search failed", "non-finite start", "no mode",
// "interrupted".
[[nodiscard]] const char* status_name(OptimizeStatus s);

// The pieces both optimisers share (optimizer.cpp).
namespace optimizer {

// Throws FitError naming the first bad setting; ShapeError when init has not `dim` entries
// or runaway_limits is neither empty nor of `dim` entries.
void validate(const OptimizerSettings& s, int dim, const Eigen::VectorXd& init);

// The first of CmdStan's tests met after a step from lp_prev to lp (see OptimizerSettings),
// as {tolerance name, message}; rel_grad is g' H^-1 g / max(|lp|, 1), NaN where unknown.
struct Convergence {
    std::string criterion;
    std::string message;
};
[[nodiscard]] std::optional<Convergence> converged_by(const OptimizerSettings& s, double lp_prev,
                                                      double lp, double grad_norm, double rel_grad,
                                                      double step_norm);
[[nodiscard]] std::optional<Convergence> gradient_converged(const OptimizerSettings& s,
                                                            double grad_norm, double rel_grad);

// "no mode: ..." naming the coordinates of zeta beyond their runaway limit along which lp
// still rises outward (grad_lp_k * zeta_k > 0, or a gradient that is not finite), or nothing.
// A point beyond the limit where lp falls outward is a long line-search step that the next
// iterations bring back (L-BFGS's first step on a regression with unscaled data reached
// log sigma = 1150 on posteriordb's kidiq_with_mom_work), not a density without a mode.
[[nodiscard]] std::optional<std::string> ran_off(const Eigen::VectorXd& zeta, double lp,
                                                 const Eigen::VectorXd& grad_lp,
                                                 const OptimizerSettings& s);
// "no mode: the log density is +inf at ..." naming the coordinates that moved most on the
// last step `step`, for a density that reached +inf.
[[nodiscard]] std::string unbounded(const Eigen::VectorXd& step, const OptimizerSettings& s);
// The message for a start where lp or its gradient is not finite.
[[nodiscard]] std::string nonfinite_start(double lp, const Eigen::VectorXd& grad,
                                          const OptimizerSettings& s);
[[nodiscard]] std::string describe(const OptimizerSettings& s, int k);

// Appends the trace row of r's current point (r.iterations, r.lp, r.grad) and hands it to
// s.on_row.
void record_row(OptimizerResult& r, const OptimizerSettings& s,
                std::chrono::steady_clock::time_point start, double step_norm, double alpha);

// A density without a maximum need not let a coordinate reach its runaway limit within the
// iterations: along a narrowing ridge (a funnel) the optimiser crawls, lp rising while a
// scale's coordinate walks off, until it ends at the iteration limit or where the density
// stops being finite. Near a mode lp rises ever less per unit of distance moved (its slope
// along the path goes to 0 with the gradient); along a ridge to infinity it rises at a steady
// rate per unit of distance (lp grows like -log sigma). This keeps zeta and lp after 1, 2, 4,
// 8, ... accepted steps and, when the run ends without converging after n steps, compares
// the stretches a..b and b..n with b the last power of 2 <= n / 2 and a = b / 2: no mode when
// the path kept its direction (cosine > 0.9) and lp's rise per unit distance over b..n is at
// least half of that over a..b, and lp's slope at the end along b..n is still at least half of
// that (a gradient test met far down a funnel, where the stiff directions swamp the scale's,
// is overruled by it).
class TrendWatch {
public:
    explicit TrendWatch(const OptimizerSettings& s) : s_(s) {}
    // After each accepted step.
    void record(double lp, const Eigen::VectorXd& zeta);
    // "no mode: ..." naming the coordinates that moved off the most, when the run had that
    // shape; nothing otherwise.
    // `grad`: lp's gradient at zeta; lp must still rise there along the last stretch's
    // direction at least half as fast as it did on average over it (at a mode it does not).
    [[nodiscard]] std::optional<std::string> no_mode(double lp, const Eigen::VectorXd& zeta,
                                                     const Eigen::VectorXd& grad) const;

private:
    const OptimizerSettings& s_;
    int steps_ = 0;
    std::vector<double> lp_;  // at 1, 2, 4, ... steps
    std::vector<Eigen::VectorXd> zeta_;
};

// Ends a run of any optimiser: sets r's status, message and seconds since `start`. A
// convergence test met far down a funnel (where the curvature of the stiff directions swamps
// the rest) is no mode: the trend of the run overrules the Converged claim.
OptimizerResult& finish_run(OptimizerResult& r, const TrendWatch& trend, OptimizeStatus status,
                            std::string message, std::chrono::steady_clock::time_point start);

}  // namespace optimizer

}  // namespace advi
