#include <advi/ranks/mpi_ranks.hpp>

#include <cstdlib>
#include <vector>

#include <mpi.h>

#include <advi/base/error.hpp>

namespace advi {

MpiSession::MpiSession(int* argc, char*** argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized == 0)
        MPI_Init(argc, argv);
    // Errors come back as codes (checked below), not as the default's abort of the job.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0)
        MPI_Finalize();
}

MpiRanks::MpiRanks() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized == 0)
        throw Error("MpiRanks: MPI is not initialised (make an advi::MpiSession first)");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

void MpiRanks::all_gather(std::span<const double> mine, std::span<const int> counts,
                          std::span<double> all) {
    std::vector<int> displacements(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r)
        displacements[r] = displacements[r - 1] + counts[r - 1];
    const int rc =
        MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                       counts.data(), displacements.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int length = 0;
        MPI_Error_string(rc, text, &length);
        throw Error("MPI_Allgatherv failed: " +
                    std::string(text, static_cast<std::size_t>(length)));
    }
}

void MpiRanks::abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);  // not reached
}

}  // namespace advi
