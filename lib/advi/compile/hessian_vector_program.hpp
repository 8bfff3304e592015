// The curvature program of a model: its log density, gradient and Hessian-vector product
// H(zeta) v, compiled from the gradient graph differentiated once more
// (diff/hessian_vector.hpp), beside the plain gradient program. It has the methods of
// engine/target.hpp's CurvatureTarget; CurvatureTargetRef makes it one.
#pragma once

#include <Eigen/Core>

#include <advi/compile/program.hpp>

namespace advi {

class HessianVectorProgram {
public:
    HessianVectorProgram() = default;
    // `gradient`: input zeta (dim), output the gradient; `hessian_vector`: input [zeta; v]
    // (2 dim), output [gradient; H v] (hessian_vector_graph's layout).
    HessianVectorProgram(Program gradient, Program hessian_vector);

    [[nodiscard]] int dim() const { return gradient_.dim(); }
    // log p and its gradient, by the gradient program (cheaper than the curvature program).
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad);
    // log p, its gradient and H v at zeta; grad and hv must have size dim() (then nothing
    // is allocated).
    double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv);

    // Both programs' threads (results are bit-identical across thread counts).
    void set_threads(int threads);
    void reload_data();
    [[nodiscard]] const Program& gradient_program() const { return gradient_; }
    [[nodiscard]] const Program& hessian_vector_program() const { return hv_; }

private:
    Program gradient_;
    Program hv_;
    Eigen::VectorXd input_;   // [zeta; v]
    Eigen::VectorXd output_;  // [grad; H v]
};

}  // namespace advi
