// A program of the constrained latent values: quantities of the model graph (transformed
// parameters, generated quantities, pointwise log-likelihoods of held-out data) evaluated at
// one theta. The Param leaves become data slots read from per-latent buffers, so every
// quantity is computed by the once-per-data prologue, and evaluating at a new theta is a
// reload of the data.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/program.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

class ThetaProgram {
public:
    // `outputs`: name and node of each quantity in spec.graph, placed one after the other
    // (flattened column-major) in evaluate()'s result.
    ThetaProgram(const ModelSpec& spec, const std::vector<std::pair<std::string, NodeId>>& outputs);
    ThetaProgram(const ThetaProgram&) = delete;  // the program points at theta_
    ThetaProgram& operator=(const ThetaProgram&) = delete;

    [[nodiscard]] int size() const { return size_; }
    [[nodiscard]] const ModelSpec& spec() const { return spec_; }

    // The quantities at theta, laid out as ModelSpec::theta_offsets(). Other data bound by
    // the model (e.g. the uniforms behind _rng calls) is read as it is at the call.
    [[nodiscard]] const Eigen::VectorXd& evaluate(const Eigen::VectorXd& theta);

private:
    ModelSpec spec_;
    std::vector<Eigen::VectorXd> theta_;  // one buffer per latent, bound as data
    Program program_;
    Eigen::VectorXd out_;
    int size_ = 0;
};

}  // namespace advi
