// A fit's HTML report as a user makes it: `advi fit --report` (with the ELBO trace of
// --diagnostic-file), `advi report FIT.csv`, --report on optimize, laplace and pathfinder; its
// one-line errors; and the page rendered by a real browser, headless Chromium, where one is
// installed (`apt-get install chromium`; .ci/run installs it): every plot in the rendered DOM
// with its marks, and a screenshot whose plots put pixels on the page. Without Chromium the
// rendering is skipped with a warning, never failed.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "support/cli_runner.hpp"

using namespace advi::test;

namespace {

// The flagship regression with three coefficients: 4 columns, so 4 marginals and C(4, 2) = 6
// pairs; a fixed design so the test needs no data files.
std::string regression_data() {
    std::string x, y;
    for (int n = 0; n < 40; ++n) {
        const double x1 = std::sin(1.3 * n), x2 = std::cos(0.7 * n), x3 = (n % 5) - 2.0;
        const double noise = 0.3 * std::sin(5.1 * n + 1);
        x += fmt::format("{}[{}, {}, {}]", n ? ", " : "", x1, x2, x3);
        y += fmt::format("{}{}", n ? ", " : "", 1.0 + 2.0 * x1 - 0.5 * x2 + 0.2 * x3 + noise);
    }
    return fmt::format(R"({{"N": 40, "K": 3, "X": [{}], "y": [{}]}})", x, y);
}

std::string model_path() {
    return q(fs::path(ADVI_SOURCE_DIR) / "examples" / "linear_regression.stan");
}

// Each plot's id and its data-points attribute, as the page (or the browser's DOM) holds them.
std::map<std::string, int> plots(const std::string& html) {
    std::map<std::string, int> out;
    const std::regex svg("<svg[^>]* id=\"([a-z0-9-]+)\" data-points=\"([0-9]+)\"");
    for (std::sregex_iterator it(html.begin(), html.end(), svg), end; it != end; ++it)
        out[(*it)[1]] = std::stoi((*it)[2]);
    return out;
}

const std::vector<std::string> kPlotIds = {"elbo-trace", "khat-curve", "marginal-1", "marginal-2",
                                           "marginal-3", "marginal-4", "pair-1",     "pair-2",
                                           "pair-3",     "pair-4",     "pair-5",     "pair-6"};

// Where Chromium is: Debian's `chromium` (or `chromium-browser`) on PATH; empty when neither.
std::string chromium() {
    for (const char* name : {"chromium", "chromium-browser"}) {
        const std::string probe = fmt::format("command -v {} > /dev/null 2>&1", name);
        if (std::system(probe.c_str()) == 0)
            return name;
    }
    return "";
}

// Runs headless Chromium on `page` with `what` (--dump-dom or --screenshot=FILE); stdout to
// `out`. As root Chromium needs --no-sandbox; its profile stays in the scratch directory.
int run_chromium(const std::string& browser, const fs::path& page, const std::string& what,
                 const fs::path& out) {
    const std::string command = fmt::format(
        "timeout 120 {} --headless --no-sandbox --disable-gpu --hide-scrollbars "
        "--user-data-dir={} --window-size=1280,2400 {} {} > {} 2> {}",
        browser, q(scratch() / "chromium-profile"), what, q("file://" + page.string()), q(out),
        q(scratch() / "chromium.stderr"));
    const int raw = std::system(command.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(bytes[at + k]);
    return v;
}

}  // namespace

TEST_CASE("cli: fit --diagnostic-file --report writes a page with every plot", "[cli][report]") {
    if (!cli_built())
        return;
    const std::string d = q(write_file("report.json", regression_data()));
    const Run fit = tool(fmt::format(
        "fit {} --data {} --algorithm fullrank --seed 3 --output fit.csv --diagnostic-file "
        "trace.csv --report report.html",
        model_path(), d));
    INFO(fit.err);
    REQUIRE(fit.status == 0);
    CHECK(contains(fit.err, "Report written to report.html"));
    const std::string page = read_file(scratch() / "report.html");
    const auto drawn = plots(page);
    for (const std::string& id : kPlotIds) {
        CAPTURE(id);
        REQUIRE(drawn.count(id) == 1);
        CHECK(drawn.at(id) > 0);
    }
    CHECK(drawn.at("pair-1") == 1000);  // every draw, the mean row left out
    CHECK(contains(page, "id=\"verdict\">Verdict: "));
    CHECK(!contains(page, "<script"));

    // The same page from the files afterwards.
    const Run again = tool("report fit.csv --diagnostic-file trace.csv -o again.html -q");
    CHECK(again.status == 0);
    CHECK(again.err.empty());
    CHECK(read_file(scratch() / "again.html") == page);
}

TEST_CASE("cli: the page rendered by headless Chromium shows every plot",
          "[cli][report][chromium]") {
    if (!cli_built())
        return;
    const std::string browser = chromium();
    if (browser.empty()) {
        WARN(
            "chromium is not installed: the report's rendering is not tested (apt-get install "
            "chromium; .ci/run does)");
        return;
    }
    const std::string d = q(write_file("render.json", regression_data()));
    REQUIRE(tool(fmt::format("fit {} --data {} --algorithm fullrank --seed 3 --output render.csv "
                             "--diagnostic-file render_trace.csv --report render.html -q",
                             model_path(), d))
                .status == 0);
    const fs::path page = scratch() / "render.html";

    // The DOM Chromium built: every plot an <svg> with its id, its data-points and marks drawn
    // (a polyline, a polygon or circles) inside it.
    const fs::path dom_file = scratch() / "render.dom";
    REQUIRE(run_chromium(browser, page, "--dump-dom", dom_file) == 0);
    const std::string dom = read_file(dom_file);
    REQUIRE(contains(dom, "</html>"));
    const auto in_dom = plots(dom);
    for (const std::string& id : kPlotIds) {
        CAPTURE(id);
        REQUIRE(in_dom.count(id) == 1);
        CHECK(in_dom.at(id) > 0);
        const std::size_t start = dom.find("id=\"" + id + "\"");
        const std::string svg = dom.substr(start, dom.find("</svg>", start) - start);
        const bool marks =
            contains(svg, "<polyline") || contains(svg, "<polygon") || contains(svg, "<circle");
        CHECK(marks);
    }

    // The screenshot: a PNG of the window's size, and the plots put pixels on it: the same
    // page with its <svg>s hidden compresses to much less (a blank 1280 x 2400 page: 14 kB;
    // this page 360 kB, without its plots 128 kB).
    const fs::path png = scratch() / "render.png";
    const fs::path log = scratch() / "render.log";
    REQUIRE(run_chromium(browser, page, "--screenshot=" + q(png), log) == 0);
    const std::string image = read_file(png);
    REQUIRE(image.size() > 24);
    CHECK(image.substr(1, 3) == "PNG");
    CHECK(big_endian(image, 16) == 1280);  // IHDR: width, height
    CHECK(big_endian(image, 20) == 2400);
    const std::string bare_text = std::regex_replace(read_file(page), std::regex("</style>"),
                                                     "svg { visibility: hidden; }\n</style>");
    const fs::path bare = write_file("render_bare.html", bare_text);
    const fs::path bare_png = scratch() / "render_bare.png";
    REQUIRE(run_chromium(browser, bare, "--screenshot=" + q(bare_png), log) == 0);
    const auto with_plots = fs::file_size(png), without = fs::file_size(bare_png);
    CAPTURE(with_plots, without);
    CHECK(with_plots > 2 * without);
}

TEST_CASE("cli: --report on optimize, laplace and pathfinder", "[cli][report]") {
    if (!cli_built())
        return;
    const std::string d = q(write_file("methods.json", regression_data()));
    for (const std::string method : {"optimize", "laplace", "pathfinder"}) {
        CAPTURE(method);
        const Run r = tool(fmt::format("{0} {1} --data {2} --output {0}.csv --report {0}.html -q",
                                       method, model_path(), d));
        INFO(r.err);
        REQUIRE(r.status == 0);
        const std::string page = read_file(scratch() / (method + ".html"));
        const auto drawn = plots(page);
        CHECK(contains(page, "<p class=\"missing\" id=\"elbo-trace\">No ELBO trace: " + method));
        if (method == "optimize") {
            // A point: its values in a table, no k-hat, no pairs.
            CHECK(drawn.empty());
            CHECK(contains(page, "id=\"verdict\">Converged: "));
            CHECK(contains(page, "id=\"khat-curve\">No Pareto k-hat"));
            CHECK(contains(page, "id=\"marginal-1\">One row: a point estimate"));
        } else {
            CHECK(drawn.at("khat-curve") > 0);
            CHECK(drawn.at("marginal-4") > 0);
            CHECK(drawn.at("pair-6") == 1000);  // laplace and pathfinder write no mean row
        }
    }
}

TEST_CASE("cli: report errors name the file on one line and leave no page",
          "[cli][report][errors]") {
    if (!cli_built())
        return;
    const fs::path out = scratch() / "never.html";
    check_one_line_error(tool("report no_such_fit.csv -o never.html"), 1,
                         "cannot read `no_such_fit.csv`: no such file");
    write_file("ragged.csv", "# method = variational\nlp__,mu\n0,1\n2\n");
    check_one_line_error(tool("report ragged.csv -o never.html"), 1,
                         "ragged.csv:4:2: row 2 has 1 field, the header has 2");
    write_file("mean_only.csv", "# method = variational\nlp__,mu\n0,1\n");
    check_one_line_error(tool("report mean_only.csv -o never.html"), 1,
                         "`mean_only.csv` holds no draws: only the mean row of q");
    write_file("good.csv", "lp__,mu\n0,1\n0,2\n");
    check_one_line_error(tool("report good.csv --diagnostic-file good.csv -o never.html"), 1,
                         "`good.csv` has no column `iter`: not an ELBO trace");
    check_one_line_error(tool("report good.csv -o good.csv"), 1,
                         "--output `good.csv` is the fit CSV `good.csv`");
    check_one_line_error(tool("report good.csv -o no_such_dir/page.html"), 1,
                         "directory `no_such_dir` does not exist");
    CHECK(!fs::exists(out));
    CHECK(read_file(scratch() / "good.csv") == "lp__,mu\n0,1\n0,2\n");

    const std::string d = q(write_file("errors.json", regression_data()));
    check_one_line_error(
        tool(fmt::format("fit {} --data {} --output same.csv --report same.csv", model_path(), d)),
        1, "--report `same.csv` is the --output file");
    CHECK(!fs::exists(scratch() / "same.csv"));  // refused before the run
    const Run usage = tool("report");
    CHECK(usage.status == 2);
}
