// The processes of this run of the tool: one, or under `mpirun -n P` in an MPI build
// (-DADVI_MPI=ON) the job's P ranks, which share `advi fit --rows N`'s shards of rows
// (fit/row_shards.hpp). main() makes one ProcessRanks for the life of the process.
#pragma once

#include <memory>

#include <advi/ranks/ranks.hpp>

namespace advi::cli {

class ProcessRanks {
public:
    ProcessRanks(int* argc, char*** argv);
    ~ProcessRanks();
    ProcessRanks(const ProcessRanks&) = delete;
    ProcessRanks& operator=(const ProcessRanks&) = delete;
    [[nodiscard]] Ranks& ranks();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The ranks of main()'s ProcessRanks (this process alone before it or without MPI).
[[nodiscard]] Ranks& process_ranks();

}  // namespace advi::cli
