// Linear regression, the benchmark model: y ~ normal(X beta, sigma), beta ~ normal(0, 10),
// sigma ~ lognormal(0, 1) (sigma = exp(zeta_D)); the data and a hand-written Eigen gradient of
// the log density on zeta. Plain C++17 with Eigen only, so that programs without the advi
// library (bench/stan_math) can use it.
#pragma once

#include <cmath>
#include <cstdlib>

#include <Eigen/Core>

namespace advi::bench {

struct LinearRegressionData {
    Eigen::MatrixXd X;
    Eigen::VectorXd y;
    LinearRegressionData(int N, int D, unsigned seed = 1) {
        std::srand(seed);
        X = Eigen::MatrixXd::Random(N, D);
        const Eigen::VectorXd beta = Eigen::VectorXd::LinSpaced(D, -1, 1);
        y = X * beta + 0.5 * Eigen::VectorXd::Random(N);
    }
};

// What a careful person writes by hand: two matrix-vector products and one pass over r.
class LinearRegressionHand {
public:
    explicit LinearRegressionHand(const LinearRegressionData& d)
        : X_(d.X), y_(d.y), r_(d.y.size()), gb_(d.X.cols()) {}
    int dim() const { return static_cast<int>(X_.cols()) + 1; }
    double log_density_gradient(const Eigen::VectorXd& zeta, Eigen::VectorXd& grad) {
        const Eigen::Index N = X_.rows(), D = X_.cols();
        const double c = 0.5 * std::log(2 * M_PI);
        const auto b = zeta.head(D);
        const double z = zeta[D];
        const double inv_s2 = std::exp(-2 * z);
        r_.noalias() = y_ - X_ * b;
        const double rr = r_.squaredNorm();
        gb_.noalias() = X_.transpose() * r_;
        grad.head(D) = gb_ * inv_s2 - b / 100;
        grad[D] = rr * inv_s2 - static_cast<double>(N) - z;
        return -0.5 * rr * inv_s2 - static_cast<double>(N) * (z + c) - 0.5 * b.squaredNorm() / 100 -
               static_cast<double>(D) * (std::log(10.0) + c) - 0.5 * z * z - c;
    }

private:
    const Eigen::MatrixXd& X_;
    const Eigen::VectorXd& y_;
    Eigen::VectorXd r_, gb_;
};

}  // namespace advi::bench
