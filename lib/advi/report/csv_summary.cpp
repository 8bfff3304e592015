// stansummary's table of Stan CSV files, and the facts of advi's trailer beneath it.
#include <advi/report/csv_summary.hpp>

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/fit/psis.hpp>

namespace advi::report {

namespace {

// The first value of `key` among `kv`; empty when absent.
std::string first(const StanCsv::KeyValues& kv, std::string_view key) {
    for (const auto& [k, v] : kv) {
        if (k == key)
            return v;
    }
    return "";
}

// A number of the trailer as the notes print it: 4 significant digits, "not computed" for nan.
std::string number(const std::string& text) {
    try {
        std::size_t used = 0;
        const double x = std::stod(text, &used);
        if (std::isnan(x))
            return "not computed";
        return fmt::format("{:.4g}", x);
    } catch (const std::exception&) {
        return text;
    }
}

std::vector<std::string> notes_of(const StanCsv& csv, const std::vector<Eigen::Index>& rows) {
    std::vector<std::string> out;
    // The run's facts are in the trailer, or (optimize: nothing may follow its row) in the
    // header's last block.
    const StanCsv::KeyValues trailer = csv.trailer(), settings = csv.settings();
    const auto fact = [&](std::string_view key) {
        const std::string t = first(trailer, key);
        return t.empty() ? first(settings, key) : t;
    };
    if (!fact("ELBO").empty()) {
        std::string line = "ELBO " + number(fact("ELBO"));
        if (!fact("elbo_se").empty())
            line += " (Monte Carlo standard error " + number(fact("elbo_se")) + ")";
        out.push_back(line);
    }
    if (!fact("verdict").empty())
        out.push_back("Verdict: " + fact("verdict"));
    if (!fact("pareto_k").empty()) {
        std::string line = "Pareto k-hat " + number(fact("pareto_k"));
        if (!fact("pareto_k_threshold").empty())
            line += " (threshold " + number(fact("pareto_k_threshold")) + ")";
        if (!fact("psis_ess").empty())
            line += ", PSIS ESS " + number(fact("psis_ess"));
        out.push_back(line);
    } else {
        // No verdict in the file (CmdStan's, or a method that writes none): weigh the draws
        // here where the file has both densities. CmdStan's log_g__ leaves out q's constants;
        // a constant does not change the weights.
        Eigen::Index p = csv.column_index("log_p__"), g = csv.column_index("log_g__");
        if (p < 0 || g < 0) {
            p = csv.column_index("lp__");
            g = csv.column_index("lp_approx__");
        }
        if (p >= 0 && g >= 0 && !rows.empty()) {
            Eigen::VectorXd ratios(static_cast<Eigen::Index>(rows.size()));
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const double d = csv.values(rows[i], p) - csv.values(rows[i], g);
                ratios[static_cast<Eigen::Index>(i)] =
                    std::isfinite(d) ? d : -std::numeric_limits<double>::infinity();
            }
            out.push_back(fmt::format("{} (of {} - {}, computed here)", psis_text(psis(ratios)),
                                      csv.columns[static_cast<std::size_t>(p)],
                                      csv.columns[static_cast<std::size_t>(g)]));
        }
    }
    if (!fact("iterations").empty()) {
        std::string line = fact("iterations") + " iterations";
        if (!fact("gradient_evaluations").empty())
            line += ", " + fact("gradient_evaluations") + " gradient evaluations";
        if (!fact("value_evaluations").empty())
            line += ", " + fact("value_evaluations") + " log-density evaluations";
        out.push_back(line);
    } else if (!fact("gradient_evaluations").empty()) {
        out.push_back(fact("gradient_evaluations") + " gradient evaluations");
    }
    if (!fact("convergence").empty())
        out.push_back("Convergence: " + fact("convergence"));
    else if (!fact("status").empty())
        out.push_back("Status: " + fact("status"));
    if (!fact("mode").empty())
        out.push_back("Mode: " + fact("mode"));
    if (!fact("psis").empty())
        out.push_back("PSIS: " + fact("psis"));
    if (!fact("start").empty())
        out.push_back("Start: " + fact("start"));
    if (!fact("runs_rhat_max").empty()) {
        out.push_back(fmt::format("Runs: R-hat across runs at most {} ({}), ELBO gap {}",
                                  number(fact("runs_rhat_max")), fact("runs_rhat_max_of"),
                                  number(fact("runs_elbo_gap"))));
    }
    for (const auto& [k, v] : trailer) {
        if (k == "doubt")
            out.push_back("Doubt: " + v);
    }
    if (!fact("draws").empty())
        out.push_back("Draws: " + fact("draws"));
    return out;
}

// A value to `sig` significant digits as stansummary prints it: fixed where that is short,
// scientific for very large or very small magnitudes.
std::string format_value(double x, int sig) {
    if (std::isnan(x))
        return "nan";
    if (std::isinf(x))
        return x > 0 ? "inf" : "-inf";
    if (x == 0.0)
        return "0";
    const double a = std::fabs(x);
    if (a >= 1e15 || a < 1e-4)
        return fmt::format("{:.{}e}", x, std::max(sig - 1, 0));
    const int magnitude = static_cast<int>(std::floor(std::log10(a)));  // 0 for 1..9.99
    const int decimals = std::max(sig - 1 - magnitude, 0);
    // Rounded to `sig` digits first, so that 0.0996 with 2 digits prints 0.1, not 0.10.
    const double scale = std::pow(10.0, decimals);
    const double rounded = std::round(x * scale) / scale;
    return fmt::format("{:.{}f}", rounded, decimals);
}

std::vector<std::string> header_of(const CsvSummary& s) {
    std::vector<std::string> h{"Mean", "MCSE", "StdDev", "MAD"};
    h.insert(h.end(), s.percentile_labels.begin(), s.percentile_labels.end());
    h.insert(h.end(), {"ESS_bulk", "ESS_tail", "R_hat"});
    return h;
}

std::vector<double> values_of(const ChainStatistics& r) {
    std::vector<double> v{r.mean, r.mcse, r.sd, r.mad};
    v.insert(v.end(), r.quantiles.begin(), r.quantiles.end());
    v.insert(v.end(), {r.ess_bulk, r.ess_tail, r.rhat});
    return v;
}

}  // namespace

std::string bracket_label(std::string_view column) {
    const std::size_t dot = column.find('.');
    if (dot == std::string_view::npos || dot == 0)
        return std::string(column);
    std::string out(column.substr(0, dot));
    out += '[';
    std::string rest(column.substr(dot + 1));
    for (char& c : rest) {
        if (c == '.')
            c = ',';
    }
    return out + rest + ']';
}

std::vector<double> parse_percentiles(const std::string& text) {
    std::vector<double> out;
    std::string token;
    std::istringstream in(text);
    const auto take = [&](const std::string& t) {
        if (t.empty())
            return;
        double p = 0.0;
        std::size_t used = 0;
        try {
            p = std::stod(t, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != t.size() || !(p > 0.0 && p < 100.0))
            throw Error(fmt::format(
                "--percentiles: `{}` is not a number between 0 and 100 (exclusive)", t));
        if (!out.empty() && p <= out.back())
            throw Error(
                fmt::format("--percentiles: `{}` comes after {}; percentiles must be "
                            "increasing",
                            t, out.back()));
        out.push_back(p);
    };
    for (const char c : text) {
        if (c == ',' || c == ' ') {
            take(token);
            token.clear();
        } else {
            token += c;
        }
    }
    take(token);
    if (out.empty())
        throw Error("--percentiles: no percentile given (e.g. 5,50,95)");
    return out;
}

CsvSummary summarize_csv_files(const std::vector<std::filesystem::path>& files,
                               const std::vector<double>& percentiles) {
    if (files.empty())
        throw Error("no CSV file to summarise");
    for (std::size_t i = 0; i < percentiles.size(); ++i) {
        if (!(percentiles[i] > 0.0 && percentiles[i] < 100.0) ||
            (i > 0 && percentiles[i] <= percentiles[i - 1]))
            throw Error(
                fmt::format("percentile {} is outside (0, 100) or out of order", percentiles[i]));
    }
    CsvSummary s;
    std::vector<StanCsv> csvs;
    std::vector<std::vector<Eigen::Index>> rows;
    for (const std::filesystem::path& file : files) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(file, ec) && !std::filesystem::exists(file, ec))
            throw Error(fmt::format("cannot open CSV file `{}`: no such file", file.string()));
        StanCsv csv = read_stan_csv(file);
        const std::string method = csv.setting("method");
        if (csvs.empty()) {
            s.model = csv.setting("model");
            s.method = method;
            s.algorithm = csv.setting("algorithm");
            const std::string advi = csv.setting("advi_version");
            const std::string major = csv.setting("stan_version_major");
            s.writer = !advi.empty()    ? "advi " + advi
                       : !major.empty() ? fmt::format("CmdStan {}.{}.{}", major,
                                                      csv.setting("stan_version_minor"),
                                                      csv.setting("stan_version_patch"))
                                        : "unknown";
        } else if (csv.columns != csvs.front().columns) {
            throw Error(
                fmt::format("`{}` has other columns than `{}` ({} against {}): the files "
                            "summarised together must be runs of one model",
                            file.string(), files.front().string(), csv.columns.size(),
                            csvs.front().columns.size()));
        }
        // CmdStan's variational output (and ours) starts with q's mean: not a draw.
        const bool mean_row = csv.first_row_is_mean();
        const Eigen::Index begin = mean_row ? 1 : 0;
        if (csv.values.rows() <= begin)
            throw Error(fmt::format("`{}` has no draws to summarise{}", file.string(),
                                    mean_row ? " (only the mean row of a variational fit)" : ""));
        s.mean_rows_left_out = s.mean_rows_left_out || mean_row;
        std::vector<Eigen::Index> r;
        for (Eigen::Index i = begin; i < csv.values.rows(); ++i) r.push_back(i);
        s.files.push_back(file.string());
        s.draws.push_back(static_cast<Eigen::Index>(r.size()));
        s.notes.push_back(notes_of(csv, r));
        rows.push_back(std::move(r));
        csvs.push_back(std::move(csv));
    }
    for (const double p : percentiles) {
        s.probabilities.push_back(p / 100.0);
        s.percentile_labels.push_back(fmt::format("{:g}%", p));
    }
    const StanCsv& head = csvs.front();
    for (std::size_t c = 0; c < head.columns.size(); ++c) {
        Chains chains;
        for (std::size_t f = 0; f < csvs.size(); ++f) {
            Eigen::VectorXd x(static_cast<Eigen::Index>(rows[f].size()));
            for (std::size_t i = 0; i < rows[f].size(); ++i)
                x[static_cast<Eigen::Index>(i)] =
                    csvs[f].values(rows[f][i], static_cast<Eigen::Index>(c));
            chains.push_back(std::move(x));
        }
        s.names.push_back(bracket_label(head.columns[c]));
        s.rows.push_back(chain_statistics(chains, s.probabilities));
    }
    return s;
}

std::string summary_text(const CsvSummary& s, int sig_figs) {
    std::string out = fmt::format("Inference for Stan model: {}\n",
                                  s.model.empty() ? "(not named in the file)" : s.model);
    Eigen::Index total = 0;
    for (const Eigen::Index d : s.draws) total += d;
    std::string method = s.method.empty() ? "unknown method" : s.method;
    if (!s.algorithm.empty() && s.method == "variational")
        method += " (" + s.algorithm + ")";
    out += fmt::format("{}, written by {}: {} file{}, {} draw{}{}\n", method, s.writer,
                       s.files.size(), s.files.size() == 1 ? "" : "s", total, total == 1 ? "" : "s",
                       s.mean_rows_left_out ? " (the mean row of each file left out)" : "");
    if (total == 1)
        out +=
            "One row, not draws: Mean is its value, and the other columns have nothing to "
            "measure.\n";
    out += "\n";
    const std::vector<std::string> header = header_of(s);
    const std::size_t quantiles = s.percentile_labels.size();
    std::vector<std::vector<std::string>> cells;
    for (const ChainStatistics& r : s.rows) {
        std::vector<std::string> row;
        const std::vector<double> v = values_of(r);
        for (std::size_t j = 0; j < v.size(); ++j) {
            const bool ess = j == 4 + quantiles || j == 5 + quantiles;
            const bool rhat = j == 6 + quantiles;
            row.push_back(ess && std::isfinite(v[j])    ? fmt::format("{:.0f}", v[j])
                          : rhat && std::isfinite(v[j]) ? fmt::format("{:.2f}", v[j])
                                                        : format_value(v[j], sig_figs));
        }
        cells.push_back(std::move(row));
    }
    std::size_t name_width = 4;
    for (const std::string& n : s.names) name_width = std::max(name_width, n.size());
    std::vector<std::size_t> widths;
    for (std::size_t j = 0; j < header.size(); ++j) {
        std::size_t w = header[j].size();
        for (const auto& row : cells) w = std::max(w, row[j].size());
        widths.push_back(w + 2);
    }
    out += std::string(name_width, ' ');
    for (std::size_t j = 0; j < header.size(); ++j)
        out += fmt::format("{:>{}}", header[j], widths[j]);
    out += "\n";
    for (std::size_t i = 0; i < cells.size(); ++i) {
        out += fmt::format("{:<{}}", s.names[i], name_width);
        for (std::size_t j = 0; j < cells[i].size(); ++j)
            out += fmt::format("{:>{}}", cells[i][j], widths[j]);
        if (s.rows[i].nonfinite > 0)
            out += fmt::format("  ({} non-finite draw{} left out)", s.rows[i].nonfinite,
                               s.rows[i].nonfinite == 1 ? "" : "s");
        out += "\n";
    }
    for (std::size_t f = 0; f < s.notes.size(); ++f) {
        if (s.notes[f].empty())
            continue;
        out += "\n";
        if (s.files.size() > 1)
            out += fmt::format("{}:\n", s.files[f]);
        for (const std::string& line : s.notes[f])
            out += (s.files.size() > 1 ? "  " : "") + line + "\n";
    }
    out +=
        "\nMCSE is the Monte Carlo standard error of the mean; ESS_bulk and ESS_tail are the "
        "effective sample sizes of the bulk and the tails, R_hat the rank-normalised split "
        "R-hat over the files' draws (Vehtari et al. 2021).\n";
    return out;
}

std::string summary_csv(const CsvSummary& s, int sig_figs) {
    const int digits = sig_figs > 0 ? sig_figs : 6;
    std::string out = "name";
    for (const std::string& h : header_of(s)) out += "," + h;
    out += "\n";
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
        out += "\"" + s.names[i] + "\"";
        for (const double v : values_of(s.rows[i])) out += fmt::format(",{:.{}g}", v, digits);
        out += "\n";
    }
    for (std::size_t f = 0; f < s.notes.size(); ++f) {
        for (const std::string& line : s.notes[f])
            out += (s.files.size() > 1 ? fmt::format("# {}: ", s.files[f]) : "# ") + line + "\n";
    }
    return out;
}

}  // namespace advi::report
