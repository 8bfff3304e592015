// The curvature program: the point stage once per zeta, the direction stage once per v.
#include <advi/compile/hessian_vector_program.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/diff/hessian_vector.hpp>

namespace advi {

HessianVectorProgram::HessianVectorProgram(Program gradient, const Graph& hessian_vector,
                                           const std::vector<DataSlot>& data, int dim)
    : gradient_(std::move(gradient)) {
    if (gradient_.dim() != dim || gradient_.output_dim() != dim) {
        throw InternalError(fmt::format(
            "HessianVectorProgram: the gradient program reads {} and writes {} values, not {}",
            gradient_.dim(), gradient_.output_dim(), dim));
    }
    HessianVectorStages stages =
        split_hessian_vector(hessian_vector, dim, static_cast<int>(data.size()));
    point_ = Program::compile(stages.point, data, dim, dim);
    point_out_.setZero(dim);
    point_zeta_.setZero(dim);
    direction_graph_ = std::move(stages.direction);
    data_ = data;
    boundary_ = std::move(stages.boundary);
    names_ = std::move(stages.names);
    bind_direction();
}

void HessianVectorProgram::bind_direction() {
    std::vector<DataSlot> with_point = data_;
    for (std::size_t j = 0; j < boundary_.size(); ++j) {
        with_point.push_back(DataSlot{names_[j], boundary_[j], DType::Real,
                                      point_.output_buffer(fmt::format("point {}", j)), nullptr});
    }
    direction_ = Program::compile(direction_graph_, std::move(with_point), dim(), dim(), threads_);
}

double HessianVectorProgram::log_density_gradient(const Eigen::VectorXd& zeta,
                                                  Eigen::VectorXd& grad) {
    return gradient_.run(zeta, grad);
}

double HessianVectorProgram::hessian_vector(const Eigen::VectorXd& zeta, const Eigen::VectorXd& v,
                                            Eigen::VectorXd& grad, Eigen::VectorXd& hv) {
    const int k = dim();
    if (zeta.size() != k || v.size() != k) {
        throw DataError(fmt::format(
            "hessian_vector: expected zeta and v of {} unconstrained values, got {} and {}", k,
            zeta.size(), v.size()));
    }
    // Bitwise equal points only (a NaN never is): the point values are exactly those of zeta.
    if (!point_valid_ || !(zeta.array() == point_zeta_.array()).all()) {
        point_valid_ = false;
        point_lp_ = point_.run(zeta, point_out_);
        point_zeta_ = zeta;
        point_valid_ = true;
        ++point_runs_;
    }
    direction_.run(v, hv);
    grad = point_out_.head(k);
    return point_lp_;
}

void HessianVectorProgram::set_threads(int threads) {
    threads_ = threads;
    gradient_.set_threads(threads);
    point_.set_threads(threads);  // a new arena: the point values are gone
    point_valid_ = false;
    bind_direction();
}

void HessianVectorProgram::reload_data() {
    gradient_.reload_data();
    point_.reload_data();
    direction_.reload_data();
    point_valid_ = false;
}

}  // namespace advi
