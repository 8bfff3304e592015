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
    if (!opts.minibatch.empty())
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
    long newton_hessian_vector_products = 0;
    const char* finder = "L-BFGS";
    if (mode.criterion != "tol_grad" && dim <= kMaxStartHessianDim) {
        // As `advi optimize` (fit/optimize.cpp): L-BFGS's other tests are met far from the
        // mode on badly conditioned models. Measured on posteriordb's earnings-earn_height
        // (raw dollars on height): L-BFGS stopped by tol_rel_grad after 1 iteration at
        // lp = -5.3e6, where sigma is so large that the Hessian is 0 in double precision, and
        // the start fell back to zero; Newton-CG on the exact H v from there goes on to the
        // mode (lp = -13425.7). It ends at once where L-BFGS's point is a mode. Not above the
        // Hessian's budget, where the start keeps unit scales anyway: on examples' nmf_gap
        // (no mode) Newton-CG went on for minutes to a point 1e19 out.
        OptimizerResult check;
        try {
            check = maximize_newton_cg(*curvature, mode.zeta, settings);
        } catch (const FitError& e) {
            return init_start(opts, dim, fmt::format("no mode (Newton-CG: {})", e.what()));
        }
        lbfgs_evaluations += check.gradient_evaluations;
        newton_hessian_vector_products = check.hessian_vector_products;
        if (!check.converged()) {
            Start s = init_start(opts, dim, fmt::format("no mode (Newton-CG: {})", check.message));
            s.gradient_evaluations = lbfgs_evaluations;
            s.hessian_vector_products = newton_hessian_vector_products;
            return s;
        }
        check.iterations += mode.iterations;
        mode = std::move(check);
        finder = "L-BFGS, then Newton-CG";
    }
    if (dim > kMaxStartHessianDim) {
        // Measured on examples/ppca_ard (22021 coordinates, seed 1): the mode with unit scales
        // ends at an ELBO of -34429 after 13000 iterations, the init point at -34462 after
        // 12000.
        Start s;
        s.from_mode = true;
        s.mean = mode.zeta;
        s.scale = Eigen::VectorXd::Ones(dim);
        s.gradient_evaluations = lbfgs_evaluations;
        s.description = fmt::format(
            "the mode ({}, {} iterations) with unit scales: the Hessian of {} coordinates "
            "is over the start's budget of {}",
            finder, mode.iterations, dim, kMaxStartHessianDim);
        return s;
    }
    LaplaceSettings ls;
    ls.describe_coordinate = opts.describe_coordinate;
    ls.max_newton_steps = kStartNewtonSteps;
    // A start needs the mode to a fraction of a posterior sd, not Laplace's 1e-6 (the Newton
    // steps still aim at 1e-6, and on a Gaussian reach it): on an
    // ill-conditioned regression (a predictor near 2000, posteriordb's kilpisjarvi) L-BFGS's
    // end point was 1e-4 sds off after the Newton steps and the start fell back to zero.
    ls.accept_tolerance = kStartModeTolerance;
    std::optional<LaplaceGaussian> laplace;
    try {
        laplace.emplace(laplace_gaussian(*curvature, mode.zeta, ls));
    } catch (const FitError& e) {
        Start s = init_start(opts, dim, fmt::format("no usable mode ({})", first_clause(e.what())));
        s.gradient_evaluations = lbfgs_evaluations;
        return s;
    } catch (const SizeError& e) {
        Start s = init_start(opts, dim, fmt::format("the Hessian is too large ({})", e.what()));
        s.gradient_evaluations = lbfgs_evaluations;
        return s;
    }
    Start s;
    s.from_mode = true;
    s.curvature = true;
    s.mean = laplace->mode();
    s.gradient_evaluations = lbfgs_evaluations + laplace->newton_steps();
    s.hessian_vector_products =
        newton_hessian_vector_products + static_cast<long>(laplace->newton_steps() + 1) * dim;
    // Precision P = -H = R R' (R: the Laplace factor, lower triangular).
    const Eigen::MatrixXd& R = laplace->precision_cholesky();
    if (opts.family == Family::MeanField) {
        // P_dd = |row d of R|^2; the factorised Gaussian's optimum on N(m, P^-1).
        s.scale = R.rowwise().norm().cwiseInverse();
    } else {
        // chol(P^-1): P^-1 = R^-T R^-1; its lower factor, by LLT of the covariance.
        const Eigen::LLT<Eigen::MatrixXd> llt(laplace->covariance());
        if (llt.info() != Eigen::Success) {
            Start f = init_start(opts, dim,
                                 "the inverse Hessian at the mode is not positive definite in "
                                 "double precision");
            f.gradient_evaluations = s.gradient_evaluations;
            f.hessian_vector_products = s.hessian_vector_products;
            return f;
        }
        s.factor = llt.matrixL();
    }
    if (!s.mean.allFinite() || (s.scale.size() && !s.scale.allFinite()) ||
        (s.factor.size() && !s.factor.allFinite())) {
        Start f = init_start(opts, dim, "the curvature at the mode is not finite");
        f.gradient_evaluations = s.gradient_evaluations;
        f.hessian_vector_products = s.hessian_vector_products;
        return f;
    }
    s.description = fmt::format("the mode and Hessian ({}, {} iterations; {} Newton step{})",
                                finder, mode.iterations, laplace->newton_steps(),
                                laplace->newton_steps() == 1 ? "" : "s");
    return s;
}

}  // namespace advi
