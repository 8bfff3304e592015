// Transformed parameters and generated quantities per draw: one program of the constrained
// parameter values (and of the uniforms behind the _rng calls, refilled per draw), compiled
// once from the lowered model's graph and run for each draw of a fit.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/theta_program.hpp>
#include <advi/fit/fit.hpp>
#include <advi/stan/lower.hpp>

namespace advi::stan {

class Reporter {
public:
    explicit Reporter(LoweredProgram& program);

    // Transformed parameters, then generated quantities (name and dims; values flattened
    // column-major, one after the other).
    [[nodiscard]] const std::vector<ReportedValue>& values() const { return values_; }
    [[nodiscard]] int size() const { return size_; }

    // The values at one constrained draw (theta laid out as ModelSpec::theta_offsets()). A
    // generated quantity outside its declared constraint is a FitError naming it, its element,
    // value and constraint, and `where` ("output draw 5"), as Stan stops there.
    [[nodiscard]] Eigen::VectorXd evaluate(const Eigen::VectorXd& theta, std::mt19937_64& rng,
                                           std::string_view where = "a draw");

private:
    LoweredProgram& lowered_;
    std::vector<ReportedValue> values_;
    std::unique_ptr<ThetaProgram> program_;
    int size_ = 0;
    // The generated quantities' declared constraints, their value and bounds evaluated after
    // the reported values.
    std::vector<ConstraintCheck> checks_;
};

// Every draw of `fit` (rows), and the values at q's mean mapped to constrained space (the
// first row of CmdStan's output). The _rng calls draw from a generator seeded with `seed`.
struct ReportedDraws {
    std::vector<ReportedValue> values;
    Eigen::VectorXd at_mean;
    Eigen::MatrixXd draws;
};
[[nodiscard]] ReportedDraws report(LoweredProgram& program, const Fit& fit, std::uint64_t seed);

// Rows of Fit::summary's table (mean, sd, 5%, 50%, 95% over the draws) for the reported
// values, labelled as Stan does (theta[1], Sigma[2,1]).
[[nodiscard]] std::string summary_rows(const ReportedDraws& draws);

}  // namespace advi::stan
