// The paper's second accuracy study (section 3.1, "Logistic regression"): 9 covariates and an
// intercept, N = 1000, independent normal priors on the coefficients. Mean-field and
// full-rank ADVI next to the simulated truth and to the Laplace approximation at the posterior
// mode (Newton's method), which stands in for the paper's NUTS run: with N = 1000 the
// posterior is close to Gaussian.
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include <Eigen/Dense>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "logistic_model.hpp"

int main() {
    const std::filesystem::path dir = std::filesystem::path(ADVI_SHARED_DATA) / "sim/logistic";
    if (!std::filesystem::exists(dir / "small.data.json")) {
        std::cout << "logistic: the shared data folder " << dir
                  << " is missing (it sits beside the repository as ../shared/data); nothing "
                     "to do\n";
        return 0;
    }
    const advi::DataTable data = advi::read_data(dir / "small.data.json");
    const advi::DataTable truth = advi::examples::read_truth(dir / "small.truth.json");
    const Eigen::MatrixXd X = data.at("X").as_matrix();  // column 0 is the intercept's 1s
    const Eigen::VectorXi y = data.at("y").as_int_vector();
    const double prior_sd = data.at("prior_sd").as_real();
    const Eigen::VectorXd beta_true = truth.at("beta").as_vector();

    advi::Model m;
    advi::examples::build_logistic(m, X, y, prior_sd);
    std::cout << m.graph() << "\n";

    // The posterior mode and the inverse Hessian there (Laplace), by Newton's method.
    const Eigen::Index K = X.cols();
    const advi::examples::Laplace laplace = advi::examples::logistic_laplace(X, y, prior_sd);
    const Eigen::VectorXd& mode = laplace.mode;
    const Eigen::VectorXd laplace_sd = laplace.cov.diagonal().cwiseSqrt();

    const advi::Options options = advi::examples::logistic_options(advi::Family::MeanField);
    const advi::Options fr_options = advi::examples::logistic_options(advi::Family::FullRank);
    const advi::Fit mf = advi::fit(m, options);
    const advi::Fit fr = advi::fit(m, fr_options);
    std::cout << "== mean-field ==\n" << mf.summary() << "\n== full-rank ==\n" << fr.summary();

    const Eigen::VectorXd mf_mean = mf.result().q.mu(), fr_mean = fr.result().q.mu();
    const Eigen::VectorXd mf_sd = mf.result().q.sd(), fr_sd = fr.result().q.sd();
    std::cout
        << "\n(beta is unconstrained: q's mean and sd are the approximation's)\n"
        << std::fixed << std::setprecision(3)
        << "         truth |   mode  Laplace sd |  mean-field mean   sd |  full-rank mean   sd"
           " | (mean - truth) / Laplace sd\n";
    for (Eigen::Index k = 0; k < K; ++k) {
        std::cout << "beta[" << k << "] " << std::setw(7) << beta_true[k] << " | " << std::setw(6)
                  << mode[k] << "  " << std::setw(6) << laplace_sd[k] << "     | " << std::setw(9)
                  << mf_mean[k] << "       " << std::setw(6) << mf_sd[k] << " | " << std::setw(8)
                  << fr_mean[k] << "       " << std::setw(6) << fr_sd[k] << " | " << std::setw(6)
                  << (fr_mean[k] - beta_true[k]) / laplace_sd[k] << "\n";
    }
    std::cout << "mean-field sd / Laplace sd: " << (mf_sd.array() / laplace_sd.array()).transpose()
              << "\nfull-rank sd / Laplace sd:  "
              << (fr_sd.array() / laplace_sd.array()).transpose() << "\n";
    return 0;
}
