// The laplace CSV, through the variational layout (same columns for the latents and the
// extra blocks) with its lp__ column and mean row taken off; and the mode file.
#include <advi/fit/laplace_output.hpp>

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/csv_reader.hpp>
#include <advi/io/json_reader.hpp>

namespace advi {

std::vector<std::string> cmdstan_laplace_settings(const LaplaceOptions& o, const CsvRunInfo& run,
                                                  const std::string& mode_file) {
    const LaplaceOptions d{};
    std::vector<std::string> h = cmdstan_preamble(run);
    h.push_back("method = laplace");
    h.push_back("  laplace");
    h.push_back(csv_setting("    ", "mode", mode_file, std::string()));
    h.push_back(csv_setting("    ", "jacobian", int{o.jacobian}, int{d.jacobian}));
    h.push_back(csv_setting("    ", "draws", o.draws, d.draws));
    // Not CmdStan's: lambda added to -H (0: none).
    h.push_back(csv_setting("    ", "regularization", o.regularization, d.regularization));
    // Where optimize started (no --mode): CmdStan's default radius 2; with a mode, none.
    std::string init;
    if (mode_file.empty() && o.mode.size() == 0) {
        init = run.init_file;
        if (init.empty())
            init =
                o.optimize.init.size() != 0 ? "user" : fmt::format("{:g}", o.optimize.init_radius);
    }
    for (std::string& line : cmdstan_run_settings(run, init, o.seed, o.threads))
        h.push_back(std::move(line));
    return h;
}

CsvOutput cmdstan_laplace_output(const LaplaceFit& fit, std::vector<ExtraBlock> extra,
                                 std::vector<std::string> header) {
    // The variational layout checks the blocks and names the columns; Laplace has no lp__
    // column (CmdStan's laplace writes log_p__ and log_g__ only) and no mean row.
    CsvOutput v = cmdstan_output(fit.as_fit(), Options{.adapt_engaged = false}, std::move(extra),
                                 std::move(header));
    CsvOutput out;
    out.header = std::move(v.header);
    out.columns.assign(v.columns.begin() + 1, v.columns.end());
    const Eigen::Index width = static_cast<Eigen::Index>(out.columns.size());
    // The writer puts mean_row first: the first draw goes there, the others below it, so
    // that the file holds exactly one row per draw.
    const Eigen::MatrixXd rows = v.draws.rightCols(width);
    out.mean_row = rows.row(0).transpose();
    out.draws = rows.bottomRows(rows.rows() - 1);
    const Psis& p = fit.psis();
    out.trailer.emplace_back();
    out.trailer.push_back(fmt::format("mode: {}", fit.mode_source()));
    out.trailer.push_back(
        fmt::format("log_p__ at mode = {}", fit.gaussian().log_density_at_mode()));
    out.trailer.push_back(fmt::format("newton_steps = {}", fit.gaussian().newton_steps()));
    out.trailer.push_back(
        fmt::format("mode_distance_given = {}", fit.gaussian().initial_decrement()));
    out.trailer.push_back(fmt::format("mode_distance = {}", fit.gaussian().decrement()));
    out.trailer.push_back(fmt::format("regularization = {}", fit.gaussian().regularization()));
    out.trailer.push_back(
        fmt::format("hessian_asymmetry = {}", fit.gaussian().hessian_asymmetry()));
    out.trailer.push_back(fmt::format("pareto_k = {}", p.k_hat));
    out.trailer.push_back(fmt::format("psis_ess = {}", p.ess));
    out.trailer.push_back(fmt::format("psis: {}", psis_text(p)));
    out.trailer.push_back(fmt::format("nonfinite_log_p_draws = {}", fit.nonfinite_log_p()));
    out.trailer.push_back(fmt::format(" Elapsed Time: {:.6g} seconds (Total)", fit.seconds()));
    out.trailer.emplace_back();
    return out;
}

Eigen::VectorXd read_mode_file(const ModelSpec& m, const std::filesystem::path& file) {
    Eigen::VectorXd theta(m.theta_dim());
    const std::vector<int> offsets = m.theta_offsets();
    const std::string ext = file.extension().string();
    if (ext == ".csv") {
        const StanCsv csv = read_stan_csv(file);
        if (csv.values.rows() != 1) {
            throw DataError(
                fmt::format("mode file `{}`: expected one row of values (an optimize CSV), got {}",
                            file.string(), csv.values.rows()));
        }
        for (std::size_t k = 0; k < m.latents.size(); ++k) {
            const LatentVariable& v = m.latents[k];
            const std::vector<std::string> names =
                stan_column_names(v.name, latent_dims(v), v.complex);
            for (std::size_t j = 0; j < names.size(); ++j) {
                const Eigen::Index c = csv.column_index(names[j]);
                if (c < 0) {
                    throw DataError(fmt::format(
                        "mode file `{}`: column `{}` of parameter `{}` ({}) is not in the file",
                        file.string(), names[j], v.name, v.shape.str()));
                }
                theta[offsets[k] + static_cast<int>(j)] = csv.values(0, c);
            }
        }
    } else if (ext == ".json") {
        const DataTable table = read_json_data(file);
        for (std::size_t k = 0; k < m.latents.size(); ++k) {
            const LatentVariable& v = m.latents[k];
            const DataValue* value = table.find(v.name);
            if (value == nullptr) {
                throw DataError(
                    fmt::format("mode file `{}`: parameter `{}` ({}) is not in the file",
                                file.string(), v.name, v.shape.str()));
            }
            try {
                value->check(DType::Real, latent_dims(v));
            } catch (const DataError& e) {
                throw DataError(fmt::format("mode file `{}`: {}", file.string(), e.what()));
            }
            theta.segment(offsets[k], v.shape.size()) = value->flat_values();
        }
    } else {
        throw DataError(fmt::format(
            "mode file `{}`: expected an optimize CSV (.csv) or JSON of the parameters (.json)",
            file.string()));
    }
    for (std::size_t k = 0; k < m.latents.size(); ++k) {
        const LatentVariable& v = m.latents[k];
        for (int j = 0; j < v.shape.size(); ++j) {
            const double x = theta[offsets[k] + j];
            if (!std::isfinite(x)) {
                throw DataError(
                    fmt::format("mode file `{}`: parameter `{}`{} is {}", file.string(), v.name,
                                v.shape.is_scalar() ? "" : fmt::format(" element {}", j + 1), x));
            }
        }
    }
    try {
        return m.unconstrain(theta);
    } catch (const DataError& e) {  // a value outside its support
        throw DataError(fmt::format("mode file `{}`: {}", file.string(), e.what()));
    } catch (const ModelError& e) {  // a support with expression arguments
        throw ModelError(fmt::format("mode file `{}`: {}", file.string(), e.what()));
    }
}

}  // namespace advi
