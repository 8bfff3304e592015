// Arrays of structured vectors in the parameters block: array[U] simplex[K], array[U]
// positive_ordered[K], array[U] ordered[K] and array[U] unit_vector[K] are mat[U, K] latents
// with one vector per row, the same log density as the C++ DSL's param(name, prior, U, K,
// {.support = ...}); arrays of more dimensions are mat[E, K], E the number of vectors.
#include <string>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi {
namespace {

const char* kProgram = R"(data {
  int<lower=1> U;
  int<lower=2> K;
  vector<lower=0>[K] alpha;
  matrix[U, K] x;
}
parameters {
  array[U] simplex[K] theta;
  array[U] positive_ordered[K] phi;
  array[U] ordered[K] psi;
  array[U] unit_vector[K] nu;
}
model {
  for (u in 1:U) {
    theta[u] ~ dirichlet(alpha);
    phi[u] ~ gamma(2, 1.5);
    psi[u] ~ normal(x[u]', 2);
  }
  for (u in 1:U)
    x[u] ~ normal(3 * nu[u]' + theta[u]', 1);
}
)";

TEST_CASE("array[U] simplex/positive_ordered/ordered/unit_vector lower as mat[U,K] rows",
          "[stan][lower]") {
    const int U = 4, K = 3;
    const Eigen::VectorXd alpha = Eigen::Vector3d(1.5, 2.0, 3.5);
    const DataTable data = read_json_data(
        R"({"U": 4, "K": 3, "alpha": [1.5, 2.0, 3.5],
            "x": [[0, -0.8, -1.6], [0.5, -0.2, -0.9], [1, 0.4, -0.2], [1.5, 1.0, 0.5]]})",
        "d.json");
    const Eigen::MatrixXd x = data.at("x").as_matrix();
    const auto lowered = stan::lower(stan::parse_program(kProgram, "rows.stan"), data);
    const ModelSpec s = lowered->model().spec();
    REQUIRE(s.latents.size() == 4);
    CHECK(s.latents[0].shape == Shape::matrix(U, K));
    CHECK(s.latents[0].support == Support::simplex());
    CHECK(s.latents[1].support == Support::positive_ordered());
    CHECK(s.latents[2].support == Support::ordered());
    CHECK(s.latents[3].support == Support::unit_vector());

    // the C++ twin
    Model m;
    auto a = m.data("alpha", alpha);
    auto xd = m.data("x", x);
    auto theta = m.param("theta", dirichlet(a), U, K);
    m.param("phi", gamma(2, 1.5), U, K, {.support = Support::positive_ordered()});
    m.param("psi", normal(xd, 2), U, K, {.support = Support::ordered()});
    auto nu = m.param("nu", flat(), U, K, {.support = Support::unit_vector()});
    m.observe(xd, normal(3 * nu + theta, 1));
    const int dim = U * (K - 1) + 3 * U * K;
    test::check_same_log_density(s, m.spec(), test::random_points(dim, 0.7, 3));
}

TEST_CASE("arrays of structured vectors of more dimensions are mat[E, K], named as CmdStan",
          "[stan][lower]") {
    const DataTable data = read_json_data(R"({"K": 3, "alpha": [1.5, 2.0, 3.5]})", "d.json");
    const std::string program =
        "data { int K; vector[K] alpha; }\nparameters {\n  array[2, 3] simplex[K] theta;\n"
        "  array[2, 2] sum_to_zero_vector[K] z;\n}\n"
        "model { for (i in 1:2) for (j in 1:3) theta[i, j] ~ dirichlet(alpha);"
        "  for (i in 1:2) for (j in 1:2) z[i, j] ~ normal(0, 1 + j); }\n";
    const auto lowered = stan::lower(stan::parse_program(program, "m.stan"), data);
    const ModelSpec s = lowered->model().spec();
    REQUIRE(s.latents.size() == 2);
    CHECK(s.latents[0].shape == Shape::matrix(6, 3));
    CHECK(s.latents[0].support == Support::simplex());
    CHECK(s.latents[1].shape == Shape::matrix(4, 3));
    CHECK(s.latents[1].support == Support::sum_to_zero());
    // the C++ twin: the array elements are the rows, first index fastest (row i + 2 j)
    const Eigen::VectorXd alpha = Eigen::Vector3d(1.5, 2.0, 3.5);
    Model m;
    auto a = m.data("alpha", alpha);
    m.param("theta", dirichlet(a), 6, 3);
    Eigen::MatrixXd scale(4, 3);
    for (int e = 0; e < 4; ++e) scale.row(e).setConstant(1 + (1 + e / 2));
    m.param("z", normal(0, scale), 4, 3, {.support = Support::sum_to_zero()});
    test::check_same_log_density(s, m.spec(), test::random_points(6 * 2 + 4 * 2, 0.7, 3));
}

}  // namespace
}  // namespace advi
