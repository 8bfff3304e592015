// The report's non-negative matrix factorisation section (paper section 4.2, appendix A.3 and
// A.4): the rates each model recovers on its simulated data, and the factors it finds on real
// images (Fashion-MNIST cropped to the Frey faces' 28 x 20, the paper's data being unavailable).
#pragma once

#include <filesystem>
#include <string>

namespace advi::report {

[[nodiscard]] std::string nmf_section(const std::filesystem::path& out);

}  // namespace advi::report
