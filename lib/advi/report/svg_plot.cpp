// The report's SVG writer: tick choice, scales, ellipses, and the text of the plots. Every
// coordinate is printed with a fixed number of decimals, so the same numbers give the same
// bytes.
#include <advi/report/svg_plot.hpp>

#include <advi/io/output_file.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include <Eigen/Cholesky>
#include <fmt/format.h>

namespace advi::report {

namespace {

constexpr double kEps = 1e-9;

bool usable(double v, bool log_axis) {
    return std::isfinite(v) && (!log_axis || v > 0);
}

// "12.34": pixel coordinates to a hundredth of a pixel.
std::string px(double v) {
    std::string s = fmt::format("{:.2f}", v);
    return s == "-0.00" ? "0.00" : s;
}

}  // namespace

double nice_step(double x) {
    if (!(x > 0) || !std::isfinite(x)) {
        throw std::invalid_argument(fmt::format("nice_step: expected a positive step, got {}", x));
    }
    const double e = std::floor(std::log10(x));
    const double base = std::pow(10.0, e);
    const double f = x / base;  // in [1, 10)
    // The tolerance keeps 0.2 (stored as 0.2000000000001) a step of 0.2, not 0.5.
    for (double m : {1.0, 2.0, 5.0}) {
        if (f <= m * (1 + kEps))
            return m * base;
    }
    return 10.0 * base;
}

std::vector<double> linear_ticks(double lo, double hi, int max_ticks) {
    if (!(hi > lo))
        return {lo};
    max_ticks = std::max(max_ticks, 2);
    double step = nice_step((hi - lo) / (max_ticks - 1));
    auto ticks_for = [&](double s) {
        std::vector<double> t;
        const double first = std::ceil(lo / s - kEps);
        const double last = std::floor(hi / s + kEps);
        for (double k = first; k <= last; k += 1) {
            const double v = k * s;
            t.push_back(std::abs(v) < kEps * s ? 0.0 : v);
        }
        return t;
    };
    std::vector<double> t = ticks_for(step);
    // A step up to 2.5x the raw one can leave a single multiple inside: take the next smaller
    // nice step (its count is still at most about 2.5 max_ticks / 2.5).
    while (t.size() < 2) {
        step = nice_step(step * 0.45);
        t = ticks_for(step);
    }
    return t;
}

std::vector<double> log_ticks(double lo, double hi, int max_ticks) {
    if (!(lo > 0) || !(hi > lo)) {
        throw std::invalid_argument(
            fmt::format("log_ticks: expected 0 < lo < hi, got [{}, {}]", lo, hi));
    }
    const int e_lo = static_cast<int>(std::ceil(std::log10(lo) - kEps));
    const int e_hi = static_cast<int>(std::floor(std::log10(hi) + kEps));
    const int decades = e_hi - e_lo + 1;
    std::vector<double> t;
    if (decades >= 3) {
        const int every = (decades + max_ticks - 1) / std::max(max_ticks, 1);
        for (int e = e_lo; e <= e_hi; ++e) {
            if (((e % every) + every) % every == 0)
                t.push_back(std::pow(10.0, e));
        }
        return t;
    }
    // Few decades: 1, 2 and 5 times each power of ten.
    for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= e_hi + 1; ++e) {
        for (double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, e);
            if (v >= lo * (1 - kEps) && v <= hi * (1 + kEps))
                t.push_back(v);
        }
    }
    if (t.size() < 2)
        return linear_ticks(lo, hi, max_ticks);
    return t;
}

std::string tick_label(double value, double step, bool log_axis) {
    if (value == 0.0)
        return "0";
    const double mag = std::abs(value);
    if (log_axis || mag >= 1e6 || step < 1e-5) {
        if (mag >= 1e-3 && mag < 1e5) {
            const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(mag) + kEps)));
            return fmt::format("{:.{}f}", value, decimals);
        }
        // m e k, with m the mantissa to 2 significant digits (1e-5, 2.5e+06 -> 2.5e6)
        const int e = static_cast<int>(std::floor(std::log10(mag) + kEps));
        const double m = value / std::pow(10.0, e);
        std::string ms = fmt::format("{:.1f}", m);
        if (ms.size() > 2 && ms.substr(ms.size() - 2) == ".0")
            ms.resize(ms.size() - 2);
        return fmt::format("{}e{}", ms, e);
    }
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + kEps)));
    std::string s = fmt::format("{:.{}f}", value, decimals);
    if (s.find_first_not_of("-0.") == std::string::npos)
        s = "0";
    return s;
}

Range padded_range(double lo, double hi, bool log_axis) {
    if (log_axis) {
        if (!(lo > 0) || !(hi > 0)) {
            throw std::invalid_argument(
                fmt::format("padded_range: a log axis needs positive ends, got [{}, {}]", lo, hi));
        }
        Range r{std::pow(10.0, std::floor(std::log10(lo) + kEps)),
                std::pow(10.0, std::ceil(std::log10(hi) - kEps))};
        if (r.hi <= r.lo)
            r.hi = r.lo * 10;
        return r;
    }
    if (!(hi > lo)) {
        const double d = lo == 0 ? 1.0 : std::abs(lo) * 0.1;
        lo -= d;
        hi += d;
    }
    const double step = nice_step((hi - lo) / 6);
    return {std::floor(lo / step + kEps) * step, std::ceil(hi / step - kEps) * step};
}

Scale::Scale(double lo, double hi, double p0, double p1, bool log_axis)
    : lo_(lo), hi_(hi), p0_(p0), p1_(p1), log_(log_axis) {
    if (!(hi > lo) || (log_axis && !(lo > 0))) {
        throw std::invalid_argument(
            fmt::format("Scale: bad {} range [{}, {}]", log_axis ? "log" : "linear", lo, hi));
    }
}

double Scale::operator()(double v) const {
    const double u = log_ ? (std::log10(v) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_))
                          : (v - lo_) / (hi_ - lo_);
    return p0_ + u * (p1_ - p0_);
}

Eigen::MatrixX2d ellipse_points(const Eigen::Vector2d& centre, const Eigen::Matrix2d& cov,
                                double n_sd, int n) {
    const Eigen::LLT<Eigen::Matrix2d> llt(cov);
    if (llt.info() != Eigen::Success) {
        throw std::invalid_argument("ellipse_points: the covariance is not positive definite");
    }
    // x = c + n_sd L u with |u| = 1: (x - c)' (L L')^-1 (x - c) = n_sd^2 u'u = n_sd^2.
    const Eigen::Matrix2d L = llt.matrixL();
    Eigen::MatrixX2d p(n, 2);
    for (int i = 0; i < n; ++i) {
        const double t = 2 * std::numbers::pi * i / (n - 1);
        p.row(i) = (centre + n_sd * L * Eigen::Vector2d(std::cos(t), std::sin(t))).transpose();
    }
    p.row(n - 1) = p.row(0);
    return p;
}

std::string diverging_colour(double v) {
    v = std::clamp(std::isfinite(v) ? v : 0.0, -1.0, 1.0);
    // ColorBrewer RdBu's ends and middle: blue (negative), near-white, red (positive).
    const double blue[3] = {33, 102, 172}, white[3] = {247, 247, 247}, red[3] = {178, 24, 43};
    const double* end = v < 0 ? blue : red;
    const double u = std::abs(v);
    int c[3];
    for (int k = 0; k < 3; ++k)
        c[k] = static_cast<int>(std::lround(white[k] + u * (end[k] - white[k])));
    return fmt::format("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
}

std::string xml_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// ---- Plot ----

Plot::Plot(std::string title, std::string x_label, std::string y_label)
    : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

Plot& Plot::size(int width, int height) {
    width_ = width;
    height_ = height;
    return *this;
}
Plot& Plot::log_x(bool on) {
    log_x_ = on;
    return *this;
}
Plot& Plot::log_y(bool on) {
    log_y_ = on;
    return *this;
}
Plot& Plot::x_range(double lo, double hi) {
    x_fixed_ = true;
    x_range_ = {lo, hi};
    return *this;
}
Plot& Plot::y_range(double lo, double hi) {
    y_fixed_ = true;
    y_range_ = {lo, hi};
    return *this;
}

Plot& Plot::element_id(std::string id) {
    id_ = std::move(id);
    return *this;
}

Plot& Plot::add(Series s) {
    if (s.kind != Kind::VLine && s.kind != Kind::HLine && s.x.size() != s.y.size()) {
        throw std::invalid_argument(fmt::format("Plot `{}`, series `{}`: {} x values but {} y",
                                                title_, s.label, s.x.size(), s.y.size()));
    }
    if (s.kind == Kind::Band && s.y2.size() != s.x.size()) {
        throw std::invalid_argument(fmt::format("Plot `{}`, band `{}`: {} x values but {} upper",
                                                title_, s.label, s.x.size(), s.y2.size()));
    }
    series_.push_back(std::move(s));
    return *this;
}

Plot& Plot::line(std::vector<double> x, std::vector<double> y, std::string label,
                 SeriesStyle style) {
    return add({Kind::Line, std::move(x), std::move(y), {}, std::move(label), std::move(style)});
}
Plot& Plot::points(std::vector<double> x, std::vector<double> y, std::string label,
                   SeriesStyle style) {
    return add({Kind::Points, std::move(x), std::move(y), {}, std::move(label), std::move(style)});
}
Plot& Plot::band(std::vector<double> x, std::vector<double> lo, std::vector<double> hi,
                 std::string label, SeriesStyle style) {
    return add({Kind::Band, std::move(x), std::move(lo), std::move(hi), std::move(label),
                std::move(style)});
}
Plot& Plot::ellipse(const Eigen::Vector2d& centre, const Eigen::Matrix2d& cov, double n_sd,
                    std::string label, SeriesStyle style) {
    const Eigen::MatrixX2d p = ellipse_points(centre, cov, n_sd);
    return line({p.col(0).begin(), p.col(0).end()}, {p.col(1).begin(), p.col(1).end()},
                std::move(label), std::move(style));
}
Plot& Plot::vline(double x, std::string label, SeriesStyle style) {
    return add({Kind::VLine, {x}, {}, {}, std::move(label), std::move(style)});
}
Plot& Plot::hline(double y, std::string label, SeriesStyle style) {
    return add({Kind::HLine, {}, {y}, {}, std::move(label), std::move(style)});
}

std::string Plot::svg() const {
    // The data's extent on each axis (values a log axis cannot show are left out).
    double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
    double y_lo = x_lo, y_hi = -x_lo;
    auto take = [](double v, bool log_axis, double& lo, double& hi) {
        if (!usable(v, log_axis))
            return;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    };
    for (const Series& s : series_) {
        for (double v : s.x) take(v, log_x_, x_lo, x_hi);
        for (double v : s.y) take(v, log_y_, y_lo, y_hi);
        for (double v : s.y2) take(v, log_y_, y_lo, y_hi);
    }
    if (!std::isfinite(x_lo))
        x_lo = x_hi = log_x_ ? 1 : 0;
    if (!std::isfinite(y_lo))
        y_lo = y_hi = log_y_ ? 1 : 0;
    const Range xr = x_fixed_ ? x_range_ : padded_range(x_lo, x_hi, log_x_);
    const Range yr = y_fixed_ ? y_range_ : padded_range(y_lo, y_hi, log_y_);

    bool has_legend = false;
    for (const Series& s : series_) has_legend = has_legend || !s.label.empty();
    const double left = 72, top = 40, bottom = 52;
    const double right = has_legend ? 190 : 20;
    const double x0 = left, x1 = width_ - right, y0 = height_ - bottom, y1 = top;
    const Scale sx(xr.lo, xr.hi, x0, x1, log_x_);
    const Scale sy(yr.lo, yr.hi, y0, y1, log_y_);

    // What a page's test reads: the points drawn (a line's, a band's, the scatter's).
    std::string page_attributes;
    const std::string clip_id = id_.empty() ? "area" : id_ + "-area";
    if (!id_.empty()) {
        std::size_t drawn = 0;
        for (const Series& s : series_) {
            for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
                drawn += usable(s.x[i], log_x_) && usable(s.y[i], log_y_);
        }
        page_attributes = fmt::format(" id=\"{}\" data-points=\"{}\"", xml_escape(id_), drawn);
    }
    std::string o;
    o += fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\"{2} width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
        width_, height_, page_attributes);
    o += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", width_, height_);
    o += fmt::format("<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
                     px((x0 + x1) / 2), xml_escape(title_));
    o += fmt::format(
        "<clipPath id=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
        "</clipPath>\n",
        xml_escape(clip_id), px(x0), px(y1), px(x1 - x0), px(y0 - y1));

    // Grid and ticks.
    const std::vector<double> xt = log_x_ ? log_ticks(xr.lo, xr.hi) : linear_ticks(xr.lo, xr.hi);
    const std::vector<double> yt = log_y_ ? log_ticks(yr.lo, yr.hi) : linear_ticks(yr.lo, yr.hi);
    auto step_of = [](const std::vector<double>& t) { return t.size() > 1 ? t[1] - t[0] : 1.0; };
    o += "<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
    for (double v : xt)
        o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", px(sx(v)), px(y0),
                         px(y1));
    for (double v : yt)
        o += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>\n", px(sy(v)), px(x0),
                         px(x1));
    o += "</g>\n";
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
        "stroke=\"#000000\" stroke-width=\"1\"/>\n",
        px(x0), px(y1), px(x1 - x0), px(y0 - y1));
    o += "<g text-anchor=\"middle\">\n";
    for (double v : xt) {
        o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", px(sx(v)), px(y0 + 16),
                         tick_label(v, step_of(xt), log_x_));
    }
    o += "</g>\n<g text-anchor=\"end\">\n";
    for (double v : yt) {
        o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", px(x0 - 6), px(sy(v) + 4),
                         tick_label(v, step_of(yt), log_y_));
    }
    o += "</g>\n";
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     px((x0 + x1) / 2), px(height_ - 12.0), xml_escape(x_label_));
    o += fmt::format(
        "<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 16 {0})\">{1}</text>\n",
        px((y0 + y1) / 2), xml_escape(y_label_));

    // The series, clipped to the plot area.
    auto stroke = [](const SeriesStyle& st) {
        std::string a = fmt::format("stroke=\"{}\" stroke-width=\"{}\"", st.colour, st.width);
        if (!st.dash.empty())
            a += fmt::format(" stroke-dasharray=\"{}\"", st.dash);
        return a;
    };
    o += fmt::format("<g clip-path=\"url(#{})\">\n", xml_escape(clip_id));
    for (const Series& s : series_) {
        switch (s.kind) {
            case Kind::Line: {
                // A value the axis cannot show breaks the line into pieces.
                std::string pts;
                auto flush = [&] {
                    if (!pts.empty()) {
                        o += fmt::format("<polyline fill=\"none\" {} points=\"{}\"/>\n",
                                         stroke(s.style), pts);
                    }
                    pts.clear();
                };
                for (std::size_t i = 0; i < s.x.size(); ++i) {
                    if (!usable(s.x[i], log_x_) || !usable(s.y[i], log_y_)) {
                        flush();
                        continue;
                    }
                    if (!pts.empty())
                        pts += ' ';
                    pts += px(sx(s.x[i])) + "," + px(sy(s.y[i]));
                }
                flush();
                break;
            }
            case Kind::Points:
                for (std::size_t i = 0; i < s.x.size(); ++i) {
                    if (!usable(s.x[i], log_x_) || !usable(s.y[i], log_y_))
                        continue;
                    o += fmt::format(
                        "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {}/>\n", px(sx(s.x[i])),
                        px(sy(s.y[i])), s.style.radius,
                        s.style.hollow
                            ? fmt::format("fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"",
                                          s.style.colour)
                            : fmt::format("fill=\"{}\"", s.style.colour));
                }
                break;
            case Kind::Band: {
                std::string pts;
                for (std::size_t i = 0; i < s.x.size(); ++i) {
                    if (!usable(s.x[i], log_x_) || !usable(s.y2[i], log_y_))
                        continue;
                    pts += px(sx(s.x[i])) + "," + px(sy(s.y2[i])) + " ";
                }
                for (std::size_t i = s.x.size(); i-- > 0;) {
                    if (!usable(s.x[i], log_x_) || !usable(s.y[i], log_y_))
                        continue;
                    pts += px(sx(s.x[i])) + "," + px(sy(s.y[i])) + " ";
                }
                if (!pts.empty())
                    pts.pop_back();
                o += fmt::format(
                    "<polygon fill=\"{}\" fill-opacity=\"{}\" stroke=\"none\" "
                    "points=\"{}\"/>\n",
                    s.style.colour, s.style.opacity, pts);
                break;
            }
            case Kind::VLine:
                if (usable(s.x[0], log_x_)) {
                    o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" {3}/>\n",
                                     px(sx(s.x[0])), px(y0), px(y1), stroke(s.style));
                }
                break;
            case Kind::HLine:
                if (usable(s.y[0], log_y_)) {
                    o += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" {3}/>\n",
                                     px(sy(s.y[0])), px(x0), px(x1), stroke(s.style));
                }
                break;
        }
    }
    o += "</g>\n";

    // The legend, right of the plot area: a sample of each series' mark and its label.
    if (has_legend) {
        double ly = y1 + 10;
        const double lx = x1 + 14;
        for (const Series& s : series_) {
            if (s.label.empty())
                continue;
            if (s.kind == Kind::Points) {
                o += fmt::format(
                    "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {}/>\n", px(lx + 12), px(ly),
                    s.style.radius,
                    s.style.hollow ? fmt::format("fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"",
                                                 s.style.colour)
                                   : fmt::format("fill=\"{}\"", s.style.colour));
            } else if (s.kind == Kind::Band) {
                o += fmt::format(
                    "<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"10\" fill=\"{}\" "
                    "fill-opacity=\"{}\"/>\n",
                    px(lx), px(ly - 5), s.style.colour, s.style.opacity);
            } else {
                o += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" {3}/>\n",
                                 px(lx), px(lx + 24), px(ly), stroke(s.style));
            }
            o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", px(lx + 32), px(ly + 4),
                             xml_escape(s.label));
            ly += 20;
        }
    }
    o += "</svg>\n";
    return o;
}

// ---- HeatMap ----

HeatMap::HeatMap(std::string title, Eigen::MatrixXd m, std::string x_label, std::string y_label)
    : title_(std::move(title)),
      x_label_(std::move(x_label)),
      y_label_(std::move(y_label)),
      m_(std::move(m)) {
    if (m_.size() == 0)
        throw std::invalid_argument(fmt::format("HeatMap `{}`: empty", title_));
}

HeatMap& HeatMap::size(int width, int height) {
    width_ = width;
    height_ = height;
    return *this;
}
HeatMap& HeatMap::index_base(int base) {
    base_ = base;
    return *this;
}

std::string HeatMap::svg() const {
    const double left = 60, top = 40, bottom = 50, bar_gap = 24, bar_w = 18, bar_labels = 70;
    const double area_w = width_ - left - bar_gap - bar_w - bar_labels;
    const double area_h = height_ - top - bottom;
    const auto rows = m_.rows(), cols = m_.cols();
    const double cw = area_w / cols, ch = area_h / rows;
    double max_abs = m_.cwiseAbs().maxCoeff();
    if (!(max_abs > 0))
        max_abs = 1;

    std::string o;
    o += fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
        width_, height_);
    o += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", width_, height_);
    o += fmt::format("<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
                     px(left + area_w / 2), xml_escape(title_));
    // Colours in 2 x 32 steps (as the bar's bands), and a run of equal colours in a row as one
    // rectangle: a banded covariance is mostly white, so the file stays small. Rectangles are
    // a hair wider than their pitch, so that renderers leave no seams between them.
    auto colour = [&](double v) { return diverging_colour(std::round(32 * v / max_abs) / 32); };
    o += "<g shape-rendering=\"crispEdges\">\n";
    for (Eigen::Index i = 0; i < rows; ++i) {
        for (Eigen::Index j = 0; j < cols;) {
            const std::string c = colour(m_(i, j));
            Eigen::Index k = j + 1;
            while (k < cols && colour(m_(i, k)) == c) ++k;
            o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                             px(left + j * cw), px(top + i * ch), px((k - j) * cw + 0.3),
                             px(ch + 0.3), c);
            j = k;
        }
    }
    o += "</g>\n";
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
        "stroke=\"#000000\"/>\n",
        px(left), px(top), px(area_w), px(area_h));
    // Index ticks at cell centres.
    auto index_ticks = [&](Eigen::Index n) {
        std::vector<double> t = linear_ticks(base_, base_ + n - 1.0, 6);
        std::erase_if(t, [](double v) { return v != std::round(v); });
        return t;
    };
    for (double v : index_ticks(cols)) {
        const double x = left + (v - base_ + 0.5) * cw;
        o += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#000000\"/>\n",
                         px(x), px(top + area_h), px(top + area_h + 4));
        o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x),
                         px(top + area_h + 17), tick_label(v, 1, false));
    }
    for (double v : index_ticks(rows)) {
        const double y = top + (v - base_ + 0.5) * ch;
        o += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#000000\"/>\n",
                         px(y), px(left - 4), px(left));
        o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(left - 6),
                         px(y + 4), tick_label(v, 1, false));
    }
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     px(left + area_w / 2), px(height_ - 12.0), xml_escape(x_label_));
    o += fmt::format(
        "<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 16 {0})\">{1}</text>\n",
        px(top + area_h / 2), xml_escape(y_label_));

    // The colour bar: [-max|m|, max|m|] top to bottom as 64 bands, with round ticks.
    const double bx = left + area_w + bar_gap;
    const int bands = 64;
    for (int k = 0; k < bands; ++k) {
        const double v = 1 - 2 * (k + 0.5) / bands;
        o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                         px(bx), px(top + k * area_h / bands), px(bar_w), px(area_h / bands + 0.3),
                         diverging_colour(v));
    }
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
        "stroke=\"#000000\"/>\n",
        px(bx), px(top), px(bar_w), px(area_h));
    const Scale sb(-max_abs, max_abs, top + area_h, top, false);
    const std::vector<double> bt = linear_ticks(-max_abs, max_abs, 7);
    const double bstep = bt.size() > 1 ? bt[1] - bt[0] : max_abs;
    for (double v : bt) {
        o += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#000000\"/>\n",
                         px(sb(v)), px(bx + bar_w), px(bx + bar_w + 4));
        o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", px(bx + bar_w + 7), px(sb(v) + 4),
                         tick_label(v, bstep, false));
    }
    o += "</svg>\n";
    return o;
}

void save_atomically(const std::filesystem::path& path, const std::string& text) {
    if (path.has_parent_path())
        std::filesystem::create_directories(path.parent_path());
    write_output_file(path, [&](const WriteText& write) { write(text); });
}

}  // namespace advi::report
