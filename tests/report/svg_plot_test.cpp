// lib/advi/report/svg_plot: the mathematics of the report's plots (tick choice, log-scale mapping,
// the two-sigma ellipse) and the well-formedness of what it writes.
#include <advi/report/svg_plot.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

using namespace advi::report;

namespace {

// v is k * step for an integer k, up to rounding.
bool on_grid(double v, double step) {
    const double k = v / step;
    return std::abs(k - std::round(k)) < 1e-6;
}

int count(const std::string& s, const std::string& what) {
    int n = 0;
    for (std::size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("nice_step: the smallest 1, 2 or 5 times a power of ten not below x", "[report]") {
    CHECK(nice_step(1.0) == Approx(1.0));
    CHECK(nice_step(0.2) == Approx(0.2));
    CHECK(nice_step(0.21) == Approx(0.5));
    CHECK(nice_step(3.0) == Approx(5.0));
    CHECK(nice_step(7.0) == Approx(10.0));
    CHECK(nice_step(0.0013) == Approx(0.002));
    CHECK(nice_step(4e5) == Approx(5e5));
    CHECK_THROWS(nice_step(0.0));
    CHECK_THROWS(nice_step(-1.0));
}

TEST_CASE("linear_ticks: round multiples of one step inside the range, not too many", "[report]") {
    auto [lo, hi, max_ticks] = GENERATE(table<double, double, int>({
        {0.0,    1.0,    7},
        {-0.37,  2.9,    7},
        {0.0009, 0.0051, 5},
        {-1e4,   3e4,    6},
        {0.1,    0.35,   4},
        {1.0,    500.0,  6},
        {0.96,   1.11,   7},
    }));
    const std::vector<double> t = linear_ticks(lo, hi, max_ticks);
    INFO("range [" << lo << ", " << hi << "], " << t.size() << " ticks");
    REQUIRE(t.size() >= 2);
    CHECK(static_cast<int>(t.size()) <= max_ticks);
    const double step = t[1] - t[0];
    CHECK(step == Approx(nice_step(step)).epsilon(1e-9));  // itself a nice number
    for (std::size_t i = 0; i < t.size(); ++i) {
        CHECK(t[i] >= lo - 1e-9 * step);
        CHECK(t[i] <= hi + 1e-9 * step);
        CHECK(on_grid(t[i], step));
        if (i > 0)
            CHECK(t[i] - t[i - 1] == Approx(step));
    }
    // No room for another tick at either end.
    CHECK(t.front() - step < lo);
    CHECK(t.back() + step > hi);
}

TEST_CASE("linear_ticks: [0, 1] in at most 6 ticks is 0, 0.2, ..., 1", "[report]") {
    const std::vector<double> t = linear_ticks(0, 1, 6);
    REQUIRE(t.size() == 6);
    for (int i = 0; i < 6; ++i) CHECK(t[i] == Approx(0.2 * i).margin(1e-15));
    CHECK(tick_label(t[3], 0.2, false) == "0.6");
    CHECK(tick_label(t[0], 0.2, false) == "0");
}

TEST_CASE("tick labels: as many decimals as the step needs", "[report]") {
    CHECK(tick_label(0.05, 0.05, false) == "0.05");
    CHECK(tick_label(0.1, 0.05, false) == "0.10");
    CHECK(tick_label(120, 20, false) == "120");
    CHECK(tick_label(-2.5, 0.5, false) == "-2.5");
    CHECK(tick_label(1e-5, 1, true) == "1e-5");
    CHECK(tick_label(0.01, 1, true) == "0.01");
    CHECK(tick_label(1000, 1, true) == "1000");
    CHECK(tick_label(1e8, 1, true) == "1e8");
}

TEST_CASE("log_ticks: the powers of ten inside, 1-2-5 within few decades", "[report]") {
    const std::vector<double> wide = log_ticks(3e-7, 2e2);  // 1e-6 .. 1e2: nine decades
    REQUIRE(!wide.empty());
    CHECK(static_cast<int>(wide.size()) <= 8);
    for (double v : wide) CHECK(on_grid(std::log10(v), 1.0));
    const std::vector<double> all = log_ticks(1e-3, 1e3, 10);
    REQUIRE(all.size() == 7);
    for (int i = 0; i < 7; ++i) CHECK(all[i] == Approx(std::pow(10.0, i - 3)));

    const std::vector<double> narrow = log_ticks(1, 50);
    const std::vector<double> expect = {1, 2, 5, 10, 20, 50};
    REQUIRE(narrow.size() == expect.size());
    for (std::size_t i = 0; i < expect.size(); ++i) CHECK(narrow[i] == Approx(expect[i]));
    CHECK_THROWS(log_ticks(0, 1));
}

TEST_CASE("Scale: linear and log maps of the ends, midpoints and decades", "[report]") {
    const Scale lin(-1, 3, 100, 500, false);
    CHECK(lin(-1) == Approx(100));
    CHECK(lin(3) == Approx(500));
    CHECK(lin(1) == Approx(300));

    // A y axis: SVG's y grows downward, so p1 < p0.
    const Scale lg(1e-4, 1e2, 400, 40, true);
    CHECK(lg(1e-4) == Approx(400));
    CHECK(lg(1e2) == Approx(40));
    // Six decades over 360 pixels: 60 per decade, equal ratios equal distances.
    CHECK(lg(1e-3) == Approx(340));
    CHECK(lg(1.0) == Approx(160));
    CHECK(lg(2e-2) - lg(1e-2) == Approx(lg(2.0) - lg(1.0)));
    CHECK(lg(std::sqrt(1e-4 * 1e2)) == Approx(220));  // the geometric mean is the middle
    CHECK_THROWS(Scale(0, 1, 0, 1, true));
    CHECK_THROWS(Scale(1, 1, 0, 1, false));
}

TEST_CASE("padded_range: widened outward to round ends", "[report]") {
    const Range r = padded_range(0.013, 0.947, false);
    CHECK(r.lo <= 0.013);
    CHECK(r.hi >= 0.947);
    CHECK(r.lo == Approx(0.0).margin(1e-12));
    CHECK(r.hi == Approx(1.0));
    const Range l = padded_range(3e-5, 0.2, true);
    CHECK(l.lo == Approx(1e-5));
    CHECK(l.hi == Approx(1.0));
    const Range flat = padded_range(2, 2, false);
    CHECK(flat.lo < 2);
    CHECK(flat.hi > 2);
}

TEST_CASE("ellipse_points: on the two-sigma contour x' S^-1 x = 4, all the way round", "[report]") {
    const Eigen::Vector2d c(1.0, -0.5);
    Eigen::Matrix2d S;
    S << 0.001, 0.001425, 0.001425, 0.00225;  // correlation 0.95, as gauss2d's posterior
    const Eigen::Matrix2d P = S.inverse();
    const int n = 200;
    const Eigen::MatrixX2d p = ellipse_points(c, S, 2.0, n);
    REQUIRE(p.rows() == n);
    CHECK((p.row(0) - p.row(n - 1)).norm() == 0.0);  // closed
    double angle = 0.0, prev = 0.0;
    for (int i = 0; i < n; ++i) {
        const Eigen::Vector2d d = p.row(i).transpose() - c;
        CHECK(d.dot(P * d) == Approx(4.0).epsilon(1e-10));
        const double a = std::atan2(d[1], d[0]);
        if (i > 0)
            angle += std::remainder(a - prev, 2 * std::numbers::pi);
        prev = a;
    }
    CHECK(std::abs(angle) == Approx(2 * std::numbers::pi).epsilon(1e-9));  // once round
    // The extent along each axis is 2 marginal sds: max x - c_x = 2 sqrt(S_00).
    CHECK(p.col(0).maxCoeff() - c[0] == Approx(2 * std::sqrt(S(0, 0))).epsilon(1e-3));
    CHECK(c[1] - p.col(1).minCoeff() == Approx(2 * std::sqrt(S(1, 1))).epsilon(1e-3));

    Eigen::Matrix2d bad;
    bad << 1, 2, 2, 1;
    CHECK_THROWS(ellipse_points(c, bad, 2.0));
}

TEST_CASE("diverging_colour: blue, white, red", "[report]") {
    CHECK(diverging_colour(-1) == "#2166ac");
    CHECK(diverging_colour(0) == "#f7f7f7");
    CHECK(diverging_colour(1) == "#b2182b");
    CHECK(diverging_colour(5) == "#b2182b");
}

TEST_CASE("Plot and HeatMap: one element per point and cell, same numbers same bytes", "[report]") {
    auto make = [] {
        Plot p("a <title> & more", "x", "y");
        p.log_y().line({1, 2, 3}, {1e-3, 1e-2, 1e-1}, "line").points({1, 2}, {0.5, 0.05}, "pts");
        p.points({1}, {-1.0}, "");  // not shown on a log axis
        return p.svg();
    };
    const std::string s = make();
    CHECK(s == make());
    CHECK(s.rfind("<svg ", 0) == 0);
    CHECK(s.find("a &lt;title&gt; &amp; more") != std::string::npos);
    CHECK(count(s, "<polyline") == 1);
    CHECK(count(s, "<circle") == 2 + 1);  // two points and the legend's mark
    CHECK(s.find("nan") == std::string::npos);

    Eigen::MatrixXd m(3, 4);
    m << 1, 0, -1, 0.5, 0, 0, 0, 0, 2, 1, 0, -2;
    const std::string h = HeatMap("cov", m, "t", "t").svg();
    CHECK(count(h, "#b2182b") == 1);  // the cell at +max|m| (the bar's bands are inside)
    CHECK(count(h, "#2166ac") == 1);  // the cell at -max|m|
    // Background, cells (row 1 is one run of zeros: 4 + 1 + 4 rectangles), frame, bar, frame.
    CHECK(count(h, "<rect") == 1 + 9 + 1 + 64 + 1);

    Plot bad("bad", "x", "y");
    CHECK_THROWS(bad.line({1, 2}, {1}, "short"));
}

TEST_CASE("save_atomically: the file holds the text, no temporary left", "[report]") {
    const auto dir = std::filesystem::temp_directory_path() / "advi_svg_plot_test";
    std::filesystem::remove_all(dir);
    const auto file = dir / "sub" / "plot.svg";
    save_atomically(file, "<svg/>\n");
    save_atomically(file, "<svg></svg>\n");
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == "<svg></svg>\n");
    CHECK(!std::filesystem::exists(file.string() + ".tmp"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("Plot::element_id: an id, the points drawn, a clip path of its own", "[report]") {
    Plot p("t", "x", "y");
    p.line({1, 2, 3}, {1, std::nan(""), 3}, "a").points({1, 2}, {2, 2}, "b").hline(1.5, "c");
    const std::string plain = p.svg();
    CHECK(plain.find(" id=\"area\"") != std::string::npos);
    CHECK(plain.find("data-points") == std::string::npos);
    const std::string page = p.element_id("plot-1").svg();
    // Two of the line's three points (the NaN is not drawn) and both points; the reference
    // line is no data.
    CHECK(page.find("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"plot-1\" data-points=\"4\"") ==
          0);
    CHECK(page.find("<clipPath id=\"plot-1-area\">") != std::string::npos);
    CHECK(page.find("clip-path=\"url(#plot-1-area)\"") != std::string::npos);
    CHECK(page.find("\"area\"") == std::string::npos);
}
