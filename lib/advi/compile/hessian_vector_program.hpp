// The curvature program of a model: its log density, gradient and Hessian-vector product
// H(zeta) v, compiled from the gradient graph differentiated once more
// (diff/hessian_vector.hpp), beside the plain gradient program. The H v graph runs as two
// programs (split_hessian_vector): the point stage (forward values and gradient) only when zeta
// changes, the direction stage for every v, reading the point stage's values in place in its
// arena. It has the methods of engine/target.hpp's CurvatureTarget; CurvatureTargetRef makes
// it one.
#pragma once

#include <vector>

#include <Eigen/Core>

#include <advi/compile/program.hpp>
#include <advi/graph/graph.hpp>

namespace advi {

class HessianVectorProgram {
public:
    HessianVectorProgram() = default;
    // `gradient`: input zeta (dim), output the gradient; `hessian_vector`: the simplified H v
    // graph over [zeta; v] (hessian_vector_graph's layout) and the data it reads.
    HessianVectorProgram(Program gradient, const Graph& hessian_vector,
                         const std::vector<DataSlot>& data, int dim);
    // The direction program reads the point program's arena: moved with it, never copied.
    HessianVectorProgram(const HessianVectorProgram&) = delete;
    HessianVectorProgram& operator=(const HessianVectorProgram&) = delete;
    HessianVectorProgram(HessianVectorProgram&&) noexcept = default;
    HessianVectorProgram& operator=(HessianVectorProgram&&) noexcept = default;
    ~HessianVectorProgram() = default;

    [[nodiscard]] int dim() const { return gradient_.dim(); }
    // log p and its gradient, by the gradient program (cheaper than the curvature program).
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad);
    // log p, its gradient and H v at zeta; grad and hv must have size dim() (then nothing
    // is allocated). The point stage runs only when zeta differs from the last call's.
    double hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                          Eigen::VectorXd& grad, Eigen::VectorXd& hv);

    // All programs' threads (results are bit-identical across thread counts). The point
    // program's arena is reallocated: the direction program is bound to it again.
    void set_threads(int threads);
    void reload_data();
    [[nodiscard]] const Program& gradient_program() const { return gradient_; }
    // Input zeta; output the gradient, and the point values kept in its arena.
    [[nodiscard]] const Program& point_program() const { return point_; }
    // Input v; output H v at the point program's last zeta.
    [[nodiscard]] const Program& direction_program() const { return direction_; }
    // How many times the point stage ran (tests: same-point products reuse it).
    [[nodiscard]] long point_runs() const { return point_runs_; }

private:
    // Compiles the direction graph with its point slots bound to the point program's buffers.
    void bind_direction();

    Program gradient_;
    Program point_;
    Program direction_;
    Graph direction_graph_;
    std::vector<DataSlot> data_;      // the model's data slots
    std::vector<Shape> boundary_;     // the point values' shapes, in slot order
    std::vector<std::string> names_;  // and names
    int threads_ = 0;
    Eigen::VectorXd point_out_;  // the gradient
    Eigen::VectorXd point_zeta_;
    double point_lp_ = 0.0;
    bool point_valid_ = false;
    long point_runs_ = 0;
};

}  // namespace advi
