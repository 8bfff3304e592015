// Settings of one ADVI fit (defaults are Stan's), and their validation against a target.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace advi {

// The Gaussian family in unconstrained space (paper Section 2.3), and the low-rank plus
// diagonal family (issue 20): covariance B B' + diag(exp(2 omega)), B dim x rank, O(dim rank)
// memory and time per draw where full-rank needs O(dim^2).
enum class Family { MeanField, FullRank, LowRank };

// How the engine decides it is done, and how hard it tries to survive bad steps.
//  Auto:   the default (issue 19): common random numbers for every ELBO estimate, an eta
//          search that never picks a diverged candidate, step-size back-off in the main loop
//          and a stopping rule with statistics behind it (see engine.cpp). `Robust` is its
//          old name, kept as an alias (the CLI's `--convergence robust` too).
//  Stan:   Stan's ADVI as written: fresh ELBO draws per estimate, |delta| / |elbo|, Stan's
//          eta-search bookkeeping and its error when adaptation fails, no back-off.
enum class ConvergenceRule { Auto, Stan, Robust = Auto };

// Where q starts (engine/start.hpp). Auto: at the mode with the curvature there, when the
// target gives curvature and has a mode, else as Init; Init: the init point, omega = 0 or
// L = I (the paper's and Stan's start); Pathfinder: Auto from the mean of the best normal
// approximation along one Pathfinder path from the init point (issue 20; for targets without
// a mode, where Auto starts from the init point; measured in the README, "Where q starts").
enum class StartFrom { Auto, Init, Pathfinder };

// Where the gradient's draws (and the ELBO's fresh draws under Stan's rule) come from: plain
// Monte Carlo, or randomised quasi-Monte Carlo (rqmc.hpp: scrambled Sobol points, a fresh
// randomisation per gradient; it needs grad_samples >= 2, one point being one Monte Carlo
// draw). The Auto rule's common ELBO draws (antithetic, whitened) and the output draws stay
// Monte Carlo.
enum class DrawScheme { MonteCarlo, Rqmc };

class Approximation;
class Ranks;  // ranks/ranks.hpp

// Where a fit is, for a monitor (Options::monitor): the iteration just finished (0: q's
// starting point, before any step), the fit's wall time so far without the time spent in
// the monitor itself, and q.
struct FitProgress {
    int iteration = 0;
    double seconds = 0.0;
    const Approximation& q;
};

// The full data of one minibatch slot (Options::minibatch): column-major, `rows` x `cols`,
// reals or ints, owned by the caller (kept alive for the fit).
struct MinibatchData {
    std::string slot;  // the model's data slot that holds one minibatch (B rows)
    const double* real = nullptr;
    const int* ints = nullptr;
    Eigen::Index rows = 0;
    Eigen::Index cols = 1;
    // Row-major (a C-order .npy file): element (r, c) at r * cols + c, not c * rows + r.
    bool row_major = false;

    MinibatchData(std::string s, const Eigen::MatrixXd& m)
        : slot(std::move(s)), real(m.data()), rows(m.rows()), cols(m.cols()) {}
    MinibatchData(std::string s, const Eigen::VectorXd& v)
        : slot(std::move(s)), real(v.data()), rows(v.size()) {}
    MinibatchData(std::string s, const Eigen::VectorXi& v)
        : slot(std::move(s)), ints(v.data()), rows(v.size()) {}
    // Column-major `rows` x `cols` values owned elsewhere (a data file's variable).
    MinibatchData(std::string s, const double* values, Eigen::Index r, Eigen::Index c)
        : slot(std::move(s)), real(values), rows(r), cols(c) {}
    MinibatchData(std::string s, const int* values, Eigen::Index r, Eigen::Index c)
        : slot(std::move(s)), ints(values), rows(r), cols(c) {}
};

// How a minibatch fit picks each gradient's B rows of N (measured against each other in the
// README, Command line: minibatches).
enum class MinibatchDraw {
    // B rows drawn without replacement for each gradient, each batch independent of the last.
    Independent,
    // Random reshuffling: the rows in a random order, taken B at a time, reshuffled once fewer
    // than B are left (each row is seen once per epoch of about N / B gradients).
    Epochs,
};

struct Options {  // field order matters: users write {.family = ..., .seed = 1}
    Family family = Family::MeanField;
    std::uint64_t seed = 0;
    int grad_samples = 1;       // M, draws per gradient
    int elbo_samples = 100;     // draws per ELBO estimate
    int eval_elbo = 100;        // iterations between ELBO estimates
    double tol_rel_obj = 0.01;  // relative ELBO change tolerance
    bool adapt_engaged = true;  // search eta; else use `eta`
    int adapt_iter = 50;        // iterations per eta candidate
    double eta = 1.0;
    int max_iterations = 10000;
    int output_samples = 1000;
    ConvergenceRule convergence = ConvergenceRule::Auto;
    Eigen::VectorXd init{};  // initial mu; empty means zeros
    // With `init` empty and a radius > 0: Stan's random initial values, each unconstrained
    // coordinate uniform on (-init_radius, init_radius) from the seed (engine/initial_point:
    // the points `advi optimize --init R --seed S` tries), the first of up to 100 tries where
    // the log density and its gradient are finite. 0: zeros (and those random values on
    // (-2, 2) only where the density is not finite at zeros).
    double init_radius = 0.0;
    std::ostream* log = nullptr;  // progress lines (eta search, ELBO table) when set
    // Threads of the gradient program's long loops (0: the hardware's). A fit has the same
    // bits for a given seed on any thread count (the program's parts depend on sizes only).
    int threads = 0;
    // Called with the fit's progress every `monitor_every` iterations of the main loop (and
    // once at iteration 0), e.g. to record the held-out log predictive density against time
    // (predictive.hpp). Its own time is left out of FitProgress::seconds and of the result's.
    std::function<void(const FitProgress&)> monitor{};
    int monitor_every = 0;
    // Data subsampling (minibatch.hpp): the model is written over one minibatch, data slots
    // of B rows; each gradient fills them with B rows drawn without replacement from the full
    // data given here (all with the same N rows), and every term of log p that reads them is
    // scaled by N / B. Empty: the model's data as bound.
    std::vector<MinibatchData> minibatch{};
    MinibatchDraw minibatch_draw = MinibatchDraw::Independent;
    // Control variates for the minibatch gradients (minibatch.hpp: an anchor point with its
    // full-data gradient, moved to q's mean as q moves off it): each gradient's batch noise
    // shrinks with q's distance from the anchor instead of staying that of the rows' spread.
    bool control_variates = false;
    // The full data in shards instead (fit/row_shards.hpp): the model is written over one
    // shard of shard_rows(N) rows, `minibatch` holds the row variables' full data, and every
    // evaluation sums all the shards, in shard order. With `ranks` (outliving the fit; nullptr:
    // this process alone) the shards are spread over the processes of a job (MPI), and a seed
    // gives the same fit, bit for bit, on any number of them.
    bool row_shards = false;
    Ranks* ranks = nullptr;
    // Set from elsewhere (a SIGINT handler, another thread): the fit stops after the current
    // iteration, of the eta search or of the main loop, and returns what it has, q as it is,
    // marked not converged ("interrupted").
    const std::atomic<bool>* interrupt = nullptr;
    // Names unconstrained coordinate k in messages ("`sigma`", "`beta[3]`"); the fit layer
    // sets it from the model. Empty: "coordinate k".
    std::function<std::string(int)> describe_coordinate{};
    // Per unconstrained coordinate, the magnitude of q's mean or scale beyond which q has run
    // off (runaway.hpp), e.g. about 700 where the constraint transform exponentiates (the
    // constrained value overflows past 709); empty: kRunawayMagnitude for every coordinate.
    Eigen::VectorXd runaway_limits{};
    // Auto rule only (Stan's keeps Stan's estimator): estimate the gradient by "sticking the
    // landing" (elbo.cpp), whose variance vanishes as q approaches a target in its family. On by
    // default, by measurement (README, Convergence: report/compare_fits with and without), and
    // used only where q starts at the mode and curvature (engine.cpp).
    bool sticking_the_landing = true;
    StartFrom start = StartFrom::Auto;
    DrawScheme draws = DrawScheme::MonteCarlo;
    // Family::LowRank: the columns of B (1 <= rank < dim).
    int rank = 10;
    // CmdStan's refresh: the ELBO table (opts.log) shows the row of the first ELBO evaluation
    // at or past each multiple of `refresh` iterations; 0: no rows (the eta search, events such
    // as a step-size back-off, and the end still print); -1: every evaluation (eval_elbo's).
    int refresh = -1;

    [[nodiscard]] bool interrupted() const {
        return interrupt != nullptr && interrupt->load(std::memory_order_relaxed);
    }
    // Whether the table row at iteration `iter` is shown; `last` is the iteration of the last
    // row shown (0 before any), updated when it is.
    [[nodiscard]] bool row_due(int iter, int& last) const {
        if (refresh == 0)
            return false;
        if (refresh > 0 && iter / refresh <= last / refresh)
            return false;
        last = iter;
        return true;
    }
};

// The fit reads a minibatch of the rows for each gradient (Options::minibatch without
// row_shards): no mode, Pathfinder or DADVI on such a target, and the estimator's batch rules.
[[nodiscard]] inline bool subsamples(const Options& o) {
    return !o.minibatch.empty() && !o.row_shards;
}

// Throws FitError naming the first bad option (non-positive count, tol_rel_obj <= 0,
// eta <= 0), ShapeError when `init` does not have `dim` entries, ModelError when dim < 1.
void validate_options(const Options& opts, int dim);

}  // namespace advi
