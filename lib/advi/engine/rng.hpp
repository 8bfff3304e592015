// The engine's only source of randomness: a seeded mt19937_64 with portable normal draws,
// so that the same seed gives bit-identical fits on every platform.
#pragma once

#include <cstdint>
#include <memory>

#include <Eigen/Core>

namespace advi {

// Wraps boost::random::mt19937_64 and boost's normal_distribution (std's normal
// distribution is implementation-defined, so it would not be reproducible across libraries).
// Boost stays out of this header: it is a private dependency of the library.
class Rng {
public:
    explicit Rng(std::uint64_t seed);
    Rng(const Rng& other);
    Rng& operator=(const Rng& other);
    Rng(Rng&&) noexcept;
    Rng& operator=(Rng&&) noexcept;
    ~Rng();

    // Raw 64-bit output; used to seed derived streams.
    std::uint64_t next_u64();
    // A new generator seeded from this one: independent streams for independent purposes.
    Rng split();
    double normal();
    void fill_normal(Eigen::VectorXd& v);
    // rows x cols standard normals, filled a row at a time (a row is one draw).
    Eigen::MatrixXd normal_matrix(int rows, int cols);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace advi
