// Multi-path Pathfinder: the paths in turn (each path's log densities in parallel over the
// gradient program's threads), their draws pooled, PSIS resampling, the verdict.
#include <advi/fit/pathfinder.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/engine/initial_point.hpp>
#include <advi/engine/pathfinder.hpp>
#include <advi/fit/compiled_target.hpp>
#include <advi/fit/coordinates.hpp>
#include <advi/fit/optimize.hpp>
#include <advi/fit/resample.hpp>

namespace advi {

namespace {

// Each path's draws and initial point come from streams of their own.
constexpr std::uint64_t kPathStream = 0x7061746800000000ull;  // "path"

void validate(const ModelSpec& m, const PathfinderOptions& o) {
    const auto positive = [](const char* name, int value) {
        if (value < 1)
            throw FitError(
                fmt::format("Pathfinder: option `{}` must be >= 1, got {}", name, value));
    };
    positive("num_paths", o.num_paths);
    positive("num_draws", o.num_draws);
    positive("num_elbo_draws", o.num_elbo_draws);
    positive("num_psis_draws", o.num_psis_draws);
    positive("max_lbfgs_iters", o.max_lbfgs_iters);
    positive("history_size", o.history_size);
    const int K = m.zeta_dim();
    if (o.init.size() != 0 && o.init.size() != K) {
        throw ShapeError(fmt::format(
            "Pathfinder: the initial point has {} unconstrained values, the model has {}",
            o.init.size(), K));
    }
    // What grows with the model: every path's draws with their densities, in both spaces.
    require_memory(
        fmt::format("option `num_draws` = {} per path, {} paths (keeping {} draws of {} "
                    "unconstrained and {} constrained values)",
                    o.num_draws, o.num_paths, std::int64_t{o.num_draws} * o.num_paths, K,
                    m.theta_dim()),
        checked_product({o.num_draws, o.num_paths, 2 * std::int64_t{K} + m.theta_dim() + 3}));
}

PathReport report_of(int k, const PathfinderPath& p) {
    PathReport r;
    r.path = k;
    r.status = p.lbfgs.status;
    r.lbfgs_message = p.lbfgs.message;
    r.iterations = p.lbfgs.iterations;
    r.best_iteration = p.best;
    r.best_elbo = p.best_elbo;
    r.gradient_evaluations = p.gradient_evaluations;
    r.value_evaluations = p.value_evaluations;
    r.skipped_pairs = p.skipped_pairs;
    r.failure = p.failure;
    r.trace = p.lbfgs.trace;
    r.elbo = p.elbo;
    r.elbo_se = p.elbo_se;
    return r;
}

}  // namespace

PathfinderFit::PathfinderFit(Fit draws, std::vector<PathReport> paths,
                             std::vector<int> path_of_draw, PathfinderOptions options,
                             bool resampled, double seconds)
    : fit_(std::move(draws)),
      paths_(std::move(paths)),
      path_of_draw_(std::move(path_of_draw)),
      options_(std::move(options)),
      resampled_(resampled),
      seconds_(seconds) {}

std::string PathfinderFit::summary(int index_base) const {
    const Verdict& v = fit_.verdict();
    std::string s = fmt::format("Verdict: {}\n", v.headline(index_base));
    for (const std::string& line : v.details(index_base)) s += "  " + line + "\n";
    const AdviResult& r = fit_.result();
    s += fmt::format(
        "Pathfinder, {} path{}: {} ({:.3f} s); {} log-density evaluations with a gradient, {} "
        "without; {} draws{}\n",
        paths_.size(), paths_.size() == 1 ? "" : "s",
        r.converged ? "converged: " + r.stop_reason : "not converged: " + r.stop_reason, seconds_,
        r.gradient_evaluations, r.value_evaluations, fit_.theta_draws().rows(),
        resampled_ ? fmt::format(" (PSIS-resampled from {} pooled draws)",
                                 static_cast<long>(paths_.size()) * options_.num_draws)
                   : "");
    for (const PathReport& p : paths_) {
        if (!p.failure.empty()) {
            s += fmt::format("  path {}: no draws: {}\n", p.path, p.failure);
            continue;
        }
        s += fmt::format(
            "  path {}: L-BFGS {} after {} iterations; best approximation at iteration {}, ELBO "
            "{:.6g}{}\n",
            p.path, status_name(p.status), p.iterations, p.best_iteration, p.best_elbo,
            p.skipped_pairs > 0
                ? fmt::format(" ({} steps without positive curvature skipped)", p.skipped_pairs)
                : "");
    }
    if (fit_.nonfinite_log_p() > 0) {
        s += fmt::format(
            "{} draws had a non-finite log density (kept with lp__ = -inf: a weight of 0)\n",
            fit_.nonfinite_log_p());
    }
    return s + latent_summary_table(fit_.model(), fit_.theta_draws(), index_base);
}

PathfinderFit pathfinder(const ModelSpec& m, const PathfinderOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    validate(m, options);
    const int K = m.zeta_dim();
    Program gradient = compile(m);  // with the log-Jacobian: the posterior of zeta
    gradient.set_threads(options.threads);
    CompiledTarget target(m, gradient, options.threads);

    std::vector<PathReport> reports;
    std::vector<PathfinderPath> paths;
    std::vector<int> path_ids;
    for (int k = 1; k <= options.num_paths; ++k) {
        if (options.interrupt != nullptr && options.interrupt->load(std::memory_order_relaxed))
            break;
        const Eigen::VectorXd init =
            options.init.size() != 0
                ? options.init
                : uniform_init((options.seed ^ kInitStream) + static_cast<std::uint64_t>(k - 1), K,
                               options.init_radius);
        PathfinderSettings settings{
            .lbfgs = lbfgs_settings(m, options, options.max_lbfgs_iters),
            .num_elbo_draws = options.num_elbo_draws,
            .num_draws = options.num_draws,
            .seed = (options.seed ^ kPathStream) + static_cast<std::uint64_t>(k - 1),
            .log = {},
            .refresh = options.refresh};
        if (options.log) {
            settings.log = [&options, k](const std::string& line) {
                options.log(fmt::format("path {}:{}", k, line));
            };
        }
        PathfinderPath path = pathfinder_path(target, init, settings);
        reports.push_back(report_of(k, path));
        if (options.log) {
            options.log(path.ok() ? fmt::format("path {}: L-BFGS {} after {} iterations; best "
                                                "approximation at iteration {}, ELBO {:.6g}",
                                                k, status_name(path.lbfgs.status),
                                                path.lbfgs.iterations, path.best, path.best_elbo)
                                  : fmt::format("path {}: no draws: {}", k, path.failure));
        }
        if (path.ok()) {
            paths.push_back(std::move(path));
            path_ids.push_back(k);
        }
    }
    if (paths.empty()) {
        std::string why;
        for (const PathReport& r : reports) why += fmt::format("; path {}: {}", r.path, r.failure);
        throw FitError(reports.empty() ? std::string("Pathfinder: interrupted before any path ran")
                                       : fmt::format("Pathfinder: no path gave draws{}", why));
    }

    // The pooled draws, path by path, with their constrained images.
    const Eigen::Index per_path = options.num_draws;
    const Eigen::Index S = per_path * static_cast<Eigen::Index>(paths.size());
    AdviResult r;
    r.method = "Pathfinder";
    r.draws.resize(S, K);
    DrawDensities dens;
    dens.log_p.resize(S);
    dens.log_g.resize(S);
    std::vector<int> path_of_draw(static_cast<std::size_t>(S));
    std::size_t best = 0;
    int converged = 0;
    for (std::size_t j = 0; j < paths.size(); ++j) {
        const PathfinderPath& p = paths[j];
        r.draws.middleRows(static_cast<Eigen::Index>(j) * per_path, per_path) = p.draws;
        dens.log_p.segment(static_cast<Eigen::Index>(j) * per_path, per_path) = p.log_p;
        dens.log_g.segment(static_cast<Eigen::Index>(j) * per_path, per_path) = p.log_q;
        for (Eigen::Index i = 0; i < per_path; ++i)
            path_of_draw[static_cast<std::size_t>(static_cast<Eigen::Index>(j) * per_path + i)] =
                path_ids[j];
        if (p.best_elbo > paths[best].best_elbo)
            best = j;
        if (p.lbfgs.converged())
            ++converged;
    }
    for (const PathReport& rep : reports) {
        r.iterations += rep.iterations;
        r.gradient_evaluations += rep.gradient_evaluations;
        r.value_evaluations += rep.value_evaluations;
    }
    for (Eigen::Index i = 0; i < S; ++i) {
        if (!std::isfinite(dens.log_p[i]))
            ++dens.nonfinite_log_p;
    }
    // Converged: every path that was asked for gave draws, and its L-BFGS met a tolerance.
    const int asked = options.num_paths;
    r.converged = converged == asked && static_cast<int>(paths.size()) == asked;
    const bool interrupted = static_cast<int>(reports.size()) < asked ||
                             std::any_of(reports.begin(), reports.end(), [](const PathReport& p) {
                                 return p.status == OptimizeStatus::Interrupted;
                             });
    r.stop_reason =
        fmt::format("{}{} of {} paths gave draws, L-BFGS converged on {} of them{}",
                    interrupted ? "interrupted: " : "", paths.size(), asked, converged,
                    r.converged ? std::string()
                                : "; a path whose optimisation did not converge may not "
                                  "have reached the posterior's bulk");
    // q for the Fit: the best path's approximation, by its mean and marginal sds.
    const PathGaussian& g = paths[best].gaussian;
    r.q = Approximation::mean_field(g.mean(), g.sd().array().log().matrix());
    r.elbo = paths[best].best_elbo;
    r.start = "random initial points (one per path)";
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Program to_theta = compile_constrain_map(m);
    Eigen::MatrixXd theta(S, m.theta_dim());
    Eigen::VectorXd z(K), t(m.theta_dim());
    for (Eigen::Index i = 0; i < S; ++i) {
        z = r.draws.row(i).transpose();
        to_theta.run(z, t);
        theta.row(i) = t.transpose();
    }
    dens.log_p_at_mu = evaluate_value(target, g.mean());
    dens.log_g_at_mu = -0.5 * K * std::log(2.0 * std::numbers::pi) - g.half_log_det();
    to_theta.run(g.mean(), t);
    Fit pooled(m, std::move(r), std::move(theta), t, std::move(dens));

    const bool resample = options.num_paths > 1 && options.psis_resample;
    if (!resample) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return PathfinderFit(std::move(pooled), std::move(reports), std::move(path_of_draw),
                             options, false, seconds);
    }
    std::vector<Eigen::Index> picks;
    Fit resampled = psis_resample(pooled, options.seed, options.num_psis_draws, &picks);
    std::vector<int> resampled_paths;
    resampled_paths.reserve(picks.size());
    for (const Eigen::Index k : picks)
        resampled_paths.push_back(path_of_draw[static_cast<std::size_t>(k)]);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return PathfinderFit(std::move(resampled), std::move(reports), std::move(resampled_paths),
                         options, true, seconds);
}

}  // namespace advi
