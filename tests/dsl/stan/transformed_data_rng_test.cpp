// `_rng` calls in transformed data: drawn once when the program is lowered, from the run's seed
// (as Stan draws them once per run): the same seed gives the same data, another seed other
// data; the draws follow their distributions; ints are known ints afterwards (sizes, indices).
#include <cmath>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

namespace advi::stan {
namespace {

// The transformed data `z` (N normals), `u` (N uniforms) and `k` (N Poisson(4) draws), read
// through generated quantities' values at theta: the model's only latent is a dummy.
std::vector<double> draws_of(const std::string& name, std::uint64_t seed) {
    const std::string program = R"(
transformed data {
  int N = 4000;
  vector[N] z = to_vector(normal_rng(rep_vector(1, N), 2));
  array[N] real u = uniform_rng(rep_vector(0, N), 1);
  array[N] int k = poisson_rng(rep_vector(4, N));
  int first = k[1];  // a known int: usable as a size
  array[first + 1] real sized;
}
parameters { real x; }
model { x ~ normal(0, 1); }
generated quantities {
  vector[N] z_out = z;
  array[N] real u_out = u;
  array[N] int k_out = k;
}
)";
    auto lowered = lower(parse_program(program, "m.stan"), read_json_data("{}", "d.json"), seed);
    for (const auto& g : lowered->generated_quantities()) {
        if (g.name == name + "_out")
            return lowered->model().evaluate(g.value);
    }
    FAIL("no quantity " << name);
    return {};
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
}
double variance(const std::vector<double>& v) {
    const double m = mean(v);
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return s / static_cast<double>(v.size() - 1);
}

}  // namespace

TEST_CASE("_rng in transformed data: drawn once from the seed, with the right moments",
          "[stan][rng]") {
    const auto z = draws_of("z", 5), u = draws_of("u", 5), k = draws_of("k", 5);
    // 4000 draws: the mean within 4 standard errors
    CHECK(std::abs(mean(z) - 1.0) < 4 * 2 / std::sqrt(4000.0));
    CHECK(variance(z) == Approx(4.0).epsilon(0.1));
    CHECK(std::abs(mean(u) - 0.5) < 4 * std::sqrt(1 / 12.0 / 4000));
    CHECK(std::abs(mean(k) - 4.0) < 4 * std::sqrt(4 / 4000.0));
    for (double x : k) CHECK(x == std::floor(x));
    CHECK(draws_of("z", 5) == z);  // the same seed, the same data
    CHECK(draws_of("z", 6) != z);  // another seed, other data
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE(
    "beta_binomial_rng and beta_neg_binomial_rng: counts of a beta probability, their "
    "variances too",
    "[stan][rng]") {
    const std::string program = R"(
transformed data {
  array[4000] int k = beta_binomial_rng(rep_array(10, 4000), 2, 3);
  array[4000] int f = beta_neg_binomial_rng(rep_array(3, 4000), 8, 2);
}
parameters { real x; }
model { x ~ normal(0, 1); }
generated quantities { array[4000] int k_out = k; array[4000] int f_out = f; }
)";
    auto lowered = lower(parse_program(program, "m.stan"), read_json_data("{}", "d.json"), 3);
    const std::vector<double> k =
        lowered->model().evaluate(lowered->generated_quantities().at(0).value);
    // N a / (a + b) = 4; N a b (a + b + N) / ((a + b)^2 (a + b + 1)) = 6 (a binomial's: 2.4)
    CHECK(std::abs(mean(k) - 4.0) < 4 * std::sqrt(6 / 4000.0));
    CHECK(variance(k) == Approx(6.0).epsilon(0.1));
    for (double x : k) CHECK((x == std::floor(x) && x >= 0 && x <= 10));
    // beta_neg_binomial(r = 3, alpha = 8, beta = 2): mean r beta / (alpha - 1) = 6 / 7, variance
    // r beta (r + alpha - 1)(beta + alpha - 1) / ((alpha - 2)(alpha - 1)^2) = 540 / 294
    const std::vector<double> f =
        lowered->model().evaluate(lowered->generated_quantities().at(1).value);
    CHECK(std::abs(mean(f) - 6.0 / 7) < 4 * std::sqrt(540.0 / 294 / 4000));
    CHECK(variance(f) == Approx(540.0 / 294).epsilon(0.12));
    for (double x : f) CHECK((x == std::floor(x) && x >= 0));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE(
    "frechet, pareto, pareto_type_2, inv_chi_square, scaled_inv_chi_square and "
    "skew_normal draws: their means and variances",
    "[stan][rng]") {
    const std::string program = R"(
transformed data {
  int N = 20000;
  array[N] real a = frechet_rng(rep_vector(8, N), 2);
  array[N] real b = pareto_rng(rep_vector(1, N), 8);
  array[N] real c = pareto_type_2_rng(rep_vector(0, N), 2, 8);
  array[N] real d = inv_chi_square_rng(rep_vector(10, N));
  array[N] real e = scaled_inv_chi_square_rng(rep_vector(10, N), 2);
  array[N] real f = skew_normal_rng(rep_vector(1, N), 2, 3);
}
parameters { real x; }
model { x ~ normal(0, 1); }
generated quantities {
  array[N] real a_out = a; array[N] real b_out = b; array[N] real c_out = c;
  array[N] real d_out = d; array[N] real e_out = e; array[N] real f_out = f;
}
)";
    auto lowered = lower(parse_program(program, "m.stan"), read_json_data("{}", "d.json"), 9);
    // closed forms: frechet sigma G(1 - 1/a), sigma^2 (G(1 - 2/a) - G(1 - 1/a)^2); pareto
    // a m / (a - 1), m^2 a / ((a - 1)^2 (a - 2)); pareto_type_2 l / (a - 1), l^2 a / ((a - 1)^2
    // (a - 2)); inv_chi_square 1 / (n - 2), 2 / ((n - 2)^2 (n - 4)); scaled: times n s^2;
    // skew_normal xi + w d sqrt(2 / pi), w^2 (1 - 2 d^2 / pi), d = a / sqrt(1 + a^2)
    const double want[6][2] = {
        {2.179304714845794, 0.15229776971160458},
        {8.0 / 7,           8.0 / 294          },
        {2.0 / 7,           32.0 / 294         },
        {0.125,             2.0 / 384          },
        {5.0,               3200.0 / 384       },
        {2.513879513212096, 1.7081688194767075 },
    };
    const auto& gq = lowered->generated_quantities();
    REQUIRE(gq.size() == 6);
    for (std::size_t k = 0; k < 6; ++k) {
        INFO(gq[k].name);
        const std::vector<double> v = lowered->model().evaluate(gq[k].value);
        CHECK(std::abs(mean(v) - want[k][0]) < 4 * std::sqrt(want[k][1] / 20000));
        CHECK(variance(v) == Approx(want[k][1]).epsilon(0.1));
    }
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE(
    "multivariate draws: multinomial (plain, logit, dirichlet), multi_student_t, "
    "ordered_logistic, bernoulli_logit_glm against their moments",
    "[stan][rng]") {
    const std::string program = R"(
transformed data {
  int R = 400;
  vector[3] theta = [0.2, 0.3, 0.5]';
  array[R, 3] int m; array[R, 3] int ml; array[R, 3] int dm;
  array[R] vector[2] t; array[R] int o; array[R, 2] int g;
  for (r in 1:R) {
    m[r] = multinomial_rng(theta, 10);
    ml[r] = multinomial_logit_rng(log(theta), 10);
    dm[r] = dirichlet_multinomial_rng(10 * theta, 10);
    t[r] = multi_student_t_rng(5, [1, -1]', [[2, 0.5], [0.5, 1]]);
    o[r] = ordered_logistic_rng(0.5, [-1, 1]');
    g[r] = bernoulli_logit_glm_rng([[1, 0], [0, 1]], [0.5, 0.5]', [1, -2]');
  }
}
parameters { real x; }
model { x ~ normal(0, 1); }
generated quantities {
  array[R] int m1 = m[:, 1]; array[R] int m3 = m[:, 3]; array[R] int ml2 = ml[:, 2];
  array[R] int dm1 = dm[:, 1]; array[R] real total = to_array_1d(to_vector(m[:, 1]) + to_vector(m[:, 2]) + to_vector(m[:, 3]));
  array[R] real t1 = t[:, 1]; array[R] real t2 = t[:, 2]; array[R] int o_out = o;
  array[R] int g1 = g[:, 1]; array[R] int g2 = g[:, 2];
}
)";
    auto lowered = lower(parse_program(program, "m.stan"), read_json_data("{}", "d.json"), 4);
    std::map<std::string, std::vector<double>> v;
    for (const auto& q : lowered->generated_quantities())
        v[q.name] = lowered->model().evaluate(q.value);
    const double R = 400;
    auto near = [&](const std::string& name, double mean_want, double var_want) {
        INFO(name);
        const std::vector<double>& x = v.at(name);
        CHECK(std::abs(mean(x) - mean_want) < 4 * std::sqrt(var_want / R));
        CHECK(variance(x) == Approx(var_want).epsilon(0.3));
    };
    near("m1", 2, 1.6);  // N p (1 - p)
    near("m3", 5, 2.5);
    near("ml2", 3, 2.1);
    near("dm1", 2, 10 * 0.16 * 20 / 11.0);  // N p (1 - p) (N + A) / (1 + A), A = 10
    for (double n : v.at("total")) CHECK(n == 10);
    near("t1", 1, 2 * 5 / 3.0);  // nu / (nu - 2) Sigma
    near("t2", -1, 5 / 3.0);
    // P(y <= k) = inv_logit(c_k - eta): 0.18243, 0.62246
    near("o_out", 2.1951151, 0.5218963);
    near("g1", 1 / (1 + std::exp(-1.5)), 0.18242552 * (1 - 0.18242552));
    near("g2", 1 / (1 + std::exp(1.5)), 0.18242552 * (1 - 0.18242552));
}

}  // namespace advi::stan
