// K runs on threads, their ELBOs from their own output draws, R-hat across them.
#include <advi/fit/runs.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/compile/thread_pool.hpp>
#include <advi/engine/initial_point.hpp>

namespace advi {

namespace {

// mean(log_p - log_g) over the finite ratios and its standard error: every run's ELBO from
// the same number of draws, more than the engine's estimate uses.
std::pair<double, double> draws_elbo(const Fit& f) {
    double s = 0.0, s2 = 0.0;
    int n = 0;
    for (Eigen::Index i = 0; i < f.log_p().size() && i < f.log_g().size(); ++i) {
        const double d = f.log_p()[i] - f.log_g()[i];
        if (std::isfinite(d)) {
            s += d;
            s2 += d * d;
            ++n;
        }
    }
    if (n < 2)
        return {f.result().elbo, std::numeric_limits<double>::quiet_NaN()};
    const double mean = s / n;
    return {mean, std::sqrt(std::max(0.0, (s2 - n * mean * mean) / (n - 1)) / n)};
}

RunsAgreement agreement(const ModelSpec& m, const std::vector<Fit>& fits) {
    RunsAgreement a;
    for (const Fit& f : fits) {
        const auto [elbo, se] = draws_elbo(f);
        a.runs.push_back({.seed = 0,
                          .elbo = elbo,
                          .elbo_se = se,
                          .converged = f.result().converged,
                          .stop_reason = f.result().stop_reason});
    }
    // The largest ELBO (NaN never wins; ties go to the earlier run).
    int lo = 0;
    for (int k = 1; k < static_cast<int>(a.runs.size()); ++k) {
        if (a.runs[k].elbo > a.runs[a.kept].elbo || std::isnan(a.runs[a.kept].elbo))
            a.kept = k;
        if (a.runs[k].elbo < a.runs[lo].elbo || std::isnan(a.runs[k].elbo))
            lo = k;
    }
    const auto& best = a.runs[a.kept];
    const auto& worst = a.runs[lo];
    a.elbo_gap = best.elbo - worst.elbo;
    if (std::isnan(a.elbo_gap))
        a.elbo_gap = std::numeric_limits<double>::infinity();
    const double se = std::hypot(best.elbo_se, worst.elbo_se);
    a.elbo_gap_allowed = kRunsElboGap + 3.0 * (std::isfinite(se) ? se : 0.0);

    const Eigen::Index columns = m.theta_dim();
    a.rhat = Eigen::VectorXd::Constant(columns, std::numeric_limits<double>::quiet_NaN());
    std::vector<Eigen::VectorXd> chains(fits.size());
    for (Eigen::Index j = 0; j < columns; ++j) {
        for (std::size_t k = 0; k < fits.size(); ++k) chains[k] = fits[k].theta_draws().col(j);
        a.rhat[j] = runs_rhat(chains);
        if (!std::isnan(a.rhat[j]) && (a.worst < 0 || a.rhat[j] > a.rhat[a.worst]))
            a.worst = static_cast<int>(j);
    }
    if (a.worst >= 0) {
        a.worst_label = theta_labels(m, 0)[a.worst];
        a.worst_label_stan = theta_labels(m, 1)[a.worst];
    }
    return a;
}

}  // namespace

Eigen::VectorXd run_init(const Options& options, int run, int dim) {
    // Run 0 is the single fit: its init as given, empty when none (so that the engine's rules
    // for the default and for init_radius apply to it as to a single fit).
    if (run == 0)
        return options.init;
    Eigen::VectorXd z = options.init.size() != 0 ? options.init : Eigen::VectorXd::Zero(dim);
    return z +
           uniform_init((options.seed + static_cast<std::uint64_t>(run)) ^ 0x72756E5F696E6974ull,
                        dim, 2.0);
}

Fit fit_runs(const ModelSpec& m, const Options& options, int runs) {
    if (runs < 1)
        throw FitError(fmt::format("option `runs` must be >= 1, got {}", runs));
    if (runs == 1)
        return fit(m, options);
    const int threads = options.threads > 0 ? options.threads : ThreadPool::hardware_threads();
    // Runs over ranks (Options::ranks) go one after another: each run's exchanges between the
    // ranks must come in the same order on every rank.
    const int parallel = options.ranks != nullptr ? 1 : std::min(runs, threads);
    const int each = std::max(1, threads / parallel);
    // Every run's output draws are kept until the runs are compared (both spaces and their
    // densities), and the runs in parallel hold a full-rank factor each: refused before any
    // run starts, as a single fit refuses its own.
    const std::int64_t d = m.zeta_dim();
    require_memory(
        fmt::format("option `runs` = {} (keeping {} output draws of {} unconstrained and {} "
                    "constrained values for every run)",
                    runs, options.output_samples, d, m.theta_dim()),
        checked_product({runs, options.output_samples, 2 * d + m.theta_dim() + 2}));
    if (options.family == Family::FullRank) {
        require_memory(fmt::format("{} full-rank runs at once, each an approximation of {} "
                                   "dimensions",
                                   parallel, d),
                       checked_product({parallel, 4, d, d}));
    }

    std::vector<std::optional<Fit>> fits(static_cast<std::size_t>(runs));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(runs));
    std::atomic<int> next{0};
    auto worker = [&] {
        for (int k = next++; k < runs; k = next++) {
            Options o = options;
            o.seed = options.seed + static_cast<std::uint64_t>(k);
            if (k > 0)
                o.init = run_init(options, k, m.zeta_dim());
            o.threads = each;
            if (k > 0) {  // one progress table, one monitor: run 1's
                o.log = nullptr;
                o.monitor = {};
                o.monitor_every = 0;
            }
            try {
                fits[k].emplace(fit(m, o));
            } catch (...) {
                errors[k] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < parallel; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();

    for (int k = 0; k < runs; ++k) {
        if (!errors[k])
            continue;
        try {
            std::rethrow_exception(errors[k]);
        } catch (const FitError& e) {
            throw FitError(fmt::format("run {} of {} (seed {}): {}", k + 1, runs,
                                       options.seed + static_cast<std::uint64_t>(k), e.what()));
        }
    }
    std::vector<Fit> done;
    for (auto& f : fits) done.push_back(std::move(*f));
    RunsAgreement a = agreement(m, done);
    for (int k = 0; k < runs; ++k) a.runs[k].seed = options.seed + static_cast<std::uint64_t>(k);
    const Fit& best = done[a.kept];
    Verdict v = best.verdict();
    v.runs = std::move(a);
    return Fit(best.model(), best.result(), best.theta_draws(), best.theta_at_mu(),
               best.densities(), std::move(v));
}

}  // namespace advi
