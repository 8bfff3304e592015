// A small SVG writer for plots (lines, points, bands, ellipses, a heat map; linear or log axes),
// used by the paper's report (report/make_report) and by a fit's HTML report (html_report). Our
// own, not gnuplot: no new dependency, and byte-identical output for the same numbers, so that a
// regenerated plot diffs cleanly in git.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace advi::report {

// ---- the mathematics (unit-tested in tests/report/svg_plot_test.cpp) ----

// 1, 2 or 5 times a power of ten, the smallest such at least `x` (x > 0).
[[nodiscard]] double nice_step(double x);

// Round tick values for a linear axis over [lo, hi]: multiples of a nice step, at most
// `max_ticks` of them, all inside [lo, hi] (up to rounding), at least two when lo < hi.
[[nodiscard]] std::vector<double> linear_ticks(double lo, double hi, int max_ticks = 7);

// Ticks for a log axis over [lo, hi] (0 < lo < hi): the powers of ten inside, thinned to every
// k-th decade when there are more than max_ticks; 1-2-5 multiples added when fewer than three
// decades fall inside.
[[nodiscard]] std::vector<double> log_ticks(double lo, double hi, int max_ticks = 8);

// A tick label: the shortest fixed notation that tells ticks `step` apart ("0.05", "120");
// scientific ("1e-05") for log axes or very large/small values.
[[nodiscard]] std::string tick_label(double value, double step, bool log_axis);

// An axis interval widened to round numbers: [lo, hi] grown outward to the nearest multiple
// of the tick step (linear) or to whole decades (log). Equal ends are spread apart.
struct Range {
    double lo = 0.0, hi = 1.0;
};
[[nodiscard]] Range padded_range(double lo, double hi, bool log_axis);

// An axis's map from data to pixels: [lo, hi] onto [p0, p1] (p1 < p0 for a y axis, SVG's y
// grows downward), linear or linear in log10 of the value.
class Scale {
public:
    Scale(double lo, double hi, double p0, double p1, bool log_axis);
    [[nodiscard]] double operator()(double v) const;
    [[nodiscard]] bool log() const { return log_; }
    [[nodiscard]] double lo() const { return lo_; }
    [[nodiscard]] double hi() const { return hi_; }

private:
    double lo_, hi_, p0_, p1_;
    bool log_;
};

// n points (closed: the first repeated last) on the level set {x : (x - c)' S^-1 (x - c) =
// n_sd^2} of a 2-D Gaussian with mean c and covariance S: c + n_sd L (cos t, sin t), L L' = S.
[[nodiscard]] Eigen::MatrixX2d ellipse_points(const Eigen::Vector2d& centre,
                                              const Eigen::Matrix2d& cov, double n_sd, int n = 120);

// A colour for v in [-1, 1] on a diverging blue-white-red scale (heat maps centred on 0).
[[nodiscard]] std::string diverging_colour(double v);

// ---- the plots ----

struct SeriesStyle {
    std::string colour = "#1f77b4";
    double width = 1.8;
    std::string dash;       // SVG stroke-dasharray, e.g. "6 3"; empty: solid
    double opacity = 0.25;  // bands' fill
    double radius = 3.0;    // points
    bool hollow = false;    // points: circle outline only
};

// The report's colours: one per method, the same in every plot.
namespace colours {
inline constexpr const char* kTruth = "#000000";
inline constexpr const char* kMeanField = "#d62728";
inline constexpr const char* kFullRank = "#1f77b4";
inline constexpr const char* kReference = "#2ca02c";
inline constexpr const char* kGrey = "#7f7f7f";
}  // namespace colours

// A 2-D plot: axes with round ticks, a title, axis labels and a legend. Series are kept in
// the order added (later ones drawn on top); the axis ranges cover all of them unless set.
class Plot {
public:
    Plot(std::string title, std::string x_label, std::string y_label);

    Plot& size(int width, int height);
    Plot& log_x(bool on = true);
    Plot& log_y(bool on = true);
    Plot& x_range(double lo, double hi);
    Plot& y_range(double lo, double hi);
    // For a page of many plots: the <svg> element gets this id and a `data-points` attribute
    // (the data points drawn, over all series), and its clip path is named after the id, since
    // an id names one element in the whole page. Without it the plot has neither (a file of its
    // own).
    Plot& element_id(std::string id);

    Plot& line(std::vector<double> x, std::vector<double> y, std::string label,
               SeriesStyle style = {});
    Plot& points(std::vector<double> x, std::vector<double> y, std::string label,
                 SeriesStyle style = {});
    // The area between lo(x) and hi(x).
    Plot& band(std::vector<double> x, std::vector<double> lo, std::vector<double> hi,
               std::string label, SeriesStyle style = {});
    // The n_sd level set of N(centre, cov), as a closed line.
    Plot& ellipse(const Eigen::Vector2d& centre, const Eigen::Matrix2d& cov, double n_sd,
                  std::string label, SeriesStyle style = {});
    // A vertical or horizontal reference line across the plot.
    Plot& vline(double x, std::string label, SeriesStyle style = {});
    Plot& hline(double y, std::string label, SeriesStyle style = {});

    [[nodiscard]] std::string svg() const;

private:
    enum class Kind { Line, Points, Band, VLine, HLine };
    struct Series {
        Kind kind;
        std::vector<double> x, y, y2;
        std::string label;
        SeriesStyle style;
    };
    Plot& add(Series s);

    std::string title_, x_label_, y_label_, id_;
    int width_ = 640, height_ = 420;
    bool log_x_ = false, log_y_ = false;
    bool x_fixed_ = false, y_fixed_ = false;
    Range x_range_, y_range_;
    std::vector<Series> series_;
};

// A matrix as coloured cells (row 0 at the top), with a colour bar. The scale is diverging
// and symmetric, [-max|m|, max|m|], so that zero is white.
class HeatMap {
public:
    HeatMap(std::string title, Eigen::MatrixXd m, std::string x_label, std::string y_label);
    HeatMap& size(int width, int height);
    // The index shown for row/column 0 on the axes (1 for the paper's t = 1..T).
    HeatMap& index_base(int base);
    [[nodiscard]] std::string svg() const;

private:
    std::string title_, x_label_, y_label_;
    Eigen::MatrixXd m_;
    int width_ = 520, height_ = 460;
    int base_ = 0;
};

// Writes `text` to `path` (its folders made first) by io's write_output_file: a temporary file
// beside it and a rename, so a reader never sees half a file. Throws advi::Error naming the path.
void save_atomically(const std::filesystem::path& path, const std::string& text);

// Escapes &, <, > and " for SVG text.
[[nodiscard]] std::string xml_escape(const std::string& s);

}  // namespace advi::report
