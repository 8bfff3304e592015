// `_rng` calls in transformed data: drawn once when the program is lowered, from the run's seed
// (as Stan draws them once per run): the same seed gives the same data, another seed other
// data; the draws follow their distributions; ints are known ints afterwards (sizes, indices).
#include <cmath>
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
