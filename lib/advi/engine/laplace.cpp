// The Laplace Gaussian: the factor, its refusal where -H is not positive definite, draws and
// the normalised log density.
#include <advi/engine/laplace.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/engine/hessian.hpp>

namespace advi {

LaplaceGaussian::LaplaceGaussian(Eigen::VectorXd mode, Eigen::MatrixXd L, double regularization,
                                 double hessian_asymmetry, double log_density_at_mode,
                                 int newton_steps, double initial_decrement, double decrement)
    : mode_(std::move(mode)),
      L_(std::move(L)),
      regularization_(regularization),
      hessian_asymmetry_(hessian_asymmetry),
      log_density_at_mode_(log_density_at_mode),
      newton_steps_(newton_steps),
      initial_decrement_(initial_decrement),
      decrement_(decrement) {}

Eigen::MatrixXd LaplaceGaussian::covariance() const {
    // (L L')^-1 = L^-T L^-1: two triangular solves against I.
    Eigen::MatrixXd inv = Eigen::MatrixXd::Identity(dim(), dim());
    L_.triangularView<Eigen::Lower>().solveInPlace(inv);
    return inv.transpose() * inv;
}

Eigen::MatrixXd LaplaceGaussian::draw(Rng& rng, int n) const {
    Eigen::MatrixXd z = rng.normal_matrix(n, dim()).transpose();  // dim x n
    // L' x = z gives x = L^-T z, whose covariance is (L L')^-1.
    L_.triangularView<Eigen::Lower>().transpose().solveInPlace(z);
    z.colwise() += mode_;
    return z.transpose();
}

Eigen::VectorXd LaplaceGaussian::log_density(const Eigen::MatrixXd& zeta) const {
    const double constant =
        -0.5 * dim() * std::log(2.0 * std::numbers::pi) + L_.diagonal().array().log().sum();
    const Eigen::MatrixXd u = L_.triangularView<Eigen::Lower>().transpose() *
                              (zeta.rowwise() - mode_.transpose()).transpose();  // dim x n
    return (constant - 0.5 * u.colwise().squaredNorm().array()).transpose();
}

namespace {

std::string coordinate(const LaplaceSettings& s, int k) {
    return s.describe_coordinate ? s.describe_coordinate(k) : fmt::format("coordinate {}", k);
}

// "eigenvalue -2 along 0.707 `mu` - 0.707 `tau`": the coordinates with the largest loadings
// (those with |v_k| at least a tenth of the largest, at most 5), which is where the posterior
// is flat or curves upward.
std::string direction(const LaplaceSettings& s, double eigenvalue, const Eigen::VectorXd& v) {
    std::vector<int> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return std::abs(v[a]) > std::abs(v[b]); });
    const double largest = std::abs(v[order[0]]);
    const double sign = v[order[0]] < 0 ? -1.0 : 1.0;  // lead with a positive loading
    std::string along;
    for (std::size_t i = 0; i < order.size() && i < 5; ++i) {
        const double w = sign * v[order[i]];
        if (std::abs(w) < 0.1 * largest)
            break;
        along += fmt::format("{}{:.3g} {}", i == 0 ? "" : (w < 0 ? " - " : " + "),
                             i == 0 ? w : std::abs(w), coordinate(s, order[i]));
    }
    return fmt::format("eigenvalue {:.4g} along {}", eigenvalue, along);
}

}  // namespace

namespace {

// The lower Cholesky factor of P, or a FitError naming the directions where P is not positive
// definite (where the point is not a maximum: a saddle, a flat direction of an improper
// posterior).
Eigen::MatrixXd factor_or_explain(const Eigen::MatrixXd& P, const LaplaceSettings& settings) {
    const int K = static_cast<int>(P.rows());
    Eigen::LLT<Eigen::MatrixXd> llt(P);
    if (llt.info() == Eigen::Success && llt.matrixL().toDenseMatrix().diagonal().allFinite()) {
        return llt.matrixL();
    }
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(P);
    const Eigen::VectorXd& values = eig.eigenvalues();  // ascending
    std::string dirs;
    int count = 0;
    for (int i = 0; i < K && values[i] <= 0; ++i, ++count) {
        if (count < 5)
            dirs += (count ? "; " : "") + direction(settings, values[i], eig.eigenvectors().col(i));
    }
    if (count == 0) {  // LLT failed on rounding with all eigenvalues positive but tiny
        dirs = direction(settings, values[0], eig.eigenvectors().col(0));
        count = 1;
    }
    if (count > 5)
        dirs += fmt::format("; and {} more", count - 5);
    const double needed = std::max(0.0, -values[0]) + settings.regularization;
    throw FitError(fmt::format(
        "Laplace: the negative Hessian at the mode{} is not positive definite: {} direction{} "
        "where the log density does not curve down: {}; the point is not a strict maximum (a "
        "saddle, or a posterior flat or improper in that direction); a regularization above "
        "{:.4g} would add that much to every eigenvalue",
        settings.regularization > 0
            ? fmt::format(" plus the regularization {}", settings.regularization)
            : "",
        count, count == 1 ? "" : "s", dirs, needed));
}

}  // namespace

LaplaceGaussian laplace_gaussian(CurvatureTarget& target, const Eigen::VectorXd& start,
                                 const LaplaceSettings& settings) {
    const int K = target.dim();
    if (!(settings.regularization >= 0) || !std::isfinite(settings.regularization)) {
        throw ModelError(fmt::format("Laplace: the regularization must be finite and >= 0, got {}",
                                     settings.regularization));
    }
    require_dense_memory(
        "the Laplace approximation (the dense Hessian, its Cholesky factor and an "
        "eigendecomposition)",
        K, 3);
    // Newton's method on the exact Hessian from the point given: an optimizer's stopping rule
    // (L-BFGS's relative gradient) can leave a badly conditioned posterior's point posterior
    // sds from its mode, and a Gaussian centred there would be a silent wrong answer. The
    // distance is measured as the Newton decrement |L^-1 g|: the step to the quadratic
    // model's maximum in posterior sds (Mahalanobis, under the Gaussian itself).
    Eigen::VectorXd zeta = start, grad(K), trial_grad(K);
    double initial_decrement = 0.0;
    Eigen::MatrixXd L;
    double log_density = 0.0;
    double asymmetry = 0.0;
    for (int step = 0;; ++step) {
        if (step == 0 || !settings.reuse_hessian) {
            DenseHessian h = dense_hessian(target, zeta, settings.describe_coordinate);
            Eigen::MatrixXd P = -h.H;
            P.diagonal().array() += settings.regularization;
            h.H.resize(0, 0);
            L = factor_or_explain(P, settings);
            log_density = h.log_density;
            asymmetry = h.asymmetry;
            grad = std::move(h.gradient);
        }
        const Eigen::VectorXd u = L.triangularView<Eigen::Lower>().solve(grad);
        const double decrement = u.norm();
        if (step == 0)
            initial_decrement = decrement;
        const auto done = [&] {
            return LaplaceGaussian(zeta, std::move(L), settings.regularization, asymmetry,
                                   log_density, step, initial_decrement, decrement);
        };
        if (decrement <= settings.mode_tolerance)
            return done();
        if (step == settings.max_newton_steps) {
            if (decrement <= settings.accept_tolerance)
                return done();
            throw FitError(fmt::format(
                "Laplace: the point is not a mode: after {} Newton steps on the {} Hessian it "
                "is still {:.3g} posterior sds from the quadratic model's maximum (tolerance {:g})",
                step, settings.reuse_hessian ? "first point's" : "exact", decrement,
                settings.mode_tolerance));
        }
        // The Newton step P^-1 g = L^-T u, halved until the log density does not fall (and
        // is finite): near a maximum the full step is taken.
        const Eigen::VectorXd delta = L.triangularView<Eigen::Lower>().transpose().solve(u);
        bool moved = false;
        for (double t = 1.0; t > 1e-10 && !moved; t *= 0.5) {
            const Eigen::VectorXd trial = zeta + t * delta;
            const double lp = evaluate(target, trial, trial_grad);
            if (std::isfinite(lp) && lp >= log_density &&
                (!settings.reuse_hessian || trial_grad.allFinite())) {
                zeta = trial;
                log_density = lp;
                grad = trial_grad;
                moved = true;
            }
        }
        if (!moved) {
            // Rounding: no step along the Newton direction raises the log density any more.
            // Accept where that happens close to the maximum, and say how close.
            if (decrement <= 1e-3)
                return done();
            throw FitError(fmt::format(
                "Laplace: the point is not a mode: it is {:.3g} posterior sds from the quadratic "
                "model's maximum, and no step towards it raises the log density",
                decrement));
        }
    }
}

}  // namespace advi
