// The posterior mode of a model: compile (with or without the log-Jacobian), run L-BFGS or
// Newton-CG from the initial point, map the point to constrained space.
#include <advi/fit/optimize.hpp>

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/engine/initial_point.hpp>
#include <advi/engine/lbfgs.hpp>
#include <advi/engine/newton_cg.hpp>
#include <advi/engine/target.hpp>
#include <advi/fit/coordinates.hpp>
#include <advi/fit/diagnose.hpp>

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
        "Mode by {} ({}): {}; lp = {:.10g}; {} iterations, {} gradient evaluations{} ({:.3g} "
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
        for (Eigen::Index k = 0; k < x.size(); ++k)
            s += fmt::format("{:<20} {:>14.6g}\n", element_label(v, k, index_base), x[k]);
    }
    return s;
}

namespace {

// CmdStan's random inits (engine/initial_point): a point where the log density or its gradient
// is not finite is replaced by the next, up to 100 tries, as Stan does. The point and the try
// it took (1 for a point given, for zeros, and where every try failed: the first point, whose
// failure is then the error).
std::pair<Eigen::VectorXd, int> initial_point(const ModelSpec& m, const OptimizeOptions& o,
                                              Target& target) {
    if (o.init.size() != 0)
        return {o.init, 1};
    const std::uint64_t stream = o.seed ^ kInitStream;
    if (o.init_radius > 0.0 && m.zeta_dim() > 0) {
        if (auto found = finite_uniform_init(target, stream, o.init_radius))
            return {std::move(found->point), found->tries};
    }
    return {uniform_init(stream, m.zeta_dim(), o.init_radius), 1};
}

// L-BFGS's convergence tests other than tol_grad rest on its own inverse-Hessian
// approximation or on small changes, and they are met on badly conditioned models far from
// the mode, or far down a funnel of a density without one (measured: the centred
// hierarchical logistic regression, README Performance). So its claim is checked with the
// exact curvature: Newton-CG on the model's H v from L-BFGS's point, which ends at once where
// that point is a mode (the Newton decrement test) and otherwise goes on to the mode, or to
// "no mode". A model whose H v program cannot be built keeps CmdStan's claim.
OptimizerResult verified(const ModelSpec& m, const OptimizeOptions& options,
                         const OptimizerSettings& settings, OptimizerResult lbfgs) {
    std::optional<HessianVectorProgram> curvature;
    try {
        curvature.emplace(compile_hessian_vector(m, options.jacobian));
    } catch (const Error&) {
        return lbfgs;
    }
    curvature->set_threads(options.threads);
    CurvatureTargetRef<HessianVectorProgram> target(*curvature);
    // Its trace continues L-BFGS's: its start is L-BFGS's last row, its steps numbered on.
    const auto continued = [&lbfgs](OptimizerTraceRow row) {
        row.iteration += lbfgs.iterations;
        row.seconds += lbfgs.seconds;
        row.gradient_evaluations += lbfgs.gradient_evaluations;
        return row;
    };
    OptimizerSettings confirm = settings;
    if (settings.on_row) {
        confirm.on_row = [&](const OptimizerTraceRow& row) {
            if (row.iteration > 0)
                settings.on_row(continued(row));
        };
    }
    OptimizerResult check = maximize_newton_cg(target, lbfgs.zeta, confirm);
    std::vector<OptimizerTraceRow> trace = std::move(lbfgs.trace);
    for (std::size_t i = 1; i < check.trace.size(); ++i) trace.push_back(continued(check.trace[i]));
    check.trace = std::move(trace);
    const bool same_point = check.iterations == 0;
    check.message = fmt::format(
        "{} (L-BFGS stopped by {} at lp = {:.10g} after {} iterations; Newton-CG on the exact "
        "Hessian {} {} iterations)",
        check.message, lbfgs.criterion, lbfgs.lp, lbfgs.iterations,
        same_point ? "confirmed the mode in" : "went on for", check.iterations);
    check.iterations += lbfgs.iterations;
    check.gradient_evaluations += lbfgs.gradient_evaluations;
    check.seconds += lbfgs.seconds;
    return check;
}

}  // namespace

Optimum optimize(const ModelSpec& m, const OptimizeOptions& options) {
    Program gradient = compile(m, options.jacobian);
    gradient.set_threads(options.threads);
    TargetRef<Program> gradient_target(gradient);
    const auto [init, tries] = initial_point(m, options, gradient_target);
    const OptimizerSettings settings = lbfgs_settings(m, options, options.iter);
    optimizer::validate(settings, m.zeta_dim(), init);
    OptimizerResult result;
    if (options.algorithm == OptimizerAlgorithm::Newton) {
        // H v from the gradient graph differentiated once more (compile/pipeline.hpp).
        HessianVectorProgram curvature = compile_hessian_vector(m, options.jacobian);
        curvature.set_threads(options.threads);
        CurvatureTargetRef<HessianVectorProgram> target(curvature);
        result = maximize_newton_cg(target, init, settings);
    } else {
        result = maximize_lbfgs(gradient_target, init, settings);
        if (result.converged() && result.criterion != "tol_grad")
            result = verified(m, options, settings, std::move(result));
    }
    if (tries > 1)
        result.message += fmt::format(
            " (from random initial values of try {}: the log density or its gradient was not "
            "finite at the {} before, as Stan retries)",
            tries, tries == 2 ? "one" : fmt::format("{}", tries - 1));
    if (result.status == OptimizeStatus::NonFiniteStart) {
        // Which op and which variables make it so (diagnose.hpp).
        const std::string why = explain_nonfinite(m, init);
        if (!why.empty())
            result.message += "; " + why;
        if (options.init.size() == 0 && options.init_radius > 0.0)
            result.message +=
                fmt::format(" (and at each of the {} random initial points tried, as Stan tries)",
                            kRandomInitTries);
    }
    Program to_theta = compile_constrain_map(m);
    Eigen::VectorXd theta(m.theta_dim());
    to_theta.run(result.zeta, theta);
    return Optimum(m, options, std::move(result), std::move(theta));
}

}  // namespace advi
