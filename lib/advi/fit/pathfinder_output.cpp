// The pathfinder CSV, through the variational layout (the same columns for the latents and the
// extra blocks) with its three method columns replaced and no mean row.
#include <advi/fit/pathfinder_output.hpp>

#include <fmt/format.h>

namespace advi {

std::vector<std::string> cmdstan_pathfinder_settings(const PathfinderOptions& o,
                                                     const CsvRunInfo& run) {
    const PathfinderOptions d{};
    std::vector<std::string> h = cmdstan_preamble(run);
    h.push_back("method = pathfinder");
    h.push_back("  pathfinder");
    h.push_back(csv_setting("    ", "init_alpha", o.init_alpha, d.init_alpha));
    h.push_back(csv_setting("    ", "tol_obj", o.tol_obj, d.tol_obj));
    h.push_back(csv_setting("    ", "tol_rel_obj", o.tol_rel_obj, d.tol_rel_obj));
    h.push_back(csv_setting("    ", "tol_grad", o.tol_grad, d.tol_grad));
    h.push_back(csv_setting("    ", "tol_rel_grad", o.tol_rel_grad, d.tol_rel_grad));
    h.push_back(csv_setting("    ", "tol_param", o.tol_param, d.tol_param));
    h.push_back(csv_setting("    ", "history_size", o.history_size, d.history_size));
    h.push_back(csv_setting("    ", "num_psis_draws", o.num_psis_draws, d.num_psis_draws));
    h.push_back(csv_setting("    ", "num_paths", o.num_paths, d.num_paths));
    h.push_back(csv_setting("    ", "save_single_paths", 0, 0));
    h.push_back(csv_setting("    ", "psis_resample", int{o.psis_resample}, int{d.psis_resample}));
    h.push_back(csv_setting("    ", "calculate_lp", 1, 1));
    h.push_back(csv_setting("    ", "max_lbfgs_iters", o.max_lbfgs_iters, d.max_lbfgs_iters));
    h.push_back(csv_setting("    ", "num_draws", o.num_draws, d.num_draws));
    h.push_back(csv_setting("    ", "num_elbo_draws", o.num_elbo_draws, d.num_elbo_draws));
    std::string init = run.init_file;
    if (init.empty())
        init = o.init.size() != 0 ? "user" : fmt::format("{:g}", o.init_radius);
    for (std::string& line : cmdstan_run_settings(run, init, o.seed, o.threads))
        h.push_back(std::move(line));
    return h;
}

CsvOutput cmdstan_pathfinder_output(const PathfinderFit& fit, std::vector<ExtraBlock> extra,
                                    std::vector<std::string> header) {
    // The variational layout checks the blocks and names the columns; its lp__, log_p__ and
    // log_g__ give way to pathfinder's three, and the first draw takes the mean row's place
    // (the writer puts mean_row first), so that the file holds exactly one row per draw.
    CsvOutput v = cmdstan_output(fit.as_fit(), Options{.adapt_engaged = false}, std::move(extra),
                                 std::move(header));
    CsvOutput out;
    out.header = std::move(v.header);
    out.columns = {"lp_approx__", "lp__", "path__"};
    out.columns.insert(out.columns.end(), v.columns.begin() + 3, v.columns.end());
    Eigen::MatrixXd rows = v.draws;
    rows.col(0) = fit.log_q();
    rows.col(1) = fit.log_p();
    for (Eigen::Index i = 0; i < rows.rows(); ++i)
        rows(i, 2) = fit.path_of_draw()[static_cast<std::size_t>(i)];
    out.mean_row = rows.row(0).transpose();
    out.draws = rows.bottomRows(rows.rows() - 1);
    out.trailer.emplace_back();
    for (const PathReport& p : fit.paths()) {
        out.trailer.push_back(
            p.failure.empty()
                ? fmt::format(
                      "path_{} = L-BFGS {} after {} iterations, best iteration {}, ELBO {}, "
                      "gradient_evaluations {}, value_evaluations {}",
                      p.path, status_name(p.status), p.iterations, p.best_iteration, p.best_elbo,
                      p.gradient_evaluations, p.value_evaluations)
                : fmt::format("path_{} = no draws: {}", p.path, p.failure));
    }
    const AdviResult& r = fit.as_fit().result();
    out.trailer.push_back(fmt::format("converged = {}", int{r.converged}));
    out.trailer.push_back(fmt::format("convergence: {}", r.stop_reason));
    out.trailer.push_back(fmt::format("psis_resample = {}", int{fit.resampled()}));
    out.trailer.push_back(fmt::format("gradient_evaluations = {}", r.gradient_evaluations));
    out.trailer.push_back(fmt::format("value_evaluations = {}", r.value_evaluations));
    out.trailer.push_back(
        fmt::format("nonfinite_log_p_draws = {}", fit.as_fit().nonfinite_log_p()));
    for (std::string& line : fit.verdict().trailer_lines(1)) out.trailer.push_back(std::move(line));
    out.trailer.push_back(fmt::format(" Elapsed Time: {:.6g} seconds (Total)", fit.seconds()));
    out.trailer.emplace_back();
    return out;
}

}  // namespace advi
