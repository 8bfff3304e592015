// A fit's report as one self-contained HTML page (`advi report`, `--report` on every method):
// the verdict first, then the ELBO trace, PSIS k-hat against the number of draws, a histogram
// per column and scatter plots of the most correlated pairs, as inline SVG: no network, no
// script, readable as a file on any machine.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <advi/report/elbo_trace.hpp>
#include <advi/report/fit_csv.hpp>

namespace advi::report {

struct HtmlReportOptions {
    int max_marginals = 48;         // histograms shown, the first columns; the page says how many
                                    // more there are
    int pairs = 6;                  // scatter plots of the most correlated pairs
    int max_pair_columns = 500;     // the pairs are chosen among the first columns only: the
                                    // correlation matrix costs columns^2 draws
    int max_scatter_points = 1000;  // draws per scatter plot, evenly spaced through the draws
};

// The page. Each plot is an <svg> with an id (`elbo-trace`, `khat-curve`, `marginal-1`, ...,
// `pair-1`, ...) and `data-points`, the points it drew; a plot that cannot be drawn is a <p
// class="missing"> with the same id saying why (no diagnostic file, no log densities).
[[nodiscard]] std::string html_report(const FitCsv& fit, const ElboTrace* trace,
                                      const HtmlReportOptions& options = {});

// Reads `fit_csv` (and `trace_csv`, the ELBO trace, when given) and writes the page to `output`
// whole or not at all (io's write_output_file). Throws DataError naming a file that cannot be
// read, Error naming the output when it cannot be written.
void write_html_report(const std::filesystem::path& fit_csv,
                       const std::optional<std::filesystem::path>& trace_csv,
                       const std::filesystem::path& output, const HtmlReportOptions& options = {});

}  // namespace advi::report
