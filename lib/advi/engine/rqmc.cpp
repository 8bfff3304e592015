// Sobol points with random linear scrambling and digital shift, to normals.
#include <advi/engine/rqmc.hpp>

#include <algorithm>
#include <bit>
#include <cmath>

#include <boost/math/special_functions/erf.hpp>
#include <boost/random/sobol.hpp>

namespace advi {

namespace {

// A uniform on [0, 1) from the top 53 bits.
double uniform(Rng& rng) {
    return static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;
}

// Phi^-1(u) for u in (0, 1).
double normal_quantile(double u) {
    return -std::sqrt(2.0) * boost::math::erfc_inv(2.0 * u);
}

}  // namespace

void RqmcNormals::extend(int n) {
    if (n <= points_)
        return;
    const int s = std::min(dim_, kMaxSobolDim);
    // Point 0 is the origin; Boost's engine starts at point 1 and gives the points in order, a
    // coordinate per call, as 64-bit integers whose top 32 bits are the first 32 binary
    // digits. Points 0..2^m - 1 form a (t, m, s)-net: the first n, not 1..n.
    boost::random::sobol engine(static_cast<std::size_t>(s));
    sobol_.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(s), 0u);
    for (std::size_t k = static_cast<std::size_t>(s); k < sobol_.size(); ++k)
        sobol_[k] = static_cast<std::uint32_t>(engine() >> 32);
    points_ = n;
}

Eigen::MatrixXd RqmcNormals::draw(Rng& rng, int n) {
    extend(n);
    const int s = std::min(dim_, kMaxSobolDim);
    Eigen::MatrixXd out(n, dim_);
    // Per coordinate: a random lower-triangular binary matrix with unit diagonal (row k, the
    // k-th digit from the most significant, a mask of the digits l <= k of the input) and a
    // random shift; y = M x XOR shift keeps the (t, m, s)-net structure and makes each digit
    // uniform. Then a uniform offset within the 2^-32 cell, so that the point is uniform on
    // (0, 1) and never 0.
    std::uint32_t rows[32];
    for (int j = 0; j < s; ++j) {
        for (int k = 0; k < 32; ++k) {
            // Digit k is bit 31 - k; the mask keeps digits 0..k-1 random and digit k set.
            const std::uint32_t random = static_cast<std::uint32_t>(rng.next_u64() >> 32);
            const std::uint32_t above = k == 0 ? 0u : ~((1u << (32 - k)) - 1u);  // digits < k
            rows[k] = (random & above) | (1u << (31 - k));
        }
        const auto shift = static_cast<std::uint32_t>(rng.next_u64() >> 32);
        for (int i = 0; i < n; ++i) {
            const std::uint32_t x = sobol_[static_cast<std::size_t>(i) * s + j];
            std::uint32_t y = 0;
            for (int k = 0; k < 32; ++k)
                y |= static_cast<std::uint32_t>(std::popcount(rows[k] & x) & 1) << (31 - k);
            y ^= shift;
            const double u = (static_cast<double>(y) + uniform(rng)) * 0x1.0p-32;
            out(i, j) = normal_quantile(std::clamp(u, 0x1.0p-60, 1.0 - 0x1.0p-53));
        }
    }
    // Padding: the coordinates beyond the table, plain Monte Carlo.
    for (int j = s; j < dim_; ++j)
        for (int i = 0; i < n; ++i) out(i, j) = rng.normal();
    return out;
}

}  // namespace advi
