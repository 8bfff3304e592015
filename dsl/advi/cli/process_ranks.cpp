#include <advi/cli/process_ranks.hpp>

#include <cstdio>
#include <optional>

#ifdef ADVI_MPI
#include <advi/ranks/mpi_ranks.hpp>
#endif

namespace advi::cli {

namespace {
OneRank one_rank;
Ranks* current = &one_rank;
}  // namespace

struct ProcessRanks::Impl {
#ifdef ADVI_MPI
    std::optional<MpiSession> session;
    std::optional<MpiRanks> ranks;
#endif
};

ProcessRanks::ProcessRanks(int* argc, char*** argv) : impl_(std::make_unique<Impl>()) {
#ifdef ADVI_MPI
    impl_->session.emplace(argc, argv);
    impl_->ranks.emplace();
    current = &*impl_->ranks;
    // Rank 0 alone prints (a program's print statements, the summary); the others' standard
    // output goes nowhere, their errors still to standard error.
    if (current->rank() != 0)
        (void)std::freopen("/dev/null", "w", stdout);
#else
    (void)argc;
    (void)argv;
#endif
}

ProcessRanks::~ProcessRanks() {
    current = &one_rank;
}

Ranks& ProcessRanks::ranks() {
    return *current;
}

Ranks& process_ranks() {
    return *current;
}

}  // namespace advi::cli
