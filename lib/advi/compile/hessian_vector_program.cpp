// The curvature program: one run of the H v program over [zeta; v].
#include <advi/compile/hessian_vector_program.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

HessianVectorProgram::HessianVectorProgram(Program gradient, Program hessian_vector)
    : gradient_(std::move(gradient)), hv_(std::move(hessian_vector)) {
    const int k = gradient_.dim();
    if (hv_.dim() != 2 * k || hv_.output_dim() != 2 * k) {
        throw InternalError(fmt::format(
            "HessianVectorProgram: the H v program reads {} and writes {} values, not 2 x {}",
            hv_.dim(), hv_.output_dim(), k));
    }
    input_.setZero(2 * k);
    output_.setZero(2 * k);
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
    input_.head(k) = zeta;
    input_.tail(k) = v;
    const double lp = hv_.run(input_, output_);
    grad = output_.head(k);
    hv = output_.tail(k);
    return lp;
}

void HessianVectorProgram::set_threads(int threads) {
    gradient_.set_threads(threads);
    hv_.set_threads(threads);
}

void HessianVectorProgram::reload_data() {
    gradient_.reload_data();
    hv_.reload_data();
}

}  // namespace advi
