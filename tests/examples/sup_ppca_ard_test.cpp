// examples/sup_ppca_ard: the Stan program lowers to the C++ model's log density, and on the
// shared simulated trajectories (true rank 11) ARD keeps as many components as the truth has and
// the fit predicts the response about as well as the true parameters do.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/io/read_data.hpp>

#include "../../examples/example_data.hpp"
#include "../../examples/ppca_ard_model.hpp"
#include "support/same_model.hpp"

namespace advi {
namespace {

double r_squared(const Eigen::VectorXd& y, const Eigen::VectorXd& y_hat) {
    return 1.0 - (y - y_hat).squaredNorm() / (y.array() - y.mean()).matrix().squaredNorm();
}

TEST_CASE("sup_ppca_ard.stan lowers to the C++ model's log density", "[examples]") {
    const int N = 12, D = 5, M = 3;
    Eigen::MatrixXd x(N, D);
    Eigen::VectorXd y(N);
    std::string rows, ys;
    for (int n = 0; n < N; ++n) {
        std::string row;
        for (int d = 0; d < D; ++d) {
            x(n, d) = std::sin(1.3 * n + 0.7 * d) + 0.2 * std::cos(2.9 * n * d);
            row += fmt::format("{}{:.17g}", d ? ", " : "", x(n, d));
        }
        rows += fmt::format("{}[{}]", n ? ", " : "", row);
        y[n] = std::cos(0.9 * n) - 0.3 * n / N;
        ys += fmt::format("{}{:.17g}", n ? ", " : "", y[n]);
    }
    const DataTable data = read_json_data(
        fmt::format(R"({{"N": {}, "D": {}, "M": {}, "x": [{}], "y": [{}]}})", N, D, M, rows, ys),
        "d.json");
    const auto lowered = test::lower_example("sup_ppca_ard", data);
    Model m;
    examples::build_sup_ppca_ard(m, x, y, M);
    const int dim = 1 + M + (D + N) * M + M;
    test::check_same_log_density(lowered->model().spec(), m.spec(),
                                 test::random_points(dim, 0.7, 12));
}

TEST_CASE("build_sup_ppca_ard: y must have one entry per row of x", "[examples]") {
    const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(4, 3);
    const Eigen::VectorXd y = Eigen::VectorXd::Ones(5);
    Model m;
    CHECK_THROWS_AS(examples::build_sup_ppca_ard(m, x, y, 2), ModelError);
}

TEST_CASE("sup_ppca_ard: ARD keeps the true rank and the fit predicts y", "[examples]") {
    const auto dir = examples::sim_dir("sup_ppca_ard");
    if (!std::filesystem::exists(dir / "small.data.json")) {
        WARN("shared data not found at " << dir << ": sup_ppca_ard fit skipped");
        return;
    }
    const DataTable data = read_data(dir / "small.data.json");
    const DataTable truth = examples::read_truth(dir / "small.truth.json");
    const int true_rank = truth.at("rank").as_int();
    REQUIRE(true_rank == 11);
    // Reduced size as tests/examples/ppca_ard_test.cpp: the first 200 of the 1000 rows and
    // M = 13 components (two to switch off).
    const int N = 200, M = 13;
    const Eigen::MatrixXd x = data.at("x").as_matrix().topRows(N);
    const Eigen::VectorXd y = data.at("y").as_vector().head(N);
    const auto D = x.cols();
    const double sigma_true = truth.at("sigma").as_real();
    Model m;
    examples::build_sup_ppca_ard(m, x, y, M);
    // ppca_ard_test's settings (eta = 1 given, one thread so that the fit is the same on every
    // machine), with 20000 iterations at most: the unused scales keep falling towards 1 / D;
    // at 10000 iterations (6.4 s) the gap below was just 3.0x (0.286 and 0.095), after 20000
    // (8.4 s) it is wider.
    // Stan's rule, as examples/ppca_ard_test.cpp says why.
    const Fit fit = advi::fit(m, {.family = Family::MeanField,
                                  .seed = 1,
                                  .tol_rel_obj = 0.0003,
                                  .adapt_engaged = false,
                                  .eta = 1,
                                  .max_iterations = 20000,
                                  .convergence = ConvergenceRule::Stan,
                                  .threads = 1});
    Eigen::VectorXd alpha = fit.mean("alpha");
    std::sort(alpha.begin(), alpha.end(), std::greater<>());
    const double threshold = 1 / std::sqrt(static_cast<double>(D));
    int rank = 0;
    for (int k = 0; k < M; ++k) rank += alpha[k] > threshold;
    INFO(fit.result().iterations << " iterations, " << fit.result().seconds
                                 << " s; sorted E[alpha] " << alpha.transpose());
    CHECK(rank == true_rank);
    CHECK(alpha[true_rank - 1] > 3 * alpha[true_rank]);
    CHECK(fit.mean("sigma")[0] == Approx(sigma_true).epsilon(0.05));

    // The response. References from the truth on the same rows: the noise-free response
    // Z_true w_y_true, R^2 = 1 - sigma^2 / Var(y) (0.0625 against about 12: 0.995), and the
    // prediction from x alone under the true W and sigma, E[z_n | x_n] w_y_true (0.975 on all
    // 1000 rows: the weak components are not pinned down by x alone). The fit's in-sample E[Z]
    // E[w_y] has seen y too: E[z_n] absorbs part of y_n's noise, so its R^2 goes above the
    // truth's (measured 0.9989 against 0.9950 on these rows; examples/sup_ppca_ard on all
    // 1000 rows with M = 20: 0.9987 against 0.9948). Required: above the x-only prediction and
    // within 0.005 of the truth's, and a correlation above 0.99 with the noise-free response
    // (measured 0.9976 on all rows), which a fit that got w_y's rotation wrong would miss.
    const Eigen::MatrixXd W_true = truth.at("W").as_matrix();
    const Eigen::MatrixXd Z_true = truth.at("z").as_matrix().topRows(N);
    const Eigen::VectorXd w_y_true = truth.at("w_y").as_vector();
    const Eigen::VectorXd y_true = Z_true * w_y_true;
    const double s2 = sigma_true * sigma_true;
    const Eigen::MatrixXd precision =
        Eigen::MatrixXd::Identity(true_rank, true_rank) + W_true.transpose() * W_true / s2;
    const Eigen::MatrixXd Ez_given_x =
        precision.llt().solve(W_true.transpose() * x.transpose()).transpose() / s2;
    const double r2_truth = r_squared(y, y_true);
    const double r2_x_only = r_squared(y, Ez_given_x * w_y_true);
    const Eigen::VectorXd Z_flat = fit.mean("Z");
    const Eigen::Map<const Eigen::MatrixXd> Z(Z_flat.data(), N, M);
    const Eigen::VectorXd y_fit = Z * fit.mean("w_y");
    const double r2_fit = r_squared(y, y_fit);
    const Eigen::VectorXd a = y_fit.array() - y_fit.mean(), b = y_true.array() - y_true.mean();
    const double corr = a.dot(b) / (a.norm() * b.norm());
    INFO("R^2: fit " << r2_fit << ", truth " << r2_truth << ", true W from x only " << r2_x_only
                     << "; correlation with the noise-free response " << corr);
    CHECK(r2_truth > 0.99);
    CHECK(r2_fit > r2_x_only);
    CHECK(r2_fit > r2_truth - 0.005);
    CHECK(corr > 0.99);
}

}  // namespace
}  // namespace advi
