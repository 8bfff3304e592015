// PSIS resampling of a fit's output draws (issue 19), as CmdStan's multi-path pathfinder does
// with psis_resample: the Pareto-smoothed importance weights of log_p__ - log_g__ (psis.hpp),
// then as many draws as there were, drawn with replacement with those probabilities. Where q
// is off but k-hat is below its threshold, the resampled draws are closer to the posterior's.
#pragma once

#include <vector>

#include <cstdint>

#include <advi/fit/fit.hpp>

namespace advi {

// The fit with its output draws (both spaces, log_p and log_g with them) resampled with
// replacement by their smoothed importance weights, from a generator seeded with `seed` (a
// stream apart from the fit's). Its verdict is the original draws', marked resampled, with
// the number of distinct draws kept. Throws FitError when no draw has a finite weight.
// `count` draws instead of as many as there were where count >= 0 (multi-path Pathfinder: its
// num_psis_draws from the paths' pooled draws); the indices of the draws taken, in order, in
// `picks` where it is given.
[[nodiscard]] Fit psis_resample(const Fit& fit, std::uint64_t seed, Eigen::Index count = -1,
                                std::vector<Eigen::Index>* picks = nullptr);

}  // namespace advi
