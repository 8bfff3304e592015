// The posterior mode of a model: compile (with or without the log-Jacobian), run L-BFGS or
// Newton-CG from the initial point, map the point to constrained space.
#include <advi/fit/optimize.hpp>

#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/engine/lbfgs.hpp>
#include <advi/engine/newton_cg.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/target.hpp>
#include <advi/fit/coordinates.hpp>

namespace advi {

Optimum::Optimum(ModelSpec spec, OptimizeOptions options, OptimizerResult result,
                 Eigen::VectorXd theta)
    : spec_(std::move(spec)),
      options_(std::move(options)),
      result_(std::move(result)),
      theta_(std::move(theta)) {}

Eigen::VectorXd Optimum::value(std::string_view name) const {
    const int k = spec_.latent_index(name);
    return theta_.segment(spec_.theta_offsets()[k], spec_.latents[k].shape.size());
}

std::string Optimum::summary(int index_base) const {
    const OptimizerResult& r = result_;
    std::string s = fmt::format(
        "Mode by {} ({}): {}; lp = {:.10g}; {} iterations, {} gradient evaluations{} ({:.3f} "
        "s)\n",
        options_.algorithm == OptimizerAlgorithm::Lbfgs ? "L-BFGS" : "Newton-CG",
        options_.jacobian ? "with the log-Jacobian: the mode of the unconstrained posterior"
                          : "without the log-Jacobian: the mode in constrained space",
        r.message, r.lp, r.iterations, r.gradient_evaluations,
        r.hessian_vector_products > 0
            ? fmt::format(", {} Hessian-vector products", r.hessian_vector_products)
            : std::string(),
        r.seconds);
    s += fmt::format("{:<20} {:>14}\n", "", "value");
    for (const auto& v : spec_.latents) {
        const Eigen::VectorXd x = value(v.name);
        for (Eigen::Index k = 0; k < x.size(); ++k) {
            std::string label = v.name;
            if (v.shape.is_vector())
                label += fmt::format("[{}]", k + index_base);
            if (v.shape.is_matrix())
                label += fmt::format("[{},{}]", k % v.shape.rows + index_base,
                                     k / v.shape.rows + index_base);
            s += fmt::format("{:<20} {:>14.6g}\n", label, x[k]);
        }
    }
    return s;
}

namespace {

// CmdStan's random inits: each unconstrained coordinate uniform on (-radius, radius).
Eigen::VectorXd initial_point(const ModelSpec& m, const OptimizeOptions& o) {
    if (o.init.size() != 0)
        return o.init;
    if (!(o.init_radius >= 0.0) || !std::isfinite(o.init_radius))
        throw FitError(
            fmt::format("option `init` = {} must be a finite radius >= 0", o.init_radius));
    Eigen::VectorXd z(m.zeta_dim());
    Rng rng(o.seed ^ 0x696E697400000000ull);  // a stream of its own
    for (Eigen::Index k = 0; k < z.size(); ++k) {
        const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;
        z[k] = o.init_radius * (2.0 * u - 1.0);
    }
    return z;
}

OptimizerSettings settings_of(const ModelSpec& m, const OptimizeOptions& o) {
    return {.iter = o.iter,
            .init_alpha = o.init_alpha,
            .tol_obj = o.tol_obj,
            .tol_rel_obj = o.tol_rel_obj,
            .tol_grad = o.tol_grad,
            .tol_rel_grad = o.tol_rel_grad,
            .tol_param = o.tol_param,
            .history_size = o.history_size,
            .runaway_limits = coordinate_runaway_limits(m),
            .describe_coordinate = coordinate_namer(m),
            .interrupt = o.interrupt};
}

}  // namespace

Optimum optimize(const ModelSpec& m, const OptimizeOptions& options) {
    const Eigen::VectorXd init = initial_point(m, options);
    const OptimizerSettings settings = settings_of(m, options);
    optimizer::validate(settings, m.zeta_dim(), init);
    OptimizerResult result;
    if (options.algorithm == OptimizerAlgorithm::Newton) {
        throw FitError(
            "algorithm `newton` needs the model's Hessian-vector program, which is "
            "not built yet; use `lbfgs`");
    }
    Program gradient = compile(m, options.jacobian);
    gradient.set_threads(options.threads);
    TargetRef<Program> target(gradient);
    result = maximize_lbfgs(target, init, settings);
    Program to_theta = compile_constrain_map(m);
    Eigen::VectorXd theta(m.theta_dim());
    to_theta.run(result.zeta, theta);
    return Optimum(m, options, std::move(result), std::move(theta));
}

}  // namespace advi
