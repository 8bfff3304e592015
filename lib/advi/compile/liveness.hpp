// Liveness: the unit at which each buffer is read for the last time (outputs live to the end
// of the run), which data-only values must survive between runs, and the bytes of data one run
// reads.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <advi/compile/schedule.hpp>

namespace advi {

struct Liveness {
    const Schedule* schedule = nullptr;
    std::vector<int> last_use;  // per buffer-owning node: the unit of its last read, or -1
    std::vector<bool> kept;     // read by a per-run node or an output
    std::size_t data_bytes_per_run = 0;

    // One line per buffer read: `%7 vec[3]: last read in unit 4 (kept)`.
    [[nodiscard]] std::string str() const;
};

[[nodiscard]] Liveness liveness(const Schedule& schedule);

}  // namespace advi
