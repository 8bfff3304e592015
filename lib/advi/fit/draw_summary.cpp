// Finite-draw summaries for the fit's tables.
#include <advi/fit/draw_summary.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace advi {

namespace {

std::vector<double> sorted_finite(const Eigen::Ref<const Eigen::VectorXd>& x) {
    std::vector<double> v;
    v.reserve(static_cast<std::size_t>(x.size()));
    for (Eigen::Index i = 0; i < x.size(); ++i) {
        if (std::isfinite(x[i]))
            v.push_back(x[i]);
    }
    std::sort(v.begin(), v.end());
    return v;
}

double quantile_sorted(const std::vector<double>& v, double p) {
    if (v.empty())
        return 0.0;
    const double h = (static_cast<double>(v.size()) - 1.0) * p;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    // Written as a weighted sum, v[hi] - v[lo] could overflow for values near +-max.
    const double w = h - static_cast<double>(lo);
    return w == 0.0 ? v[lo] : (1.0 - w) * v[lo] + w * v[hi];
}

}  // namespace

double finite_quantile(const Eigen::Ref<const Eigen::VectorXd>& x, double p) {
    return quantile_sorted(sorted_finite(x), p);
}

DrawSummary summarize_draws(const Eigen::Ref<const Eigen::VectorXd>& x) {
    const std::vector<double> v = sorted_finite(x);
    DrawSummary s;
    s.finite = static_cast<Eigen::Index>(v.size());
    s.nonfinite = x.size() - s.finite;
    if (v.empty())
        return s;
    const double scale = std::max(std::fabs(v.front()), std::fabs(v.back()));
    if (scale > 0.0) {
        const double n = static_cast<double>(v.size());
        double m = 0.0;
        for (const double xi : v) m += xi / scale;
        m /= n;
        double ss = 0.0;
        for (const double xi : v) ss += (xi / scale - m) * (xi / scale - m);
        s.mean = m * scale;
        s.sd = v.size() > 1 ? std::sqrt(ss / (n - 1.0)) * scale : 0.0;
    }
    s.q5 = quantile_sorted(v, 0.05);
    s.q50 = quantile_sorted(v, 0.5);
    s.q95 = quantile_sorted(v, 0.95);
    return s;
}

std::string summary_row(std::string_view label, const DrawSummary& s) {
    if (s.finite == 0) {
        return fmt::format("{:<20} no finite draws (all {} non-finite)\n", label, s.nonfinite);
    }
    std::string row = fmt::format("{:<20} {:>12.4g} {:>12.4g} {:>12.4g} {:>12.4g} {:>12.4g}", label,
                                  s.mean, s.sd, s.q5, s.q50, s.q95);
    if (s.nonfinite > 0) {
        row += fmt::format("  ({} non-finite draw{} left out)", s.nonfinite,
                           s.nonfinite == 1 ? "" : "s");
    }
    return row + "\n";
}

}  // namespace advi
