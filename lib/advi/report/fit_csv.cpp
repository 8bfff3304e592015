// Reading a fit's CSV for the report: the method from the header, the trailer's lines, the
// draws and the log importance ratios.
#include <advi/report/fit_csv.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/csv_reader.hpp>

namespace advi::report {

namespace {

FitCsv from_stan_csv(const StanCsv& csv, std::string file) {
    FitCsv fit;
    fit.file = std::move(file);
    fit.method = csv.setting("method");
    fit.algorithm = csv.setting("algorithm");
    fit.trailer = csv.trailer();
    fit.settings = csv.settings();
    std::vector<Eigen::Index> model_columns;
    for (std::size_t k = 0; k < csv.columns.size(); ++k) {
        if (!csv.columns[k].ends_with("__")) {
            model_columns.push_back(static_cast<Eigen::Index>(k));
            fit.columns.push_back(csv.columns[k]);
        }
    }
    fit.mean_row_skipped = csv.first_row_is_mean();
    const Eigen::Index first = fit.mean_row_skipped ? 1 : 0;
    const Eigen::Index rows = csv.values.rows() - first;
    if (rows < 1) {
        throw DataError(fmt::format(
            "`{}` holds no draws: {}", fit.file,
            csv.values.rows() == 0 ? "no data rows after the header" : "only the mean row of q"));
    }
    fit.draws.resize(rows, static_cast<Eigen::Index>(model_columns.size()));
    for (std::size_t j = 0; j < model_columns.size(); ++j) {
        fit.draws.col(static_cast<Eigen::Index>(j)) = csv.values.col(model_columns[j]).tail(rows);
    }
    const auto ratio = [&](std::string_view p, std::string_view g) {
        const Eigen::Index ip = csv.column_index(p), ig = csv.column_index(g);
        if (ip < 0 || ig < 0)
            return false;
        fit.log_ratios = csv.values.col(ip).tail(rows) - csv.values.col(ig).tail(rows);
        fit.log_ratios_from = fmt::format("{} - {}", p, g);
        return true;
    };
    if (!ratio("log_p__", "log_g__"))
        ratio("lp__", "lp_approx__");
    return fit;
}

}  // namespace

StanCsv read_report_csv(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        throw DataError(fmt::format("cannot read `{}`: no such file", file.string()));
    try {
        return read_stan_csv(file);
    } catch (const ParseError& e) {
        // Its first line starts with file:line:col; the excerpt and caret below it are for
        // source text, not for a table of numbers.
        const std::string message = e.what();
        throw DataError(message.substr(0, message.find('\n')));
    }
}

StanCsv read_report_csv(std::string_view text, std::string file_name) {
    try {
        return read_stan_csv(text, std::move(file_name));
    } catch (const ParseError& e) {
        const std::string message = e.what();
        throw DataError(message.substr(0, message.find('\n')));
    }
}

std::optional<std::string> FitCsv::trailer_value(std::string_view key) const {
    for (auto it = trailer.rbegin(); it != trailer.rend(); ++it) {
        if (it->first == key)
            return it->second;
    }
    for (const auto& [k, v] : settings) {
        if (k == key)
            return v;
    }
    return std::nullopt;
}

FitCsv read_fit_csv(const std::filesystem::path& file) {
    return from_stan_csv(read_report_csv(file), file.string());
}

FitCsv fit_csv_from_text(std::string_view text, std::string file_name) {
    StanCsv csv = read_report_csv(text, file_name);
    return from_stan_csv(csv, std::move(file_name));
}

}  // namespace advi::report
