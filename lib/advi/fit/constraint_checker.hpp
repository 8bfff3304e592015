// Which declared constraint of a model's transformed parameters a constrained draw violates:
// such a draw has a log density of -inf (the check_constraint terms), and this names why, for
// the count of output draws rejected for it and for the message of a fit that cannot go on.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <Eigen/Core>

#include <advi/compile/theta_program.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

class ConstraintChecker {
public:
    // The checks of `spec` that are terms of its log density (ConstraintCheck::term).
    explicit ConstraintChecker(const ModelSpec& spec);

    [[nodiscard]] bool empty() const { return program_ == nullptr; }
    // The first violated check at theta (laid out as ModelSpec::theta_offsets()) as a message
    // ("transformed parameter `tp` is -0.3, below the lower bound 0"), or nothing.
    [[nodiscard]] std::optional<std::string> violation(const Eigen::VectorXd& theta);

private:
    const ModelSpec& spec_;
    std::unique_ptr<ThetaProgram> program_;
};

}  // namespace advi
