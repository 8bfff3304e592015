// PSIS: the tail fit (loo's gpdfit) and the smoothing of the largest weights.
#include <advi/fit/psis.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

namespace {

struct Gpd {
    double k = 0.0;
    double sigma = 0.0;
};

// Zhang and Stephens' (2009) empirical Bayes estimate of the generalized Pareto's shape and
// scale from exceedances x (ascending, > 0), as loo's gpdfit: a grid of theta = -k / sigma
// weighted by the profile likelihood, then k shrunk towards 0.5 by a prior worth 10 draws.
Gpd gpd_fit(const std::vector<double>& x) {
    const int n = static_cast<int>(x.size());
    const int m = 30 + static_cast<int>(std::floor(std::sqrt(static_cast<double>(n))));
    const double prior = 3.0;
    const double xstar = x[static_cast<std::size_t>(std::floor(n / 4.0 + 0.5)) - 1];
    std::vector<double> theta(m), log_lik(m);
    for (int j = 0; j < m; ++j) {
        theta[j] = 1.0 / x[n - 1] + (1.0 - std::sqrt(m / (j + 0.5))) / prior / xstar;
        double k = 0.0;
        for (const double xi : x) k += std::log1p(-theta[j] * xi);
        k /= n;
        log_lik[j] = n * (std::log(-theta[j] / k) - k - 1.0);
    }
    const double top = *std::max_element(log_lik.begin(), log_lik.end());
    double total = 0.0, theta_hat = 0.0;
    for (int j = 0; j < m; ++j) {
        const double w = std::exp(log_lik[j] - top);
        total += w;
        theta_hat += w * theta[j];
    }
    theta_hat /= total;
    double k = 0.0;
    for (const double xi : x) k += std::log1p(-theta_hat * xi);
    k /= n;
    const double sigma = -k / theta_hat;
    return {.k = (k * n + 0.5 * 10) / (n + 10), .sigma = sigma};
}

// How many of n finite ratios psis() takes as the tail: the largest ceil(min(0.2 n, 3 sqrt n)),
// as loo; gpd_fit needs kMinTail of them.
int tail_length(int n) {
    return static_cast<int>(std::ceil(std::min(0.2 * n, 3.0 * std::sqrt(static_cast<double>(n)))));
}
constexpr int kMinTail = 5;

// The generalized Pareto's p-quantile.
double gpd_quantile(double p, const Gpd& g) {
    if (std::abs(g.k) < 1e-12)
        return -g.sigma * std::log1p(-p);
    return g.sigma * std::expm1(-g.k * std::log1p(-p)) / g.k;
}

}  // namespace

Psis psis(const Eigen::VectorXd& log_ratios) {
    Psis out;
    const auto S = static_cast<int>(log_ratios.size());
    std::vector<int> finite;
    for (int i = 0; i < S; ++i) {
        const double r = log_ratios[i];
        if (std::isnan(r) || r == std::numeric_limits<double>::infinity())
            throw InternalError(fmt::format("PSIS: log ratio {} is {}", i, r));
        if (std::isfinite(r))
            finite.push_back(i);
    }
    out.draws = static_cast<int>(finite.size());
    out.k_threshold = S > 1 ? std::min(1.0 - 1.0 / std::log10(static_cast<double>(S)), 0.7) : 0.0;
    out.log_weights = Eigen::VectorXd::Constant(S, -std::numeric_limits<double>::infinity());
    out.k_hat = std::numeric_limits<double>::quiet_NaN();
    if (finite.empty())
        return out;
    std::sort(finite.begin(), finite.end(),
              [&](int a, int b) { return log_ratios[a] < log_ratios[b]; });
    const double top = log_ratios[finite.back()];
    const double bottom = log_ratios[finite.front()];
    for (const int i : finite) out.log_weights[i] = log_ratios[i] - top;
    // Constant ratios (g is p up to a constant, to rounding): uniform weights, no tail.
    out.constant = top - bottom <= 1e-9 * std::max(1.0, std::abs(top));
    const int n = out.draws;
    const int M = tail_length(n);
    if (!out.constant && M >= kMinTail && n > M) {
        // The M largest ratios above the cutoff, the (M+1)-th largest; weights relative to
        // the largest, so that exp() cannot overflow.
        const double cutoff = out.log_weights[finite[n - M - 1]];
        std::vector<double> x(M);
        for (int j = 0; j < M; ++j)
            x[j] = std::exp(out.log_weights[finite[n - M + j]]) - std::exp(cutoff);
        if (x.back() > 0 && x.front() >= 0) {
            // Exceedances of 0 (ties at the cutoff) carry no information on the tail's shape
            // but count in its length; gpd_fit needs them positive.
            std::vector<double> pos;
            for (const double v : x)
                if (v > 0)
                    pos.push_back(v);
            if (pos.size() >= kMinTail) {
                const Gpd g = gpd_fit(pos);
                out.k_hat = g.k;
                out.tail = M;
                // Replace the tail by the fitted quantiles at (j + 0.5) / M, ordered as the
                // raw ones, never above the largest raw weight (1, log 0).
                if (std::isfinite(g.k) && g.sigma > 0) {
                    for (int j = 0; j < M; ++j) {
                        const double w = std::exp(cutoff) + gpd_quantile((j + 0.5) / M, g);
                        out.log_weights[finite[n - M + j]] = std::min(std::log(w), 0.0);
                    }
                }
            }
        }
    }
    // Normalise and measure.
    double total = 0.0;
    for (const int i : finite) total += std::exp(out.log_weights[i]);
    const double log_total = std::log(total);
    double sum_sq = 0.0;
    for (const int i : finite) {
        out.log_weights[i] -= log_total;
        sum_sq += std::exp(2.0 * out.log_weights[i]);
    }
    out.ess = 1.0 / sum_sq;
    return out;
}

int psis_min_draws() {
    int n = 1;
    while (tail_length(n) < kMinTail || n <= tail_length(n)) ++n;
    return n;
}

std::string psis_text(const Psis& p) {
    if (p.constant) {
        return fmt::format(
            "log p - log g is constant over the {} draws: the approximation is exact up to a "
            "constant (importance-sampling ESS {:.0f})",
            p.draws, p.ess);
    }
    if (std::isnan(p.k_hat)) {
        if (p.draws >= psis_min_draws()) {
            return fmt::format(
                "Pareto k-hat not computed (a few of the {} weights dwarf all the others: no "
                "tail to fit)",
                p.draws);
        }
        return fmt::format("Pareto k-hat not computed ({} finite log ratios: too few for a tail)",
                           p.draws);
    }
    return fmt::format("Pareto k-hat {:.2f} ({} {:.2f}: {}), importance-sampling ESS {:.0f} of {}",
                       p.k_hat, p.k_hat < p.k_threshold ? "<" : ">=", p.k_threshold,
                       p.k_hat < p.k_threshold ? "reliable" : "unreliable, do not trust", p.ess,
                       p.draws);
}

}  // namespace advi
