// The report page: a section per question a person asks of a fit, in the order they ask them
// (can I trust it; did it converge; is q good enough as a proposal; what are the marginals; what
// depends on what), each plot drawn by svg_plot.
#include <advi/report/html_report.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include <advi/fit/draw_summary.hpp>
#include <advi/fit/psis.hpp>
#include <advi/io/output_file.hpp>
#include <advi/report/correlated_pairs.hpp>
#include <advi/report/histogram.hpp>
#include <advi/report/khat_curve.hpp>
#include <advi/report/svg_plot.hpp>

namespace advi::report {

namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; color: #222; max-width: 1260px; margin: 12px auto; padding: 0 12px; }
h1 { font-size: 22px; margin: 4px 0 8px; }
h2 { font-size: 17px; margin: 18px 0 6px; border-bottom: 1px solid #ccc; }
.verdict { font-size: 20px; padding: 8px 14px; border: 2px solid #9e9e9e; background: #f5f5f5;
           border-radius: 6px; }
.verdict.reliable { border-color: #2e7d32; background: #e8f5e9; }
.verdict.unreliable { border-color: #c62828; background: #ffebee; }
table.stats { border-collapse: collapse; margin: 8px 0; }
table.stats td { padding: 2px 18px 2px 0; vertical-align: top; }
table.stats td:first-child { color: #555; font-family: monospace; }
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-start; }
.row > div { width: 620px; }
.grid { display: flex; flex-wrap: wrap; gap: 2px; }
.missing { color: #555; font-style: italic; padding: 12px; border: 1px dashed #bbb; }
.note { color: #555; font-size: 14px; margin: 4px 0; }
pre { font-size: 12px; background: #f8f8f8; padding: 6px; overflow-x: auto; }
)";

// The trailer's lines that tell a person whether to trust the fit, in the order they read
// them; each shown when the CSV has it.
constexpr const char* kStatKeys[] = {"pareto_k",
                                     "pareto_k_threshold",
                                     "psis_ess",
                                     "psis",
                                     "ELBO",
                                     "elbo_se",
                                     "output_draws_elbo",
                                     "mean_shift",
                                     "mean_shift_of",
                                     "sd_excess",
                                     "sd_excess_of",
                                     "converged",
                                     "status",
                                     "convergence",
                                     "iterations",
                                     "eta",
                                     "runs_rhat_max",
                                     "start",
                                     "draws",
                                     "mode_distance",
                                     "gradient_evaluations"};

// Series styles by what they draw (built field by field: a designated initializer that leaves
// out a field draws -Wmissing-field-initializers).
SeriesStyle stroke(const char* colour, double width, const char* dash = "") {
    SeriesStyle s;
    s.colour = colour;
    s.width = width;
    s.dash = dash;
    return s;
}
SeriesStyle fill(const char* colour, double opacity) {
    SeriesStyle s;
    s.colour = colour;
    s.opacity = opacity;
    return s;
}
SeriesStyle dots(const char* colour, double radius) {
    SeriesStyle s;
    s.colour = colour;
    s.radius = radius;
    return s;
}

std::string escape(std::string_view s) {
    return xml_escape(std::string(s));
}

std::string missing(std::string_view id, std::string_view why) {
    return fmt::format("<p class=\"missing\" id=\"{}\">{}</p>\n", id, escape(why));
}

// The verdict's headline and its colour class: the CSV's verdict; else Laplace's PSIS line;
// else optimize's ending; else none.
struct Headline {
    std::string text;
    std::string css;  // reliable, unreliable or empty
};

Headline headline(const FitCsv& fit) {
    if (const auto v = fit.trailer_value("verdict")) {
        const bool reliable = v->starts_with("reliable");
        const bool unreliable = v->starts_with("not reliable");
        return {"Verdict: " + *v, reliable ? "reliable" : unreliable ? "unreliable" : ""};
    }
    if (const auto p = fit.trailer_value("psis")) {
        const bool unreliable = p->find("unreliable") != std::string::npos ||
                                p->find("not reliable") != std::string::npos;
        const bool reliable = !unreliable && p->find("reliable") != std::string::npos;
        return {"PSIS: " + *p, reliable ? "reliable" : unreliable ? "unreliable" : ""};
    }
    if (const auto c = fit.trailer_value("converged")) {
        // optimize's `convergence:` line starts "converged: <which tolerance>" when it did.
        std::string why = fit.trailer_value("convergence").value_or("");
        if (why.starts_with("converged: "))
            why.erase(0, 11);
        // A mode found is no posterior approximation to trust or not: only a failure is red.
        return {(*c == "1" ? "Converged" : "Not converged") + (why.empty() ? "" : ": " + why),
                *c == "1" ? "" : "unreliable"};
    }
    return {"No verdict in this CSV (it has no `verdict`, `psis` or `converged` line)", ""};
}

std::string verdict_section(const FitCsv& fit) {
    const Headline h = headline(fit);
    std::string o = fmt::format("<div class=\"verdict{}\" id=\"verdict\">{}</div>\n",
                                h.css.empty() ? "" : " " + h.css, escape(h.text));
    std::string doubts;
    for (const auto& [key, value] : fit.trailer) {
        if (key == "doubt")
            doubts += fmt::format("<li>{}</li>", escape(value));
    }
    if (!doubts.empty())
        o += "<ul class=\"note\">" + doubts + "</ul>\n";
    o += "<table class=\"stats\" id=\"stats\">\n";
    for (const char* key : kStatKeys) {
        if (const auto v = fit.trailer_value(key))
            o += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", key, escape(*v));
    }
    o += fmt::format("<tr><td>draws read</td><td>{}{}</td></tr>\n", fit.draws.rows(),
                     fit.mean_row_skipped ? " (the first row, q's mean, left out)" : "");
    o += "</table>\n";
    if (!fit.trailer.empty()) {
        o += fmt::format("<details><summary>The CSV's trailer ({} lines)</summary><pre>",
                         fit.trailer.size());
        for (const auto& [key, value] : fit.trailer) {
            o += escape(key);
            if (!value.empty())
                o += " = " + escape(value);
            o += '\n';
        }
        o += "</pre></details>\n";
    }
    return o;
}

std::string elbo_section(const FitCsv& fit, const ElboTrace* trace) {
    if (trace == nullptr && (fit.method.empty() || fit.method == "variational")) {
        return missing("elbo-trace",
                       "No ELBO trace: no diagnostic file was given (advi fit --diagnostic-file "
                       "trace.csv writes one; advi report FIT.csv --diagnostic-file trace.csv "
                       "reads it).");
    }
    if (trace == nullptr) {
        return missing("elbo-trace", fmt::format("No ELBO trace: {} does not maximise the ELBO "
                                                 "by stochastic steps (advi fit does).",
                                                 fit.method));
    }
    std::vector<double> x, y, lo, hi;
    bool has_band = false;
    for (std::size_t i = 0; i < trace->elbo.size(); ++i) {
        if (!std::isfinite(trace->iteration[i]) || !std::isfinite(trace->elbo[i]))
            continue;
        x.push_back(trace->iteration[i]);
        y.push_back(trace->elbo[i]);
        const double se = trace->elbo_mcse[i];
        has_band = has_band || std::isfinite(se);
        lo.push_back(std::isfinite(se) ? y.back() - 2 * se : std::nan(""));
        hi.push_back(std::isfinite(se) ? y.back() + 2 * se : std::nan(""));
    }
    if (x.empty())
        return missing("elbo-trace", fmt::format("`{}` holds no finite ELBO.", trace->file));
    Plot plot("ELBO against iteration", "iteration", "ELBO");
    plot.size(620, 330).element_id("elbo-trace");
    // The first evaluations of a fit from a poor start can be thousands of nats below the rest
    // and would flatten the part that matters: the y axis covers the last 90% of the trace.
    const std::size_t from = x.size() >= 10 ? x.size() / 10 : 0;
    double y_lo = std::numeric_limits<double>::infinity(), y_hi = -y_lo;
    for (std::size_t i = from; i < x.size(); ++i) {
        y_lo = std::min({y_lo, y[i], std::isfinite(lo[i]) ? lo[i] : y[i]});
        y_hi = std::max({y_hi, y[i], std::isfinite(hi[i]) ? hi[i] : y[i]});
    }
    const Range yr = padded_range(y_lo, y_hi, false);
    plot.y_range(yr.lo, yr.hi);
    const std::size_t cut = static_cast<std::size_t>(
        std::count_if(y.begin(), y.end(), [&](double v) { return v < yr.lo || v > yr.hi; }));
    if (has_band)
        plot.band(x, lo, hi, "ELBO +- 2 MCSE", fill(colours::kFullRank, 0.25));
    plot.line(x, y, "ELBO", stroke(colours::kFullRank, 1.6));
    std::string o = plot.svg();
    std::string note = fmt::format("{} ELBO evaluations from `{}`", x.size(), trace->file);
    if (!has_band)
        note += "; no Monte Carlo errors in the trace (Stan's convergence rule), so no band";
    if (cut > 0)
        note += fmt::format("; {} early value{} outside the axis, which covers the last 90%", cut,
                            cut == 1 ? "" : "s");
    return o + fmt::format("<p class=\"note\">{}.</p>\n", escape(note));
}

std::string khat_section(const FitCsv& fit) {
    if (fit.log_ratios.size() == 0) {
        return missing("khat-curve",
                       fmt::format("No Pareto k-hat: the CSV has no log_p__ and log_g__ columns "
                                   "(method {}: {}).",
                                   fit.method.empty() ? "not given" : fit.method,
                                   fit.method == "optimize" ? "a point has no importance ratios"
                                                            : "nothing to weight"));
    }
    const std::vector<KhatPoint> curve = khat_curve(fit.log_ratios);
    if (curve.empty()) {
        return missing("khat-curve", fmt::format("No Pareto k-hat: {} usable draws, fewer than "
                                                 "the {} its tail fit needs.",
                                                 fit.log_ratios.size(), psis_min_draws()));
    }
    std::vector<double> n, k, threshold;
    for (const KhatPoint& p : curve) {
        n.push_back(p.draws);
        k.push_back(p.k_hat);
        threshold.push_back(p.threshold);
    }
    double k_lo = 0.0, k_hi = 1.0;
    for (const double v : k) {
        if (std::isfinite(v)) {
            k_lo = std::min(k_lo, v);
            k_hi = std::max(k_hi, v);
        }
    }
    Plot plot("Pareto k-hat of the first n draws", "draws n", "k-hat");
    plot.size(620, 330)
        .element_id("khat-curve")
        .log_x()
        .y_range(std::floor(k_lo * 10) / 10, std::ceil(k_hi * 10) / 10);
    plot.hline(0.7, "0.7", stroke(colours::kMeanField, 1.2, "6 3"));
    plot.hline(0.5, "0.5", stroke(colours::kGrey, 1.2, "6 3"));
    plot.line(n, threshold, "threshold for n", stroke(colours::kGrey, 1.0, "2 2"));
    plot.line(n, k, "k-hat", stroke(colours::kFullRank, 1.6));
    plot.points(n, k, "", dots(colours::kFullRank, 2.5));
    const bool all_nan =
        std::none_of(k.begin(), k.end(), [](double v) { return std::isfinite(v); });
    std::string note = fmt::format(
        "k-hat of {} on the first n draws. Below the threshold min(1 - 1/log10 n, 0.7) q can be "
        "trusted as a proposal; a curve still climbing at the right says its tail is heavier "
        "than the draws have shown yet.",
        fit.log_ratios_from);
    if (all_nan)
        note += " Every k-hat is undefined: the ratios are constant (q is p up to a constant).";
    return plot.svg() + fmt::format("<p class=\"note\">{}</p>\n", escape(note));
}

std::string marginals_section(const FitCsv& fit, const HtmlReportOptions& options) {
    const auto columns = static_cast<int>(fit.columns.size());
    if (columns == 0)
        return missing("marginal-1", "The CSV has no model columns (every name ends in __).");
    if (fit.draws.rows() < 2) {
        // A point (optimize): its values as a table, there is no distribution to draw.
        std::string o = missing("marginal-1",
                                "One row: a point estimate, no distribution to draw. Its values:");
        o += "<table class=\"stats\">\n";
        for (int j = 0; j < columns; ++j) {
            o += fmt::format("<tr><td>{}</td><td>{:.6g}</td></tr>\n", escape(fit.columns[j]),
                             fit.draws(0, j));
        }
        return o + "</table>\n";
    }
    const int shown = std::min(columns, std::max(options.max_marginals, 0));
    std::string o = fmt::format(
        "<p class=\"note\">Histograms of the draws; the solid line is the mean, the dashed lines "
        "the 5% and 95% quantiles.{}</p>\n<div class=\"grid\">\n",
        shown < columns ? fmt::format(" The first {} of {} columns: {} left out.", shown, columns,
                                      columns - shown)
                        : "");
    const int bins = histogram_bins(fit.draws.rows());
    for (int j = 0; j < shown; ++j) {
        const Histogram h = histogram(fit.draws.col(j), bins);
        const DrawSummary s = summarize_draws(fit.draws.col(j));
        // The histogram as a step outline over a filled band from zero.
        std::vector<double> x, top, zero;
        for (std::size_t b = 0; b < h.counts.size(); ++b) {
            x.insert(x.end(), {h.edges[b], h.edges[b + 1]});
            top.insert(top.end(),
                       {static_cast<double>(h.counts[b]), static_cast<double>(h.counts[b])});
        }
        zero.assign(x.size(), 0.0);
        const int max_count = *std::max_element(h.counts.begin(), h.counts.end());
        Plot plot(fit.columns[j], "", "");
        plot.size(308, 200).element_id(fmt::format("marginal-{}", j + 1));
        plot.x_range(h.edges.front(), h.edges.back()).y_range(0, std::max(1.0, max_count * 1.08));
        plot.band(x, zero, top, "", fill(colours::kFullRank, 0.35));
        plot.line(x, top, "", stroke(colours::kFullRank, 1.0));
        if (s.finite > 0) {
            plot.vline(s.mean, "", stroke(colours::kTruth, 1.6));
            plot.vline(s.q5, "", stroke(colours::kMeanField, 1.2, "4 3"));
            plot.vline(s.q95, "", stroke(colours::kMeanField, 1.2, "4 3"));
        }
        o += plot.svg();
    }
    return o + "</div>\n";
}

std::string pairs_section(const FitCsv& fit, const HtmlReportOptions& options) {
    const auto columns = static_cast<Eigen::Index>(fit.columns.size());
    if (columns < 2 || fit.draws.rows() < 3) {
        return missing("pair-1", fmt::format("No pairs to draw: {} model column{} and {} draw{}.",
                                             columns, columns == 1 ? "" : "s", fit.draws.rows(),
                                             fit.draws.rows() == 1 ? "" : "s"));
    }
    const Eigen::Index considered = std::min<Eigen::Index>(columns, options.max_pair_columns);
    const std::vector<CorrelatedPair> pairs =
        most_correlated_pairs(fit.draws.leftCols(considered), options.pairs);
    if (pairs.empty())
        return missing("pair-1", "No pairs to draw: the columns are constant over the draws.");
    std::string o = fmt::format(
        "<p class=\"note\">The {} pairs of columns with the largest |correlation| (r) over the "
        "draws{}. A mean-field q has none to show; full-rank and low-rank show the posterior's "
        "strongest dependencies.</p>\n<div class=\"grid\">\n",
        pairs.size(),
        considered < columns
            ? fmt::format(", among the first {} of {} columns", considered, columns)
            : "");
    // Evenly spaced draws, so that a long CSV's scatter stays light.
    const Eigen::Index rows = fit.draws.rows();
    const Eigen::Index every = std::max<Eigen::Index>(
        1, (rows + options.max_scatter_points - 1) / std::max(options.max_scatter_points, 1));
    for (std::size_t p = 0; p < pairs.size(); ++p) {
        const CorrelatedPair& pair = pairs[p];
        std::vector<double> x, y;
        for (Eigen::Index i = 0; i < rows; i += every) {
            x.push_back(fit.draws(i, pair.first));
            y.push_back(fit.draws(i, pair.second));
        }
        Plot plot(fmt::format("r = {:.2f}", pair.correlation), fit.columns[pair.first],
                  fit.columns[pair.second]);
        plot.size(412, 320).element_id(fmt::format("pair-{}", p + 1));
        plot.points(x, y, "", dots(colours::kFullRank, 1.6));
        o += plot.svg();
    }
    return o + "</div>\n";
}

}  // namespace

std::string html_report(const FitCsv& fit, const ElboTrace* trace,
                        const HtmlReportOptions& options) {
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    o += fmt::format("<title>advi report: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                     escape(fit.file), kStyle);
    std::string what = fit.method.empty() ? "method not given" : "method " + fit.method;
    if (!fit.algorithm.empty())
        what += " (" + fit.algorithm + ")";
    o += fmt::format("<h1>advi report: <code>{}</code></h1>\n", escape(fit.file));
    o += fmt::format(
        "<p class=\"note\">{}; {} draws of {} columns{}.</p>\n", escape(what), fit.draws.rows(),
        fit.columns.size(),
        trace ? fmt::format("; ELBO trace from <code>{}</code>", escape(trace->file)) : "");
    o += verdict_section(fit);
    o += "<h2>Convergence and the quality of q</h2>\n<div class=\"row\">\n<div>\n";
    o += elbo_section(fit, trace);
    o += "</div>\n<div>\n";
    o += khat_section(fit);
    o += "</div>\n</div>\n<h2>Marginals</h2>\n";
    o += marginals_section(fit, options);
    o += "<h2>Most correlated pairs</h2>\n";
    o += pairs_section(fit, options);
    o += "</body>\n</html>\n";
    return o;
}

void write_html_report(const std::filesystem::path& fit_csv,
                       const std::optional<std::filesystem::path>& trace_csv,
                       const std::filesystem::path& output, const HtmlReportOptions& options) {
    const FitCsv fit = read_fit_csv(fit_csv);
    std::optional<ElboTrace> trace;
    if (trace_csv)
        trace = read_elbo_trace(*trace_csv);
    const std::string page = html_report(fit, trace ? &*trace : nullptr, options);
    write_output_file(output, [&](const WriteText& write) { write(page); });
}

}  // namespace advi::report
