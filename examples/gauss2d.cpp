// The paper's first accuracy study (section 3.1, "Two-dimensional Gaussian"): the mean of a
// 2-D Gaussian with known, highly correlated covariance. The posterior is Gaussian and known
// in closed form; full-rank ADVI recovers it and mean-field ADVI underestimates the marginal
// variances: its optimum has variances 1 / diag(posterior precision).
#include <filesystem>
#include <iomanip>
#include <iostream>

#include <Eigen/Dense>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "gauss2d_model.hpp"

int main() {
    const std::filesystem::path dir = std::filesystem::path(ADVI_SHARED_DATA) / "sim/gauss2d";
    if (!std::filesystem::exists(dir / "small.data.json")) {
        std::cout << "gauss2d: the shared data folder " << dir
                  << " is missing (it sits beside the repository as ../shared/data); nothing "
                     "to do\n";
        return 0;
    }
    const advi::DataTable data = advi::read_data(dir / "small.data.json");
    const advi::DataTable truth = advi::examples::read_truth(dir / "small.truth.json");
    const Eigen::MatrixXd y = data.at("y").as_matrix();  // N x 2, one observation per row
    const Eigen::MatrixXd Sigma = data.at("Sigma").as_matrix();
    const Eigen::VectorXd mu0 = data.at("mu0").as_vector();
    const Eigen::MatrixXd Sigma0 = data.at("Sigma0").as_matrix();

    advi::Model m;
    advi::examples::build_gauss2d(m, y, Sigma, mu0, Sigma0);
    std::cout << m.graph() << "\n";

    const advi::examples::Gauss2dPosterior posterior =
        advi::examples::gauss2d_posterior(y, Sigma, mu0, Sigma0);
    const Eigen::MatrixXd& post_cov = posterior.cov;
    const Eigen::VectorXd& post_mean = posterior.mean;
    const Eigen::VectorXd& mf_optimum_var = posterior.mean_field_var;

    const advi::Options mf_options = advi::examples::gauss2d_options(advi::Family::MeanField);
    const advi::Options fr_options = advi::examples::gauss2d_options(advi::Family::FullRank);
    const advi::Fit mf = advi::fit(m, mf_options);
    const advi::Fit fr = advi::fit(m, fr_options);
    std::cout << "== mean-field ==\n" << mf.summary() << "\n== full-rank ==\n" << fr.summary();
    const Eigen::MatrixXd mf_cov = mf.result().q.covariance();
    const Eigen::MatrixXd fr_cov = fr.result().q.covariance();

    std::cout << std::setprecision(4) << "\ntruth mu = " << truth.at("mu").as_vector().transpose()
              << ", N = " << y.rows() << "\n\n";
    std::cout << "posterior mean      mu[0]       mu[1]\n"
              << "  analytic   " << std::setw(10) << post_mean[0] << "  " << std::setw(10)
              << post_mean[1] << "\n"
              << "  truth file " << std::setw(10) << truth.at("posterior_mean").as_vector()[0]
              << "  " << std::setw(10) << truth.at("posterior_mean").as_vector()[1] << "\n"
              << "  mean-field " << std::setw(10) << mf.result().q.mu()[0] << "  " << std::setw(10)
              << mf.result().q.mu()[1] << "\n"
              << "  full-rank  " << std::setw(10) << fr.result().q.mu()[0] << "  " << std::setw(10)
              << fr.result().q.mu()[1] << "\n\n";
    // The paper's table (figure 5): marginal variances of the three.
    auto corr = [](const Eigen::MatrixXd& c) { return c(0, 1) / std::sqrt(c(0, 0) * c(1, 1)); };
    std::cout << "marginal variance        var(mu[0])   var(mu[1])   correlation\n"
              << "  analytic               " << std::setw(10) << post_cov(0, 0) << "   "
              << std::setw(10) << post_cov(1, 1) << "   " << std::setw(8) << corr(post_cov) << "\n"
              << "  full-rank ADVI         " << std::setw(10) << fr_cov(0, 0) << "   "
              << std::setw(10) << fr_cov(1, 1) << "   " << std::setw(8) << corr(fr_cov) << "\n"
              << "  mean-field ADVI        " << std::setw(10) << mf_cov(0, 0) << "   "
              << std::setw(10) << mf_cov(1, 1) << "   " << std::setw(8) << 0.0 << "\n"
              << "  mean-field optimum     " << std::setw(10) << mf_optimum_var[0] << "   "
              << std::setw(10) << mf_optimum_var[1] << "   (1 / diag(posterior precision))\n";
    std::cout << "mean-field / analytic variance: " << mf_cov(0, 0) / post_cov(0, 0) << ", "
              << mf_cov(1, 1) / post_cov(1, 1)
              << " (1 - rho^2 = " << 1 - corr(post_cov) * corr(post_cov) << ")\n";
    return 0;
}
