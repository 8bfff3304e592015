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

// Every generated quantity of `program` lowered with `seed`, by name.
std::map<std::string, std::vector<double>> quantities_of(const std::string& program,
                                                         std::uint64_t seed) {
    auto lowered = lower(parse_program(program, "m.stan"), read_json_data("{}", "d.json"), seed);
    std::map<std::string, std::vector<double>> v;
    for (const auto& q : lowered->generated_quantities())
        v[q.name] = lowered->model().evaluate(q.value);
    return v;
}

// The mean of `x` within 4 standard errors of `mean_want`, its variance within 30%.
void check_moments(const std::string& name, const std::vector<double>& x, double mean_want,
                   double var_want) {
    INFO(name);
    const double n = static_cast<double>(x.size());
    CHECK(std::abs(mean(x) - mean_want) < 4 * std::sqrt(var_want / n));
    CHECK(variance(x) == Approx(var_want).epsilon(0.3));
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
    const auto v = quantities_of(program, 4);
    auto near = [&](const std::string& name, double mean_want, double var_want) {
        check_moments(name, v.at(name), mean_want, var_want);
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

namespace advi::stan {

TEST_CASE(
    "matrix draws: wishart, inv_wishart, their Cholesky forms and lkj_corr against their "
    "moments",
    "[stan][rng]") {
    const std::string program = R"(
transformed data {
  int R = 400;
  matrix[2, 2] S = [[2, 0.5], [0.5, 1]];
  array[R] matrix[2, 2] w; array[R] matrix[2, 2] wc; array[R] matrix[2, 2] iw;
  array[R] matrix[2, 2] iwc; array[R] matrix[3, 3] c; array[R] matrix[3, 3] cl;
  for (r in 1:R) {
    w[r] = wishart_rng(4, S);
    wc[r] = wishart_cholesky_rng(4, cholesky_decompose(S));
    iw[r] = inv_wishart_rng(8, S);
    iwc[r] = inv_wishart_cholesky_rng(8, cholesky_decompose(S));
    c[r] = lkj_corr_rng(3, 2);
    cl[r] = lkj_corr_cholesky_rng(3, 2);
  }
}
parameters { real x; }
model { x ~ normal(0, 1); }
generated quantities {
  array[R] real w11; array[R] real w21; array[R] real w22; array[R] real wc11; array[R] real wc21;
  array[R] real wc12; array[R] real iw11; array[R] real iw21; array[R] real iwc11;
  array[R] real iwc12; array[R] real c21; array[R] real c31; array[R] real c32;
  array[R] real c11; array[R] real cl31; array[R] real cl32; array[R] real cl13;
  array[R] real cl_row3;
  for (r in 1:R) {
    w11[r] = w[r, 1, 1]; w21[r] = w[r, 2, 1]; w22[r] = w[r, 2, 2];
    matrix[2, 2] ww = multiply_lower_tri_self_transpose(wc[r]);
    wc11[r] = ww[1, 1]; wc21[r] = ww[2, 1]; wc12[r] = wc[r, 1, 2];
    iw11[r] = iw[r, 1, 1]; iw21[r] = iw[r, 2, 1];
    matrix[2, 2] ii = multiply_lower_tri_self_transpose(iwc[r]);
    iwc11[r] = ii[1, 1]; iwc12[r] = iwc[r, 1, 2];
    c21[r] = c[r, 2, 1]; c31[r] = c[r, 3, 1]; c32[r] = c[r, 3, 2]; c11[r] = c[r, 1, 1];
    matrix[3, 3] cc = multiply_lower_tri_self_transpose(cl[r]);
    cl31[r] = cc[3, 1]; cl32[r] = cc[3, 2]; cl13[r] = cl[r, 1, 3];
    cl_row3[r] = dot_self(cl[r, 3]);
  }
}
)";
    const auto v = quantities_of(program, 5);
    auto near = [&](const std::string& name, double mean_want, double var_want) {
        check_moments(name, v.at(name), mean_want, var_want);
    };
    auto all = [&](const std::string& name, double want) {
        INFO(name);
        for (double x : v.at(name)) CHECK(x == Approx(want).margin(1e-12));
    };
    // Wishart(nu, S): mean nu S, Var(W_ij) = nu (S_ij^2 + S_ii S_jj)
    near("w11", 8, 4 * 8.0);
    near("w21", 2, 4 * (0.25 + 2));
    near("w22", 4, 4 * 2.0);
    near("wc11", 8, 4 * 8.0);
    near("wc21", 2, 4 * (0.25 + 2));
    all("wc12", 0);  // lower triangular
    // inverse Wishart(nu, S), K = 2: mean S / (nu - K - 1); Var(X_11) = 2 S_11^2 /
    // ((nu - K - 1)^2 (nu - K - 3)); Var(X_21) = ((nu - K + 1) S_21^2 + (nu - K - 1) S_11 S_22)
    // / ((nu - K) (nu - K - 1)^2 (nu - K - 3))
    near("iw11", 0.4, 8.0 / 75);
    near("iw21", 0.1, (7 * 0.25 + 5 * 2.0) / (6 * 25 * 3.0));
    near("iwc11", 0.4, 8.0 / 75);
    all("iwc12", 0);
    // LKJ(eta) of size K: each correlation r has (r + 1) / 2 ~ Beta(a, a), a = eta - 1 + K / 2,
    // so mean 0 and variance 1 / (2 eta + K - 1) = 1/6, for every pair
    for (const char* r : {"c21", "c31", "c32", "cl31", "cl32"}) near(r, 0, 1 / 6.0);
    all("c11", 1);
    all("cl13", 0);
    all("cl_row3", 1);  // unit rows: a correlation matrix's factor
}

TEST_CASE("matrix draws refuse sizes and parameters they cannot draw with, by name",
          "[stan][rng]") {
    auto refused = [](const std::string& body, const std::string& want) {
        const std::string program = "transformed data {\n" + body +
                                    "}\nparameters { real x; }\nmodel { x ~ normal(0, 1); }\n";
        INFO(body);
        CHECK_THROWS_WITH(
            lower(parse_program(program, "m.stan"), read_json_data("{}", "d.json"), 1),
            Catch::Contains(want));
    };
    refused("  matrix[2, 2] w = wishart_rng(1, [[1, 0], [0, 1]]);\n",
            "wishart_rng: the degrees of freedom must be > 1 (the size less one), got 1");
    refused("  matrix[2, 3] w = wishart_rng(4, [[1, 0, 0], [0, 1, 0]]);\n",
            "wishart_rng: the scale must be a non-empty square matrix, got 2x3");
    refused("  matrix[3, 3] c = lkj_corr_rng(3, 0);\n", "lkj_corr_rng: eta must be > 0, got 0");
    refused("  matrix[0, 0] c = lkj_corr_cholesky_rng(0, 1);\n",
            "lkj_corr_cholesky_rng: the size K must be >= 1, got 0");
}

}  // namespace advi::stan
