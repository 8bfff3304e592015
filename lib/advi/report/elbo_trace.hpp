// The ELBO trace that `advi fit --diagnostic-file` writes (iter, time_in_seconds, ELBO,
// ELBO_mcse, gain, ...; a row per ELBO evaluation), as a fit's HTML report plots it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace advi::report {

struct ElboTrace {
    std::string file;
    std::vector<double> iteration;
    std::vector<double> elbo;
    // The Monte Carlo standard error of each ELBO (the Auto rule's); NaN where the rule has
    // none (Stan's rule), and all NaN for a CmdStan file without the column.
    std::vector<double> elbo_mcse;
};

// Reads the columns `iter` and `ELBO` (and `ELBO_mcse` when present). Throws DataError, on one
// line naming the file, when it cannot be read, is not CSV of numbers or lacks a column.
[[nodiscard]] ElboTrace read_elbo_trace(const std::filesystem::path& file);
[[nodiscard]] ElboTrace elbo_trace_from_text(std::string_view text, std::string file_name);

}  // namespace advi::report
