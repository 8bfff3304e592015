// The posterior mode of a model, as CmdStan's `optimize`: the log density maximised over the
// unconstrained space, without the log-Jacobian (CmdStan's default: the penalised maximum
// likelihood, the mode of the density in constrained space) or with it (the mode of the
// unconstrained posterior, where the Laplace approximation is centred), by L-BFGS or by
// trust-region Newton-CG on H v (CmdStan's name: `newton`).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include <Eigen/Core>

#include <advi/engine/optimizer.hpp>
#include <advi/fit/coordinates.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

struct OptimizeOptions {  // CmdStan's defaults; field order matters for designated initialisers
    OptimizerAlgorithm algorithm = OptimizerAlgorithm::Lbfgs;
    bool jacobian = false;
    int iter = 2000;
    double init_alpha = 1e-3;
    double tol_obj = 1e-12;
    double tol_rel_obj = 1e4;  // in units of machine epsilon
    double tol_grad = 1e-8;
    double tol_rel_grad = 1e7;  // in units of machine epsilon
    double tol_param = 1e-8;
    int history_size = 5;
    // The initial point in unconstrained space (zeta_dim() entries). Empty: each coordinate
    // uniform on (-init_radius, init_radius), drawn with `seed` (CmdStan's inits); zeros when
    // init_radius is 0.
    Eigen::VectorXd init{};
    double init_radius = 2.0;
    std::uint64_t seed = 0;
    int threads = 0;                               // of the gradient program (0: the hardware's)
    const std::atomic<bool>* interrupt = nullptr;  // set: stop after the current iteration
    // Called with each row of the optimiser's trace as it goes (progress); empty: nothing.
    std::function<void(const OptimizerTraceRow&)> on_row{};
};

// A point estimate. It answers like Fit where that makes sense (values by name in
// constrained space, summary); a point has no sd, quantiles or draws, so it offers none.
class Optimum {
public:
    Optimum(ModelSpec spec, OptimizeOptions options, OptimizerResult result, Eigen::VectorXd theta);

    // The constrained values of latent `name` at the mode (matrices flattened column-major);
    // a ModelError listing the names there are for an unknown name.
    [[nodiscard]] Eigen::VectorXd value(std::string_view name) const;
    // Every latent's constrained values at ModelSpec::theta_offsets().
    [[nodiscard]] const Eigen::VectorXd& theta() const { return theta_; }
    // The point in unconstrained space.
    [[nodiscard]] const Eigen::VectorXd& zeta() const { return result_.zeta; }
    // The log density maximised, at the point: every normalising constant included, the
    // log-Jacobian when OptimizeOptions::jacobian.
    [[nodiscard]] double lp() const { return result_.lp; }
    [[nodiscard]] bool converged() const { return result_.converged(); }
    [[nodiscard]] OptimizeStatus status() const { return result_.status; }
    [[nodiscard]] const std::string& message() const { return result_.message; }
    [[nodiscard]] int iterations() const { return result_.iterations; }
    [[nodiscard]] long gradient_evaluations() const { return result_.gradient_evaluations; }

    // The run's facts (algorithm, status, lp, iterations, evaluations, time), then one line
    // per latent element with its value. `index_base` 1 labels as Stan does (beta[1]).
    [[nodiscard]] std::string summary(int index_base = 0) const;

    [[nodiscard]] const OptimizerResult& result() const { return result_; }
    [[nodiscard]] const OptimizeOptions& options() const { return options_; }
    [[nodiscard]] const ModelSpec& model() const { return spec_; }

private:
    ModelSpec spec_;
    OptimizeOptions options_;
    OptimizerResult result_;
    Eigen::VectorXd theta_;
};

// The optimiser's settings from any options struct with CmdStan's L-BFGS fields (init_alpha, the
// five tolerances, history_size, interrupt: OptimizeOptions, PathfinderOptions), `iter`
// iterations at most, and the model's coordinate names and runaway limits.
template <class LbfgsOptions>
[[nodiscard]] OptimizerSettings lbfgs_settings(const ModelSpec& m, const LbfgsOptions& o,
                                               int iter) {
    return {.iter = iter,
            .init_alpha = o.init_alpha,
            .tol_obj = o.tol_obj,
            .tol_rel_obj = o.tol_rel_obj,
            .tol_grad = o.tol_grad,
            .tol_rel_grad = o.tol_rel_grad,
            .tol_param = o.tol_param,
            .history_size = o.history_size,
            .runaway_limits = coordinate_runaway_limits(m),
            .describe_coordinate = coordinate_namer(m),
            .interrupt = o.interrupt,
            .on_row = [&o] {
                if constexpr (requires { o.on_row; })
                    return o.on_row;
                else
                    return std::function<void(const OptimizerTraceRow&)>{};
            }()};
}

// Compiles the model (with or without the log-Jacobian) and finds its mode. Throws FitError
// for a bad option (naming it), ShapeError for an init of the wrong size; every ending of
// the search itself (converged, iteration limit, no mode, ...) is a status of the result.
[[nodiscard]] Optimum optimize(const ModelSpec& m, const OptimizeOptions& options = {});

}  // namespace advi
