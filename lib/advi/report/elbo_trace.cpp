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
