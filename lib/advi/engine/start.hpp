// Where ADVI's q starts (issue 19, item 1): at the mode of the target with the curvature
// there (mean-field sd_d = 1/sqrt(-H_dd), the optimum of a factorised Gaussian on a Gaussian
// target; full-rank factor chol((-H)^-1), exact there), where a mode exists and its Hessian is
// affordable; else at the init point with unit scales, as Stan does, saying why.
#pragma once

#include <string>

#include <Eigen/Core>

#include <advi/engine/options.hpp>
#include <advi/engine/other_mode.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// The dense Hessian costs D Hessian-vector products (a few gradients each) and 3 D x D
// matrices; beyond this many coordinates the start keeps the mode but not the
// curvature (unit scales), and the eta search runs.
inline constexpr int kMaxStartHessianDim = 2000;
// Newton steps after L-BFGS, all on the Hessian at L-BFGS's end point (one gradient each; its
// relative-gradient test leaves the point up to about 1e-4 posterior sds from the mode on a
// near-quadratic density, 0.4 on issue 19's mixture; one step removes most of that, and each
// further step shrinks the rest by the Hessian's relative change between the two points).
inline constexpr int kStartNewtonSteps = 10;
// How close to the mode (in posterior sds, the Newton decrement) the start must be after the
// Newton steps; farther means the point is not a mode and the start falls back. On a
// regression with raw predictors (report/references/linreg_raw: income in dollars) the Newton
// steps stall 0.012 sds away (lp's rounding swamps its change there); a start that close is
// as good as the mode, since the fit moves q anyway.
inline constexpr double kStartModeTolerance = 0.1;
// The step-size scale used without an eta search when q starts from the mode and curvature:
// in whitened coordinates the posterior's scale is 1 along every coordinate, so the scale the
// search would look for is known. Chosen by measurement (README, "Where q starts").
inline constexpr double kWhitenedEta = 0.1;

struct Start {
    // Whether the start came from a mode (mean = mode); `curvature`: whether it gives scales
    // (the Hessian there; or, set by run_advi for full-rank without a mode, a mean-field
    // fit's sds) to whiten the fit's coordinates by. Only a mode's scales skip the eta search.
    bool from_mode = false;
    bool curvature = false;
    Eigen::VectorXd mean;    // q's starting mean
    Eigen::VectorXd scale;   // mean-field: the starting sds (all 1 without curvature)
    Eigen::MatrixXd factor;  // full-rank with curvature: chol((-H)^-1); else empty
    // For AdviResult::start: "the mode and Hessian (L-BFGS, 14 iterations; 2 Newton steps)",
    // "the init point (zero): no mode (L-BFGS: ...)".
    std::string description;
    // The second search for the mode from a random point (other_mode.hpp); `searched` false
    // where the start sought no mode or the first search found none.
    OtherMode other_mode;
    long gradient_evaluations = 0;     // L-BFGS (both searches) and the Newton steps
    long hessian_vector_products = 0;  // the dense Hessians
};

// The start for a fit of `target` with `opts` (opts.start, opts.init, opts.family). Looks
// for a mode only when opts.start is Auto, the rule is Auto (Stan's rule keeps Stan's
// start), there is no minibatch, and `curvature` (the same density as `target`) is given or
// the target is a CurvatureTarget itself; never throws for a
// target without a mode (that is a fallback, described), only for faults of the model
// (advi::Error other than FitError/SizeError) that the fit would meet anyway.
[[nodiscard]] Start find_start(Target& target, const Options& opts,
                               CurvatureTarget* curvature = nullptr);

}  // namespace advi
