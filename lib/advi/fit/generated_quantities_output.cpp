// Reading a fit's draws back as parameters, and the generate_quantities CSV.
#include <advi/fit/generated_quantities_output.hpp>

#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/csv_reader.hpp>

namespace advi {

FittedParams read_fitted_params(const ModelSpec& m, const std::filesystem::path& file) {
    const StanCsv csv = read_stan_csv(file);
    FittedParams f;
    f.file = file.string();
    f.method = csv.setting("method");
    // A variational file's first row is q's mean, not a draw: the quantities are of the draws.
    f.mean_row_left_out = csv.first_row_is_mean();
    const Eigen::Index first = f.mean_row_left_out ? 1 : 0;
    const Eigen::Index rows = csv.values.rows() - first;
    if (rows <= 0)
        throw DataError(
            fmt::format("fitted params file `{}` has no rows of draws{}", f.file,
                        f.mean_row_left_out ? " (only a variational fit's mean row)" : ""));
    const auto values = csv.values.bottomRows(rows);
    std::vector<Eigen::Index> sampler;
    for (std::size_t c = 0; c < csv.columns.size(); ++c) {
        if (csv.columns[c].ends_with("__")) {
            f.sampler_columns.push_back(csv.columns[c]);
            sampler.push_back(static_cast<Eigen::Index>(c));
        }
    }
    f.sampler_values.resize(rows, static_cast<Eigen::Index>(sampler.size()));
    for (std::size_t j = 0; j < sampler.size(); ++j)
        f.sampler_values.col(static_cast<Eigen::Index>(j)) = values.col(sampler[j]);

    f.theta.resize(rows, m.theta_dim());
    const std::vector<int> offsets = m.theta_offsets();
    for (std::size_t k = 0; k < m.latents.size(); ++k) {
        const LatentVariable& v = m.latents[k];
        const std::vector<std::string> names = stan_column_names(v.name, latent_dims(v), v.complex);
        for (std::size_t j = 0; j < names.size(); ++j) {
            const Eigen::Index c = csv.column_index(names[j]);
            if (c < 0)
                throw DataError(fmt::format(
                    "fitted params file `{}`: column `{}` of parameter `{}` ({}) is not in the "
                    "file",
                    f.file, names[j], v.name, v.shape.str()));
            for (Eigen::Index r = 0; r < rows; ++r) {
                if (!std::isfinite(values(r, c)))
                    throw DataError(
                        fmt::format("fitted params file `{}`: row {}, column `{}` is {}", f.file,
                                    r + first + 1, names[j], values(r, c)));
            }
            f.theta.col(offsets[k] + static_cast<Eigen::Index>(j)) = values.col(c);
        }
    }
    // Each row in its parameters' supports, to the precision a CSV holds: CmdStan writes 6
    // significant digits by default, so a simplex's sum is 1 only to about 1e-6 (Stan's own
    // 1e-8 would refuse its own files).
    constexpr double kCsvTolerance = 1e-5;
    for (std::size_t k = 0; k < m.latents.size(); ++k) {
        const LatentVariable& v = m.latents[k];
        if (v.support.has_expression())
            continue;  // bounds known per draw only: used as written, as Stan uses them
        for (Eigen::Index r = 0; r < rows; ++r) {
            const Eigen::VectorXd x =
                f.theta.row(r).segment(offsets[k], v.shape.size()).transpose();
            if (!v.support.contains(x, v.shape, kCsvTolerance))
                throw DataError(fmt::format(
                    "fitted params file `{}`, row {}: the values of `{}` are outside its support "
                    "{}: not a draw of this model's parameters",
                    f.file, r + first + 1, v.name, v.support.str()));
        }
    }
    return f;
}

std::vector<std::string> cmdstan_generate_quantities_settings(const CsvRunInfo& run,
                                                              const FittedParams& fitted,
                                                              std::uint64_t seed) {
    std::vector<std::string> h = cmdstan_preamble(run);
    h.push_back("method = generate_quantities");
    h.push_back("  generate_quantities");
    h.push_back(fmt::format("    fitted_params = {}", fitted.file));
    h.push_back(
        fmt::format("    fitted_method = {}", fitted.method.empty() ? "unknown" : fitted.method));
    for (std::string& line : cmdstan_run_settings(run, "", seed, 1)) h.push_back(std::move(line));
    return h;
}

CsvOutput cmdstan_generate_quantities_output(const ModelSpec& m, const FittedParams& fitted,
                                             const std::vector<ExtraBlock>& extra,
                                             std::vector<std::string> header, double seconds) {
    const Eigen::Index rows = fitted.theta.rows();
    CsvOutput out;
    out.header = std::move(header);
    out.columns = fitted.sampler_columns;
    for (const LatentVariable& v : m.latents) {
        for (std::string& n : stan_column_names(v.name, latent_dims(v), v.complex))
            out.columns.push_back(std::move(n));
    }
    Eigen::Index extra_cols = 0;
    for (const ExtraBlock& b : extra) {
        if (b.draws.rows() != rows)
            throw ShapeError(
                fmt::format("generated quantities: block `{}` has {} rows for {} "
                            "fitted rows",
                            b.name, b.draws.rows(), rows));
        for (std::string& n : stan_column_names(b.name, b.dims, b.complex))
            out.columns.push_back(std::move(n));
        extra_cols += b.draws.cols();
    }
    const Eigen::Index samplers = fitted.sampler_values.cols();
    Eigen::MatrixXd all(rows, samplers + fitted.theta.cols() + extra_cols);
    all.leftCols(samplers) = fitted.sampler_values;
    all.middleCols(samplers, fitted.theta.cols()) = fitted.theta;
    Eigen::Index at = samplers + fitted.theta.cols();
    for (const ExtraBlock& b : extra) {
        all.middleCols(at, b.draws.cols()) = b.draws;
        at += b.draws.cols();
    }
    out.mean_row = all.row(0).transpose();
    out.draws = all.bottomRows(rows - 1);
    out.trailer.push_back(fmt::format(
        "fitted_draws = {}{}", rows,
        fitted.mean_row_left_out ? " (the fitted file's first row, q's mean, left out)" : ""));
    out.trailer.push_back(fmt::format(" Elapsed Time: {:.6g} seconds (Total)", seconds));
    return out;
}

}  // namespace advi
