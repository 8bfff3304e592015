// The held-out log predictive density of a fit (paper section 4), by Monte Carlo over q:
//   log p(x*_n | x) ~ log (1/S) sum_s p(x*_n | theta_s),  theta_s = T^-1(zeta_s), zeta_s ~ q,
// for each held-out point n (a log-mean-exp over the draws), and its average over the points;
// at the end of a fit, or recorded during one against wall time (Options::monitor).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/program.hpp>
#include <advi/compile/theta_program.hpp>
#include <advi/engine/options.hpp>
#include <advi/fit/fit.hpp>

namespace advi {

// The log-likelihood of each held-out point as a function of the fitted model's theta.
// `held_out` is the model written over the held-out data, with latent variables of the same
// names and shapes as (a subset of) the fitted model's; `pointwise` is its node holding one
// log p(x*_n | theta) per point (in the DSL: Model::log_density(y_test, d, true)). Its
// log density "lp" is not used.
class HeldOutLikelihood {
public:
    HeldOutLikelihood(const ModelSpec& fitted, const ModelSpec& held_out, NodeId pointwise);

    [[nodiscard]] int points() const { return program_->size(); }
    // log p(x*_n | theta) for each point; theta laid out as the fitted model's
    // ModelSpec::theta_offsets().
    [[nodiscard]] const Eigen::VectorXd& at(const Eigen::VectorXd& fitted_theta);

private:
    std::unique_ptr<ThetaProgram> program_;
    // For each held-out latent: its offset in the fitted theta, its offset here, its size.
    struct Segment {
        int from = 0;
        int to = 0;
        int size = 0;
    };
    std::vector<Segment> segments_;
    Eigen::VectorXd theta_;  // in the held-out model's layout
};

struct LogPredictive {
    double mean = 0.0;          // average over the held-out points
    Eigen::VectorXd pointwise;  // log-mean-exp over the draws, per point
    int draws = 0;              // draws used
    int dropped = 0;            // draws whose log-likelihood was NaN somewhere (left out)
};

// Over the rows of `theta_draws` (constrained draws, fitted layout). A FitError when no draw
// gives a log-likelihood without NaN.
[[nodiscard]] LogPredictive log_predictive(HeldOutLikelihood& likelihood,
                                           const Eigen::MatrixXd& theta_draws);
// Over the fit's output draws.
[[nodiscard]] LogPredictive log_predictive(const Fit& fit, const ModelSpec& held_out,
                                           NodeId pointwise);

// Records the average held-out log predictive density while a fit runs: pass monitor() as
// Options::monitor (with Options::monitor_every). Each record draws `draws` zetas from the
// current q. Keep the trace alive while the fit runs.
class PredictiveTrace {
public:
    struct Point {
        int iteration = 0;
        double seconds = 0.0;  // the fit's wall time, without the recording's
        double log_predictive = 0.0;
    };

    PredictiveTrace(const ModelSpec& fitted, const ModelSpec& held_out, NodeId pointwise,
                    int draws = 100, std::uint64_t seed = 0);

    [[nodiscard]] std::function<void(const FitProgress&)> monitor();
    void record(const FitProgress& progress);
    [[nodiscard]] const std::vector<Point>& points() const { return points_; }

private:
    HeldOutLikelihood likelihood_;
    Program to_theta_;
    int draws_;
    std::uint64_t seed_;
    std::vector<Point> points_;
};

}  // namespace advi
