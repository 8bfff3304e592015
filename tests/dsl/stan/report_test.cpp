// Transformed parameters and generated quantities per draw: exact functions of the draws,
// _rng draws with the right moments, the same numbers for the same seed.
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <boost/math/special_functions/bessel.hpp>

#include <advi/advi.hpp>
#include <advi/graph/ops_special.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>
#include <advi/stan/report.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

using advi::test::read_file;

std::unique_ptr<LoweredProgram> lower_text(const std::string& program, const std::string& json) {
    return lower(parse_program(program, "model.stan"), read_json_data(json, "data.json"));
}

}  // namespace

TEST_CASE("eight schools: transformed parameters and posterior predictive draws", "[stan]") {
    auto low = lower_text(read_file(std::string(ADVI_SOURCE_DIR) +
                                    "/tests/dsl/stan/programs/eight_schools_noncentered.stan"),
                          R"({"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12],
                              "sigma": [15, 10, 16, 11, 9, 11, 10, 18]})");
    const Fit fit = advi::fit(low->model().spec(), {.seed = 5, .output_samples = 4000});
    const ReportedDraws r = report(*low, fit, 11);
    REQUIRE(r.values.size() == 2);
    CHECK(r.values[0].name == "theta");
    CHECK(r.values[1].name == "y_rep");
    CHECK(r.values[1].dims == std::vector<std::int64_t>{8});
    REQUIRE(r.draws.cols() == 16);
    // theta = mu + tau * eta, draw by draw
    const Eigen::MatrixXd mu = fit.draws("mu"), tau = fit.draws("tau"), eta = fit.draws("eta");
    for (int j = 0; j < 8; ++j) {
        const Eigen::VectorXd want = mu.col(0).array() + tau.col(0).array() * eta.col(j).array();
        CHECK((r.draws.col(j) - want).cwiseAbs().maxCoeff() < 1e-12);
    }
    // y_rep ~ normal(theta, sigma): the residual has sd sigma and mean 0
    const double sigma[8] = {15, 10, 16, 11, 9, 11, 10, 18};
    for (int j = 0; j < 8; ++j) {
        const Eigen::ArrayXd e = (r.draws.col(8 + j) - r.draws.col(j)).array();
        const double m = e.mean(), sd = std::sqrt((e - m).square().sum() / (e.size() - 1));
        CHECK(std::abs(m) < 4 * sigma[j] / std::sqrt(4000.0));
        CHECK(sd == Approx(sigma[j]).epsilon(0.06));
    }
    // the same seed, the same draws
    const ReportedDraws again = report(*low, fit, 11);
    CHECK(again.draws == r.draws);
    CHECK(again.at_mean == r.at_mean);
}

TEST_CASE("_rng draws have the moments of their distributions", "[stan]") {
    const std::string program = R"(
data { int<lower=1> N; }
parameters { real mu; }
model { mu ~ normal(0, 1); }
generated quantities {
  array[N] int k_poisson;
  array[N] int k_binomial;
  array[N] int k_nb;
  array[N] int k_bern;
  vector[N] x_gamma;
  vector[N] x_beta;
  vector[N] x_t;
  vector[N] x_exp;
  for (n in 1:N) {
    k_poisson[n] = poisson_rng(3.5);
    k_binomial[n] = binomial_rng(10, 0.3);
    k_nb[n] = neg_binomial_2_rng(4, 2);
    k_bern[n] = bernoulli_logit_rng(0.4);
    x_gamma[n] = gamma_rng(2.5, 0.5);
    x_beta[n] = beta_rng(2, 3);
    x_t[n] = student_t_rng(5, 1, 2);
    x_exp[n] = exponential_rng(2);
  }
}
)";
    const int N = 20000;
    auto low = lower_text(program, R"({"N": 20000})");
    Reporter r(*low);
    REQUIRE(r.size() == 8 * N);
    std::mt19937_64 rng(3);
    const Eigen::VectorXd v = r.evaluate(Eigen::VectorXd::Zero(1), rng);
    auto moments = [&](int block) {
        const Eigen::ArrayXd x = v.segment(block * N, N).array();
        const double m = x.mean();
        return std::pair{m, (x - m).square().sum() / (N - 1)};
    };
    struct Want {
        double mean, var;
    };
    const Want want[8] = {
        {3.5,                      3.5           }, // poisson
        {3,                        10 * 0.3 * 0.7}, // binomial
        {4,                        4 + 16 / 2.0  }, // neg_binomial_2: mu + mu^2 / phi
        {1 / (1 + std::exp(-0.4)), 0             }, // bernoulli (variance checked below)
        {5,                        10            }, // gamma(2.5, rate 0.5): a / b, a / b^2
        {0.4,                      6.0 / (25 * 6)}, // beta(2, 3)
        {1,                        4 * 5 / 3.0   }, // student_t(5, 1, 2)
        {0.5,                      0.25          }, // exponential(2)
    };
    for (int b = 0; b < 8; ++b) {
        INFO("block " << b);
        const auto [m, var] = moments(b);
        const double sd = std::sqrt(b == 3 ? want[b].mean * (1 - want[b].mean) : want[b].var);
        CHECK(std::abs(m - want[b].mean) < 5 * sd / std::sqrt(static_cast<double>(N)));
        if (b != 3 && b != 6)
            CHECK(var == Approx(want[b].var).epsilon(0.05));
    }
    // counts are integers
    for (int b = 0; b < 4; ++b) {
        const Eigen::ArrayXd x = v.segment(b * N, N).array();
        CHECK((x - x.round()).abs().maxCoeff() == 0);
    }
}

TEST_CASE("von_mises_rng: about mu mod 2 pi, with the von Mises CDF and mean resultant", "[stan]") {
    const std::string program = R"(
data { int<lower=1> N; }
parameters { real mu; }
model { mu ~ normal(0, 1); }
generated quantities {
  vector[N] a;
  vector[N] b;
  for (n in 1:N) {
    a[n] = von_mises_rng(1.0, 3.0);
    b[n] = von_mises_rng(7.5, 0.5);
  }
}
)";
    const int N = 20000;
    auto low = lower_text(program, R"({"N": 20000})");
    Reporter r(*low);
    REQUIRE(r.size() == 2 * N);
    std::mt19937_64 rng(5);
    const Eigen::VectorXd v = r.evaluate(Eigen::VectorXd::Zero(1), rng);
    const double pi = M_PI;
    const double mus[2] = {1.0, std::fmod(7.5, 2 * pi)}, kappas[2] = {3.0, 0.5};
    for (int b = 0; b < 2; ++b) {
        INFO("block " << b);
        const Eigen::ArrayXd x = v.segment(b * N, N).array();
        CHECK(x.minCoeff() >= mus[b] - pi);
        CHECK(x.maxCoeff() <= mus[b] + pi);
        // E cos(X - mu) = I1(kappa) / I0(kappa), E sin(X - mu) = 0
        const double resultant =
            boost::math::cyl_bessel_i(1, kappas[b]) / boost::math::cyl_bessel_i(0, kappas[b]);
        const double tol = 5 / std::sqrt(static_cast<double>(N));
        CHECK(std::abs((x - mus[b]).cos().mean() - resultant) < tol);
        CHECK(std::abs((x - mus[b]).sin().mean()) < tol);
        // the empirical CDF against the centred CDF
        for (double t : {-2.0, -0.7, 0.0, 0.4, 1.9}) {
            const double p = special::von_mises_cdf(t, 0.0, kappas[b]);
            const double below = (x - mus[b] <= t).cast<double>().mean();
            CHECK(std::abs(below - p) < 5 * std::sqrt(p * (1 - p) / N));
        }
    }
}

TEST_CASE("whole draws: categorical, multivariate normal, dirichlet, per iteration too", "[stan]") {
    const std::string program = R"(
data { int<lower=1> N; }
transformed data {
  vector[3] theta = [0.2, 0.5, 0.3]';
  vector[3] beta = log(theta) + 0.7;
  matrix[2, 2] Sigma = to_matrix({2, 0.6, 0.6, 1}, 2, 2);
  array[N] vector[2] means;
  for (n in 1:N) means[n] = [1, -2]';
  vector[3] alpha = [1.5, 3, 0.5]';
}
parameters { real mu; }
model { mu ~ normal(0, 1); }
generated quantities {
  array[N] int c;
  array[N] int cl;
  array[N] vector[2] z = multi_normal_rng(means, Sigma);
  array[N] vector[2] zc = multi_normal_cholesky_rng(means, cholesky_decompose(Sigma));
  array[N] vector[3] w;
  int one = categorical_rng(theta);
  vector[2] z1 = multi_normal_rng(means[1], Sigma);
  vector[3] w1 = dirichlet_rng(alpha);
  int count = 0;  // an int known per draw stays an int through int arithmetic
  count = count + bernoulli_rng(0.5) + 2 * categorical_rng(theta);
  for (n in 1:N) {
    c[n] = categorical_rng(theta);
    cl[n] = categorical_logit_rng(beta);
    w[n] = dirichlet_rng(alpha);
  }
}
)";
    const int N = 20000;
    auto low = lower_text(program, R"({"N": 20000})");
    Reporter r(*low);
    REQUIRE(r.size() == 9 * N + 7);  // c, cl: N; z, zc: 2N; w: 3N; one, z1, w1, count
    std::mt19937_64 rng(5);
    const Eigen::VectorXd v = r.evaluate(Eigen::VectorXd::Zero(1), rng);
    const double se = 1 / std::sqrt(static_cast<double>(N));
    // categories: frequencies theta (within 5 binomial sds)
    for (int block = 0; block < 2; ++block) {
        const Eigen::ArrayXd x = v.segment(block * N, N).array();
        CHECK((x - x.round()).abs().maxCoeff() == 0);
        CHECK(x.minCoeff() == 1);
        CHECK(x.maxCoeff() == 3);
        const double theta[3] = {0.2, 0.5, 0.3};
        for (int k = 1; k <= 3; ++k) {
            const double f = (x == k).cast<double>().mean();
            const double sd = std::sqrt(theta[k - 1] * (1 - theta[k - 1]));
            CHECK(std::abs(f - theta[k - 1]) < 5 * sd * se);
        }
    }
    // multivariate normals: the mean and the covariance (arrays are stored element by element:
    // z[1][1], z[2][1], ... column-major over (n, k))
    for (int block = 0; block < 2; ++block) {
        const Eigen::Map<const Eigen::MatrixXd> z(v.data() + 2 * N + block * 2 * N, N, 2);
        const Eigen::RowVector2d m = z.colwise().mean();
        CHECK(std::abs(m[0] - 1) < 5 * std::sqrt(2.0) * se);
        CHECK(std::abs(m[1] + 2) < 5 * se);
        const Eigen::MatrixXd c = z.rowwise() - m;
        const Eigen::Matrix2d cov = c.transpose() * c / (N - 1);
        CHECK(cov(0, 0) == Approx(2).epsilon(0.05));
        CHECK(cov(1, 1) == Approx(1).epsilon(0.05));
        CHECK(cov(0, 1) == Approx(0.6).epsilon(0.08));
    }
    // dirichlet: on the simplex, with mean alpha / sum(alpha)
    const Eigen::Map<const Eigen::MatrixXd> w(v.data() + 6 * N, N, 3);
    CHECK((w.rowwise().sum().array() - 1).abs().maxCoeff() < 1e-12);
    CHECK(w.minCoeff() >= 0);
    const double a0 = 5;
    const double alpha[3] = {1.5, 3, 0.5};
    for (int k = 0; k < 3; ++k) {
        const double mean = alpha[k] / a0;
        const double sd = std::sqrt(mean * (1 - mean) / (a0 + 1));
        CHECK(std::abs(w.col(k).mean() - mean) < 5 * sd * se);
    }
    // the draws outside loops: a category, a vector, a point of the simplex, an int
    const double count = v[v.size() - 1];
    CHECK(count == std::round(count));
    CHECK(count >= 2);
    CHECK(count <= 7);
    const Eigen::VectorXd tail = v.segment(v.size() - 7, 6);
    CHECK((tail[0] == 1 || tail[0] == 2 || tail[0] == 3));
    CHECK(std::isfinite(tail[1]));
    CHECK(std::isfinite(tail[2]));
    CHECK(tail.tail(3).sum() == Approx(1).epsilon(1e-12));
}

TEST_CASE("exp_mod_normal_rng and skew_double_exponential_rng have their moments", "[stan]") {
    const std::string program = R"(
data { int<lower=1> N; }
parameters { real mu; }
model { mu ~ normal(0, 1); }
generated quantities {
  vector[N] e;
  vector[N] s;
  for (n in 1:N) {
    e[n] = exp_mod_normal_rng(1, 2, 0.5);
    s[n] = skew_double_exponential_rng(1, 2, 0.3);
  }
}
)";
    const int N = 40000;
    auto low = lower_text(program, R"({"N": 40000})");
    Reporter r(*low);
    std::mt19937_64 rng(11);
    const Eigen::VectorXd v = r.evaluate(Eigen::VectorXd::Zero(1), rng);
    // exp_mod_normal: mu + 1 / lambda, sigma^2 + 1 / lambda^2
    // skew_double_exponential: below mu an exponential of rate 2 (1 - tau) / sigma with
    // probability tau, above one of rate 2 tau / sigma
    const double tau = 0.3, b = 2 / (2 * (1 - tau)), a = 2 / (2 * tau);  // the two scales
    const double sde_mean = 1 + (1 - tau) * a - tau * b;
    const double sde_m2 = tau * 2 * b * b + (1 - tau) * 2 * a * a;  // E[(Y - mu)^2]
    const double sde_var = sde_m2 - (sde_mean - 1) * (sde_mean - 1);
    const double want[2][2] = {
        {3,        4 + 4  },
        {sde_mean, sde_var}
    };
    for (int block = 0; block < 2; ++block) {
        INFO("block " << block);
        const Eigen::ArrayXd x = v.segment(block * N, N).array();
        const double m = x.mean(), var = (x - m).square().sum() / (N - 1);
        CHECK(std::abs(m - want[block][0]) < 5 * std::sqrt(want[block][1] / N));
        CHECK(var == Approx(want[block][1]).epsilon(0.05));
    }
}

}  // namespace advi::stan
