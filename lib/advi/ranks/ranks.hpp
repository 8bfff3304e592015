// Processes that share one fit (issue 23, item 4): each rank evaluates its own shards of the
// data's rows and the ranks exchange the shards' results, so that every rank sums them in the
// same fixed order and holds the same bits; the rest of the fit runs alike on every rank, and
// rank 0 writes the output. The fit layer needs only this interface; `OneRank` is a single
// process, `MpiRanks` (mpi_ranks.hpp, built with -DADVI_MPI=ON) the processes of an MPI job.
#pragma once

#include <algorithm>
#include <span>

namespace advi {

class Ranks {
public:
    virtual ~Ranks() = default;
    [[nodiscard]] virtual int rank() const = 0;
    [[nodiscard]] virtual int size() const = 0;
    // Every rank passes its own values (counts[rank()] of them) and receives every rank's in
    // rank order in `all` (the counts summed). A collective: every rank calls it, in the same
    // sequence of calls.
    virtual void all_gather(std::span<const double> mine, std::span<const int> counts,
                            std::span<double> all) = 0;
    // Ends every rank's process with `code` (an error on one rank, which the others would
    // wait for in their next collective).
    [[noreturn]] virtual void abort(int code) = 0;
};

class OneRank final : public Ranks {
public:
    [[nodiscard]] int rank() const override { return 0; }
    [[nodiscard]] int size() const override { return 1; }
    void all_gather(std::span<const double> mine, std::span<const int>,
                    std::span<double> all) override {
        std::copy(mine.begin(), mine.end(), all.begin());
    }
    [[noreturn]] void abort(int code) override;
};

}  // namespace advi
