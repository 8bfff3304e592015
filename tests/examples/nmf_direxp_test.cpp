// examples/nmf_direxp: the Stan program (array[U] simplex[K] theta with a Dirichlet prior, one
// vectorised Poisson term) lowers to the C++ model's log density, and on the shared simulated
// counts the fitted rates E[theta] E[beta]' come close to the true theta beta'.
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
#include "../../examples/nmf_direxp_model.hpp"
#include "../../examples/nmf_rates.hpp"
#include "support/same_model.hpp"

namespace advi {
namespace {

std::string json_rows(const Eigen::MatrixXi& y) {
    std::string rows;
    for (Eigen::Index u = 0; u < y.rows(); ++u) {
        std::string row;
        for (Eigen::Index i = 0; i < y.cols(); ++i)
            row += fmt::format("{}{}", i ? ", " : "", y(u, i));
        rows += fmt::format("{}[{}]", u ? ", " : "", row);
    }
    return "[" + rows + "]";
}

TEST_CASE("nmf_direxp.stan lowers to the C++ model's log density", "[examples]") {
    const int U = 5, I = 7, K = 3;
    Eigen::MatrixXi y(U, I);
    for (int u = 0; u < U; ++u) {
        for (int i = 0; i < I; ++i) y(u, i) = (2 * u + 7 * i + u * i) % 11;
    }
    const DataTable data = read_json_data(
        fmt::format(R"({{"U": {}, "I": {}, "K": {}, "y": {}, "alpha0": [2.5, 1.5, 4.0],
                        "lambda0": 0.3}})",
                    U, I, K, json_rows(y)),
        "d.json");
    const auto lowered = test::lower_example("nmf_direxp", data);
    const Eigen::VectorXi y_flat = y.reshaped();
    const Eigen::Vector3d alpha0(2.5, 1.5, 4.0);
    const Eigen::VectorXd alpha = alpha0;
    Model m;
    examples::build_nmf_direxp(m, y_flat, U, I, alpha, 0.3);
    test::check_same_log_density(lowered->model().spec(), m.spec(),
                                 test::random_points(U * (K - 1) + I * K, 0.6, 9));
}

TEST_CASE("nmf_direxp: the fitted rates recover the true ones", "[examples]") {
    const auto dir = examples::sim_dir("nmf_direxp");
    if (!std::filesystem::exists(dir / "small.data.json")) {
        WARN("shared data not found at " << dir << ": nmf_direxp fit skipped");
        return;
    }
    const DataTable data = read_data(dir / "small.data.json");
    const DataTable truth = examples::read_truth(dir / "small.truth.json");
    const Eigen::MatrixXi y = data.at("y").as_int_matrix();
    const int U = static_cast<int>(y.rows()), I = static_cast<int>(y.cols());
    const Eigen::VectorXd alpha0 = data.at("alpha0").as_vector();
    const int K = static_cast<int>(alpha0.size());
    REQUIRE(U == 200);
    REQUIRE(K == 10);
    const Eigen::VectorXi y_flat = y.reshaped();
    Model m;
    examples::build_nmf_direxp(m, y_flat, U, I, alpha0, data.at("lambda0").as_real());
    // examples/nmf_direxp.cpp's settings (eta = 0.3 given), one thread so that the fit is the
    // same on every machine.
    const Fit fit = advi::fit(m, {.family = Family::MeanField,
                                  .seed = 1,
                                  .tol_rel_obj = 0.001,
                                  .adapt_engaged = false,
                                  .eta = 0.3,
                                  .max_iterations = 10000,
                                  .threads = 1});
    const Eigen::MatrixXd theta = fit.mean("theta").reshaped(U, K);
    const Eigen::MatrixXd beta = fit.mean("beta").reshaped(I, K);
    const Eigen::MatrixXd rate_true =
        truth.at("theta").as_matrix() * truth.at("beta").as_matrix().transpose();
    const auto r = examples::compare_rates(theta * beta.transpose(), rate_true, y);
    INFO(fit.result().iterations << " iterations, " << fit.result().seconds << " s; rates: "
                                 << "correlation " << r.correlation << ", relative error "
                                 << r.relative_error << ", log likelihood per entry "
                                 << r.loglik_fit << " (truth " << r.loglik_true << ")");
    // Each E[theta_u] is a point of the simplex, and alpha0 = 1000 holds it near the centre:
    // the prior's sd is 0.003 per entry, the data move it little.
    for (int u = 0; u < U; ++u) {
        CHECK(theta.row(u).sum() == Approx(1).epsilon(1e-6));
        CHECK((theta.row(u).array() - 1.0 / K).abs().maxCoeff() < 0.03);
    }
    // Measured: correlation 0.9955, relative error 0.028, log likelihood -2.5361 per entry
    // (truth -2.5379). The true rates are nearly rank one here (theta_u near the centre), so
    // the rank-one fit is as close; what a broken model fails is closeness to the truth: the
    // rates vary across items with sd 3 around a mean of 10.
    CHECK(r.correlation > 0.99);
    CHECK(r.relative_error < 0.04);
    CHECK(std::abs(r.loglik_fit - r.loglik_true) < 0.005);
    CHECK((theta * beta.transpose()).mean() == Approx(y.cast<double>().mean()).epsilon(0.01));
}

}  // namespace
}  // namespace advi
