// lib/advi/report/html_report: the page holds every plot, by id, with the points it drew;
// the caps on marginals are said; a plot that cannot be drawn says why in its place.
#include <cmath>
#include <random>
#include <regex>
#include <set>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/report/html_report.hpp>

using namespace advi::report;

namespace {

// A full-rank-like fit of 5 columns: b strongly tied to a, the rest independent; 400 draws.
FitCsv fit_of(int columns, int draws) {
    std::mt19937_64 rng(3);
    std::normal_distribution<double> z;
    FitCsv fit;
    fit.file = "fit<1>.csv";  // escaped in the page
    fit.method = "variational";
    fit.algorithm = "fullrank";
    fit.trailer = {
        {"verdict",  "not reliable: k-hat 0.9 >= 0.7"},
        {"pareto_k", "0.9"                           },
        {"doubt",    "q's sds <too small>"           }
    };
    for (int j = 0; j < columns; ++j) fit.columns.push_back(fmt::format("theta.{}", j + 1));
    fit.draws.resize(draws, columns);
    fit.log_ratios.resize(draws);
    for (int i = 0; i < draws; ++i) {
        for (int j = 0; j < columns; ++j) fit.draws(i, j) = z(rng);
        if (columns > 1)
            fit.draws(i, 1) = fit.draws(i, 0) + 0.1 * z(rng);
        fit.log_ratios(i) = 0.3 * z(rng);
    }
    fit.log_ratios_from = "log_p__ - log_g__";
    return fit;
}

int count(const std::string& s, const std::string& what) {
    int n = 0;
    for (std::size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
    return n;
}

// The data-points attribute of the <svg> with this id; -1 when there is none.
int points_of(const std::string& page, const std::string& id) {
    const std::regex svg("<svg[^>]* id=\"" + id + "\" data-points=\"([0-9]+)\"");
    std::smatch m;
    return std::regex_search(page, m, svg) ? std::stoi(m[1]) : -1;
}

}  // namespace

TEST_CASE("html_report: the verdict first, every plot with its points", "[report][html]") {
    const FitCsv fit = fit_of(5, 400);
    ElboTrace trace{
        .file = "trace.csv",
        .iteration = {100, 200, 300  },
        .elbo = {-30, -20, -19.5},
        .elbo_mcse = {0.5, 0.2, 0.1  }
    };
    const std::string page = html_report(fit, &trace);
    CHECK(page.starts_with("<!DOCTYPE html>"));
    CHECK(page.find("<script") == std::string::npos);
    // Nothing to fetch: the only addresses are the SVG namespace.
    CHECK(count(page, "http") == count(page, "xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(page.find("src=") == std::string::npos);
    // The verdict comes before the first plot, and reads as the CSV says.
    const auto verdict = page.find("id=\"verdict\"");
    CHECK(verdict < page.find("<svg"));
    CHECK(page.find("Verdict: not reliable: k-hat 0.9 &gt;= 0.7") != std::string::npos);
    CHECK(page.find("class=\"verdict unreliable\"") != std::string::npos);
    CHECK(page.find("&lt;too small&gt;") != std::string::npos);
    CHECK(page.find("fit&lt;1&gt;.csv") != std::string::npos);

    // ELBO: 3 points of the line and 3 of the band; a k-hat per n; 5 marginals; 6 of the
    // C(5, 2) = 10 pairs, each with every draw.
    CHECK(points_of(page, "elbo-trace") == 6);
    CHECK(points_of(page, "khat-curve") > 0);
    for (int j = 1; j <= 5; ++j) CHECK(points_of(page, fmt::format("marginal-{}", j)) > 0);
    CHECK(points_of(page, "marginal-6") == -1);
    for (int p = 1; p <= 6; ++p) CHECK(points_of(page, fmt::format("pair-{}", p)) == 400);
    CHECK(points_of(page, "pair-7") == -1);
    // The most correlated pair first: theta.1 and theta.2.
    const auto first_pair = page.find("id=\"pair-1\"");
    CHECK(page.find("theta.1", first_pair) < page.find("</svg>", first_pair));
    CHECK(page.find("theta.2", first_pair) < page.find("</svg>", first_pair));

    // Every id once: a page of inline SVGs shares one id space, clip paths included.
    const std::regex id_attribute("id=\"([^\"]+)\"");
    std::set<std::string> ids;
    int id_count = 0;
    for (std::sregex_iterator it(page.begin(), page.end(), id_attribute), end; it != end; ++it) {
        ids.insert((*it)[1]);
        ++id_count;
    }
    CHECK(static_cast<int>(ids.size()) == id_count);
    CHECK(count(page, "clip-path=\"url(#area)\"") == 0);
}

TEST_CASE("html_report: caps said, missing plots explained in place", "[report][html]") {
    const FitCsv fit = fit_of(5, 400);
    const std::string capped = html_report(fit, nullptr, {.max_marginals = 2, .pairs = 1});
    CHECK(points_of(capped, "marginal-2") > 0);
    CHECK(points_of(capped, "marginal-3") == -1);
    CHECK(capped.find("The first 2 of 5 columns: 3 left out.") != std::string::npos);
    CHECK(points_of(capped, "pair-1") == 400);
    CHECK(points_of(capped, "pair-2") == -1);
    CHECK(capped.find("<p class=\"missing\" id=\"elbo-trace\">No ELBO trace: no diagnostic file") !=
          std::string::npos);

    FitCsv sparse = fit_of(2, 3000);
    sparse.log_ratios.resize(0);
    sparse.log_ratios_from.clear();
    sparse.method = "optimize";
    const std::string page = html_report(sparse, nullptr, {.max_scatter_points = 1000});
    CHECK(page.find("<p class=\"missing\" id=\"khat-curve\">No Pareto k-hat: the CSV has no "
                    "log_p__ and log_g__ columns (method optimize") != std::string::npos);
    CHECK(points_of(page, "pair-1") == 1000);  // every third draw

    const FitCsv point = fit_of(3, 1);
    const std::string point_page = html_report(point, nullptr);
    CHECK(point_page.find("id=\"marginal-1\">One row: a point estimate") != std::string::npos);
    CHECK(point_page.find("<p class=\"missing\" id=\"pair-1\">No pairs to draw") !=
          std::string::npos);
}
