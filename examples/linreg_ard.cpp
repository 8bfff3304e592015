// Linear regression with ARD (paper appendix A.1) on the shared simulated data: D = 250 inputs
// of which half are relevant, N = 10000 (medium; `small` has D = 20, N = 500). ARD should keep
// the relevant coefficients and shrink the irrelevant ones to 0; the fit is printed next to the
// true w, with the held-out RMSE.
//   ./build/examples/linreg_ard [medium|small]
#include <cmath>
#include <iostream>
#include <string>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "linreg_ard_model.hpp"

int main(int argc, char** argv) {
    const std::string size = argc > 1 ? argv[1] : "medium";
    const auto dir = advi::examples::sim_dir("linreg_ard");
    if (!advi::examples::have_sim_data(dir, size))
        return 0;  // a clone without it
    const advi::DataTable data = advi::read_data(dir / (size + ".data.json"));
    const advi::DataTable truth = advi::examples::read_truth(dir / (size + ".truth.json"));
    const Eigen::MatrixXd X = data.at("X").as_matrix();
    const Eigen::VectorXd y = data.at("y").as_vector();
    const Eigen::VectorXd w_true = truth.at("w").as_vector();
    const Eigen::VectorXi relevant = truth.at("relevant").as_int_vector();
    const advi::examples::ArdHyper hyper{data.at("a0").as_real(), data.at("b0").as_real(),
                                         data.at("c0").as_real(), data.at("d0").as_real()};

    advi::Model m;
    advi::examples::build_linreg_ard(m, X, y, hyper);
    fmt::print("linear regression with ARD: N = {}, D = {} ({} relevant) ({})\n", X.rows(),
               X.cols(), relevant.sum(), size);
    const advi::Fit fit =
        advi::fit(m, {.family = advi::Family::MeanField, .seed = 1, .tol_rel_obj = 0.001});
    const Eigen::VectorXd w = fit.mean("w"), w_sd = fit.sd("w"), alpha = fit.mean("alpha");
    fmt::print("{} iterations, {:.2f} s, eta {}\n\n", fit.result().iterations, fit.result().seconds,
               fit.result().eta);

    const int show = static_cast<int>(std::min<Eigen::Index>(X.cols(), 20));
    fmt::print("{:>4} {:>8} {:>9} {:>8} {:>10}   (first {} of {})\n", "d", "true w", "mean w",
               "sd w", "mean alpha", show, X.cols());
    for (int d = 0; d < show; ++d)
        fmt::print("{:>4} {:>8.3f} {:>9.3f} {:>8.3f} {:>10.2f}{}\n", d, w_true[d], w[d], w_sd[d],
                   alpha[d], relevant[d] ? "" : "   (irrelevant)");

    double err_rel = 0, max_irr = 0, log_alpha_rel = 0, log_alpha_irr = 0;
    int n_rel = 0, n_irr = 0;
    for (Eigen::Index d = 0; d < X.cols(); ++d) {
        if (relevant[d]) {
            err_rel = std::max(err_rel, std::abs(w[d] - w_true[d]));
            log_alpha_rel += std::log(alpha[d]);
            ++n_rel;
        } else {
            max_irr = std::max(max_irr, std::abs(w[d]));
            log_alpha_irr += std::log(alpha[d]);
            ++n_irr;
        }
    }
    fmt::print("\nrelevant:   max |mean w - true w| = {:.4f}, geometric mean of alpha = {:.2f}\n",
               err_rel, std::exp(log_alpha_rel / n_rel));
    fmt::print("irrelevant: max |mean w|          = {:.4f}, geometric mean of alpha = {:.2f}\n",
               max_irr, std::exp(log_alpha_irr / n_irr));
    fmt::print("sigma: truth {:.3f}, mean {:.4f} (sd {:.4f})\n", truth.at("sigma").as_real(),
               fit.mean("sigma")[0], fit.sd("sigma")[0]);
    // Held-out error with the posterior mean of w, against the noise sd it cannot beat.
    const Eigen::MatrixXd X_test = data.at("X_test").as_matrix();
    const Eigen::VectorXd y_test = data.at("y_test").as_vector();
    const auto rmse = [&](const Eigen::VectorXd& b) {
        return std::sqrt((X_test * b - y_test).squaredNorm() / y_test.size());
    };
    fmt::print("held-out RMSE: {:.4f} with the fit's w, {:.4f} with the true w\n", rmse(w),
               rmse(w_true));
    return 0;
}
