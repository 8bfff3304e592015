// Equal-width bins over the finite values' range.
#include <advi/report/histogram.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace advi::report {

int histogram_bins(Eigen::Index draws) {
    // Less a hair, so that a perfect cube's root rounded up (cbrt(27) = 3.0000000000000004)
    // does not add a bin.
    const double root = std::cbrt(static_cast<double>(std::max<Eigen::Index>(draws, 0)));
    const double rice = std::ceil(2.0 * root - 1e-9);
    return static_cast<int>(std::clamp(rice, 5.0, 40.0));
}

Histogram histogram(const Eigen::Ref<const Eigen::VectorXd>& x, int bins) {
    bins = std::max(bins, 1);
    Histogram h;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const double v : x) {
        if (!std::isfinite(v)) {
            ++h.nonfinite;
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (!std::isfinite(lo)) {
        lo = 0.0;
        hi = 1.0;
    } else if (!(hi > lo)) {
        const double spread = lo == 0.0 ? 0.5 : 0.1 * std::abs(lo);
        lo -= spread;
        hi += spread;
    }
    const double width = (hi - lo) / bins;
    h.edges.resize(bins + 1);
    for (int b = 0; b <= bins; ++b) h.edges[b] = lo + b * width;
    h.edges[bins] = hi;  // exactly the largest value, whatever the rounding of lo + bins * width
    h.counts.assign(bins, 0);
    for (const double v : x) {
        if (!std::isfinite(v))
            continue;
        const auto b = static_cast<int>(std::floor((v - lo) / width));
        ++h.counts[std::clamp(b, 0, bins - 1)];
    }
    return h;
}

}  // namespace advi::report
