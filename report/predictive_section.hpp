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

// The paper's mixture at its own scale (section 4.3, issue 23): K = 30 on gmm_large's first
// 240,000 x 576 rows (`data`/gmm.y.npy, memory-mapped) in minibatches of B = 100, 500 and 1000,
// the held-out density of its last 10,000 rows (`data`/gmm_test.y_test.npy) against wall time,
// and at the simulation's true parameters (`data`/gmm_large.truth.json). The files are made by
// ../shared/data/gen/generate.py --large --only gmm and report/minibatch/gmm_large.sh's
// conversion. Saves predictive_gmm_large.svg into `out`; returns the Markdown.
[[nodiscard]] std::string predictive_large_section(const std::filesystem::path& out,
                                                   const std::filesystem::path& data);

}  // namespace advi::report
