// A fit laid out as CmdStan lays out its variational output (lib/advi/io/cmdstan_csv.hpp
// writes it): the settings header, the columns of every latent and of the extra blocks, the
// mean row, one row per draw, the adaptation lines and the trailer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/engine/options.hpp>
#include <advi/fit/fit.hpp>
#include <advi/io/cmdstan_csv.hpp>

namespace advi {

// A block of columns that the model's latents do not give: transformed parameters and
// generated quantities (filled in by the Stan front end). Values are flattened in the order
// of stan_column_names(name, dims).
struct ExtraBlock {
    std::string name;
    std::vector<std::int64_t> dims;
    bool complex = false;     // dims[0] is a complex value's part (stan_column_names)
    Eigen::VectorXd at_mean;  // the values in the mean row
    Eigen::MatrixXd draws;    // one row per draw of the fit
};

// A line of the settings header, "<indent><key> = <value>", marked " (Default)" when the value
// is the default, as CmdStan marks settings not given.
template <class T>
[[nodiscard]] std::string csv_setting(std::string_view indent, std::string_view key, const T& value,
                                      const T& default_value) {
    return fmt::format("{}{} = {}{}", indent, key, value,
                       value == default_value ? " (Default)" : "");
}

// A latent's dims as Stan declares them, for stan_column_names: {} for a scalar, {n} for a
// vector, {rows, cols} for a matrix.
[[nodiscard]] std::vector<std::int64_t> latent_dims(const Shape& s);
// Its declared dims (LatentVariable::dims) if it has them, else its shape's.
[[nodiscard]] std::vector<std::int64_t> latent_dims(const LatentVariable& v);

// Where a run came from, for the settings header.
struct CsvRunInfo {
    std::string model = "model";  // CmdStan writes the model's name (bernoulli_model)
    std::string data_file;        // empty: none
    std::string init_file;  // --init as given (a radius or a file); empty: Options::init or zeros
    std::string output_file = "output.csv";
    int sig_figs = -1;            // CmdStan's sig_figs; -1: each value as the shortest exact text
    std::string diagnostic_file;  // --diagnostic-file; empty: none
    // --refresh as given, and the method's default (marked "(Default)" when equal).
    int refresh = 0;
    int refresh_default = 0;
};

// The header's first lines, every method alike: "advi_version = X.Y.Z" (which program wrote
// the file; CmdStan writes stan_version_major/minor/patch there) and "model = <name>".
[[nodiscard]] std::vector<std::string> cmdstan_preamble(const CsvRunInfo& run);
// The `output` block's lines: "output", "  file = ...", "  diagnostic_file = ...",
// "  refresh = ...", "  sig_figs = ...", as CmdStan writes them.
[[nodiscard]] std::vector<std::string> cmdstan_output_settings(const CsvRunInfo& run);

// The lines after a method's own settings that laplace and pathfinder write alike, as CmdStan:
// "id = 1 (Default)", "data", "  file = ...", "init = <init>" (none when `init` is empty; "2"
// is CmdStan's default), "random", "  seed = ...", "output", "  file = ...", "num_threads = ...".
[[nodiscard]] std::vector<std::string> cmdstan_run_settings(const CsvRunInfo& run,
                                                            const std::string& init,
                                                            std::uint64_t seed, int threads);

// How a fit's draws came about beyond Options, for the settings header: the steps around the
// engine that `advi fit --runs K --psis-resample` takes.
struct CsvDrawsInfo {
    int runs = 1;                  // fit_runs' K (runs.hpp): K runs, the best kept
    bool psis_resample = false;    // the draws resampled by psis_resample (resample.hpp)
    std::string dadvi_draws;       // fit_dadvi's fixed draws, N or "auto"; empty: ADVI
    bool linear_response = false;  // fit_dadvi's q with the linear-response covariance
    // The transform of one-sided bounds: log (T1, Stan's), softplus (T2), or auto (chosen per
    // variable by ELBO: transform_choice.hpp).
    std::string transform = "log";
    // A minibatch fit (Options::minibatch): B, the size variable that counts the rows.
    int minibatch = 0;
    std::string rows;
};

// The settings comment lines in CmdStan's layout ("model = ...", "method = variational",
// "  variational", "    algorithm = meanfield (Default)", ..., "id = 1", "data", "  file = ...",
// "random", "  seed = ...", "output", "  file = ..."), with "(Default)" after a value equal to
// Options{}'s (CsvDrawsInfo{}'s for runs and psis_resample). Our own settings follow CmdStan's
// in the variational block: "    convergence = auto|stan", "    start = auto|init|pathfinder",
// "    runs = <K>", "    psis_resample = 1|0"; after a DADVI fit "    dadvi_draws = <N>|auto" and
// "    linear_response = 1|0"; after a minibatch fit "    minibatch = <B>", "    rows = <N> (<n>
// rows)" and "    minibatch_draw = independent|epochs"; after a fit over row shards
// (Options::row_shards) "    rows = <N> (<n> rows)", "    shards = <K> (<C> rows each)" and
// "    ranks = <P>".
[[nodiscard]] std::vector<std::string> cmdstan_settings(const Options& options,
                                                        const CsvRunInfo& run = {},
                                                        const CsvDrawsInfo& draws = {});

// Lays out a fit as CmdStan does: columns lp__, log_p__, log_g__, every latent of the model in
// declaration order (constrained values), then the extra blocks. The mean row holds T^-1(mu)
// and, as CmdStan's, 0 for lp__, log_p__ and log_g__; draw i holds lp__ = 0 (CmdStan's value
// in variational output), Fit::log_p()[i], Fit::log_g()[i] (normalised, where CmdStan drops
// q's constants), theta_draws().row(i) (draws whose log_p__ was not finite were dropped and
// replaced by the fit).
// `header`: the settings lines; empty means cmdstan_settings(options). The adaptation lines
// are CmdStan's ("Stepsize adaptation complete.", "eta = ..."), when adapt_engaged. The
// trailer: "eta = ", "iterations = ", "ELBO = " (of the returned q, AdviResult::elbo; "not
// computed (...)" when no draw had a finite log density, never nan), "converged = 1|0",
// "convergence: <stop reason>", "log_p__ at mean = ", "log_g__ at mean = ", "dropped_draws = "
// (non-finite draws dropped while fitting), "nonfinite_log_p_draws = " (output draws
// dropped and replaced because their log_p__ was not finite), "rejected_tp_constraint_draws = "
// (output draws rejected and replaced because a transformed parameter violated its declared
// constraint), "mean_row_tp_constraint = satisfied|violated: <which>" (only for a model with
// such constraints: whether the mean row, written as computed, is a point Stan rejects),
// "start = " (where q started, when the engine says), "gradient_evaluations = ",
// "value_evaluations = " (when counted), the verdict's lines (Verdict::trailer_lines: "verdict =
// reliable" or "verdict = not reliable: <why>", "pareto_k = ", "pareto_k_threshold = ",
// "psis_ess = ", "elbo_se = ", "elbo_se_source = ", for K runs "runs = ", "run_<k> = ...",
// "runs_rhat_max = ", "runs_rhat_max_of = ", "runs_elbo_gap = ", and "draws = q|psis_resampled
// (...)"), " Elapsed Time: <s> seconds (Total)"; after an interrupted eta search no adaptation
// block, and "Stepsize adaptation interrupted after ..." then "eta = nan" in the trailer; without
// adaptation, "Stepsize adaptation not engaged." before its eta line, where cmdstanpy looks for
// eta. Throws ShapeError when an extra block's values do not match its dims or the fit's draws,
// ModelError for a column name given twice or a Fit without log_p/log_g per draw.
[[nodiscard]] CsvOutput cmdstan_output(const Fit& fit, const Options& options,
                                       std::vector<ExtraBlock> extra = {},
                                       std::vector<std::string> header = {});

}  // namespace advi
