// A line search for the strong Wolfe conditions (Nocedal & Wright, Algorithms 3.5 and 3.6:
// bracketing, then zoom by safeguarded cubic interpolation) that copes with a non-finite
// value: a trial step where the function (or its gradient) is not finite is treated as too
// long, and the search backtracks towards the last finite point and never extrapolates
// past it again. Written for minimisation of f; L-BFGS passes f = -log density.
#pragma once

#include <functional>

#include <Eigen/Core>

namespace advi {

// f(x), writing its gradient into g (sized like x); may return a non-finite value.
using Objective = std::function<double(const Eigen::VectorXd& x, Eigen::VectorXd& g)>;

struct LineSearchResult {
    // A step was taken: `alpha` > 0 with f(x0 + alpha p) <= f0 + c1 alpha g0'p (sufficient
    // decrease); `wolfe` also when |g(x0 + alpha p)'p| <= c2 |g0'p| (strong Wolfe). Without
    // the curvature condition the step is the best found within the evaluation budget.
    bool ok = false;
    bool wolfe = false;
    double alpha = 0.0;
    double f = 0.0;
    int evaluations = 0;
    // Some trial point had a non-finite f or gradient; `minus_infinity` when f was -inf there
    // (the density +inf: unbounded).
    bool met_nonfinite = false;
    bool minus_infinity = false;
};

struct LineSearchSettings {
    double c1 = 1e-4;
    double c2 = 0.9;
    int max_evaluations = 50;
    double extrapolation = 4.0;  // factor by which a step that is too short grows
};

// Searches along the descent direction p (g0'p < 0) from x0, where f = f0 and the gradient
// is g0, starting with step `alpha0`. On success x and g hold the new point and its
// gradient; otherwise x0 and g0.
[[nodiscard]] LineSearchResult strong_wolfe_search(const Objective& f, const Eigen::VectorXd& x0,
                                                   double f0, const Eigen::VectorXd& g0,
                                                   const Eigen::VectorXd& p, double alpha0,
                                                   Eigen::VectorXd& x, Eigen::VectorXd& g,
                                                   const LineSearchSettings& settings = {});

}  // namespace advi
