// Gaussian mixture model (paper appendix A.5) on the shared simulated data: K = 10 components,
// N = 1000 points in D = 20 (small) or D = 576 (medium, the paper's histogram size)
// standardised dimensions, drawn from the model's own priors with alpha0 = 1000. The fitted
// weights, means and scales are printed next to the truth, the components matched up to
// label permutation, with the held-out log predictive density per point. The ELBO has local
// optima: the best of 8 seeds is kept (gmm_model.hpp's fit_gmm), each started at the higher of
// two modes (L-BFGS from zero and from a random point of its seed); small takes about 10 s.
//   ./build/examples/gmm [small|medium]
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "gmm_model.hpp"

namespace {

// Mean over rows of log sum_k theta_k prod_d N(y_nd | mu_kd, sigma_kd), at point estimates.
double log_predictive(const Eigen::MatrixXd& y, const Eigen::VectorXd& theta,
                      const Eigen::MatrixXd& mu, const Eigen::MatrixXd& sigma) {
    const double c = 0.5 * std::log(2 * M_PI);
    double total = 0;
    for (Eigen::Index n = 0; n < y.rows(); ++n) {
        Eigen::VectorXd l(theta.size());
        for (Eigen::Index k = 0; k < theta.size(); ++k) {
            const Eigen::ArrayXd r = (y.row(n) - mu.row(k)).array() / sigma.row(k).array();
            l[k] = std::log(theta[k]) - 0.5 * r.square().sum() - sigma.row(k).array().log().sum() -
                   static_cast<double>(y.cols()) * c;
        }
        const double top = l.maxCoeff();
        total += top + std::log((l.array() - top).exp().sum());
    }
    return total / static_cast<double>(y.rows());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "small";
    const auto dir = advi::examples::sim_dir("gmm");
    if (!advi::examples::have_sim_data(dir, size))
        return 0;  // a clone without it
    const advi::DataTable data = advi::read_data(dir / (size + ".data.json"));
    const advi::DataTable truth = advi::examples::read_truth(dir / (size + ".truth.json"));
    const Eigen::MatrixXd y = data.at("y").as_matrix();
    const int K = data.at("K").as_int();
    const double alpha0 = data.at("alpha0").as_real();
    const Eigen::VectorXd theta_true = truth.at("theta").as_vector();
    const Eigen::MatrixXd mu_true = truth.at("mu").as_matrix();
    const Eigen::MatrixXd sigma_true = truth.at("sigma").as_matrix();

    advi::Model m;
    advi::examples::build_gmm(m, y, K, alpha0);
    fmt::print("Gaussian mixture: N = {}, D = {}, K = {}, alpha0 = {} ({})\n", y.rows(), y.cols(),
               K, alpha0, size);
    // Eight fits from seeds 1..8, the best ELBO kept: the mixture's ELBO has local optima.
    std::vector<double> elbos;
    const advi::Fit fit = advi::examples::fit_gmm(m, 8, &elbos);
    fmt::print("final ELBO of seeds 1..8: {:.1f}\n", fmt::join(elbos, " "));
    fmt::print("kept ELBO {:.1f}: {} iterations, {:.2f} s, eta {}\n\n",
               fit.result().elbo_trace.back(), fit.result().iterations, fit.result().seconds,
               fit.result().eta);
    const Eigen::VectorXd theta = fit.mean("theta");
    // Fit::mean flattens a matrix column-major.
    const Eigen::MatrixXd mu = fit.mean("mu").reshaped(K, y.cols());
    const Eigen::MatrixXd sigma = fit.mean("sigma").reshaped(K, y.cols());
    const Eigen::MatrixXd mu_sd = fit.sd("mu").reshaped(K, y.cols());

    // The labels are arbitrary: fitted component perm[k] is matched to true component k.
    const std::vector<int> perm = advi::examples::match_components(mu, mu_true);
    const int show = static_cast<int>(std::min<Eigen::Index>(y.cols(), 3));
    fmt::print(
        "{:>3} {:>4} {:>7} {:>7} {:>9} {:>11}   then per dimension: mean mu (sd), true "
        "mu/sigma (first {} of {})\n",
        "k", "fit", "theta", "true", "max|dmu|", "max|dlog s|", show, y.cols());
    for (int k = 0; k < K; ++k) {
        const int j = perm[k];
        const double dmu = (mu.row(j) - mu_true.row(k)).cwiseAbs().maxCoeff();
        const double dls =
            (sigma.row(j).array().log() - sigma_true.row(k).array().log()).abs().maxCoeff();
        fmt::print("{:>3} {:>4} {:>7.4f} {:>7.4f} {:>9.3f} {:>11.3f}", k, j, theta[j],
                   theta_true[k], dmu, dls);
        for (int d = 0; d < show; ++d)
            fmt::print(" {:>7.3f}({:.3f}) {:>6.3f}/{:.3f}", mu(j, d), mu_sd(j, d), mu_true(k, d),
                       sigma_true(k, d));
        fmt::print("\n");
    }
    Eigen::MatrixXd mu_matched(K, y.cols()), sigma_matched(K, y.cols());
    Eigen::VectorXd theta_matched(K);
    for (int k = 0; k < K; ++k) {
        mu_matched.row(k) = mu.row(perm[k]);
        sigma_matched.row(k) = sigma.row(perm[k]);
        theta_matched[k] = theta[perm[k]];
    }
    fmt::print("\nmeans:   max |fit - truth| = {:.3f}, rms = {:.3f}\n",
               (mu_matched - mu_true).cwiseAbs().maxCoeff(),
               std::sqrt((mu_matched - mu_true).squaredNorm() / static_cast<double>(mu.size())));
    // In units of the sampling sd of a component mean given the true labels, sigma_kd / sqrt(n_k).
    const Eigen::VectorXi z = truth.at("z").as_int_vector();  // 1-based
    Eigen::VectorXd n_k = Eigen::VectorXd::Zero(K);
    for (Eigen::Index n = 0; n < z.size(); ++n) n_k[z[n] - 1] += 1;
    const Eigen::MatrixXd se = sigma_true.array().colwise() / n_k.array().sqrt();
    fmt::print("         max |fit - truth| / (sigma / sqrt(n_k)) = {:.2f}\n",
               ((mu_matched - mu_true).array() / se.array()).abs().maxCoeff());
    fmt::print("scales:  max |log fit - log truth| = {:.3f}\n",
               (sigma_matched.array().log() - sigma_true.array().log()).abs().maxCoeff());
    fmt::print("weights: max |fit - truth| = {:.4f}\n",
               (theta_matched - theta_true).cwiseAbs().maxCoeff());
    // Held-out fit with the posterior means against the true parameters' (which it cannot beat
    // by more than overfitting allows).
    const Eigen::MatrixXd y_test = data.at("y_test").as_matrix();
    fmt::print("held-out log predictive density per point: {:.3f} fit, {:.3f} truth\n",
               log_predictive(y_test, theta, mu, sigma),
               log_predictive(y_test, theta_true, mu_true, sigma_true));
    return 0;
}
