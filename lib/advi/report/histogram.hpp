// The histogram of one column of draws, as a fit's HTML report draws each marginal: equal-width
// bins over the range of the finite values, as many as the Rice rule gives for the draws.
#pragma once

#include <vector>

#include <Eigen/Core>

namespace advi::report {

struct Histogram {
    std::vector<double> edges;   // bins + 1 increasing edges; bin b is [edges[b], edges[b + 1])
    std::vector<int> counts;     // draws per bin (the last bin also holds its upper edge)
    Eigen::Index nonfinite = 0;  // draws left out: NaN or infinite
};

// The Rice rule, ceil(2 n^(1/3)) bins for n draws, kept within [5, 40]: a few bins for a few
// draws, and never so many that a small multiple's bars are thinner than a pixel or two.
[[nodiscard]] int histogram_bins(Eigen::Index draws);

// `bins` equal bins over [min, max] of the finite values of x. All values equal: the bins span
// the value +- 10% of its magnitude (+- 0.5 at 0), so that the one bar sits in the middle. No
// finite value: the bins span [0, 1] and count nothing.
[[nodiscard]] Histogram histogram(const Eigen::Ref<const Eigen::VectorXd>& x, int bins);

}  // namespace advi::report
