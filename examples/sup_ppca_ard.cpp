// Supervised probabilistic PCA with ARD (paper appendix A.7) on the shared simulated
// trajectories: D = 100 coordinates of rank 11 plus noise and a response y = w_y . z_n + noise
// (small: N = 1000, medium: N = 10000). The fit is given M components, more than the true rank;
// ARD should keep 11 and shrink the others. Prints what examples/ppca_ard prints (the fitted ARD
// scales sorted next to the true ones, the recovered rank, the principal angles to the true
// subspace) and how well y is predicted: the in-sample R^2 of E[Z] E[w_y] against y, and its
// correlation with the truth's noise-free response Z_true w_y_true (W, Z and w_y are identified
// only up to a rotation, so the predicted vectors are compared, not w_y itself).
//   ./build/examples/sup_ppca_ard [small|medium] [M]   (M = 20 by default; the paper takes M = D)
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "ppca_ard_model.hpp"

namespace {

// 1 - |y - y_hat|^2 / |y - mean(y)|^2.
double r_squared(const Eigen::VectorXd& y, const Eigen::VectorXd& y_hat) {
    return 1.0 - (y - y_hat).squaredNorm() / (y.array() - y.mean()).matrix().squaredNorm();
}

double correlation(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    const Eigen::VectorXd ac = a.array() - a.mean(), bc = b.array() - b.mean();
    return ac.dot(bc) / (ac.norm() * bc.norm());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "small";
    const int M = argc > 2 ? std::stoi(argv[2]) : 20;
    const auto dir = advi::examples::sim_dir("sup_ppca_ard");
    if (!advi::examples::have_sim_data(dir, size))
        return 0;  // a clone without it
    const advi::DataTable data = advi::read_data(dir / (size + ".data.json"));
    const advi::DataTable truth = advi::examples::read_truth(dir / (size + ".truth.json"));
    const Eigen::MatrixXd x = data.at("x").as_matrix();
    const Eigen::VectorXd y = data.at("y").as_vector();
    const int true_rank = truth.at("rank").as_int();
    const double sigma_true = truth.at("sigma").as_real();
    const Eigen::MatrixXd W_true = truth.at("W").as_matrix();
    const Eigen::MatrixXd Z_true = truth.at("z").as_matrix();
    const Eigen::VectorXd w_y_true = truth.at("w_y").as_vector();
    const auto N = x.rows(), D = x.cols();
    // This truth file has no alpha: as sim/ppca_ard's, alpha_m is the RMS of W's column m over
    // sigma (the prior's sd sigma alpha_m, matched to the column).
    Eigen::VectorXd alpha_true =
        (W_true.colwise().squaredNorm().array() / D).sqrt().transpose() / sigma_true;
    std::sort(alpha_true.begin(), alpha_true.end(), std::greater<>());

    advi::Model m;
    advi::examples::build_sup_ppca_ard(m, x, y, M);
    fmt::print(
        "Supervised PPCA with ARD: N = {}, D = {} + 1 response, M = {} components (true "
        "rank {}) ({})\n",
        N, D, M, true_rank, size);
    // The settings of examples/ppca_ard (eta = 1 given, Stan's rule; see there why).
    const advi::Fit fit = advi::fit(m, {.family = advi::Family::MeanField,
                                        .seed = 1,
                                        .tol_rel_obj = 0.001,
                                        .adapt_engaged = false,
                                        .eta = 1,
                                        .max_iterations = 20000,
                                        .convergence = advi::ConvergenceRule::Stan});
    fmt::print("{} iterations, {:.2f} s, eta {}\n\n", fit.result().iterations, fit.result().seconds,
               fit.result().eta);

    const Eigen::VectorXd alpha = fit.mean("alpha");
    const double sigma = fit.mean("sigma")[0];
    const Eigen::VectorXd W_flat = fit.mean("W");  // column-major D x M
    const Eigen::Map<const Eigen::MatrixXd> W(W_flat.data(), D, M);
    const Eigen::VectorXd Z_flat = fit.mean("Z");  // column-major N x M
    const Eigen::Map<const Eigen::MatrixXd> Z(Z_flat.data(), N, M);
    const Eigen::VectorXd w_y = fit.mean("w_y");
    std::vector<int> order(M);
    for (int k = 0; k < M; ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return alpha[a] > alpha[b]; });

    // examples/ppca_ard's rule: a component is kept when its variance D (sigma alpha_m)^2 is
    // above one coordinate's noise variance sigma^2, i.e. alpha_m > 1 / sqrt(D).
    const double threshold = 1 / std::sqrt(static_cast<double>(D));
    int rank = 0;
    fmt::print("{:>4} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "rank", "component", "E[alpha]",
               "|E[w_m]|", "E[w_y,m]", "true alpha");
    for (int k = 0; k < M; ++k) {
        const int c = order[k];
        const bool kept = alpha[c] > threshold;
        rank += kept;
        fmt::print("{:>4} {:>10} {:>10.4f} {:>10.3f} {:>10.3f} {:>10}{}\n", k + 1, c, alpha[c],
                   W.col(c).norm(), w_y[c],
                   k < alpha_true.size() ? fmt::format("{:.4f}", alpha_true[k]) : "-",
                   kept ? "" : "   (shrunk)");
    }
    fmt::print("\nthreshold on alpha: 1 / sqrt(D) = {:.4f}\n", threshold);
    fmt::print("recovered rank: {} (truth {})\n", rank, true_rank);
    fmt::print("sigma: truth {:.4f}, mean {:.4f} (sd {:.4f})\n", sigma_true, sigma,
               fit.sd("sigma")[0]);
    if (rank > 0) {
        Eigen::MatrixXd kept(D, rank);
        for (int k = 0; k < rank; ++k) kept.col(k) = W.col(order[k]);
        const Eigen::VectorXd cosines = advi::examples::subspace_cosines(kept, W_true);
        fmt::print("subspace: cosines of the principal angles to the true one, {:.4f} .. {:.4f}\n",
                   cosines.maxCoeff(), cosines.minCoeff());
    }

    // The response. E[Z] E[w_y] is the fit's in-sample prediction (E[z_n] has seen y_n too).
    // Two references from the truth: the noise-free response Z_true w_y_true (its R^2 is the
    // ceiling, 1 - sigma^2 / Var(y)), and the prediction from x alone under the true W and
    // sigma, E[z_n | x_n] w_y_true with E[z_n | x_n] = (I + W'W / sigma^2)^-1 W' x_n / sigma^2
    // (what a new row without its y would get).
    const Eigen::VectorXd y_fit = Z * w_y;
    const Eigen::VectorXd y_true = Z_true * w_y_true;
    const Eigen::MatrixXd precision = Eigen::MatrixXd::Identity(true_rank, true_rank) +
                                      W_true.transpose() * W_true / (sigma_true * sigma_true);
    const Eigen::MatrixXd Ez_given_x =
        precision.llt().solve(W_true.transpose() * x.transpose()).transpose() /
        (sigma_true * sigma_true);
    fmt::print("\nresponse y (variance {:.3f}, noise variance {:.4f}):\n",
               (y.array() - y.mean()).square().mean(), sigma_true * sigma_true);
    fmt::print("  R^2 of E[Z] E[w_y] (in-sample, the fit): {:.4f}\n", r_squared(y, y_fit));
    fmt::print("  R^2 of Z_true w_y_true (the truth):       {:.4f}\n", r_squared(y, y_true));
    fmt::print("  R^2 of E[Z | x] w_y_true (true W, x only): {:.4f}\n",
               r_squared(y, Ez_given_x * w_y_true));
    fmt::print("  correlation of E[Z] E[w_y] with Z_true w_y_true: {:.4f}\n",
               correlation(y_fit, y_true));
    return 0;
}
