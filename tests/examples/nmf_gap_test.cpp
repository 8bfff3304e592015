// examples/nmf_gap: the Stan program (array[U] positive_ordered[K] theta, one vectorised
// Poisson term) lowers to the C++ model's log density, and on the shared simulated counts the
// fitted rates E[theta] E[beta]' come close to the true theta beta', closer than the best
// rank-one factorisation.
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
#include "../../examples/nmf_gap_model.hpp"
#include "../../examples/nmf_rates.hpp"
#include "support/same_model.hpp"

namespace advi {
namespace {

// Counts as a JSON array of U rows.
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

TEST_CASE("nmf_gap: a model of listed entries is the full model's likelihood split in two",
          "[examples]") {
    const int U = 6, I = 9, K = 3;
    Eigen::VectorXi y(U * I);
    for (int c = 0; c < U * I; ++c) y[c] = (7 * c + 3) % 11;
    const examples::CellSplit split = examples::split_cells(U * I, 0.25, 3);
    REQUIRE(split.held_out.size() == 13);
    REQUIRE(split.observed.size() + split.held_out.size() == U * I);
    const Eigen::VectorXi y_obs = examples::counts_at(y, split.observed);
    const Eigen::VectorXi y_held = examples::counts_at(y, split.held_out);
    Model full, obs, held;
    const examples::NmfLatents f = examples::build_nmf_gap(full, y, U, I, K);
    const examples::NmfLatents o =
        examples::build_nmf_gap(obs, y_obs, U, I, K, {}, &split.observed);
    const examples::NmfLatents h =
        examples::build_nmf_gap(held, y_held, U, I, K, {}, &split.held_out);
    // At a theta (rows ordered, positive) and beta, the pointwise log-likelihoods of the two
    // parts are the full model's at the same entries.
    const ModelSpec fs = full.spec();
    Eigen::VectorXd theta(fs.theta_dim());
    for (Eigen::Index k = 0; k < theta.size(); ++k)
        theta[k] = 0.3 + 0.05 * static_cast<double>(k % 17);
    const std::vector<int> off = fs.theta_offsets();
    Eigen::Map<Eigen::MatrixXd> t(theta.data() + off[fs.latent_index("theta")], U, K);
    for (int u = 0; u < U; ++u) std::sort(t.row(u).begin(), t.row(u).end());
    HeldOutLikelihood all(fs, fs, f.log_lik.id());
    HeldOutLikelihood part_obs(fs, obs.spec(), o.log_lik.id());
    HeldOutLikelihood part_held(fs, held.spec(), h.log_lik.id());
    const Eigen::VectorXd ll = all.at(theta);
    const Eigen::VectorXd lo = part_obs.at(theta);
    const Eigen::VectorXd lh = part_held.at(theta);
    for (Eigen::Index k = 0; k < split.observed.size(); ++k)
        CHECK(lo[k] == Approx(ll[split.observed[k]]).epsilon(1e-13));
    for (Eigen::Index k = 0; k < split.held_out.size(); ++k)
        CHECK(lh[k] == Approx(ll[split.held_out[k]]).epsilon(1e-13));
}

TEST_CASE("nmf_gap.stan lowers to the C++ model's log density", "[examples]") {
    const int U = 5, I = 7, K = 3;
    Eigen::MatrixXi y(U, I);
    for (int u = 0; u < U; ++u) {
        for (int i = 0; i < I; ++i) y(u, i) = (3 * u + 5 * i + u * i) % 9;
    }
    const DataTable data = read_json_data(
        fmt::format(R"({{"U": {}, "I": {}, "K": {}, "y": {}, "a0": 1.5, "b0": 0.8, "c0": 1.2,
                        "d0": 2.0}})",
                    U, I, K, json_rows(y)),
        "d.json");
    const auto lowered = test::lower_example("nmf_gap", data);
    const Eigen::VectorXi y_flat = y.reshaped();
    Model m;
    examples::build_nmf_gap(m, y_flat, U, I, K, {1.5, 0.8, 1.2, 2.0});
    test::check_same_log_density(lowered->model().spec(), m.spec(),
                                 test::random_points((U + I) * K, 0.6, 5));
}

// The U rows of theta are one transform and the rates one product: the compiled program does
// not grow with U. (Below about 30 values an elementwise loop is scheduled differently, so
// the smallest U compiles to a few instructions fewer: 30 against 34 at U = 3, I = 560.)
TEST_CASE("nmf_gap: the program has as many instructions for any U", "[examples]") {
    auto instructions = [](int U) {
        const int I = 6, K = 4;
        Eigen::MatrixXi y(U, I);
        for (int u = 0; u < U; ++u) {
            for (int i = 0; i < I; ++i) y(u, i) = (u + 2 * i) % 5;
        }
        const Eigen::VectorXi y_flat = y.reshaped();
        Model m;
        examples::build_nmf_gap(m, y_flat, U, I, K);
        return compile(m.spec()).instruction_count();
    };
    CHECK(instructions(40) == instructions(2000));
}

TEST_CASE("nmf_gap: the fitted rates recover the true ones", "[examples]") {
    const auto dir = examples::sim_dir("nmf_gap");
    if (!std::filesystem::exists(dir / "small.data.json")) {
        WARN("shared data not found at " << dir << ": nmf_gap fit skipped");
        return;
    }
    const DataTable data = read_data(dir / "small.data.json");
    const DataTable truth = examples::read_truth(dir / "small.truth.json");
    const Eigen::MatrixXi y = data.at("y").as_int_matrix();
    const int U = static_cast<int>(y.rows()), I = static_cast<int>(y.cols()), K = 10;
    REQUIRE(U == 200);
    const Eigen::VectorXi y_flat = y.reshaped();
    Model m;
    examples::build_nmf_gap(m, y_flat, U, I, K);
    // examples/nmf_gap.cpp's settings (eta = 0.3 given), one thread so that the fit is the
    // same on every machine: about 1900 iterations, 10 s.
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
    const auto r1 = examples::compare_rates(examples::rank_one_rates(y), rate_true, y);
    INFO(fit.result().iterations << " iterations, " << fit.result().seconds << " s; rates: "
                                 << "correlation " << r.correlation << ", relative error "
                                 << r.relative_error << ", log likelihood per entry "
                                 << r.loglik_fit << " (truth " << r.loglik_true << "; rank one "
                                 << r1.relative_error << ", " << r1.loglik_fit << ")");
    // every fitted theta_u is ordered (the support) and positive
    for (int u = 0; u < U; ++u) {
        CHECK(theta(u, 0) > 0);
        for (int k = 1; k < K; ++k) CHECK(theta(u, k) > theta(u, k - 1));
    }
    // Measured: correlation 0.990, relative error 0.067, log likelihood -2.497 per entry
    // (truth -2.492). The rank-one fit, which a model that lost the factors would not beat,
    // has 0.975, 0.105 and -2.539.
    CHECK(r.correlation > 0.985);
    CHECK(r.relative_error < 0.085);
    CHECK(r.loglik_fit > r.loglik_true - 0.015);
    CHECK(r.loglik_fit > r1.loglik_fit + 0.03);
    CHECK(r.relative_error < 0.8 * r1.relative_error);
}

}  // namespace
}  // namespace advi
