// Randomised quasi-Monte Carlo draws (issue 20, item 4): the first n points of the Sobol
// sequence (Joe and Kuo's direction numbers, Boost.Random), randomised afresh at every call by
// a random linear scrambling and a random digital shift (Matousek 1998; each coordinate of each
// point is then uniform on (0, 1), so estimates stay unbiased, while the points keep the net's
// even spread), mapped to standard normals by the inverse normal CDF. Where n draws of a smooth
// integrand are averaged, the error falls faster than Monte Carlo's 1 / sqrt(n). Coordinates
// beyond the Sobol table's 3667 are plain Monte Carlo ("padding", Owen 1998).
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <advi/engine/rng.hpp>

namespace advi {

class RqmcNormals {
public:
    // The dimensions Boost's Sobol table has.
    static constexpr int kMaxSobolDim = 3667;

    explicit RqmcNormals(int dim) : dim_(dim) {}

    // n draws of N(0, I_dim), one per row: points 0..n-1 of the sequence, scrambled and
    // shifted with randomness from `rng` (a fresh randomisation per call).
    [[nodiscard]] Eigen::MatrixXd draw(Rng& rng, int n);

    [[nodiscard]] int dim() const { return dim_; }

private:
    // The sequence's first `n` points (32-bit digits), point-major, grown on demand.
    void extend(int n);

    int dim_;
    int points_ = 0;
    std::vector<std::uint32_t> sobol_;  // points_ x min(dim, kMaxSobolDim)
};

}  // namespace advi
