// The dense Hessian from H e_i.
#include <advi/engine/hessian.hpp>

#include <cmath>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>

namespace advi {

namespace {

std::string coordinate(const std::function<std::string(int)>& describe, int k) {
    return describe ? describe(k) : fmt::format("coordinate {}", k);
}

}  // namespace

void require_dense_memory(std::string_view what, int K, int copies) {
    require_memory(fmt::format("{} ({} x {} unconstrained dimensions{})", what, K, K,
                               copies > 1 ? fmt::format(", {} matrices", copies) : ""),
                   checked_product({copies, K, K}));
}

DenseHessian dense_hessian(CurvatureTarget& target, const Eigen::VectorXd& zeta,
                           const std::function<std::string(int)>& describe) {
    const int K = target.dim();
    if (zeta.size() != K) {
        throw ShapeError(fmt::format("dense Hessian: the point has {} coordinates, the target {}",
                                     zeta.size(), K));
    }
    require_dense_memory("the dense Hessian", K);
    DenseHessian out;
    out.H.resize(K, K);
    out.gradient.resize(K);
    Eigen::VectorXd e = Eigen::VectorXd::Zero(K), hv(K);
    for (int i = 0; i < K; ++i) {
        e[i] = 1.0;
        out.log_density = target.hessian_vector(zeta, e, out.gradient, hv);
        e[i] = 0.0;
        if (!std::isfinite(out.log_density)) {
            throw FitError(
                fmt::format("dense Hessian: the log density is {} at the point", out.log_density));
        }
        if (!out.gradient.allFinite()) {
            int j = 0;
            while (std::isfinite(out.gradient[j])) ++j;
            throw FitError(
                fmt::format("dense Hessian: the gradient is not finite at the point "
                            "(its element for {} is {})",
                            coordinate(describe, j), out.gradient[j]));
        }
        if (!hv.allFinite()) {
            int j = 0;
            while (std::isfinite(hv[j])) ++j;
            throw FitError(fmt::format(
                "dense Hessian: d2 log p / d({}) d({}) is {} at the point: the density is not "
                "twice differentiable there",
                coordinate(describe, j), coordinate(describe, i), hv[j]));
        }
        out.H.col(i) = hv;
    }
    // Measured on the raw columns: a symmetric H is a property of a correct H v, so a large
    // asymmetry is a bug to report, not something to average away.
    const double scale = std::max(out.H.cwiseAbs().maxCoeff(), 1e-300);
    int worst_i = 0, worst_j = 0;
    double worst = 0.0;
    for (int j = 0; j < K; ++j) {
        for (int i = j + 1; i < K; ++i) {
            const double d = std::abs(out.H(i, j) - out.H(j, i));
            if (d > worst) {
                worst = d;
                worst_i = i;
                worst_j = j;
            }
        }
    }
    out.asymmetry = worst / scale;
    if (out.asymmetry > kMaxHessianAsymmetry) {
        throw FitError(fmt::format(
            "dense Hessian: not symmetric: d2 log p / d({}) d({}) is {} one way and {} the other "
            "(relative asymmetry {:.3g} > {:g}); the Hessian-vector product is wrong there",
            coordinate(describe, worst_i), coordinate(describe, worst_j), out.H(worst_i, worst_j),
            out.H(worst_j, worst_i), out.asymmetry, kMaxHessianAsymmetry));
    }
    out.H = (0.5 * (out.H + out.H.transpose())).eval();
    return out;
}

}  // namespace advi
