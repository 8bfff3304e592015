// examples/linreg_ard: the Stan program lowers to the C++ model's log density, and on the
// shared simulated data ARD keeps the relevant coefficients and shrinks the irrelevant ones.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/io/read_data.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "../../examples/example_data.hpp"
#include "../../examples/linreg_ard_model.hpp"

#include "support/same_model.hpp"

namespace advi {
namespace {

using advi::test::check_same_density;
using advi::test::read_file;

TEST_CASE("linreg_ard.stan lowers to the C++ model's log density", "[examples]") {
    const int N = 30, D = 4;
    Eigen::MatrixXd X(N, D);
    Eigen::VectorXd y(N);
    std::string rows, ys;
    for (int n = 0; n < N; ++n) {
        std::string row;
        for (int d = 0; d < D; ++d) {
            X(n, d) = std::sin(1.7 * n + 0.9 * d);
            row += fmt::format("{}{:.17g}", d ? ", " : "", X(n, d));
        }
        y[n] = 0.5 * X(n, 0) - 1.2 * X(n, 2) + 0.3 * std::cos(3.1 * n);
        rows += fmt::format("{}[{}]", n ? ", " : "", row);
        ys += fmt::format("{}{:.17g}", n ? ", " : "", y[n]);
    }
    const examples::ArdHyper hyper{.a0 = 1.5, .b0 = 0.7, .c0 = 2, .d0 = 0.5};
    const DataTable data = read_json_data(
        fmt::format(R"({{"N": {}, "D": {}, "X": [{}], "y": [{}], "a0": 1.5, "b0": 0.7,
                        "c0": 2, "d0": 0.5}})",
                    N, D, rows, ys),
        "d.json");
    const auto program = stan::parse_program(read_file(ADVI_SOURCE_DIR "/examples/linreg_ard.stan"),
                                             "linreg_ard.stan");
    const auto lowered = stan::lower(program, data);
    Model m;
    examples::build_linreg_ard(m, X, y, hyper);
    check_same_density(lowered->model().spec(), m.spec(), 1e-10);
}

TEST_CASE("linreg_ard: ARD keeps the relevant coefficients and shrinks the irrelevant ones",
          "[examples]") {
    const auto dir = examples::sim_dir("linreg_ard");
    if (!std::filesystem::exists(dir / "small.data.json")) {
        WARN("shared data not found at " << dir << ": linreg_ard fit skipped");
        return;
    }
    // small: D = 20 (10 relevant), N = 500; the medium set (D = 250, N = 10000) is the example's
    const DataTable data = read_data(dir / "small.data.json");
    const DataTable truth = examples::read_truth(dir / "small.truth.json");
    const Eigen::MatrixXd X = data.at("X").as_matrix();
    const Eigen::VectorXd y = data.at("y").as_vector();
    const Eigen::VectorXd w_true = truth.at("w").as_vector();
    const Eigen::VectorXi relevant = truth.at("relevant").as_int_vector();
    REQUIRE(relevant.sum() == 10);
    Model m;
    examples::build_linreg_ard(m, X, y);
    const Fit fit = advi::fit(m, {.family = Family::MeanField, .seed = 1, .tol_rel_obj = 0.001});
    const Eigen::VectorXd w = fit.mean("w"), w_sd = fit.sd("w"), alpha = fit.mean("alpha");
    // Least squares for comparison: what the coefficients are without any shrinkage.
    const Eigen::VectorXd w_ls = X.colPivHouseholderQr().solve(y);
    // With one alpha_d per coefficient and alpha_d ~ Gamma(1, 1), alpha_d given w_d is
    // Gamma(1.5, 1 + w_d^2 / (2 sigma^2)): E[alpha_d] is about 1.5 for w_d = 0 and falls with
    // |w_d| (1.0 at |w_d| = 1). The paper's hyper-parameters shrink gently; the test checks that
    // the scales order the inputs this way and that no coefficient is pulled off its value.
    double log_alpha_irrelevant = 0, log_alpha_strong = 0;
    int n_irrelevant = 0, n_strong = 0;
    for (Eigen::Index d = 0; d < X.cols(); ++d) {
        INFO("d = " << d << (relevant[d] ? " relevant" : " irrelevant") << ": true " << w_true[d]
                    << ", least squares " << w_ls[d] << ", E[w] " << w[d] << " (sd " << w_sd[d]
                    << "), E[alpha] " << alpha[d]);
        // the sampling error of w_d here is about sigma / sqrt(N) = 0.045: 0.2 is 4.4 of it
        CHECK(std::abs(w[d] - w_true[d]) < 0.2);
        CHECK(std::abs(w[d] - w_ls[d]) < 0.1);
        if (!relevant[d]) {
            CHECK(alpha[d] > 1.2);  // near 1.5: nothing in the data holds w_d away from 0
            log_alpha_irrelevant += std::log(alpha[d]);
            ++n_irrelevant;
        } else if (std::abs(w_true[d]) > 0.4) {
            CHECK(alpha[d] < 1.7);
            log_alpha_strong += std::log(alpha[d]);
            ++n_strong;
        }
    }
    REQUIRE(n_strong > 0);
    const double ratio =
        std::exp(log_alpha_irrelevant / n_irrelevant - log_alpha_strong / n_strong);
    INFO("geometric mean of E[alpha]: irrelevant / relevant with |w| > 0.4 = " << ratio);
    CHECK(ratio > 1.15);
    CHECK(fit.mean("sigma")[0] == Approx(1.0).margin(0.1));
}

}  // namespace
}  // namespace advi
