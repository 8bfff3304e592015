// The verdict: PSIS on the output draws, the ELBO's standard error, the rule's ending and the
// runs' agreement, in one line and its details.
#include <advi/fit/verdict.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace advi {

namespace {

// The final ELBO as text (elbo_text in fit.hpp, which this file cannot include: fit.hpp
// includes it).
std::string number(double x, int significant = 6) {
    return fmt::format("{:.{}g}", x, significant);
}

bool psis_passes(const Psis& p) {
    return p.constant || (std::isfinite(p.k_hat) && p.k_hat < p.k_threshold);
}

// Why PSIS does not vouch for q ("" when it does).
std::string psis_failure(const Psis& p) {
    if (psis_passes(p))
        return "";
    if (p.draws == 0)
        return "no output draw with a finite log density to check q against the posterior";
    if (std::isnan(p.k_hat)) {
        // psis() fits the largest ceil(min(0.2 S, 3 sqrt(S))) ratios and needs five of them
        // above the cutoff: from psis_min_draws() on, no fit means that a few weights dwarf
        // all the others (on posteriordb's earnings a q 49 sds off had log ratios spanning
        // 1e11).
        if (p.draws >= psis_min_draws()) {
            return fmt::format(
                "no Pareto k-hat: a few of the {} importance weights dwarf all the others (q is "
                "far from the posterior)",
                p.draws);
        }
        return fmt::format(
            "no Pareto k-hat ({} output draws are too few for its tail fit; {} or more give "
            "one)",
            p.draws, psis_min_draws());
    }
    return fmt::format(
        "Pareto k-hat {:.2f} >= {:.2f} (q is too far from the posterior for importance "
        "sampling with its draws)",
        p.k_hat, p.k_threshold);
}

// q's mean off the importance-weighted one by more than noise allows (false: not measured).
bool mean_shifted(const Verdict& v) {
    return v.mean_shift > v.mean_shift_allowed;
}

// q's sd over the importance-weighted one beyond what noise allows (false: not measured).
bool too_wide(const Verdict& v) {
    return v.sd_excess > v.sd_excess_allowed;
}

std::string runs_disagreement(const RunsAgreement& a, int index_base) {
    std::string why;
    if (!a.means_agree()) {
        why = fmt::format("R-hat {} for `{}` over {} runs", number(a.max_rhat(), 3),
                          index_base == 0 ? a.worst_label : a.worst_label_stan, a.runs.size());
    }
    if (!a.elbos_agree()) {
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        for (const auto& r : a.runs) {
            lo = std::min(lo, r.elbo);
            hi = std::max(hi, r.elbo);
        }
        why += fmt::format("{}ELBOs from {} to {}, {} nats apart", why.empty() ? "" : "; ",
                           number(lo), number(hi), number(a.elbo_gap, 3));
    }
    return fmt::format("runs disagree ({})", why);
}

}  // namespace

double RunsAgreement::max_rhat() const {
    return worst >= 0 ? rhat[worst] : std::numeric_limits<double>::quiet_NaN();
}

bool RunsAgreement::means_agree() const {
    // NaN (no finite R-hat) is not agreement shown: it is not disagreement shown either, and
    // fit_runs only leaves it so without draws, where the ELBOs decide.
    const double r = max_rhat();
    return !(r >= kRunsRhatThreshold);
}

bool Verdict::reliable() const {
    return converged && !interrupted && psis_passes(psis) && !mean_shifted(*this) &&
           !too_wide(*this) && (!runs || runs->agree()) && !other_mode.comparable() &&
           doubts.empty();
}

std::string Verdict::headline(int index_base) const {
    if (reliable())
        return "reliable";
    std::vector<std::string> why;
    if (interrupted) {
        why.push_back(stop_reason.starts_with("interrupted") ? stop_reason : "interrupted");
    } else if (!converged) {
        why.push_back(stop_reason.empty() ? std::string("not converged")
                                          : fmt::format("not converged ({})", stop_reason));
    }
    if (const std::string p = psis_failure(psis); !p.empty())
        why.push_back(p);
    if (mean_shifted(*this)) {
        why.push_back(fmt::format(
            "q's mean of `{}` is {} posterior sds from its importance-weighted value (more than "
            "{:.2g})",
            index_base == 0 ? mean_shift_label : mean_shift_label_stan, number(mean_shift, 2),
            mean_shift_allowed));
    }
    if (too_wide(*this)) {
        why.push_back(fmt::format(
            "q's sd of `{}` is {} times its importance-weighted value (more than {:.2g}): q is "
            "wider than the posterior",
            index_base == 0 ? sd_excess_label : sd_excess_label_stan, number(sd_excess, 2),
            sd_excess_allowed));
    }
    if (runs && !runs->agree())
        why.push_back(runs_disagreement(*runs, index_base));
    if (other_mode.comparable()) {
        why.push_back(fmt::format(
            "the posterior has two modes (log densities {} nats apart{})",
            number(other_mode.gap, 3),
            !std::isfinite(other_mode.distance) ? std::string()
            : other_mode.in_sds
                ? fmt::format(", {} posterior sds from each other", number(other_mode.distance, 3))
                : fmt::format(", {} apart in unconstrained root mean square",
                              number(other_mode.distance, 3))));
    }
    why.insert(why.end(), doubts.begin(), doubts.end());
    return fmt::format("not reliable: {}", fmt::join(why, "; "));
}

std::vector<std::string> Verdict::details(int index_base) const {
    std::vector<std::string> out;
    if (psis.constant) {
        out.push_back(fmt::format(
            "log_p__ - log_g__ is constant over the {} draws: q is the posterior up to a constant",
            psis.draws));
    } else if (std::isnan(psis.k_hat)) {
        out.push_back(fmt::format("Pareto k-hat not computed ({} finite log ratios)", psis.draws));
    } else {
        out.push_back(fmt::format(
            "Pareto k-hat {:.2f} (threshold {:.2f} for {} draws), importance-sampling ESS {:.0f} "
            "of {}",
            psis.k_hat, psis.k_threshold, psis.draws, psis.ess, psis.draws));
    }
    if (std::isfinite(elbo) && std::isfinite(elbo_se)) {
        out.push_back(fmt::format("ELBO {} {} (Monte Carlo standard error {})",
                                  elbo_se_from_draws ? "from the output draws" : "(the engine's)",
                                  number(elbo), number(elbo_se, 2)));
    }
    if (!std::isnan(mean_shift)) {
        out.push_back(fmt::format(
            "q's means within {} posterior sds of the importance-weighted means (largest: `{}`)",
            number(mean_shift, 2), index_base == 0 ? mean_shift_label : mean_shift_label_stan));
    }
    if (!std::isnan(sd_excess)) {
        out.push_back(fmt::format(
            "q's sds at most {} times the importance-weighted sds (largest: `{}`)",
            number(sd_excess, 2), index_base == 0 ? sd_excess_label : sd_excess_label_stan));
    }
    if (runs) {
        std::string line =
            fmt::format("{} runs (ELBO from their output draws):", runs->runs.size());
        for (std::size_t k = 0; k < runs->runs.size(); ++k) {
            const RunsAgreement::Run& r = runs->runs[k];
            line +=
                fmt::format("{}seed {}: {} +- {}{}{}", k == 0 ? " " : "; ", r.seed, number(r.elbo),
                            number(r.elbo_se, 2), r.converged ? "" : " (not converged)",
                            static_cast<int>(k) == runs->kept ? " (kept)" : "");
        }
        out.push_back(line);
        if (runs->worst >= 0) {
            out.push_back(fmt::format(
                "largest R-hat of the runs' draws {} (`{}`; they agree below {})",
                number(runs->max_rhat(), 4),
                index_base == 0 ? runs->worst_label : runs->worst_label_stan, kRunsRhatThreshold));
        }
    }
    if (other_mode.searched && !other_mode.description.empty())
        out.push_back(
            fmt::format("the start's second search for the mode: {}", other_mode.description));
    if (resampled) {
        out.push_back(fmt::format(
            "draws resampled by their Pareto-smoothed importance weights (with replacement, "
            "{} distinct of {}); the diagnostics above are of q's draws",
            distinct_draws, psis.draws));
    }
    return out;
}

std::vector<std::string> Verdict::trailer_lines(int index_base) const {
    std::vector<std::string> out;
    out.push_back(fmt::format("verdict = {}", headline(index_base)));
    out.push_back(fmt::format("pareto_k = {}", psis.k_hat));
    out.push_back(fmt::format("pareto_k_threshold = {}", psis.k_threshold));
    out.push_back(fmt::format("psis_ess = {}", psis.ess));
    out.push_back(fmt::format("elbo_se = {}", elbo_se));
    out.push_back(
        fmt::format("elbo_se_source = {}", elbo_se_from_draws ? "output draws" : "engine"));
    out.push_back(fmt::format("output_draws_elbo = {}", draws_elbo));
    out.push_back(fmt::format("mean_shift = {}", mean_shift));
    if (!std::isnan(mean_shift))
        out.push_back(fmt::format("mean_shift_of = {}",
                                  index_base == 0 ? mean_shift_label : mean_shift_label_stan));
    out.push_back(fmt::format("sd_excess = {}", sd_excess));
    if (!std::isnan(sd_excess))
        out.push_back(fmt::format("sd_excess_of = {}",
                                  index_base == 0 ? sd_excess_label : sd_excess_label_stan));
    if (runs) {
        out.push_back(fmt::format("runs = {}", runs->runs.size()));
        for (std::size_t k = 0; k < runs->runs.size(); ++k) {
            const RunsAgreement::Run& r = runs->runs[k];
            out.push_back(fmt::format("run_{} = seed {}, ELBO {}, elbo_se {}, converged {}{}",
                                      k + 1, r.seed, r.elbo, r.elbo_se, int{r.converged},
                                      static_cast<int>(k) == runs->kept ? ", kept" : ""));
        }
        out.push_back(fmt::format("runs_rhat_max = {}", runs->max_rhat()));
        if (runs->worst >= 0)
            out.push_back(fmt::format("runs_rhat_max_of = {}", index_base == 0
                                                                   ? runs->worst_label
                                                                   : runs->worst_label_stan));
        out.push_back(fmt::format("runs_elbo_gap = {}", runs->elbo_gap));
    }
    if (other_mode.searched) {
        out.push_back(fmt::format("other_mode = {}", !other_mode.found         ? "not found"
                                                     : other_mode.copy         ? "same mode"
                                                     : other_mode.comparable() ? "comparable"
                                                                               : "lower"));
        out.push_back(fmt::format("other_mode_gap = {}", other_mode.gap));
        out.push_back(fmt::format("other_mode_distance = {}", other_mode.distance));
        out.push_back(fmt::format("other_mode_distance_unit = {}",
                                  other_mode.in_sds ? "posterior sds" : "rms unconstrained"));
    }
    for (const std::string& d : doubts) out.push_back(fmt::format("doubt = {}", d));
    out.push_back(resampled ? fmt::format("draws = psis_resampled ({} distinct of {})",
                                          distinct_draws, psis.draws)
                            : std::string("draws = q"));
    return out;
}

Verdict assess(const AdviResult& r, const Eigen::VectorXd& log_p, const Eigen::VectorXd& log_g) {
    Verdict v;
    // A Fit made by hand may carry no densities (or not one per draw): nothing to weigh then.
    const Eigen::Index S = log_p.size() == log_g.size() ? log_p.size() : 0;
    Eigen::VectorXd ratios(S);
    double sum = 0.0, sum_sq = 0.0;
    int finite = 0;
    for (Eigen::Index i = 0; i < S; ++i) {
        // NaN or +inf in log_p cannot come from finish() (those draws are replaced); say so as
        // a weight of 0 rather than let PSIS throw on what only a hand-made Fit can hold.
        const double d = log_p[i] - log_g[i];
        ratios[i] = std::isfinite(d) ? d : -std::numeric_limits<double>::infinity();
        if (std::isfinite(d)) {
            sum += d;
            sum_sq += d * d;
            ++finite;
        }
    }
    v.psis = psis(ratios);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    double draws_se = nan;
    v.draws_elbo = nan;
    if (finite >= 2) {
        v.draws_elbo = sum / finite;
        const double var =
            std::max(0.0, (sum_sq - finite * v.draws_elbo * v.draws_elbo) / (finite - 1));
        draws_se = std::sqrt(var / finite);
    }
    if (std::isfinite(r.elbo_se)) {
        v.elbo = r.elbo;
        v.elbo_se = r.elbo_se;
    } else if (finite >= 2) {
        v.elbo = v.draws_elbo;
        v.elbo_se = draws_se;
        v.elbo_se_from_draws = true;
    } else {
        v.elbo = r.elbo;  // no estimate of its error
        v.elbo_se = nan;
    }
    v.converged = r.converged;
    v.interrupted = r.eta_search_interrupted || r.stop_reason.starts_with("interrupted");
    v.stop_reason = r.stop_reason;
    v.other_mode = r.other_mode;
    v.doubts = r.doubts;
    v.distinct_draws = v.psis.draws;
    return v;
}

void measure_mean_shift(Verdict& v, const Eigen::MatrixXd& theta_draws,
                        const std::vector<std::string>& labels,
                        const std::vector<std::string>& labels_stan) {
    const Psis& p = v.psis;
    if (!psis_passes(p) || p.constant || p.log_weights.size() != theta_draws.rows())
        return;
    const Eigen::Index S = theta_draws.rows();
    v.mean_shift_allowed = kMeanShift + 2.0 / std::sqrt(p.ess);
    v.sd_excess_allowed = kSdExcess + 2.0 * std::sqrt(2.0 / p.ess);
    double worst = -1.0, widest = -1.0;
    for (Eigen::Index j = 0; j < theta_draws.cols(); ++j) {
        double q_sum = 0.0, w_sum = 0.0, w_mean = 0.0;
        int n = 0;
        bool finite = true;
        for (Eigen::Index i = 0; i < S; ++i) {
            const double x = theta_draws(i, j);
            finite = finite && std::isfinite(x);
            q_sum += x;
            ++n;
            const double w = std::exp(p.log_weights[i]);
            w_sum += w;
            w_mean += w * x;
        }
        if (!finite || n == 0 || !(w_sum > 0))
            continue;  // a column that ran off says so elsewhere (the rule's ending)
        w_mean /= w_sum;
        double w_var = 0.0;
        for (Eigen::Index i = 0; i < S; ++i) {
            const double d = theta_draws(i, j) - w_mean;
            w_var += std::exp(p.log_weights[i]) * d * d;
        }
        w_var /= w_sum;
        if (!(w_var > 0))
            continue;
        const double shift = std::abs(q_sum / n - w_mean) / std::sqrt(w_var);
        if (shift > worst) {
            worst = shift;
            v.mean_shift = shift;
            v.mean_shift_label = labels[static_cast<std::size_t>(j)];
            v.mean_shift_label_stan = labels_stan[static_cast<std::size_t>(j)];
        }
        // (centred by w_mean before the squares: a column of 1e9 +- 1 keeps its digits)
        double q_var = 0.0;
        for (Eigen::Index i = 0; i < S; ++i) {
            const double d = theta_draws(i, j) - w_mean;
            q_var += d * d;
        }
        q_var = q_var / n - std::pow(q_sum / n - w_mean, 2);
        const double ratio = std::sqrt(std::max(q_var, 0.0) / w_var);
        if (ratio > widest) {
            widest = ratio;
            v.sd_excess = ratio;
            v.sd_excess_label = labels[static_cast<std::size_t>(j)];
            v.sd_excess_label_stan = labels_stan[static_cast<std::size_t>(j)];
        }
    }
}

double runs_rhat(const std::vector<Eigen::VectorXd>& draws) {
    std::vector<double> means, vars;
    double n_sum = 0.0;
    for (const Eigen::VectorXd& d : draws) {
        double s = 0.0, s2 = 0.0;
        int n = 0;
        for (const double x : d) {
            if (std::isfinite(x)) {
                s += x;
                ++n;
            }
        }
        if (n < 2)
            continue;
        const double m = s / n;
        for (const double x : d)
            if (std::isfinite(x))
                s2 += (x - m) * (x - m);
        means.push_back(m);
        vars.push_back(s2 / (n - 1));
        n_sum += n;
    }
    const auto K = static_cast<double>(means.size());
    if (K < 2)
        return std::numeric_limits<double>::quiet_NaN();
    const double n = n_sum / K;
    double W = 0.0, mbar = 0.0;
    for (std::size_t k = 0; k < means.size(); ++k) {
        W += vars[k] / K;
        mbar += means[k] / K;
    }
    double B_over_n = 0.0;
    for (const double m : means) B_over_n += (m - mbar) * (m - mbar) / (K - 1);
    if (W == 0.0)
        return B_over_n == 0.0 ? 1.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(((n - 1) / n * W + B_over_n) / W);
}

}  // namespace advi
