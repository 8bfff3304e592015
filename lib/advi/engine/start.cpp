// The start from the mode and curvature, or the init point, and why.
#include <advi/engine/start.hpp>

#include <cmath>
#include <optional>

#include <Eigen/Cholesky>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/engine/laplace.hpp>
#include <advi/engine/lbfgs.hpp>
#include <advi/engine/newton_cg.hpp>

namespace advi {

namespace {

Start init_start(const Options& opts, int dim, const std::string& why) {
    Start s;
    const bool given = opts.init.size() != 0;
    s.mean = given ? opts.init : Eigen::VectorXd::Zero(dim);
    s.scale = Eigen::VectorXd::Ones(dim);
    s.description = fmt::format("the init point ({}){}{}", given ? "given" : "zero",
                                why.empty() ? "" : ": ", why);
    return s;
}

// Where the second search rose above the first's end without converging and no mode is found
// from there: q starts at that highest point with unit scales (nearer the mode than the init
// point, which the first search left).
Start highest_point_start(const OptimizerResult& highest, int dim, const std::string& why) {
    Start s;
    s.mean = highest.zeta;
    s.scale = Eigen::VectorXd::Ones(dim);
    s.description = fmt::format(
        "the highest point found (L-BFGS, {} iterations, {}) with unit "
        "scales: {}",
        highest.iterations, status_name(highest.status), why);
    return s;
}

// A refusal's first clause: Laplace's names every direction where -H is not positive definite,
// which a one-line start description need not repeat.
std::string first_clause(const std::string& why) {
    const auto end = why.find(';');
    return end == std::string::npos ? why : why.substr(0, end);
}

}  // namespace

Start find_start(Target& target, const Options& opts, CurvatureTarget* curvature) {
    const int dim = target.dim();
    if (opts.start == StartFrom::Init)
        return init_start(opts, dim, "");
    if (opts.convergence == ConvergenceRule::Stan)
        return init_start(opts, dim, "Stan's rule keeps Stan's start");
    if (subsamples(opts))
        return init_start(opts, dim, "no mode is sought on minibatches");
    if (curvature == nullptr)
        curvature = dynamic_cast<CurvatureTarget*>(&target);
    if (curvature == nullptr)
        return init_start(opts, dim, "the target gives no curvature");

    // The mode of the target as given (the Jacobian term included): q's optimum in these
    // coordinates sits near it where the posterior is near Gaussian.
    OptimizerSettings settings;
    settings.runaway_limits = opts.runaway_limits;
    settings.describe_coordinate = opts.describe_coordinate;
    settings.interrupt = opts.interrupt;
    const Eigen::VectorXd init = opts.init.size() != 0 ? opts.init : Eigen::VectorXd::Zero(dim);
    OptimizerResult mode;
    try {
        mode = maximize_lbfgs(*curvature, init, settings);
    } catch (const FitError& e) {
        return init_start(opts, dim, fmt::format("no mode (L-BFGS: {})", e.what()));
    }
    long lbfgs_evaluations = mode.gradient_evaluations;
    if (!mode.converged()) {
        Start s = init_start(opts, dim, fmt::format("no mode (L-BFGS: {})", mode.message));
        s.gradient_evaluations = lbfgs_evaluations;
        return s;
    }
    // The second search, from a random point (other_mode.hpp); q starts at the higher end.
    ModeSearch search = search_other_mode(*curvature, std::move(mode), settings, opts.seed);
    lbfgs_evaluations += search.gradient_evaluations;
    mode = search.kept;
    long hessian_vector_products = 0;  // the dense Hessians and Newton-CG's
    // Every Start below carries the second search's outcome and the evaluations so far.
    const auto finish = [&](Start s, const Eigen::MatrixXd& R = {}) {
        measure_other_mode(search, R);
        s.other_mode = search.other;
        if (!search.other.description.empty())
            s.description += "; " + search.other.description;
        return s;
    };
    const auto fallback = [&](const std::string& why) {
        Start s =
            mode.converged() ? init_start(opts, dim, why) : highest_point_start(mode, dim, why);
        s.gradient_evaluations = lbfgs_evaluations;
        s.hessian_vector_products = hessian_vector_products;
        return finish(std::move(s));
    };
    if (dim > kMaxStartHessianDim) {
        // Measured on examples/ppca_ard (22021 coordinates, seed 1): the mode with unit scales
        // ends at an ELBO of -34429 after 13000 iterations, the init point at -34462 after
        // 12000. No Newton-CG check here: on examples' nmf_gap (no mode) it went on for
        // minutes to a point 1e19 out.
        const std::string why =
            fmt::format("the Hessian of {} coordinates is over the start's budget of {}", dim,
                        kMaxStartHessianDim);
        if (!mode.converged())
            return fallback(why);
        Start s;
        s.from_mode = true;
        s.mean = mode.zeta;
        s.scale = Eigen::VectorXd::Ones(dim);
        s.gradient_evaluations = lbfgs_evaluations;
        s.hessian_vector_products = hessian_vector_products;
        s.description = fmt::format("the mode (L-BFGS, {} iterations) with unit scales: {}",
                                    mode.iterations, why);
        return finish(std::move(s));
    }
    // The dense Hessian at L-BFGS's point, then Newton steps on it (the chord method: one
    // gradient a step) until the point is within kStartModeTolerance posterior sds of the
    // mode. Measured on issue 19's mixture (409 coordinates, a Hessian-vector product 2.3
    // gradients): Newton-CG from L-BFGS's point took 309 Hessian-vector products to move lp
    // by 0.09, then the Hessian at its end 409 more; the chord steps reach the same point
    // on the one Hessian.
    std::string why_not;
    const auto laplace_at = [&](const Eigen::VectorXd& point) -> std::optional<LaplaceGaussian> {
        LaplaceSettings ls;
        ls.describe_coordinate = opts.describe_coordinate;
        ls.reuse_hessian = true;
        ls.max_newton_steps = kStartNewtonSteps;
        ls.accept_tolerance = kStartModeTolerance;
        hessian_vector_products += dim;
        try {
            LaplaceGaussian g = laplace_gaussian(*curvature, point, ls);
            lbfgs_evaluations += g.newton_steps();
            return g;
        } catch (const FitError& e) {
            why_not = first_clause(e.what());
            return std::nullopt;
        }
    };
    const char* finder = "L-BFGS";
    std::optional<LaplaceGaussian> laplace;
    try {
        laplace = laplace_at(mode.zeta);
        if (!laplace && mode.criterion != "tol_grad") {
            // As `advi optimize` (fit/optimize.cpp): L-BFGS's other tests are met far from
            // the mode on badly conditioned models. Measured on posteriordb's
            // earnings-earn_height (raw dollars on height): L-BFGS stopped by tol_rel_grad
            // after 1 iteration at lp = -5.3e6, where sigma is so large that the Hessian is 0
            // in double precision; Newton-CG on the exact H v from there goes on to the mode
            // (lp = -13425.7).
            OptimizerResult check;
            try {
                check = maximize_newton_cg(*curvature, mode.zeta, settings);
            } catch (const FitError& e) {
                return fallback(fmt::format("no mode (Newton-CG: {})", e.what()));
            }
            lbfgs_evaluations += check.gradient_evaluations;
            hessian_vector_products += check.hessian_vector_products;
            if (!check.converged()) {
                return fallback(fmt::format("no mode (Newton-CG: {})", check.message));
            }
            check.iterations += mode.iterations;
            mode = std::move(check);
            search.kept = mode;  // the other end's distance is from here
            finder = "L-BFGS, then Newton-CG";
            laplace = laplace_at(mode.zeta);
        }
    } catch (const SizeError& e) {
        return fallback(fmt::format("the Hessian is too large ({})", e.what()));
    }
    if (!laplace)
        return fallback(fmt::format("no usable mode ({})", why_not));
    Start s;
    s.from_mode = true;
    s.curvature = true;
    s.mean = laplace->mode();
    s.gradient_evaluations = lbfgs_evaluations;
    s.hessian_vector_products = hessian_vector_products;
    // Precision P = -H = R R' (R: the Laplace factor, lower triangular).
    const Eigen::MatrixXd& R = laplace->precision_cholesky();
    if (opts.family != Family::FullRank) {
        // P_dd = |row d of R|^2; the factorised Gaussian's optimum on N(m, P^-1). (The low-rank
        // family is whitened by these scales too, and learns its correlations from there.)
        s.scale = R.rowwise().norm().cwiseInverse();
    } else {
        // chol(P^-1): P^-1 = R^-T R^-1; its lower factor, by LLT of the covariance.
        const Eigen::LLT<Eigen::MatrixXd> llt(laplace->covariance());
        if (llt.info() != Eigen::Success) {
            return fallback(
                "the inverse Hessian at the mode is not positive definite in double precision");
        }
        s.factor = llt.matrixL();
    }
    if (!s.mean.allFinite() || (s.scale.size() && !s.scale.allFinite()) ||
        (s.factor.size() && !s.factor.allFinite()))
        return fallback("the curvature at the mode is not finite");
    s.description = fmt::format(
        "the mode and Hessian ({}, {} iterations; {} Newton step{} on the Hessian at its end)",
        finder, mode.iterations, laplace->newton_steps(), laplace->newton_steps() == 1 ? "" : "s");
    // The other end's distance from the Newton steps' end, in posterior sds there.
    search.kept.zeta = s.mean;
    return finish(std::move(s), R);
}

}  // namespace advi
