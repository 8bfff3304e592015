// A linear regression with known noise and a normal prior, whose posterior is exactly Gaussian
// (precision X'X / sigma^2 + I / tau^2): the model the Laplace and Pathfinder tests hold their
// answers against. Correlated predictors, one an uncentred "year" column, so that the posterior
// covariance is far from diagonal; `year_start` and `year_step` set how badly scaled it is.
#pragma once

#include <cmath>

#include <Eigen/Cholesky>
#include <Eigen/Core>

namespace advi::test {

struct KnownNoiseRegression {
    Eigen::MatrixXd X;
    Eigen::VectorXd y;
    double sigma = 1.5, tau = 10.0;
    [[nodiscard]] Eigen::MatrixXd precision() const {
        return X.transpose() * X / (sigma * sigma) +
               Eigen::MatrixXd::Identity(X.cols(), X.cols()) / (tau * tau);
    }
    [[nodiscard]] Eigen::VectorXd mean() const {
        return precision().llt().solve(X.transpose() * y / (sigma * sigma));
    }
};

inline KnownNoiseRegression make_known_noise_regression(double year_start, double year_step) {
    KnownNoiseRegression r;
    const int N = 40;
    r.X.resize(N, 3);
    r.y.resize(N);
    for (int i = 0; i < N; ++i) {
        const double year = year_start + year_step * i;
        r.X(i, 0) = 1.0;
        r.X(i, 1) = year;
        r.X(i, 2) = std::sin(0.7 * i) + 0.1 * year;
        r.y[i] = 2.0 - 0.3 * year + 1.2 * r.X(i, 2) + 1.5 * std::cos(1.3 * i);
    }
    return r;
}

}  // namespace advi::test
