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
    const HessianVectorStages stages =
        split_hessian_vector(hessian_vector, dim, static_cast<int>(data.size()));
    point_ = Program::compile(stages.point, data, dim, dim + stages.boundary_size);
    point_out_.setZero(dim + stages.boundary_size);
    point_zeta_.setZero(dim);
    std::vector<DataSlot> with_point = data;
    const double* at = point_out_.data() + dim;
    for (std::size_t j = 0; j < stages.boundary.size(); ++j) {
        with_point.push_back(
            DataSlot{stages.names[j], stages.boundary[j], DType::Real, at, nullptr});
        at += stages.boundary[j].size();
    }
    direction_ = Program::compile(stages.direction, std::move(with_point), dim, dim);
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
    gradient_.set_threads(threads);
    point_.set_threads(threads);
    direction_.set_threads(threads);
}

void HessianVectorProgram::reload_data() {
    gradient_.reload_data();
    point_.reload_data();
    direction_.reload_data();
    point_valid_ = false;
}

}  // namespace advi
