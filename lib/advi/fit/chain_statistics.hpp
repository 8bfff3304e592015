// Statistics of draws held in chains, as CmdStan's stansummary and the posterior package
// report them (Vehtari, Gelman, Simpson, Carpenter and Buerkner 2021, "Rank-normalization,
// folding, and localization: an improved R-hat"): the Monte Carlo standard error of the mean,
// the bulk and tail effective sample sizes, and the rank-normalised split R-hat. Independent
// draws of q give ESS near their count and R-hat near 1; draws of several runs that disagree
// give R-hat above 1, which is what `advi summary` of several files can see.
#pragma once

#include <vector>

#include <Eigen/Core>

namespace advi {

// One quantity's draws, one vector per chain (file) in draw order.
using Chains = std::vector<Eigen::VectorXd>;

// Each chain cut into its two halves (the middle draw of an odd chain left out): the split
// that lets R-hat and ESS see a trend within a chain.
[[nodiscard]] Chains split_chains(const Chains& chains);

// The effective sample size of the mean (Geyer's initial monotone sequence over the chains'
// autocorrelations, combined across chains as Stan does), of the chains as given. NaN when a
// value is not finite, when the draws are constant, or when a chain has fewer than 3 draws.
[[nodiscard]] double ess_basic(const Chains& chains);

// R-hat of the chains as given (between- against within-chain variance). NaN as ess_basic.
[[nodiscard]] double rhat_basic(const Chains& chains);

// The values replaced by normal scores of their ranks over all chains (average ranks for
// ties, Blom's offset 3/8).
[[nodiscard]] Chains z_scale(const Chains& chains);

// ESS of the rank-normalised split chains (the bulk), the smaller of the ESS of the 5% and 95%
// quantile indicators of the split chains (the tail), and the larger of the rank-normalised
// split R-hat of the values and of their distance from the median (folded). NaN as
// ess_basic.
[[nodiscard]] double ess_bulk(const Chains& chains);
[[nodiscard]] double ess_tail(const Chains& chains);
[[nodiscard]] double rhat(const Chains& chains);

// One quantity's row of stansummary: over all draws of all chains.
struct ChainStatistics {
    double mean = 0.0;
    double mcse = 0.0;  // sd / sqrt(ESS of the mean of the split chains)
    double sd = 0.0;
    double mad = 0.0;               // 1.4826 * median |x - median|, R's mad
    std::vector<double> quantiles;  // at the probabilities asked, R's type 7
    double ess_bulk = 0.0, ess_tail = 0.0, rhat = 0.0;
    Eigen::Index draws = 0;      // finite draws summarised
    Eigen::Index nonfinite = 0;  // draws of +-inf or NaN: left out of mean, sd, MAD, quantiles
};

// Mean, sd, MAD and quantiles over the finite draws (as draw_summary.hpp); MCSE, ESS and
// R-hat over all draws, NaN when one is not finite (a chain with a hole in it has no
// autocorrelation) or the draws are constant.
[[nodiscard]] ChainStatistics chain_statistics(const Chains& chains,
                                               const std::vector<double>& probabilities);

}  // namespace advi
