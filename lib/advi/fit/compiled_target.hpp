// A compiled model as the engine's Target: the gradient program for gradients, the value
// program (compile_value) for log densities alone, and many log densities at once evaluated
// in parallel over threads, one program copy per thread (issue 19, item 5).
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Core>

#include <advi/compile/program.hpp>
#include <advi/engine/target.hpp>
#include <advi/model/model_spec.hpp>

namespace advi {

class CompiledTarget final : public Target {
public:
    // `gradient` (compile(m)) must outlive the target; the value program is compiled here.
    // threads: for the programs' own long loops and for batches of draws (0: the hardware's).
    CompiledTarget(const ModelSpec& m, Program& gradient, int threads);

    int dim() const override { return gradient_.dim(); }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) override {
        return gradient_.run(zeta, grad);
    }
    double log_density(const Eigen::VectorXd& zeta) override { return value_.run(zeta, none_); }
    // Columns split into parts of whole draws; each thread runs its parts on a copy of the value
    // program of its own (made on first use), itself on one thread. A draw's value does not
    // depend on which copy computed it, so the results are the same bits on any thread count.
    void log_densities(const Eigen::MatrixXd& zetas, Eigen::VectorXd& out) override;

    Program& value_program() { return value_; }

private:
    static void part_task(void* context, int part, int thread);

    Program& gradient_;
    Program value_;
    Eigen::VectorXd none_;
    int threads_;
    // Per thread of the pool: a single-threaded copy of value_ and its input vector.
    std::vector<Program> copies_;
    std::vector<Eigen::VectorXd> inputs_;
};

}  // namespace advi
