// The model-level fit: program, engine, draws mapped to constrained space, summaries.
#include <advi/fit/fit.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/compile/pipeline.hpp>

#include <advi/engine/dadvi.hpp>
#include <advi/engine/rng.hpp>
#include <advi/engine/runaway.hpp>

#include <advi/fit/compiled_target.hpp>
#include <advi/fit/constraint_checker.hpp>
#include <advi/fit/coordinates.hpp>
#include <advi/fit/diagnose.hpp>
#include <advi/fit/draw_summary.hpp>
#include <advi/fit/minibatch.hpp>
#include <advi/fit/row_shards.hpp>

namespace advi {

Fit::Fit(ModelSpec spec, AdviResult result, Eigen::MatrixXd theta_draws,
         Eigen::VectorXd theta_at_mu, DrawDensities densities, std::optional<Verdict> verdict)
    : spec_(std::move(spec)),
      result_(std::move(result)),
      theta_draws_(std::move(theta_draws)),
      theta_at_mu_(std::move(theta_at_mu)),
      densities_(std::move(densities)),
      verdict_(verdict ? std::move(*verdict)
                       : assess(result_, densities_.log_p, densities_.log_g)) {
    if (!verdict && theta_draws_.cols() == spec_.theta_dim()) {
        measure_mean_shift(verdict_, theta_draws_, theta_labels(spec_, 0), theta_labels(spec_, 1));
    }
}

std::pair<int, int> Fit::columns(std::string_view name) const {
    const int k = spec_.latent_index(name);
    return {spec_.theta_offsets()[k], spec_.latents[k].shape.size()};
}

Eigen::MatrixXd Fit::draws(std::string_view name) const {
    auto [off, n] = columns(name);
    return theta_draws_.middleCols(off, n);
}

// Over each column's finite draws (draw_summary.hpp): a run-off q can give draws of +-inf.
Eigen::VectorXd Fit::mean(std::string_view name) const {
    const Eigen::MatrixXd d = draws(name);
    Eigen::VectorXd m(d.cols());
    for (Eigen::Index j = 0; j < d.cols(); ++j) m[j] = summarize_draws(d.col(j)).mean;
    return m;
}

Eigen::VectorXd Fit::sd(std::string_view name) const {
    const Eigen::MatrixXd d = draws(name);
    Eigen::VectorXd s(d.cols());
    for (Eigen::Index j = 0; j < d.cols(); ++j) s[j] = summarize_draws(d.col(j)).sd;
    return s;
}

Eigen::VectorXd Fit::quantile(std::string_view name, double p) const {
    if (!(p >= 0 && p <= 1))
        throw ModelError(fmt::format("quantile: p = {} is not in [0, 1]", p));
    const Eigen::MatrixXd d = draws(name);
    Eigen::VectorXd q(d.cols());
    for (Eigen::Index j = 0; j < d.cols(); ++j) q[j] = finite_quantile(d.col(j), p);
    return q;
}

Eigen::VectorXd Fit::at_mu(std::string_view name) const {
    auto [off, n] = columns(name);
    return theta_at_mu_.segment(off, n);
}

std::string elbo_text(double elbo, int significant) {
    if (!std::isfinite(elbo)) {
        return "not computed (no draw of q had a finite log density)";
    }
    return significant > 0 ? fmt::format("{:.{}g}", elbo, significant) : fmt::format("{}", elbo);
}

std::vector<std::string> theta_labels(const ModelSpec& spec, int index_base) {
    std::vector<std::string> labels;
    for (const LatentVariable& v : spec.latents) {
        for (int k = 0; k < v.shape.size(); ++k) labels.push_back(element_label(v, k, index_base));
    }
    return labels;
}

std::string latent_summary_table(const ModelSpec& spec, const Eigen::MatrixXd& theta_draws,
                                 int index_base) {
    std::string s;
    s += fmt::format("{:<20} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "", "mean", "sd", "5%", "50%",
                     "95%");
    const std::vector<std::string> labels = theta_labels(spec, index_base);
    for (std::size_t j = 0; j < labels.size(); ++j) {
        s += summary_row(labels[j], summarize_draws(theta_draws.col(static_cast<Eigen::Index>(j))));
    }
    return s;
}

std::string Fit::summary(int index_base) const {
    const AdviResult& r = result_;
    // The line a person reads first, then what it rests on.
    std::string s = fmt::format("Verdict: {}\n", verdict_.headline(index_base));
    for (const std::string& line : verdict_.details(index_base)) s += "  " + line + "\n";
    const std::string eta = r.method != "ADVI" ? std::string()
                            : r.eta_search_interrupted
                                ? std::string(", eta none (search interrupted)")
                                : fmt::format(", eta {}", r.eta);
    s +=
        fmt::format("{} {} fit: {} iterations{}, {} ({:.3f} s); final ELBO {}; {} draws\n",
                    r.method, family_name(r.q.family(), r.q.rank()), r.iterations, eta,
                    r.converged ? "converged: " + r.stop_reason : "not converged: " + r.stop_reason,
                    r.seconds, elbo_text(r.elbo), theta_draws_.rows());
    if (!r.start.empty())
        s += fmt::format("q started from {}\n", r.start);
    if (r.gradient_evaluations > 0 || r.value_evaluations > 0) {
        s += fmt::format("{} log-density evaluations with a gradient, {} without\n",
                         r.gradient_evaluations, r.value_evaluations);
    }
    if (r.dropped_draws > 0)
        s += fmt::format(
            "{} Monte Carlo draws with a non-finite log density{} were dropped while "
            "fitting (most from trial step sizes of the eta search)\n",
            r.dropped_draws,
            spec_.checks.empty() ? "" : " (or a transformed parameter outside its constraint)");
    if (densities_.nonfinite_log_p > 0) {
        s += fmt::format(
            "{} output draws had a non-finite log density and were replaced by new "
            "draws from q\n",
            densities_.nonfinite_log_p);
    }
    if (densities_.rejected_tp_constraint > 0) {
        s += fmt::format(
            "{} output draws were rejected because a transformed parameter violated its declared "
            "constraint, and replaced by new draws from q (first: {})\n",
            densities_.rejected_tp_constraint, densities_.first_tp_violation);
    }

    if (densities_.mean_tp_violation && !densities_.mean_tp_violation->empty()) {
        s += fmt::format(
            "q's mean row, T^-1(mu), violates a declared constraint, so Stan would reject that "
            "point; its values are written as computed ({})\n",
            *densities_.mean_tp_violation);
    }
    if (theta_draws_.rows() == 0) {
        // No draws to summarise (output_samples = 0): show T^-1 of q's mean instead of NaNs.
        s += "no draws (output_samples = 0); T^-1(mu), the constrained image of q's mean:\n";
        for (const auto& v : spec_.latents) {
            const Eigen::VectorXd m = at_mu(v.name);
            for (Eigen::Index k = 0; k < m.size(); ++k) {
                s += fmt::format("{:<20} {:>12.4g}\n", element_label(v, k, index_base), m[k]);
            }
        }
        return s;
    }
    return s + latent_summary_table(spec_, theta_draws_, index_base);
}

namespace {

// The fitted q's draws mapped to constrained space and their log densities, the value alone
// (Target::log_densities: the value program, draws evaluated in parallel over threads; for a
// minibatch fit: the evaluation batch's, scaled to the full data). A draw whose
// log density or constrained value is not finite is dropped and replaced by a new draw from
// q, so that no NaN reaches the output; at most 10 times the wanted draws are tried, and the
// dropped ones are counted (DrawDensities::nonfinite_log_p).
Fit finish(const ModelSpec& m, AdviResult result, Target& target, std::uint64_t seed) {
    Program to_theta = compile_constrain_map(m);
    ConstraintChecker checker(m);
    const Eigen::Index wanted = result.draws.rows();
    Eigen::MatrixXd zeta_kept(wanted, m.zeta_dim());
    Eigen::MatrixXd theta(wanted, m.theta_dim());
    DrawDensities dens;
    dens.log_p.resize(wanted);
    Eigen::VectorXd zeta(m.zeta_dim()), t(m.theta_dim()), lps;
    Rng redraws(seed ^ 0x6F75747075740000ull);  // a stream apart from the engine's
    Eigen::MatrixXd batch = result.draws;
    Eigen::Index kept = 0, tried = 0;
    while (kept < wanted && tried < 10 * wanted) {
        // CmdStan's log_p__ is log_prob<propto = false, jacobian = true>: the same quantity as
        // the gradient program's lp (every constant, log-Jacobian included). The batch has
        // wanted - kept rows, so every one of them is looked at below.
        target.log_densities(batch.transpose(), lps);
        result.value_evaluations += batch.rows();
        for (Eigen::Index i = 0; i < batch.rows() && kept < wanted; ++i, ++tried) {
            zeta = batch.row(i).transpose();
            const double lp = lps[i];
            to_theta.run(zeta, t);
            if (!std::isfinite(lp) || !t.allFinite()) {
                // A transformed parameter outside its declared constraint is counted apart.
                auto why = t.allFinite() ? checker.violation(t) : std::nullopt;
                if (why) {
                    if (dens.rejected_tp_constraint++ == 0)
                        dens.first_tp_violation = std::move(*why);
                } else {
                    ++dens.nonfinite_log_p;
                }
                continue;
            }
            zeta_kept.row(kept) = zeta.transpose();
            theta.row(kept) = t.transpose();
            dens.log_p[kept] = lp;
            ++kept;
        }
        if (kept < wanted)
            batch = result.q.draw(redraws, static_cast<int>(wanted - kept));
    }
    if (kept < wanted) {
        result.stop_reason +=
            fmt::format("; only {} of {} output draws had a finite log density ({} tried)", kept,
                        wanted, tried);
    }
    result.draws = zeta_kept.topRows(kept);
    theta.conservativeResize(kept, Eigen::NoChange);
    dens.log_p.conservativeResize(kept);
    dens.log_g = result.q.log_density(result.draws);
    to_theta.run(result.q.mean(), t);
    if (!checker.empty() && t.allFinite())  // a q that ran off is reported as such
        dens.mean_tp_violation = checker.violation(t).value_or("");
    dens.log_p_at_mu = evaluate_value(target, result.q.mean());
    ++result.value_evaluations;
    dens.log_g_at_mu = result.q.log_density(result.q.mean().transpose())[0];
    return Fit(m, std::move(result), std::move(theta), t, std::move(dens));
}

// The engine's target, remembering the last point where the log density was not finite, so
// that a fit which cannot go on can say where the model broke (explain_nonfinite).
class RecordingTarget final : public Target {
public:
    explicit RecordingTarget(Target& inner) : inner_(inner) {}
    int dim() const override { return inner_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        double lp = 0;
        try {
            lp = inner_.log_density_gradient(zeta, grad);
        } catch (const std::exception&) {
            last_nonfinite_ = zeta;  // the engine makes NaN of what it may (advi::evaluate)
            throw;
        }
        if (!std::isfinite(lp) || !grad.allFinite())
            last_nonfinite_ = zeta;
        return lp;
    }
    double log_density(const Eigen::VectorXd& zeta) override {
        double lp = 0;
        try {
            lp = inner_.log_density(zeta);
        } catch (const std::exception&) {
            last_nonfinite_ = zeta;
            throw;
        }
        if (!std::isfinite(lp))
            last_nonfinite_ = zeta;
        return lp;
    }
    void log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) override {
        inner_.log_densities(zetas, out);
        for (Eigen::Index i = out.size() - 1; i >= 0; --i) {
            if (!std::isfinite(out[i])) {
                last_nonfinite_ = zetas.col(i);  // the last in draw order
                break;
            }
        }
    }
    void next_minibatch() override { inner_.next_minibatch(); }
    void use_evaluation_batch() override { inner_.use_evaluation_batch(); }
    void offer_anchor(const Approximation& q) override { inner_.offer_anchor(q); }
    const Eigen::VectorXd& last_nonfinite() const { return last_nonfinite_; }

private:
    Target& inner_;
    Eigen::VectorXd last_nonfinite_;
};

// run_advi, with a FitError that also names the op and the variables behind the last
// non-finite log density it met.
AdviResult run_explained(const ModelSpec& m, Target& target, const Options& options,
                         CurvatureTarget* curvature = nullptr) {
    RecordingTarget recording(target);
    try {
        return run_advi(recording, options, curvature);
    } catch (const FitError& e) {
        if (recording.last_nonfinite().size() == 0)
            throw;
        const std::string why = explain_nonfinite(m, recording.last_nonfinite());
        if (why.empty())
            throw;
        throw FitError(
            fmt::format("{}; where the log density was last not finite, {}", e.what(), why));
    }
}

}  // namespace

namespace {

// What a fit allocates that grows with the model, refused before the fit starts: a full-rank
// factor and its gradient and step-size state (about 4 D^2 doubles), and the output draws in
// both spaces with their densities.
void require_fit_memory(const ModelSpec& m, const Options& options) {
    validate_options(options, m.zeta_dim());
    const std::int64_t d = m.zeta_dim();
    if (options.family == Family::FullRank) {
        require_memory(fmt::format("the full-rank approximation of {} dimensions", d),
                       checked_product({4, d, d}));
    }
    require_memory(
        fmt::format("option `output_samples` = {} (keeping {} output draws of {} unconstrained "
                    "and {} constrained values)",
                    options.output_samples, options.output_samples, d, m.theta_dim()),
        checked_product({options.output_samples, 2 * d + m.theta_dim() + 2}));
    require_engine_memory(options, m.zeta_dim());
}

}  // namespace

namespace {

// Engine messages name unconstrained coordinates by the model's parameters (coordinates.hpp).
Options with_coordinate_names(const ModelSpec& m, Options options) {
    if (!options.describe_coordinate) {
        options.describe_coordinate = coordinate_namer(m);
    }
    return options;
}

// Where a constraint transform exponentiates zeta, |zeta| beyond 700 means q has run off
// (runaway.hpp) long before its mean reaches kRunawayMagnitude (coordinates.hpp).
Options with_runaway_limits(const ModelSpec& m, Options options) {
    if (options.runaway_limits.size() == 0) {
        options.runaway_limits = coordinate_runaway_limits(m);
    }
    return options;
}

}  // namespace

// Why the density of `m` in unconstrained space has no mode to start from; empty if it may.
// A unit vector's coordinates carry -|zeta|^2 / 2 and a density of the direction alone, whose
// supremum is at zeta = 0, where the direction is undefined: L-BFGS runs into that point and
// the Hessian there gives q scales near 0 that the fit does not recover from (measured: a von
// Mises-Fisher on a circle, tests/dsl/cpp/support_fit_test).
std::string no_mode_reason(const ModelSpec& m) {
    for (const LatentVariable& v : m.latents) {
        const Support s = v.support.is_array() ? v.support.element() : v.support;
        if (s.kind == Support::Kind::UnitVector)
            return fmt::format(
                "the unit vector `{}` has none in unconstrained space (its density is highest "
                "at the origin, where its direction is undefined)",
                v.name);
    }
    return {};
}

namespace {

// The engine only knows that the target gives no curvature: the result's start says why.
void say_why_no_curvature(AdviResult& r, const std::string& no_mode,
                          const std::string& no_curvature) {
    const std::string generic = "the target gives no curvature";
    const std::string why =
        no_mode.empty() ? fmt::format("no start from the mode, which needs second derivatives: {}",
                                      no_curvature)
                        : fmt::format("no start from the mode: {}", no_mode);
    if (const auto at = r.start.find(generic); at != std::string::npos)
        r.start.replace(at, generic.size(), why);
    else
        r.start += " (" + why + ")";
}

// The full data in shards (Options::row_shards), over Options::ranks: the same fit as the
// full-data one below (the start from the mode where the model has curvature), every
// evaluation summed over the shards.
Fit fit_row_shards(const ModelSpec& m, const Options& options) {
    const bool wants_curvature =
        options.start != StartFrom::Init && options.convergence == ConvergenceRule::Auto;
    const std::string no_mode = wants_curvature ? no_mode_reason(m) : "";
    RowShardTarget target(m, options.minibatch, options.seed, options.threads, options.ranks,
                          wants_curvature && no_mode.empty());
    if (target.has_curvature())
        return finish(m, run_explained(target.spec(), target, options, &target), target,
                      options.seed);
    AdviResult r = run_explained(target.spec(), target, options);
    if (wants_curvature)
        say_why_no_curvature(r, no_mode, target.curvature_error());
    return finish(m, std::move(r), target, options.seed);
}

}  // namespace

Fit fit(const ModelSpec& m, const Options& given) {
    require_fit_memory(m, given);
    const Options options = with_runaway_limits(m, with_coordinate_names(m, given));
    if (options.row_shards) {
        if (options.minibatch.empty())
            throw ModelError("row shards: no row variable's full data (Options::minibatch)");
        return fit_row_shards(m, options);
    }
    if (!options.minibatch.empty()) {
        MinibatchTarget target(m, options.minibatch, options.seed, options.threads,
                               options.minibatch_draw, options.elbo_samples);
        target.set_control_variates(options.control_variates);
        AdviResult result = run_explained(target.spec(), target, options);
        if (options.control_variates) {
            result.stop_reason += fmt::format(
                "; control variates: {} full-data pass(es) for the anchor", target.anchor_passes());
        }
        // The output draws' log densities (log_p__, and the verdict's k-hat from them) over the
        // full data where a pass over it for every draw is affordable; else the ELBO's
        // evaluation set's, scaled to the full data, and the fit says so where that set is not
        // every row.
        double values = 0.0;
        for (const MinibatchData& d : options.minibatch)
            values += static_cast<double>(d.rows) * static_cast<double>(d.cols);
        values *= static_cast<double>(result.draws.rows());
        if (values <= kFullDataPassBudget) {
            target.use_full_data();
        } else if (target.evaluation_rows() < static_cast<std::size_t>(target.full_rows())) {
            result.doubts.push_back(fmt::format(
                "log_p__ and the Pareto k-hat come from {} of the {} rows (the ELBO's evaluation "
                "set) scaled to all, not from the full data (a pass over all rows for each of "
                "the {} draws reads {:.3g} data values, above the budget of {:.3g})",
                target.evaluation_rows(), target.full_rows(), result.draws.rows(), values,
                kFullDataPassBudget));
        }
        target.use_evaluation_batch();
        return finish(m, std::move(result), target, options.seed);
    }
    Program gradient = compile(m);
    gradient.set_threads(options.threads);
    CompiledTarget target(m, gradient, options.threads);
    // The start from the mode and curvature (engine/start.hpp) needs Hessian-vector products:
    // compiled only when that start will be looked for.
    if (options.start != StartFrom::Init && options.convergence == ConvergenceRule::Auto) {
        // A model whose density is once but not twice differentiable here (an ODE solve), or
        // has no mode in unconstrained space, starts from the init point, and the result says
        // why.
        std::optional<HessianVectorProgram> hv;
        std::string no_curvature;
        const std::string no_mode = no_mode_reason(m);
        if (no_mode.empty()) {
            try {
                hv.emplace(compile_hessian_vector(m));
            } catch (const ModelError& e) {
                no_curvature = e.what();
            }
        }
        if (hv) {
            hv->set_threads(options.threads);
            CurvatureTargetRef<HessianVectorProgram> curvature(*hv);
            return finish(m, run_explained(m, target, options, &curvature), target, options.seed);
        }
        AdviResult r = run_explained(m, target, options);
        say_why_no_curvature(r, no_mode, no_curvature);
        return finish(m, std::move(r), target, options.seed);
    }
    return finish(m, run_explained(m, target, options), target, options.seed);
}

Fit fit_dadvi(const ModelSpec& m, const Options& given, const DadviSettings& settings) {
    require_fit_memory(m, given);
    const Options options = with_runaway_limits(m, with_coordinate_names(m, given));
    if (!options.minibatch.empty() && !options.row_shards)
        throw ModelError("DADVI's fixed draws need the full data: a minibatch is not supported");
    if (options.row_shards)
        throw ModelError(
            "DADVI over row shards is not supported (it takes the model's data whole)");
    Program gradient = compile(m);
    gradient.set_threads(options.threads);
    CompiledTarget target(m, gradient, options.threads);
    HessianVectorProgram hv = compile_hessian_vector(m);
    hv.set_threads(options.threads);
    CurvatureTargetRef<HessianVectorProgram> curvature(hv);
    DadviResult r = run_dadvi(curvature, options, settings);
    r.fit.method = "DADVI";
    return finish(m, std::move(r.fit), target, options.seed);
}

}  // namespace advi
