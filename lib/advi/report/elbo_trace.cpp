// Reading the ELBO trace: three columns of a CSV without comments.
#include <advi/report/elbo_trace.hpp>

#include <limits>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/report/fit_csv.hpp>

namespace advi::report {

namespace {

ElboTrace from_stan_csv(const StanCsv& csv, std::string file) {
    ElboTrace trace;
    trace.file = std::move(file);
    // pathfinder's trace has an ELBO per iterate of each path, the paths one after the other:
    // as one series it would zigzag between paths. Refused rather than drawn wrong.
    if (csv.column_index("path") >= 0)
        throw DataError(fmt::format(
            "`{}` is a trace of pathfinder's paths (a `path` column): the report draws fit's "
            "ELBO trace (advi fit --diagnostic-file); leave --diagnostic-file out for pathfinder",
            trace.file));
    const auto column = [&](std::string_view name, bool required) {
        const Eigen::Index k = csv.column_index(name);
        if (k < 0 && required) {
            throw DataError(fmt::format(
                "`{}` has no column `{}`: not an ELBO trace (advi fit --diagnostic-file)",
                trace.file, name));
        }
        std::vector<double> values(static_cast<std::size_t>(csv.values.rows()),
                                   std::numeric_limits<double>::quiet_NaN());
        for (Eigen::Index i = 0; k >= 0 && i < csv.values.rows(); ++i)
            values[static_cast<std::size_t>(i)] = csv.values(i, k);
        return values;
    };
    trace.iteration = column("iter", true);
    trace.elbo = column("ELBO", true);
    trace.elbo_mcse = column("ELBO_mcse", false);
    return trace;
}

}  // namespace

ElboTrace read_elbo_trace(const std::filesystem::path& file) {
    return from_stan_csv(read_report_csv(file), file.string());
}

ElboTrace elbo_trace_from_text(std::string_view text, std::string file_name) {
    const StanCsv csv = read_report_csv(text, file_name);
    return from_stan_csv(csv, std::move(file_name));
}

}  // namespace advi::report
