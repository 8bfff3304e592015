// Settings of one ADVI fit (defaults are Stan's), and their validation against a target.
#pragma once

#include <cstdint>
#include <iosfwd>

#include <Eigen/Core>

namespace advi {

// The Gaussian family in unconstrained space (paper Section 2.3).
enum class Family { MeanField, FullRank };

// How the engine decides it is done, and how hard it tries to survive bad steps.
//  Robust: common random numbers for every ELBO estimate, a floor of 1 under the relative
//          change, an eta search that never picks a diverged candidate, and step-size
//          back-off in the main loop (see engine.cpp).
//  Stan:   Stan's ADVI as written: fresh ELBO draws per estimate, |delta| / |elbo|, Stan's
//          eta-search bookkeeping and its error when adaptation fails, no back-off.
enum class ConvergenceRule { Robust, Stan };

struct Options {  // field order matters: users write {.family = ..., .seed = 1}
    Family family = Family::MeanField;
    std::uint64_t seed = 0;
    int grad_samples = 1;       // M, draws per gradient
    int elbo_samples = 100;     // draws per ELBO estimate
    int eval_elbo = 100;        // iterations between ELBO estimates
    double tol_rel_obj = 0.01;  // relative ELBO change tolerance
    bool adapt_engaged = true;  // search eta; else use `eta`
    int adapt_iter = 50;        // iterations per eta candidate
    double eta = 1.0;
    int max_iterations = 10000;
    int output_samples = 1000;
    ConvergenceRule convergence = ConvergenceRule::Robust;
    Eigen::VectorXd init{};       // initial mu; empty means zeros
    std::ostream* log = nullptr;  // progress lines (eta search, ELBO table) when set
    // Threads of the gradient program's long loops (0: the hardware's). A fit is
    // reproducible for a given seed and thread count.
    int threads = 0;
};

// Throws FitError naming the first bad option (non-positive count, tol_rel_obj <= 0,
// eta <= 0), ShapeError when `init` does not have `dim` entries, ModelError when dim < 1.
void validate_options(const Options& opts, int dim);

}  // namespace advi
