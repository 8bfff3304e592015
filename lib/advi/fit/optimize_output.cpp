// A mode in CmdStan's optimize CSV layout.
#include <advi/fit/optimize_output.hpp>

#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {
namespace {

// " (Default)" when a setting has OptimizeOptions{}'s value, as CmdStan marks settings not
// given. Reals as CmdStan prints them (0.001, 1e-12, 10000, 1e+07).
std::string real_setting(std::string_view indent, std::string_view key, double value,
                         double default_value) {
    return fmt::format("{}{} = {:g}{}", indent, key, value,
                       value == default_value ? " (Default)" : "");
}
std::string int_setting(std::string_view indent, std::string_view key, long long value,
                        long long default_value) {
    return fmt::format("{}{} = {}{}", indent, key, value,
                       value == default_value ? " (Default)" : "");
}

}  // namespace

std::vector<std::string> cmdstan_optimize_settings(const OptimizeOptions& o,
                                                   const CsvRunInfo& run) {
    const OptimizeOptions d{};
    const bool lbfgs = o.algorithm == OptimizerAlgorithm::Lbfgs;
    std::vector<std::string> h = cmdstan_preamble(run);
    h.push_back("method = optimize");
    h.push_back("  optimize");
    h.push_back(fmt::format("    algorithm = {}{}", lbfgs ? "lbfgs" : "newton",
                            o.algorithm == d.algorithm ? " (Default)" : ""));
    h.push_back(fmt::format("      {}", lbfgs ? "lbfgs" : "newton"));
    if (lbfgs) {
        h.push_back(real_setting("        ", "init_alpha", o.init_alpha, d.init_alpha));
    }
    // CmdStan's newton takes no tolerances; ours (Newton-CG) stops by tol_grad and
    // tol_rel_grad, so all five are written for both.
    h.push_back(real_setting("        ", "tol_obj", o.tol_obj, d.tol_obj));
    h.push_back(real_setting("        ", "tol_rel_obj", o.tol_rel_obj, d.tol_rel_obj));
    h.push_back(real_setting("        ", "tol_grad", o.tol_grad, d.tol_grad));
    h.push_back(real_setting("        ", "tol_rel_grad", o.tol_rel_grad, d.tol_rel_grad));
    h.push_back(real_setting("        ", "tol_param", o.tol_param, d.tol_param));
    if (lbfgs) {
        h.push_back(int_setting("        ", "history_size", o.history_size, d.history_size));
    }
    // 1/0 as CmdStan before 2.33 (later versions write true/false; readers take both).
    h.push_back(int_setting("    ", "jacobian", int{o.jacobian}, int{d.jacobian}));
    h.push_back(int_setting("    ", "iter", o.iter, d.iter));
    h.push_back("    save_iterations = 0 (Default)");
    h.push_back("id = 1 (Default)");
    h.push_back("data");
    h.push_back(
        fmt::format("  file = {}{}", run.data_file, run.data_file.empty() ? " (Default)" : ""));
    std::string init = run.init_file;
    if (init.empty())
        init = o.init.size() != 0 ? "user" : fmt::format("{:g}", o.init_radius);
    h.push_back(fmt::format("init = {}{}", init, init == "2" ? " (Default)" : ""));
    h.push_back("random");
    h.push_back(
        int_setting("  ", "seed", static_cast<long long>(o.seed), static_cast<long long>(d.seed)));
    for (std::string& line : cmdstan_output_settings(run)) h.push_back(std::move(line));
    h.push_back(int_setting("", "num_threads", o.threads, d.threads));
    return h;
}

CsvOutput cmdstan_optimize_output(const Optimum& mode, const std::vector<ExtraBlock>& extra,
                                  std::vector<std::string> header) {
    const ModelSpec& spec = mode.model();
    CsvOutput out;
    out.header = header.empty() ? cmdstan_optimize_settings(mode.options()) : std::move(header);
    out.columns = {"lp__"};
    Eigen::Index width = 1;
    for (const LatentVariable& v : spec.latents) {
        for (std::string& c : stan_column_names(v.name, latent_dims(v), v.complex))
            out.columns.push_back(std::move(c));
        width += v.shape.size();
    }
    for (const ExtraBlock& b : extra) {
        std::vector<std::string> names = stan_column_names(b.name, b.dims, b.complex);
        if (b.at_mean.size() != static_cast<Eigen::Index>(names.size()))
            throw ShapeError(fmt::format("CSV output: block `{}` ({}): {} values, expected {}",
                                         b.name, describe_dims(b.dims), b.at_mean.size(),
                                         names.size()));
        for (std::string& c : names) out.columns.push_back(std::move(c));
        width += b.at_mean.size();
    }
    std::unordered_set<std::string_view> seen;
    for (const std::string& c : out.columns) {
        if (!seen.insert(c).second)
            throw ModelError(fmt::format("CSV output: column `{}` appears twice", c));
    }
    out.mean_row.resize(width);
    out.mean_row[0] = mode.lp();
    out.mean_row.segment(1, spec.theta_dim()) = mode.theta();
    Eigen::Index at = 1 + spec.theta_dim();
    for (const ExtraBlock& b : extra) {
        out.mean_row.segment(at, b.at_mean.size()) = b.at_mean;
        at += b.at_mean.size();
    }
    out.draws.resize(0, width);
    // The search's ending goes above the column names, as a block of the header: cmdstanpy
    // (and CmdStan's layout) take every line after the column names of an optimize CSV for a
    // row of values, so that nothing may follow the mode's row.
    const OptimizerResult& r = mode.result();
    out.header.push_back("result");
    out.header.push_back(fmt::format("  status = {}", status_name(r.status)));
    out.header.push_back(fmt::format("  converged = {}", int{r.converged()}));
    out.header.push_back(fmt::format("  convergence: {}", r.message));
    out.header.push_back(fmt::format("  iterations = {}", r.iterations));
    out.header.push_back(fmt::format("  gradient_evaluations = {}", r.gradient_evaluations));
    out.header.push_back(fmt::format("  hessian_vector_products = {}", r.hessian_vector_products));
    out.header.push_back(fmt::format("  elapsed_seconds = {:.6g}", r.seconds));
    return out;
}

}  // namespace advi
