// The ranks of an MPI job (MPI_COMM_WORLD), for builds with -DADVI_MPI=ON (Debian's OpenMPI:
// libopenmpi-dev). `MpiSession` initialises MPI for the life of the object (one per process,
// before any MpiRanks) and finalises it after.
#pragma once

#include <advi/ranks/ranks.hpp>

namespace advi {

class MpiSession {
public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
};

class MpiRanks final : public Ranks {
public:
    MpiRanks();
    [[nodiscard]] int rank() const override { return rank_; }
    [[nodiscard]] int size() const override { return size_; }
    void all_gather(std::span<const double> mine, std::span<const int> counts,
                    std::span<double> all) override;
    [[noreturn]] void abort(int code) override;

private:
    int rank_ = 0;
    int size_ = 1;
};

}  // namespace advi
