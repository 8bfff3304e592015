// Where ADVI's q starts (issue 19, item 1): at the mode of the target with the curvature
// there (mean-field sd_d = 1/sqrt(-H_dd), the optimum of a factorised Gaussian on a Gaussian
// target; full-rank factor chol((-H)^-1), exact there), where a mode exists and its Hessian is
// affordable; else at the init point with unit scales, as Stan does, saying why.
#pragma once

#include <string>

#include <Eigen/Core>

#include <advi/engine/options.hpp>
#include <advi/engine/target.hpp>

namespace advi {

// The dense Hessian costs D Hessian-vector products per Newton step (a few gradients each)
// and 3 D x D matrices; beyond this many coordinates the start keeps the mode but not the
// curvature (unit scales), and the eta search runs.
inline constexpr int kMaxStartHessianDim = 2000;
// Newton steps on the exact Hessian after L-BFGS (its relative-gradient test leaves the point
// up to about 1e-4 posterior sds from the mode; one step on a near-quadratic density removes
// that); each costs one dense Hessian.
inline constexpr int kStartNewtonSteps = 3;
// The step-size scale used without an eta search when q starts from the mode and curvature:
// in whitened coordinates the posterior's scale is 1 along every coordinate, so the scale the
// search would look for is known. Chosen by measurement (README, "Where q starts").
inline constexpr double kWhitenedEta = 0.1;

struct Start {
    // Whether the start came from a mode (mean = mode); with `curvature` also the scales.
    bool from_mode = false;
    bool curvature = false;
    Eigen::VectorXd mean;    // q's starting mean
    Eigen::VectorXd scale;   // mean-field: the starting sds (all 1 without curvature)
    Eigen::MatrixXd factor;  // full-rank with curvature: chol((-H)^-1); else empty
    // For AdviResult::start: "the mode and Hessian (L-BFGS, 14 iterations; 2 Newton steps)",
    // "the init point (zero): no mode (L-BFGS: ...)".
    std::string description;
    long gradient_evaluations = 0;     // L-BFGS and the Newton line searches
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
