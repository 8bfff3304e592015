// How well a non-negative matrix factorisation fits (examples/nmf_gap.cpp, nmf_direxp.cpp and
// their tests): the factors are identified only up to relabelling and scaling (theta D, beta
// D^-1), so the fit is compared with the truth through the rates theta beta' they imply.
#pragma once

#include <cmath>

#include <Eigen/Core>

namespace advi::examples {

struct RateFit {
    double correlation = 0;     // Pearson correlation of the fitted and true rates, all U x I
    double relative_error = 0;  // |R_fit - R_true|_F / |R_true|_F
    double loglik_fit = 0;      // mean Poisson log likelihood of an entry y_ui at the fitted rates
    double loglik_true = 0;     // ... at the true rates
};

// log Poisson(y | r) averaged over the entries.
inline double mean_poisson_loglik(const Eigen::MatrixXi& y, const Eigen::MatrixXd& rate) {
    double s = 0;
    for (Eigen::Index j = 0; j < y.cols(); ++j) {
        for (Eigen::Index i = 0; i < y.rows(); ++i) {
            const double k = y(i, j), r = rate(i, j);
            s += (k > 0 ? k * std::log(r) : 0.0) - r - std::lgamma(k + 1);
        }
    }
    return s / static_cast<double>(y.size());
}

// The maximum likelihood rates of a rank-one Poisson factorisation, r_ui = y_u. y_.i / y_..
// (row total times column total over the grand total): the baseline a K-factor fit must beat.
inline Eigen::MatrixXd rank_one_rates(const Eigen::MatrixXi& y) {
    const Eigen::MatrixXd x = y.cast<double>();
    return x.rowwise().sum() * x.colwise().sum() / x.sum();
}

// `fit_rate` and `true_rate` are U x I (theta beta'), `y` the counts.
inline RateFit compare_rates(const Eigen::MatrixXd& fit_rate, const Eigen::MatrixXd& true_rate,
                             const Eigen::MatrixXi& y) {
    RateFit r;
    const Eigen::ArrayXd a = fit_rate.reshaped().array() - fit_rate.mean();
    const Eigen::ArrayXd b = true_rate.reshaped().array() - true_rate.mean();
    r.correlation = (a * b).sum() / std::sqrt(a.square().sum() * b.square().sum());
    r.relative_error = (fit_rate - true_rate).norm() / true_rate.norm();
    r.loglik_fit = mean_poisson_loglik(y, fit_rate);
    r.loglik_true = mean_poisson_loglik(y, true_rate);
    return r;
}

}  // namespace advi::examples
