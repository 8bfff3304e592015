// stansummary's statistics of chains of draws, after the posterior package's definitions.
#include <advi/fit/chain_statistics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/normal.hpp>

#include <advi/fit/draw_summary.hpp>

namespace advi {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The draws are usable for ESS and R-hat: every value finite, every chain 3 draws or more,
// not all equal.
bool usable(const Chains& chains) {
    if (chains.empty())
        return false;
    bool varies = false;
    const double first = chains.front().size() > 0 ? chains.front()[0] : 0.0;
    for (const Eigen::VectorXd& c : chains) {
        if (c.size() < 3 || !c.allFinite())
            return false;
        varies = varies || (c.array() != first).any();
    }
    return varies;
}

double variance(const Eigen::VectorXd& x) {
    const double m = x.mean();
    return (x.array() - m).square().sum() / static_cast<double>(x.size() - 1);
}

Eigen::VectorXd all_draws(const Chains& chains) {
    Eigen::Index n = 0;
    for (const Eigen::VectorXd& c : chains) n += c.size();
    Eigen::VectorXd all(n);
    Eigen::Index at = 0;
    for (const Eigen::VectorXd& c : chains) {
        all.segment(at, c.size()) = c;
        at += c.size();
    }
    return all;
}

// Chains of equal length: the shortest's, each cut to it (files of a run differ only if the
// user passed files of different runs; the statistics need a rectangle).
Chains equal_lengths(const Chains& chains) {
    Eigen::Index n = std::numeric_limits<Eigen::Index>::max();
    for (const Eigen::VectorXd& c : chains) n = std::min(n, c.size());
    Chains out;
    for (const Eigen::VectorXd& c : chains) out.push_back(c.head(n));
    return out;
}

}  // namespace

Chains split_chains(const Chains& chains) {
    Chains out;
    for (const Eigen::VectorXd& c : chains) {
        const Eigen::Index half = c.size() / 2;
        if (half == 0) {
            out.push_back(c);
            continue;
        }
        out.push_back(c.head(half));
        out.push_back(c.tail(half));  // an odd chain's middle draw is in neither half
    }
    return out;
}

double ess_basic(const Chains& given) {
    if (!usable(given))
        return kNaN;
    const Chains chains = equal_lengths(given);
    const auto m = static_cast<double>(chains.size());
    const Eigen::Index n = chains.front().size();
    const auto nd = static_cast<double>(n);
    Eigen::VectorXd means(chains.size());
    for (std::size_t j = 0; j < chains.size(); ++j) means[j] = chains[j].mean();
    // The mean over chains of the (biased, divided by n) autocovariance at `lag`.
    const auto mean_acov = [&](Eigen::Index lag) {
        double total = 0.0;
        for (std::size_t j = 0; j < chains.size(); ++j) {
            const Eigen::ArrayXd d = chains[j].array() - means[j];
            total += (d.head(n - lag) * d.tail(n - lag)).sum() / nd;
        }
        return total / m;
    };
    const double mean_var = mean_acov(0) * nd / (nd - 1.0);
    double var_plus = mean_var * (nd - 1.0) / nd;
    if (chains.size() > 1)
        var_plus += variance(means);
    const auto rho = [&](Eigen::Index lag) { return 1.0 - (mean_var - mean_acov(lag)) / var_plus; };
    // Geyer's initial positive sequence: pairs of autocorrelations while their sum is positive.
    std::vector<double> rho_hat{1.0, rho(1)};
    Eigen::Index t = 0;
    double even = 1.0, odd = rho_hat[1];
    while (t < n - 5 && std::isfinite(even + odd) && even + odd > 0.0) {
        t += 2;
        even = rho(t);
        odd = rho(t + 1);
        if (even + odd >= 0.0) {
            rho_hat.resize(static_cast<std::size_t>(t) + 2);
            rho_hat[static_cast<std::size_t>(t)] = even;
            rho_hat[static_cast<std::size_t>(t) + 1] = odd;
        }
    }
    const auto max_t = static_cast<std::size_t>(t);
    rho_hat.resize(std::max(rho_hat.size(), max_t + 2), 0.0);
    if (even > 0.0)
        rho_hat[max_t] = even;  // the improved estimate's last even term
    // Geyer's initial monotone sequence: no pair sum larger than the one before it.
    for (std::size_t k = 2; k + 2 <= max_t; k += 2) {
        if (rho_hat[k] + rho_hat[k + 1] > rho_hat[k - 2] + rho_hat[k - 1]) {
            rho_hat[k] = rho_hat[k + 1] = (rho_hat[k - 2] + rho_hat[k - 1]) / 2.0;
        }
    }
    const double total = m * nd;
    double tau = -1.0 + rho_hat[max_t];
    for (std::size_t k = 0; k < max_t; ++k) tau += 2.0 * rho_hat[k];
    // Antithetic chains (tau < 1) would give an ESS above the draws; bounded as Stan bounds it.
    tau = std::max(tau, 1.0 / std::log10(total));
    return total / tau;
}

double rhat_basic(const Chains& given) {
    if (!usable(given))
        return kNaN;
    const Chains chains = equal_lengths(given);
    const auto n = static_cast<double>(chains.front().size());
    Eigen::VectorXd means(chains.size()), vars(chains.size());
    for (std::size_t j = 0; j < chains.size(); ++j) {
        means[j] = chains[j].mean();
        vars[j] = variance(chains[j]);
    }
    const double between = chains.size() > 1 ? n * variance(means) : 0.0;
    const double within = vars.mean();
    return std::sqrt((between / within + n - 1.0) / n);
}

Chains z_scale(const Chains& chains) {
    const Eigen::VectorXd all = all_draws(chains);
    const Eigen::Index total = all.size();
    std::vector<Eigen::Index> order(static_cast<std::size_t>(total));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return all[a] < all[b]; });
    Eigen::VectorXd rank(total);
    for (Eigen::Index i = 0; i < total;) {
        Eigen::Index j = i;
        while (j + 1 < total && all[order[static_cast<std::size_t>(j + 1)]] ==
                                    all[order[static_cast<std::size_t>(i)]])
            ++j;
        const double average = (static_cast<double>(i + j) / 2.0) + 1.0;  // 1-based ranks
        for (Eigen::Index k = i; k <= j; ++k) rank[order[static_cast<std::size_t>(k)]] = average;
        i = j + 1;
    }
    const boost::math::normal standard;
    constexpr double c = 3.0 / 8.0;
    Chains out;
    Eigen::Index at = 0;
    for (const Eigen::VectorXd& ch : chains) {
        Eigen::VectorXd z(ch.size());
        for (Eigen::Index i = 0; i < ch.size(); ++i) {
            const double p = (rank[at + i] - c) / (static_cast<double>(total) - 2.0 * c + 1.0);
            z[i] = boost::math::quantile(standard, p);
        }
        out.push_back(std::move(z));
        at += ch.size();
    }
    return out;
}

double ess_bulk(const Chains& chains) {
    if (!usable(chains))
        return kNaN;
    return ess_basic(z_scale(split_chains(chains)));
}

double ess_tail(const Chains& chains) {
    if (!usable(chains))
        return kNaN;
    const Eigen::VectorXd all = all_draws(chains);
    const auto indicator_ess = [&](double p) {
        const double q = finite_quantile(all, p);
        Chains below;
        for (const Eigen::VectorXd& c : chains) below.push_back((c.array() <= q).cast<double>());
        return ess_basic(split_chains(below));
    };
    return std::min(indicator_ess(0.05), indicator_ess(0.95));
}

double rhat(const Chains& chains) {
    if (!usable(chains))
        return kNaN;
    const double median = finite_quantile(all_draws(chains), 0.5);
    Chains folded;
    for (const Eigen::VectorXd& c : chains) folded.push_back((c.array() - median).abs());
    return std::max(rhat_basic(z_scale(split_chains(chains))),
                    rhat_basic(z_scale(split_chains(folded))));
}

ChainStatistics chain_statistics(const Chains& chains, const std::vector<double>& probabilities) {
    ChainStatistics s;
    const Eigen::VectorXd all = all_draws(chains);
    const DrawSummary d = summarize_draws(all);
    s.draws = d.finite;
    s.nonfinite = d.nonfinite;
    s.mean = d.finite > 0 ? d.mean : kNaN;
    s.sd = d.finite > 1 ? d.sd : kNaN;
    for (const double p : probabilities)
        s.quantiles.push_back(d.finite > 0 ? finite_quantile(all, p) : kNaN);
    if (d.finite > 0) {
        const double median = finite_quantile(all, 0.5);
        Eigen::VectorXd deviation(d.finite);
        Eigen::Index k = 0;
        for (const double x : all) {
            if (std::isfinite(x))
                deviation[k++] = std::fabs(x - median);
        }
        s.mad = 1.4826 * finite_quantile(deviation, 0.5);
    } else {
        s.mad = kNaN;
    }
    s.mcse = s.sd / std::sqrt(ess_basic(split_chains(chains)));
    s.ess_bulk = ess_bulk(chains);
    s.ess_tail = ess_tail(chains);
    s.rhat = rhat(chains);
    return s;
}

}  // namespace advi
