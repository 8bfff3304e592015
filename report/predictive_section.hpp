// Section 4 of the report: the average held-out log predictive density against wall time,
// recorded while each fit runs (advi/predictive.hpp's PredictiveTrace).
#pragma once

#include <filesystem>
#include <string>

namespace advi::report {

// Fits linear regression with ARD and hierarchical logistic regression (M = 1 and M = 10
// gradient draws) and the Gaussian mixture (minibatches of 100 and 500 rows and the full
// data) on the shared `medium` sets, saves one SVG per model into `out` and returns the
// section's Markdown.
[[nodiscard]] std::string predictive_section(const std::filesystem::path& out);

}  // namespace advi::report
