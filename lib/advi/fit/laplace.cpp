// Laplace: the Gaussian at the mode, the draws through T^-1, log_p and log_g, PSIS.
#include <advi/fit/laplace.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#include <Eigen/Cholesky>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/compile/hessian_vector_program.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/engine/counting_target.hpp>
#include <advi/engine/hessian.hpp>
#include <advi/engine/rng.hpp>
#include <advi/fit/coordinates.hpp>

namespace advi {

LaplaceFit::LaplaceFit(Fit draws, LaplaceGaussian gaussian, Psis psis, bool jacobian,
                       std::string mode_source, double seconds)
    : fit_(std::move(draws)),
      gaussian_(std::move(gaussian)),
      psis_(std::move(psis)),
      jacobian_(jacobian),
      mode_source_(std::move(mode_source)),
      seconds_(seconds) {}

std::string LaplaceFit::summary(int index_base) const {
    std::string s = fmt::format(
        "Laplace approximation at the mode of the log density {} the Jacobian (mode: {}); "
        "log density at the mode {:.6g}; {} draws ({:.3f} s)\n",
        jacobian_ ? "with" : "without", mode_source_, gaussian_.log_density_at_mode(),
        theta_draws().rows(), seconds_);
    if (gaussian_.newton_steps() > 0) {
        s += fmt::format(
            "the mode refined by {} Newton step{} on the exact Hessian: the point given was {:.3g} "
            "posterior sds from it\n",
            gaussian_.newton_steps(), gaussian_.newton_steps() == 1 ? "" : "s",
            gaussian_.initial_decrement());
    }
    if (gaussian_.regularization() > 0) {
        s += fmt::format("regularized: {} I added to the negative Hessian\n",
                         gaussian_.regularization());
    }
    s += psis_text(psis_) + "\n";
    if (nonfinite_log_p() > 0) {
        s += fmt::format("{} draws had a non-finite log density (kept with log_p = -inf)\n",
                         nonfinite_log_p());
    }
    return s + latent_summary_table(model(), theta_draws(), index_base);
}

namespace {

// What Laplace allocates that grows with the model, refused before anything runs (the
// optimizer, the compiler): the dense Hessian with its factor and an eigendecomposition, and
// the draws in both spaces with their densities.
void require_laplace_memory(const ModelSpec& m, const LaplaceOptions& options) {
    const int K = m.zeta_dim();
    require_dense_memory(
        "the Laplace approximation (the dense Hessian, its Cholesky factor and an "
        "eigendecomposition)",
        K, 3);
    require_memory(fmt::format("option `draws` = {} (keeping {} draws of {} unconstrained and {} "
                               "constrained values)",
                               options.draws, options.draws, K, m.theta_dim()),
                   checked_product({options.draws, 2 * std::int64_t{K} + m.theta_dim() + 2}));
}

}  // namespace

LaplaceFit laplace_at(const ModelSpec& m, CurvatureTarget& curvature, const Eigen::VectorXd& mode,
                      const LaplaceOptions& options, std::string mode_source,
                      long mode_gradient_evaluations) {
    const auto start = std::chrono::steady_clock::now();
    const int K = m.zeta_dim();
    if (options.draws < 1) {
        throw ModelError(
            fmt::format("Laplace: option `draws` must be >= 1, got {}", options.draws));
    }
    if (curvature.dim() != K) {
        throw ShapeError(fmt::format(
            "Laplace: the curvature target has {} dimensions, the model {} unconstrained",
            curvature.dim(), K));
    }
    if (mode.size() != K) {
        throw ShapeError(fmt::format(
            "Laplace: the mode has {} unconstrained values, the model has {}", mode.size(), K));
    }
    const auto name = coordinate_namer(m);
    for (int k = 0; k < K; ++k) {
        if (!std::isfinite(mode[k]))
            throw ModelError(fmt::format("Laplace: the mode is {} at {}", mode[k], name(k)));
    }
    require_laplace_memory(m, options);

    CountingCurvatureTarget counted(curvature);
    const LaplaceGaussian gaussian = laplace_gaussian(
        counted, mode, {.regularization = options.regularization, .describe_coordinate = name});

    Rng rng(options.seed);
    Eigen::MatrixXd zeta = gaussian.draw(rng, options.draws);
    Program gradient = compile(m, options.jacobian);
    gradient.set_threads(options.threads);
    Program to_theta = compile_constrain_map(m);
    Eigen::MatrixXd theta(options.draws, m.theta_dim());
    DrawDensities dens;
    dens.log_p.resize(options.draws);
    Eigen::VectorXd z(K), t(m.theta_dim()), grad(K);
    for (int i = 0; i < options.draws; ++i) {
        z = zeta.row(i).transpose();
        // CmdStan's log_p__: log_prob<propto = false, jacobian>: the gradient program's lp.
        double lp = gradient.run(z, grad);
        if (!std::isfinite(lp)) {
            // NaN (the model could not be evaluated there) or -inf alike: a weight of 0.
            lp = -std::numeric_limits<double>::infinity();
            ++dens.nonfinite_log_p;
        }
        dens.log_p[i] = lp;
        to_theta.run(z, t);
        theta.row(i) = t.transpose();
    }
    dens.log_g = gaussian.log_density(zeta);
    const Eigen::VectorXd& at = gaussian.mode();  // refined by Newton steps
    dens.log_p_at_mu = gradient.run(at, grad);
    dens.log_g_at_mu = gaussian.log_density(at.transpose())[0];
    to_theta.run(at, t);
    Psis weights = psis(dens.log_p - dens.log_g);

    // The Gaussian as the full-rank q of a Fit: L_q L_q' = (-H)^-1.
    AdviResult r;
    r.q = Approximation::full_rank(at, gaussian.covariance().llt().matrixL());
    r.converged = true;
    r.stop_reason = "Laplace approximation at the mode (" + mode_source + ")";
    r.draws = std::move(zeta);
    // What it cost: finding the mode, the Newton steps and the dense Hessian (a Hessian-vector
    // product each) and the log density at the mode; the draws' log densities are values.
    r.gradient_evaluations = mode_gradient_evaluations + counted.gradient_evaluations() + 1;
    r.value_evaluations = options.draws;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.seconds = seconds;
    Fit draws(m, std::move(r), std::move(theta), t, std::move(dens));
    return LaplaceFit(std::move(draws), gaussian, std::move(weights), options.jacobian,
                      std::move(mode_source), seconds);
}

LaplaceFit laplace(const ModelSpec& m, const LaplaceOptions& options) {
    if (options.draws < 1) {
        throw ModelError(
            fmt::format("Laplace: option `draws` must be >= 1, got {}", options.draws));
    }
    require_laplace_memory(m, options);
    Eigen::VectorXd mode = options.mode;
    std::string source = options.mode_source;
    long mode_evaluations = 0;
    if (mode.size() == 0) {
        OptimizeOptions o = options.optimize;
        o.jacobian = options.jacobian;
        o.seed = options.seed;
        o.threads = options.threads;
        const Optimum optimum = optimize(m, o);
        if (!optimum.converged()) {
            throw FitError(
                fmt::format("Laplace: optimize found no mode to centre the approximation on: {}",
                            optimum.message()));
        }
        mode = optimum.zeta();
        mode_evaluations = optimum.gradient_evaluations();
        source =
            fmt::format("optimize, {} iterations, {} gradient evaluations: {}",
                        optimum.iterations(), optimum.gradient_evaluations(), optimum.message());
    }
    HessianVectorProgram program = compile_hessian_vector(m, options.jacobian);
    program.set_threads(options.threads);
    CurvatureTargetRef<HessianVectorProgram> curvature(program);
    return laplace_at(m, curvature, mode, options, std::move(source), mode_evaluations);
}

}  // namespace advi
