// A fit in CmdStan's variational CSV layout.
//
// What CmdStan does (stan/variational/advi.hpp, run()): "Stepsize adaptation complete." and
// "eta = ..." as comments right after the header row when eta was adapted; a first row with
// lp__ = log_p__ = log_g__ = 0 and the constrained image of q's mean; then output_samples
// rows of lp__ = 0, log_p__ = log_prob<propto = false, jacobian = true>(zeta) and
// log_g__ = -|eta|^2 / 2, the standard normal log density of the draw before scaling with
// every constant (and log|det L|) dropped. We differ there on purpose: our log_g__ is the
// normalised log q(zeta), so that log_p__ - log_g__ averages to the ELBO; importance
// weights (PSIS, Yao et al. 2018) are unchanged since the two differ by a constant.
#include <advi/fit/cmdstan_output.hpp>

#include <cmath>
#include <string_view>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/version.hpp>
#include <advi/fit/row_shards.hpp>
#include <advi/ranks/ranks.hpp>

namespace advi {

std::vector<std::int64_t> latent_dims(const Shape& s) {
    if (s.is_vector())
        return {s.rows};
    if (s.is_matrix())
        return {s.rows, s.cols};
    return {};
}

std::vector<std::int64_t> latent_dims(const LatentVariable& v) {
    return v.dims.empty() ? latent_dims(v.shape) : v.dims;
}

std::vector<std::string> cmdstan_preamble(const CsvRunInfo& run) {
    return {fmt::format("advi_version = {}", version()), fmt::format("model = {}", run.model)};
}

std::vector<std::string> cmdstan_output_settings(const CsvRunInfo& run) {
    return {"output", fmt::format("  file = {}", run.output_file),
            csv_setting("  ", "diagnostic_file", run.diagnostic_file, std::string()),
            csv_setting("  ", "refresh", run.refresh, run.refresh_default),
            csv_setting("  ", "sig_figs", run.sig_figs, -1)};
}

std::vector<std::string> cmdstan_run_settings(const CsvRunInfo& run, const std::string& init,
                                              std::uint64_t seed, int threads) {
    std::vector<std::string> h;
    h.push_back("id = 1 (Default)");
    h.push_back("data");
    h.push_back(csv_setting("  ", "file", run.data_file, std::string()));
    if (!init.empty())
        h.push_back(fmt::format("init = {}{}", init, init == "2" ? " (Default)" : ""));
    h.push_back("random");
    h.push_back(csv_setting("  ", "seed", seed, std::uint64_t{0}));
    for (std::string& line : cmdstan_output_settings(run)) h.push_back(std::move(line));
    h.push_back(csv_setting("", "num_threads", threads, 0));
    return h;
}

std::vector<std::string> cmdstan_settings(const Options& o, const CsvRunInfo& run,
                                          const CsvDrawsInfo& draws) {
    const Options d{};
    auto family = [](Family f) {
        return f == Family::MeanField  ? "meanfield"
               : f == Family::FullRank ? "fullrank"
                                       : "lowrank";
    };
    auto rule = [](ConvergenceRule r) { return r == ConvergenceRule::Auto ? "auto" : "stan"; };
    auto start = [](StartFrom s) {
        return s == StartFrom::Auto ? "auto" : s == StartFrom::Init ? "init" : "pathfinder";
    };
    auto scheme = [](DrawScheme s) { return s == DrawScheme::MonteCarlo ? "mc" : "rqmc"; };
    std::vector<std::string> h = cmdstan_preamble(run);
    h.push_back("method = variational");
    h.push_back("  variational");
    h.push_back(csv_setting("    ", "algorithm", std::string(family(o.family)),
                            std::string(family(d.family))));
    h.push_back(fmt::format("      {}", family(o.family)));
    if (o.family == Family::LowRank)  // ours: B's columns
        h.push_back(csv_setting("        ", "rank", o.rank, d.rank));
    h.push_back(csv_setting("    ", "iter", o.max_iterations, d.max_iterations));
    h.push_back(csv_setting("    ", "grad_samples", o.grad_samples, d.grad_samples));
    h.push_back(csv_setting("    ", "elbo_samples", o.elbo_samples, d.elbo_samples));
    h.push_back(csv_setting("    ", "eta", o.eta, d.eta));
    h.push_back("    adapt");
    // 1/0 as CmdStan before 2.33 (later versions write true/false; readers take both).
    h.push_back(csv_setting("      ", "engaged", int{o.adapt_engaged}, int{d.adapt_engaged}));
    h.push_back(csv_setting("      ", "iter", o.adapt_iter, d.adapt_iter));
    h.push_back(csv_setting("    ", "tol_rel_obj", o.tol_rel_obj, d.tol_rel_obj));
    h.push_back(csv_setting("    ", "eval_elbo", o.eval_elbo, d.eval_elbo));
    h.push_back(csv_setting("    ", "output_samples", o.output_samples, d.output_samples));
    // Not CmdStan's: our convergence rule (ConvergenceRule), robust or Stan's exactly.
    h.push_back(csv_setting("    ", "convergence", std::string(rule(o.convergence)),
                            std::string(rule(d.convergence))));
    // Also ours: where q starts, and what made the draws (K runs, the best kept; PSIS
    // resampling), so that the file says how its rows came about.
    h.push_back(
        csv_setting("    ", "start", std::string(start(o.start)), std::string(start(d.start))));
    h.push_back(csv_setting("    ", "draw_scheme", std::string(scheme(o.draws)),
                            std::string(scheme(d.draws))));
    const CsvDrawsInfo dd{};
    h.push_back(csv_setting("    ", "runs", draws.runs, dd.runs));
    // 1/0 as `engaged` above.
    h.push_back(
        csv_setting("    ", "psis_resample", int{draws.psis_resample}, int{dd.psis_resample}));
    h.push_back(csv_setting("    ", "transform", draws.transform, dd.transform));
    if (!draws.dadvi_draws.empty()) {
        h.push_back(fmt::format("    dadvi_draws = {}{}", draws.dadvi_draws,
                                draws.dadvi_draws == "auto" ? " (Default)" : ""));
        h.push_back(fmt::format("    linear_response = {}", int{draws.linear_response}));
    }
    if (o.row_shards && !o.minibatch.empty()) {
        const std::int64_t n = o.minibatch.front().rows;
        const int c = shard_rows(n);
        h.push_back(fmt::format("    rows = {} ({} rows)", draws.rows, n));
        h.push_back(fmt::format("    shards = {} ({} rows each)", (n + c - 1) / c, c));
        h.push_back(fmt::format("    ranks = {}", o.ranks != nullptr ? o.ranks->size() : 1));
    } else if (!o.minibatch.empty()) {
        h.push_back(fmt::format("    minibatch = {}", draws.minibatch));
        h.push_back(fmt::format("    rows = {} ({} rows)", draws.rows, o.minibatch.front().rows));
        h.push_back(fmt::format("    minibatch_draw = {}", o.minibatch_draw == MinibatchDraw::Epochs
                                                               ? "epochs"
                                                               : "independent"));
        h.push_back(fmt::format("    control_variates = {}", o.control_variates ? 1 : 0));
    }
    h.push_back("id = 1 (Default)");
    h.push_back("data");
    h.push_back(csv_setting("  ", "file", run.data_file, std::string()));
    // Our default initial mu is zeros: CmdStan's init = 0.
    std::string init = run.init_file;
    if (init.empty())
        init = o.init.size() == 0 ? "0" : "user";
    h.push_back(csv_setting("", "init", init, std::string("0")));
    h.push_back("random");
    h.push_back(csv_setting("  ", "seed", o.seed, d.seed));
    for (std::string& line : cmdstan_output_settings(run)) h.push_back(std::move(line));
    h.push_back(csv_setting("", "num_threads", o.threads, d.threads));
    return h;
}

CsvOutput cmdstan_output(const Fit& fit, const Options& options, std::vector<ExtraBlock> extra,
                         std::vector<std::string> header) {
    const ModelSpec& spec = fit.model();
    const AdviResult& r = fit.result();
    const Eigen::Index n = fit.theta_draws().rows();
    if (fit.log_p().size() != n || fit.log_g().size() != n) {
        throw ModelError(fmt::format(
            "CSV output: the fit has {} draws but {} log_p and {} log_g values (a Fit from "
            "advi::fit has one of each per draw)",
            n, fit.log_p().size(), fit.log_g().size()));
    }

    CsvOutput out;
    out.header = header.empty() ? cmdstan_settings(options) : std::move(header);
    out.columns = {"lp__", "log_p__", "log_g__"};
    Eigen::Index width = 3;
    for (const LatentVariable& v : spec.latents) {
        const std::vector<std::int64_t> dims = latent_dims(v);
        for (std::string& c : stan_column_names(v.name, dims, v.complex))
            out.columns.push_back(std::move(c));
        width += v.shape.size();
    }
    for (const ExtraBlock& b : extra) {
        std::vector<std::string> names = stan_column_names(b.name, b.dims, b.complex);
        const auto k = static_cast<std::int64_t>(names.size());
        if (b.at_mean.size() != k)
            throw ShapeError(
                fmt::format("CSV output: block `{}` ({}): the mean row has {} values, "
                            "expected {}",
                            b.name, describe_dims(b.dims), b.at_mean.size(), k));
        if (b.draws.rows() != n || b.draws.cols() != k)
            throw ShapeError(
                fmt::format("CSV output: block `{}` ({}): the draws are {}x{}, "
                            "expected {}x{} (a row per draw of the fit)",
                            b.name, describe_dims(b.dims), b.draws.rows(), b.draws.cols(), n, k));
        for (std::string& c : names) out.columns.push_back(std::move(c));
        width += k;
    }
    std::unordered_set<std::string_view> seen;
    for (const std::string& c : out.columns) {
        if (!seen.insert(c).second)
            throw ModelError(fmt::format("CSV output: column `{}` appears twice", c));
    }

    out.mean_row = Eigen::VectorXd::Zero(width);
    out.draws = Eigen::MatrixXd::Zero(n, width);
    out.draws.col(1) = fit.log_p();
    out.draws.col(2) = fit.log_g();
    Eigen::Index at = 3;
    const std::vector<int> offsets = spec.theta_offsets();
    for (std::size_t k = 0; k < spec.latents.size(); ++k) {
        const int size = spec.latents[k].shape.size();
        out.mean_row.segment(at, size) = fit.theta_at_mu().segment(offsets[k], size);
        out.draws.middleCols(at, size) = fit.theta_draws().middleCols(offsets[k], size);
        at += size;
    }
    for (const ExtraBlock& b : extra) {
        out.mean_row.segment(at, b.at_mean.size()) = b.at_mean;
        out.draws.middleCols(at, b.draws.cols()) = b.draws;
        at += b.draws.cols();
    }

    // cmdstanpy (scan_variational_csv) reads the line after the header row as "Stepsize
    // adaptation complete." followed by "eta = <number>", or else as the mean row: after an
    // interrupted search there is no adaptation block, and the trailer says why.
    if (options.adapt_engaged && !r.eta_search_interrupted) {
        out.adaptation = {"Stepsize adaptation complete.", fmt::format("eta = {}", r.eta)};
    }
    out.trailer.emplace_back();
    // Readers look for eta on the line after "Stepsize adaptation": say it here too when
    // there was no adaptation block above; nan where no eta was used.
    if (r.eta_search_interrupted) {
        out.trailer.push_back(fmt::format(
            "Stepsize adaptation interrupted after {} trial step size(s): no eta was chosen and "
            "no iteration was run (the draws are from the initial approximation).",
            r.eta_trials.size()));
    } else if (!options.adapt_engaged) {
        out.trailer.emplace_back("Stepsize adaptation not engaged.");
    }
    out.trailer.push_back(fmt::format("eta = {}", r.eta));
    out.trailer.push_back(fmt::format("iterations = {}", r.iterations));
    out.trailer.push_back(fmt::format("ELBO = {}", elbo_text(r.elbo, 0)));
    out.trailer.push_back(fmt::format("converged = {}", int{r.converged}));
    out.trailer.push_back(fmt::format("convergence: {}", r.stop_reason));
    out.trailer.push_back(fmt::format("log_p__ at mean = {}", fit.log_p_at_mu()));
    out.trailer.push_back(fmt::format("log_g__ at mean = {}", fit.log_g_at_mu()));
    out.trailer.push_back(fmt::format("dropped_draws = {}", r.dropped_draws));
    out.trailer.push_back(fmt::format("nonfinite_log_p_draws = {}", fit.nonfinite_log_p()));
    out.trailer.push_back(
        fmt::format("rejected_tp_constraint_draws = {}", fit.rejected_tp_constraint_draws()));
    // Only for models that declare constraints on transformed parameters: whether the mean row
    // (written as computed) is a point Stan would reject.
    if (const auto& v = fit.mean_tp_violation()) {
        out.trailer.push_back(v->empty()
                                  ? std::string("mean_row_tp_constraint = satisfied")
                                  : fmt::format("mean_row_tp_constraint = violated: {}", *v));
    }
    if (!r.start.empty())
        out.trailer.push_back(fmt::format("start = {}", r.start));
    if (r.gradient_evaluations > 0 || r.value_evaluations > 0) {
        out.trailer.push_back(fmt::format("gradient_evaluations = {}", r.gradient_evaluations));
        out.trailer.push_back(fmt::format("value_evaluations = {}", r.value_evaluations));
    }
    // The verdict (verdict.hpp) with Stan's labels: its line, PSIS, the ELBO's standard
    // error, the runs, whether the draws were resampled.
    for (std::string& line : fit.verdict().trailer_lines(1)) out.trailer.push_back(std::move(line));
    out.trailer.push_back(fmt::format(" Elapsed Time: {:.6g} seconds (Total)", r.seconds));
    out.trailer.emplace_back();
    return out;
}

}  // namespace advi
