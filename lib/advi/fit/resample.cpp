// Multinomial resampling by the smoothed weights: S uniforms through the weights' cumulative
// sum (boost's discrete_distribution, which pathfinder uses, draws the same law).
#include <advi/fit/resample.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/rng.hpp>

namespace advi {

Fit psis_resample(const Fit& fit, std::uint64_t seed, Eigen::Index count,
                  std::vector<Eigen::Index>* picks) {
    const Verdict& before = fit.verdict();
    const Psis& p = before.psis;
    const Eigen::Index S = fit.theta_draws().rows();
    if (p.draws == 0 || p.log_weights.size() != S) {
        throw FitError(fmt::format(
            "PSIS resampling: none of the {} output draws has a finite importance weight "
            "(log_p__ - log_g__)",
            S));
    }
    std::vector<double> cumulative(static_cast<std::size_t>(S));
    double total = 0.0;
    for (Eigen::Index i = 0; i < S; ++i) {
        total += std::exp(p.log_weights[i]);  // exp(-inf) = 0: a draw p gives no mass
        cumulative[static_cast<std::size_t>(i)] = total;
    }
    Rng rng(seed ^ 0x7073697352650000ull);  // "psisRe": a stream apart from the fit's
    const Eigen::Index n = count >= 0 ? count : S;
    std::vector<Eigen::Index> pick(static_cast<std::size_t>(n));
    std::vector<char> chosen(static_cast<std::size_t>(S), 0);
    for (auto& k : pick) {
        // A uniform in [0, total) from the top 53 bits.
        const double u = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53 * total;
        const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
        k = std::min<Eigen::Index>(it - cumulative.begin(), S - 1);
        // Rounding can leave u at the last cumulative sum: never pick a weight of 0.
        while (k > 0 && p.log_weights[k] == -std::numeric_limits<double>::infinity()) --k;
        chosen[static_cast<std::size_t>(k)] = 1;
    }
    Eigen::MatrixXd theta(n, fit.theta_draws().cols());
    Eigen::MatrixXd zeta(n, fit.zeta_draws().cols());
    DrawDensities dens = fit.densities();
    dens.log_p.resize(n);
    dens.log_g.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const Eigen::Index k = pick[static_cast<std::size_t>(i)];
        theta.row(i) = fit.theta_draws().row(k);
        zeta.row(i) = fit.zeta_draws().row(k);
        dens.log_p[i] = fit.log_p()[k];
        dens.log_g[i] = fit.log_g()[k];
    }
    Verdict v = before;
    v.resampled = true;
    v.distinct_draws = static_cast<int>(std::count(chosen.begin(), chosen.end(), 1));
    AdviResult r = fit.result();
    r.draws = std::move(zeta);
    if (picks != nullptr)
        *picks = std::move(pick);
    return Fit(fit.model(), std::move(r), std::move(theta), fit.theta_at_mu(), std::move(dens),
               std::move(v));
}

}  // namespace advi
