// PSIS on growing prefixes of the ratios.
#include <advi/report/khat_curve.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <advi/fit/psis.hpp>

namespace advi::report {

std::vector<int> khat_draw_counts(int total, int points) {
    const int first = psis_min_draws();
    std::vector<int> counts;
    if (total < first)
        return counts;
    points = std::max(points, 2);
    const double log_first = std::log(first), log_total = std::log(total);
    for (int k = 0; k < points; ++k) {
        const double t = static_cast<double>(k) / (points - 1);
        const int n =
            static_cast<int>(std::lround(std::exp(log_first + t * (log_total - log_first))));
        const int clamped = std::clamp(n, first, total);
        if (counts.empty() || clamped > counts.back())
            counts.push_back(clamped);
    }
    if (counts.back() != total)
        counts.push_back(total);
    return counts;
}

std::vector<KhatPoint> khat_curve(const Eigen::VectorXd& log_ratios, int points) {
    std::vector<double> usable;
    usable.reserve(static_cast<std::size_t>(log_ratios.size()));
    for (const double r : log_ratios) {
        if (!std::isnan(r) && r != std::numeric_limits<double>::infinity())
            usable.push_back(r);
    }
    std::vector<KhatPoint> curve;
    for (const int n : khat_draw_counts(static_cast<int>(usable.size()), points)) {
        const Psis p = psis(Eigen::Map<const Eigen::VectorXd>(usable.data(), n));
        curve.push_back({.draws = n, .k_hat = p.k_hat, .threshold = p.k_threshold});
    }
    return curve;
}

}  // namespace advi::report
