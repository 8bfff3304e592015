// The Laplace approximation (advi::laplace: the mode by optimize, the exact Hessian from H v)
// measured against references computed apart from it:
//  1. a linear regression with known noise and a normal prior on badly scaled, correlated
//     predictors (an uncentred year, an income in raw dollars): the posterior is exactly
//     Gaussian, so Laplace must match its means, sds and covariance; full-rank ADVI with the
//     default options beside it;
//  2. the paper's logistic regression (section 3.1, on ../shared/data/sim/logistic): the mode
//     and covariance against the example's own Newton iteration on the analytic Hessian, and
//     the Laplace means and sds against the posterior's, by importance sampling with the
//     Laplace Gaussian as the proposal (PSIS-smoothed weights over 200,000 draws).
//   ./build/examples/laplace_accuracy
#include <chrono>
#include <cmath>
#include <filesystem>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "example_data.hpp"
#include "logistic_model.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void regression() {
    const int N = 200;
    const double sigma = 2.0, tau = 100.0;
    Eigen::MatrixXd X(N, 3);
    Eigen::VectorXd y(N);
    for (int i = 0; i < N; ++i) {
        const double year = 1950.0 + 70.0 * i / N;
        const double dollars = 20000.0 + 400.0 * (year - 1950.0) + 5000.0 * std::sin(1.3 * i);
        X.row(i) << 1.0, year, dollars;
        y[i] = -40.0 + 0.03 * year + 1e-4 * dollars + sigma * std::cos(2.1 * i + 0.3 * i * i);
    }
    const Eigen::MatrixXd P =
        X.transpose() * X / (sigma * sigma) + Eigen::MatrixXd::Identity(3, 3) / (tau * tau);
    const Eigen::MatrixXd S = P.inverse();
    const Eigen::VectorXd mean = P.llt().solve(X.transpose() * y / (sigma * sigma));
    const Eigen::VectorXd sd = S.diagonal().cwiseSqrt();
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(P);
    fmt::print(
        "1. regression, N = {}, known sigma {}, beta ~ N(0, {}); condition number of the "
        "posterior precision {:.3g}\n",
        N, sigma, tau, svd.singularValues()[0] / svd.singularValues()[2]);

    advi::Model m;
    auto yd = m.data("y", y);
    auto Xd = m.data("X", X);
    auto beta = m.param("beta", advi::normal(0, tau), 3);
    m.observe(yd, advi::normal(Xd * beta, sigma));

    auto t0 = std::chrono::steady_clock::now();
    const advi::LaplaceFit lap = advi::laplace(m.spec(), {.draws = 4000, .seed = 1});
    const double lap_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const advi::Fit fr = advi::fit(m, {.family = advi::Family::FullRank, .seed = 1});
    const double fr_s = seconds_since(t0);

    const Eigen::VectorXd lm = lap.mean("beta"), ls = lap.sd("beta");
    const Eigen::VectorXd fm = fr.mean("beta"), fs = fr.sd("beta");
    fmt::print("{:<8} {:>13} {:>11} | {:>16} {:>12} | {:>16} {:>12}\n", "", "exact mean", "sd",
               "Laplace err/sd", "sd ratio", "full-rank err/sd", "sd ratio");
    for (int j = 0; j < 3; ++j) {
        fmt::print("beta[{}]  {:>13.6g} {:>11.4g} | {:>16.4f} {:>12.4f} | {:>16.3g} {:>12.4g}\n", j,
                   mean[j], sd[j], (lm[j] - mean[j]) / sd[j], ls[j] / sd[j],
                   (fm[j] - mean[j]) / sd[j], fs[j] / sd[j]);
    }
    const Eigen::MatrixXd rel = (lap.gaussian().covariance() - S).array() / S.array().abs();
    fmt::print(
        "Laplace: mode {} ; max |mode - exact| / sd = {:.2g}; max relative error of the "
        "covariance {:.2g}; {}; {:.3f} s in all\n",
        lap.mode_source(), ((lap.mode() - mean).array() / sd.array()).abs().maxCoeff(),
        rel.cwiseAbs().maxCoeff(), advi::psis_text(lap.psis()), lap_s);
    fmt::print("full-rank ADVI (defaults): {} iterations, {}; {:.3f} s\n\n", fr.result().iterations,
               fr.result().converged ? "converged" : "not converged", fr_s);
}

void logistic() {
    const std::filesystem::path dir = std::filesystem::path(ADVI_SHARED_DATA) / "sim/logistic";
    if (!std::filesystem::exists(dir / "small.data.json")) {
        fmt::print("2. logistic: the shared data folder {} is missing; skipped\n", dir.string());
        return;
    }
    const advi::DataTable data = advi::read_data(dir / "small.data.json");
    const Eigen::MatrixXd X = data.at("X").as_matrix();
    const Eigen::VectorXi y = data.at("y").as_int_vector();
    const double prior_sd = data.at("prior_sd").as_real();
    advi::Model m;
    advi::examples::build_logistic(m, X, y, prior_sd);
    fmt::print("2. the paper's logistic regression, N = {}, K = {}\n", X.rows(), X.cols());

    const advi::examples::Laplace newton = advi::examples::logistic_laplace(X, y, prior_sd);
    const Eigen::VectorXd nsd = newton.cov.diagonal().cwiseSqrt();
    auto t0 = std::chrono::steady_clock::now();
    const advi::LaplaceFit lap = advi::laplace(m.spec(), {.draws = 4000, .seed = 1});
    const double lap_s = seconds_since(t0);
    const Eigen::MatrixXd rel =
        (lap.gaussian().covariance() - newton.cov).array() / newton.cov.array().abs();
    fmt::print(
        "against the example's Newton iteration: max |mode diff| / sd = {:.2g}, max "
        "relative covariance diff {:.2g}; mode: {}; {:.3f} s\n",
        ((lap.mode() - newton.mode).array() / nsd.array()).abs().maxCoeff(),
        rel.cwiseAbs().maxCoeff(), lap.mode_source(), lap_s);

    // The posterior's means and sds by importance sampling from the Laplace Gaussian.
    const advi::LaplaceFit big = advi::laplace(m.spec(), {.draws = 200000, .seed = 2});
    const Eigen::VectorXd w = big.psis().log_weights.array().exp();
    const Eigen::MatrixXd d = big.draws("beta");
    const Eigen::VectorXd is_mean = d.transpose() * w;
    const Eigen::VectorXd is_sd =
        ((d.rowwise() - is_mean.transpose()).array().square().matrix().transpose() * w).cwiseSqrt();
    fmt::print("importance sampling, 200000 draws: {}\n", advi::psis_text(big.psis()));
    const Eigen::VectorXd lm = lap.mean("beta"), ls = lap.sd("beta");
    fmt::print("{:<8} {:>10} {:>9} | {:>10} {:>9} | {:>14} {:>12}\n", "", "IS mean", "IS sd",
               "Laplace", "sd", "(mean diff)/sd", "sd ratio");
    double worst_mean = 0, worst_sd = 0;
    for (Eigen::Index j = 0; j < X.cols(); ++j) {
        const double dm = (lm[j] - is_mean[j]) / is_sd[j], r = ls[j] / is_sd[j];
        worst_mean = std::max(worst_mean, std::abs(dm));
        worst_sd = std::max(worst_sd, std::abs(r - 1));
        fmt::print("beta[{}]  {:>10.4f} {:>9.4f} | {:>10.4f} {:>9.4f} | {:>14.3f} {:>12.4f}\n", j,
                   is_mean[j], is_sd[j], lm[j], ls[j], dm, r);
    }
    fmt::print("worst: |mean diff| {:.3f} sd, |sd ratio - 1| {:.3f}\n", worst_mean, worst_sd);
}

}  // namespace

int main() {
    regression();
    logistic();
}
