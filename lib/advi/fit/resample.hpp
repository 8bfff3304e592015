// PSIS resampling of a fit's output draws (issue 19), as CmdStan's multi-path pathfinder does
// with psis_resample: the Pareto-smoothed importance weights of log_p__ - log_g__ (psis.hpp),
// then as many draws as there were, drawn with replacement with those probabilities. Where q
// is off but k-hat is below its threshold, the resampled draws are closer to the posterior's.
#pragma once

#include <cstdint>

#include <advi/fit/fit.hpp>

namespace advi {

// The fit with its output draws (both spaces, log_p and log_g with them) resampled with
// replacement by their smoothed importance weights, from a generator seeded with `seed` (a
// stream apart from the fit's). Its verdict is the original draws', marked resampled, with
// the number of distinct draws kept. Throws FitError when no draw has a finite weight.
[[nodiscard]] Fit psis_resample(const Fit& fit, std::uint64_t seed);

}  // namespace advi
