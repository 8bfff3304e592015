// Signatures of the function table that the lowering did not do until signatures_test lowered
// every one of them, with numbers: each call's model has the same log density and gradient as
// the same model written out by hand.
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/io/json_reader.hpp>
#include <advi/stan/check.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

std::unique_ptr<LoweredProgram> lower_text(const std::string& program, const std::string& json) {
    return lower(parse_program(program, "m.stan"), read_json_data(json, "d.json"));
}

// The same parameters and data, two model blocks.
void check_same(const std::string& head, const std::string& a, const std::string& b,
                const std::string& json = "{}", double tol = 1e-12) {
    INFO(a << "\nagainst\n" << b);
    const auto la = lower_text(head + "model { " + a + " }", json);
    const auto lb = lower_text(head + "model { " + b + " }", json);
    advi::test::check_same_density(la->model().spec(), lb->model().spec(), tol);
}

const std::string kHead = "parameters { vector[3] x; }\n";

}  // namespace

TEST_CASE("a scalar variate against vector arguments is one term per element", "[stan]") {
    check_same(kHead, "target += normal_lpdf(0.5 | x, 2);",
               "target += normal_lpdf(rep_vector(0.5, 3) | x, 2);");
    check_same(kHead, "0.5 ~ normal(x, 2);", "rep_vector(0.5, 3) ~ normal(x, 2);");
    check_same(kHead, "target += poisson_lpmf(2 | exp(x));",
               "target += poisson_lpmf({2, 2, 2} | exp(x));");
    check_same(kHead, "target += binomial_logit_lpmf(1 | {2, 3, 4}, x);",
               "target += binomial_logit_lpmf({1, 1, 1} | {2, 3, 4}, x);");
}

TEST_CASE("a scalar category is one observation", "[stan]") {
    check_same(kHead, "target += categorical_lpmf(2 | softmax(x));",
               "target += log(softmax(x)[2]);");
    check_same(kHead, "2 ~ categorical_logit(x);", "target += log_softmax(x)[2];");
}

TEST_CASE("dot_product of arrays, append_row of row vectors, segment of ints", "[stan]") {
    const std::string head = "data { array[3] real a; array[3] real b; array[5] int k; }\n" + kHead;
    const std::string json = R"({"a": [0.5, -1, 2], "b": [3, 0.25, -2], "k": [4, 5, 6, 7, 8]})";
    check_same(head, "target += dot_product(a, b) * x[1];", "target += -2.75 * x[1];", json);
    check_same(head, "target += dot_product(to_vector(a), x);",
               "target += a[1] * x[1] + a[2] * x[2] + a[3] * x[3];", json);
    check_same(head, "target += sum(append_row(x', x') * x);", "target += 2 * dot_self(x);", json);
    check_same(head, "matrix[2, 3] m = append_row(x', x'); target += m[2, 3] * x[1];",
               "target += x[3] * x[1];", json);
    check_same(head, "target += normal_lpdf(x | segment(k, 2, 3), 1);",
               "target += normal_lpdf(x | {5, 6, 7}, 1);", json);
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("sub_col, sub_row and quad_form_diag are their elements written out", "[stan]") {
    const std::string head = "parameters { matrix[3, 3] A; vector[3] x; }\n";
    check_same(head, "target += dot_product(sub_col(A, 2, 3, 2), x[1:2]);",
               "target += A[2, 3] * x[1] + A[3, 3] * x[2];");
    check_same(head, "target += sub_row(A, 3, 1, 3) * x;",
               "target += A[3, 1] * x[1] + A[3, 2] * x[2] + A[3, 3] * x[3];");
    check_same(head, "target += sum(quad_form_diag(A, x));",
               "for (i in 1:3) for (j in 1:3) target += x[i] * A[i, j] * x[j];");
    check_same(head, "target += sum(quad_form_diag(A, x'));",
               "target += sum(diag_matrix(x) * A * diag_matrix(x));");
}

TEST_CASE("gp_exp_quad_cov is sigma^2 exp(-|xi - xj|^2 / (2 l^2)), elementwise", "[stan]") {
    const std::string head =
        "data { array[3] real t; array[2] real t2; array[3] vector[2] p; }\n"
        "parameters { real<lower=0> sigma; real<lower=0> l; array[2] real<lower=0> ls;"
        " array[3] real u; }\n";
    const std::string json =
        R"({"t": [0.5, -1, 2], "t2": [0.1, 1.3], "p": [[0, 1], [0.5, -0.3], [2, 0.7]]})";
    // points as reals; data and parameters
    check_same(head, "target += sum(gp_exp_quad_cov(t, sigma, l));",
               "for (i in 1:3) for (j in 1:3)"
               " target += sigma^2 * exp(-square(t[i] - t[j]) / (2 * l^2));",
               json);
    check_same(head, "target += sum(gp_exp_quad_cov(u, sigma, l));",
               "for (i in 1:3) for (j in 1:3)"
               " target += sigma^2 * exp(-square(u[i] - u[j]) / (2 * l^2));",
               json);
    check_same(head, "matrix[3, 2] K = gp_exp_quad_cov(t, t2, sigma, l); target += K[3, 2];",
               "target += sigma^2 * exp(-square(t[3] - t2[2]) / (2 * l^2));", json);
    // points as vectors; one length scale, then one per dimension (ARD)
    check_same(head, "target += sum(gp_exp_quad_cov(p, sigma, l));",
               "for (i in 1:3) for (j in 1:3)"
               " target += sigma^2 * exp(-dot_self(p[i] - p[j]) / (2 * l^2));",
               json);
    check_same(head, "target += sum(gp_exp_quad_cov(p, sigma, ls));",
               "for (i in 1:3) for (j in 1:3)"
               " target += sigma^2 * exp(-0.5 * (square((p[i, 1] - p[j, 1]) / ls[1])"
               " + square((p[i, 2] - p[j, 2]) / ls[2])));",
               json);
    check_same(head, "target += gp_exp_quad_cov(p, p[1:2], sigma, ls)[3, 1];",
               "target += sigma^2 * exp(-0.5 * (square((p[3, 1] - p[1, 1]) / ls[1])"
               " + square((p[3, 2] - p[1, 2]) / ls[2])));",
               json);
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("CDFs: sums of log P, products of P, per iteration in loops", "[stan]") {
    const std::string head =
        "data { vector[3] y; array[3] int n; }\n"
        "parameters { real mu; real<lower=0> sigma; vector[3] m; }\n";
    const std::string json = R"({"y": [0.5, -1, 2], "n": [0, 2, 5]})";
    // vectorised: the sum over the elements (a scalar variate repeats)
    check_same(head, "target += normal_lcdf(y | mu, sigma);",
               "for (i in 1:3) target += log(Phi((y[i] - mu) / sigma));", json);
    check_same(head, "target += normal_lccdf(y | m, sigma);",
               "for (i in 1:3) target += log(Phi(-(y[i] - m[i]) / sigma));", json);
    check_same(head, "target += logistic_lccdf(0.5 | m, sigma);",
               "for (i in 1:3) target += log1m_inv_logit((0.5 - m[i]) / sigma);", json);
    check_same(head, "target += log(normal_cdf(y | mu, sigma));",
               "target += normal_lcdf(y | mu, sigma);", json);
    check_same(head, "target += std_normal_lccdf(y - mu);", "target += normal_lccdf(y | mu, 1);",
               json);
    // in a vectorised loop, one value per iteration
    check_same(head, "for (i in 1:3) target += exponential_lccdf(y[i] + 2 | sigma);",
               "target += -sigma * sum(y + 2);", json);
    check_same(head, "for (i in 1:3) target += gumbel_lcdf(y[i] | m[i], sigma);",
               "for (i in 1:3) target += -exp(-(y[i] - m[i]) / sigma);", json);
    // numbers where the arguments are known: P(T > 0) = 1/2 for a t centred at 0
    check_same(head, "target += student_t_lccdf(0 | 3, 0, 2.5) + normal_lpdf(mu | 0, 1);",
               "target += log(0.5) + normal_lpdf(mu | 0, 1);", json);
    check_same(head, "target += poisson_lcdf(n | 2.5) + normal_lpdf(mu | 0, 1);",
               "target += log(exp(-2.5)) + log(exp(-2.5) * (1 + 2.5 + 2.5^2 / 2))"
               " + log(exp(-2.5) * (1 + 2.5 + 2.5^2 / 2 + 2.5^3 / 6 + 2.5^4 / 24 + 2.5^5 / 120))"
               " + normal_lpdf(mu | 0, 1);",
               json);
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("truncation T[L, U] is the density less the log probability of [L, U]", "[stan]") {
    const std::string head =
        "data { vector[3] y; real x; array[3] int k; }\n"
        "parameters { real mu; real<lower=0> sigma; vector[3] m; }\n";
    const std::string json = R"({"y": [0.5, -1, 2], "x": 0.25, "k": [3, 4, 6]})";
    check_same(head, "x ~ normal(mu, sigma) T[-2, 3];",
               "x ~ normal(mu, sigma);"
               " target += -log_diff_exp(normal_lcdf(3 | mu, sigma), normal_lcdf(-2 | mu, sigma));",
               json);
    check_same(head, "x ~ normal(mu, sigma) T[-2, ];",
               "x ~ normal(mu, sigma); target += -normal_lccdf(-2 | mu, sigma);", json);
    check_same(head, "x ~ normal(mu, sigma) T[, 3];",
               "x ~ normal(mu, sigma); target += -normal_lcdf(3 | mu, sigma);", json);
    check_same(head, "x ~ normal(mu, sigma) T[, ];", "x ~ normal(mu, sigma);", json);
    // a vector variate with scalar arguments: one term per element
    check_same(head, "y ~ logistic(mu, sigma) T[-3, ];",
               "y ~ logistic(mu, sigma); target += -3 * logistic_lccdf(-3 | mu, sigma);", json);
    // container arguments: one term per element, each with its own argument
    check_same(head, "y ~ normal(m, sigma) T[-3, 4];",
               "y ~ normal(m, sigma); for (i in 1:3) target += -log_diff_exp("
               "normal_lcdf(4 | m[i], sigma), normal_lcdf(-3 | m[i], sigma));",
               json);
    // in a loop, per iteration
    check_same(head, "for (i in 1:3) y[i] ~ normal(m[i], sigma) T[-3, 4];",
               "y ~ normal(m, sigma); for (i in 1:3) target += -log_diff_exp("
               "normal_lcdf(4 | m[i], sigma), normal_lcdf(-3 | m[i], sigma));",
               json);
    // integers: the lower bound is included, P(K >= L) = P(K > L - 1); numbers where known
    check_same(head, "k ~ poisson(3.5) T[2, 8]; mu ~ normal(0, 1);",
               "k ~ poisson(3.5); mu ~ normal(0, 1);"
               " target += -3 * log_diff_exp(poisson_lcdf(8 | 3.5), poisson_lcdf(1 | 3.5));",
               json);
    // a user's density with the user's CDFs
    const std::string user =
        "functions {\n"
        "  real foo_lpdf(real y, real s) { return normal_lpdf(y | 0, s); }\n"
        "  real foo_lcdf(real y, real s) { return normal_lcdf(y | 0, s); }\n"
        "  real foo_lccdf(real y, real s) { return normal_lccdf(y | 0, s); }\n"
        "}\n";
    check_same(user + head, "x ~ foo(sigma) T[-1, ];",
               "x ~ normal(0, sigma); target += -normal_lccdf(-1 | 0, sigma);", json);
}

TEST_CASE("truncation refuses data outside its bounds; von_mises' and the finite sums' CDFs",
          "[stan]") {
    const std::string head = "data { real x; }\nparameters { real mu; }\n";
    CHECK_THROWS_WITH(lower_text(head + "model { x ~ normal(mu, 1) T[0, 1]; }", R"({"x": 2.5})"),
                      Catch::Contains("m.stan:3:9: `x` is 2.5, outside its truncation [0, 1]"));
    // every CDF Stan has is lowered now: von_mises' (graph/ops_special.hpp) and
    // beta_binomial's, beta_neg_binomial's as finite sums of the mass function
    check_same(head, "x ~ von_mises(mu, 1) T[0, ];",
               "x ~ von_mises(mu, 1); target += -von_mises_lccdf(0 | mu, 1);", R"({"x": 0.5})");
    const std::string counts =
        "data { int k; array[3] int n; array[3] int m; }\nparameters { real<lower=0> a; }\n";
    const std::string json = R"({"k": 2, "n": [0, 3, 5], "m": [4, 6, 5]})";
    check_same(counts, "k ~ beta_binomial(6, a, 2) T[1, ];",
               "k ~ beta_binomial(6, a, 2); target += -beta_binomial_lccdf(0 | 6, a, 2);", json);
    check_same(counts, "target += beta_binomial_lcdf(n | m, a, 2);",
               "for (i in 1:3) target += beta_binomial_lcdf(n[i] | m[i], a, 2);", json);
    check_same(counts, "target += beta_neg_binomial_lccdf(n | a, 2, 3);",
               "for (i in 1:3) target += log1m_exp(beta_neg_binomial_lcdf(n[i] | a, 2, 3));", json);
    // a count drawn by an _rng differs between draws: refused, not baked in at its first draw
    CHECK_THROWS_WITH(
        lower_text("parameters { real<lower=0> a; }\nmodel { a ~ gamma(2, 1); }\n"
                   "generated quantities { int k = poisson_rng(3);"
                   " real c = beta_binomial_cdf(k | 10, a, 2); }",
                   "{}"),
        Catch::Contains("beta_binomial_cdf of a variate that is drawn by an _rng is not "
                        "supported yet"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("matrix expressions of row vectors, arrays of vectors", "[stan]") {
    const std::string head = "parameters { vector[3] x; row_vector[3] r; }\n";
    check_same(head, "matrix[2, 3] m = [x', r]; target += m[2, 1] * m[1, 3];",
               "target += r[1] * x[3];");
    check_same(head, "matrix[2, 2] m = [[1, x[1]], [x[2], 4]]; target += log_determinant(m);",
               "target += log(abs(4 - x[1] * x[2]));");
    check_same(head, "matrix[3, 1] m = [x']'; target += sum(m) * m[3, 1];",
               "target += sum(x) * x[3];");
    check_same(head, "array[2] vector[3] a = {x, 2 * x}; target += dot_product(a[2], a[1]);",
               "target += 2 * dot_self(x);");
    check_same(head, "array[2] row_vector[3] a = {r, x'}; target += a[1] * a[2]';",
               "target += r * x;");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("dims, and assignments through several bracket groups", "[stan]") {
    const std::string head = "data { array[2] vector[3] a; }\nparameters { vector[3] x; }\n";
    const std::string json = R"({"a": [[1, 2, 3], [4, 5, 6]]})";
    check_same(head, "target += dims(a)[1] * x[1] + dims(a)[2] * x[2] + size(dims(x)) * x[3];",
               "target += 2 * x[1] + 3 * x[2] + x[3];", json);
    check_same(head,
               "matrix[2, 3] m = rep_matrix(0, 2, 3); m[2][3] = x[1]; m[1][2:3] = x[2:3]';"
               " target += m[2, 3] * m[1, 3] + m[1, 2];",
               "target += x[1] * x[3] + x[2];", json);
    check_same(head, "array[2] vector[3] b = a; b[2][1] = x[2]; target += dot_product(b[2], x);",
               "target += x[2] * x[1] + 5 * x[2] + 6 * x[3];", json);
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("choose: exact binomial coefficients of ints, overflow refused", "[stan]") {
    const std::string head = "parameters { real x; }\n";
    check_same(head, "target += choose(5, 2) * x + choose(4, 7) + choose(30, 15);",
               "target += 10 * x + 155117520;");
    check_same(head, "array[3] int c = choose({5, 6, 7}, 3); target += c[1] + c[2] * x + c[3];",
               "target += 10 + 20 * x + 35;");
    check_same(head, "target += sum(choose(10, {0, 10, 3})) * x;", "target += 122 * x;");
    CHECK_THROWS_WITH(lower_text(head + "model { target += choose(40, 20) * x; }", "{}"),
                      Catch::Contains("choose(40, 20) overflows an int"));
    CHECK_THROWS_WITH(lower_text(head + "model { target += choose(-1, 2) * x; }", "{}"),
                      Catch::Contains("the arguments must be non-negative"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("log factorials, log_inv_logit_diff, binary_log_loss as their definitions", "[stan]") {
    const std::string head = "parameters { real<lower=2> x; real y; vector[2] v; }\n";
    check_same(head, "target += log_falling_factorial(x, 1.5) + log_rising_factorial(x, 2);",
               "target += lgamma(x + 1) - lgamma(x - 0.5) + log(x) + log(x + 1);");
    check_same(head, "target += log_inv_logit_diff(x, y - 3);",
               "target += log(inv_logit(x) - inv_logit(y - 3));");
    check_same(
        head, "target += sum(log_inv_logit_diff(v, -4));",
        "target += log(inv_logit(v[1]) - inv_logit(-4)) + log(inv_logit(v[2]) - inv_logit(-4));");
    check_same(
        head, "target += binary_log_loss(1, inv_logit(y)) + sum(binary_log_loss(0, inv_logit(v)));",
        "target += -log(inv_logit(y)) - log1m(inv_logit(v[1])) - log1m(inv_logit(v[2]));");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("fma and lmgamma as their definitions", "[stan]") {
    const std::string head = "parameters { real<lower=1> x; vector[2] v; row_vector[2] r; }\n";
    check_same(head, "target += fma(x, x, 2) + sum(fma(v, x, v)) + sum(fma(r, r, 1));",
               "target += x * x + 2 + sum(v * x + v) + dot_self(r) + 2;");
    check_same(head, "target += lmgamma(3, x);",
               "target += 3 * log(pi()) / 2 + lgamma(x) + lgamma(x - 0.5) + lgamma(x - 1);");
    check_same(head, "target += sum(lmgamma(1, v + 3));", "target += sum(lgamma(v + 3));");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("the new functions' size errors name the call and the sizes", "[stan]") {
    const std::string head =
        "data { array[3] vector[2] p; array[3] real ls; }\nparameters { real<lower=1> x; }\n";
    const std::string json = R"({"p": [[0, 1], [0.5, -0.3], [2, 0.7]], "ls": [1, 2, 3]})";
    CHECK_THROWS_WITH(
        lower_text(head + "model { target += sum(gp_exp_quad_cov(p, x, ls)); }", json),
        Catch::Contains("gp_exp_quad_cov: 3 length scales for points of 2 dimensions"));
    CHECK_THROWS_WITH(lower_text(head + "model { target += lmgamma(0, x); }", json),
                      Catch::Contains("lmgamma: the dimension must be positive, got 0"));
    CHECK_THROWS_WITH(
        lower_text(head + "model { matrix[2, 2] m = [p[1]', [x, x, x]]; target += m[1, 1]; }",
                   json),
        Catch::Contains("the rows of a matrix expression differ"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("container construction: the values Stan gives, written out", "[stan]") {
    check_same(kHead, "target += dot_product(linspaced_vector(3, -1, 2), x);",
               "target += -x[1] + 0.5 * x[2] + 2 * x[3];");
    check_same(kHead,
               "target += linspaced_row_vector(3, 0, 1) * x + sum(linspaced_array(1, 4, 7));",
               "target += 0.5 * x[2] + x[3] + 7;");
    // Eigen's integer LinSpaced, as Stan: 5 values from 1 to 3 repeat, {1, 1, 2, 2, 3}
    check_same(kHead, "target += x[1] * sum(linspaced_int_array(5, 1, 3));", "target += 9 * x[1];");
    check_same(kHead,
               "target += dot_product(one_hot_vector(3, 2), x) + sum(one_hot_int_array(4, 3));",
               "target += x[2] + 1;");
    check_same(kHead, "target += one_hot_row_vector(3, 3) * x + sum(one_hot_array(2, 1));",
               "target += x[3] + 1;");
    check_same(kHead,
               "target += sum(zeros_vector(3) + x) + ones_row_vector(3) * x + "
               "sum(ones_array(2)) + sum(zeros_int_array(2)) + sum(ones_int_array(4));",
               "target += 2 * sum(x) + 6;");
    check_same(kHead, "target += sum(identity_matrix(3) * x);", "target += sum(x);");
    check_same(kHead, "target += dot_product(uniform_simplex(3), x);", "target += sum(x) / 3;");
}

TEST_CASE("distances and norms are their sums written out", "[stan]") {
    const std::string head = "data { vector[3] y; }\n" + kHead;
    const std::string json = R"({"y": [0.5, -1, 2]})";
    check_same(head, "target += squared_distance(x, y');", "target += dot_self(x - y);", json);
    check_same(head, "target += distance(x', y);", "target += sqrt(dot_self(x - y));", json);
    check_same(head, "target += norm1(x) + norm2(x');",
               "target += sum(abs(x)) + sqrt(dot_self(x));", json);
    check_same(head, "target += squared_distance(x[1], y[2]);", "target += square(x[1] + 1);",
               json);
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("Stan's operators as functions, and linear algebra written with the ops there are",
          "[stan]") {
    const std::string head = "parameters { matrix[3, 3] A; vector[3] x; vector[3] z; }\n";
    check_same(head,
               "target += sum(add(x, z)) + sum(subtract(A, 1)) + sum(multiply(A, x)) + "
               "sum(elt_multiply(x, z)) + sum(elt_divide(x, 2)) + sum(divide(1, x)) + "
               "sum(minus(z)) + multiply(x', z);",
               "target += sum(x + z) + sum(A - 1) + sum(A * x) + sum(x .* z) + sum(x ./ 2) + "
               "sum(1 ./ x) - sum(z) + x' * z;");
    // with A made well-conditioned: B = A A' + 3 I
    const std::string spd = "matrix[3, 3] B = A * A' + diag_matrix(rep_vector(3, 3)); ";
    check_same(head, spd + "target += sum(mdivide_left(B, B * x)) + sum(mdivide_right(x' * B, B));",
               "target += 2 * sum(x);");
    check_same(head,
               spd +
                   "target += sum(mdivide_left_spd(B, B * z)) + "
                   "sum(mdivide_right_spd(z' * B, B)) + sum(mdivide_left(B, B * A));",
               "target += 2 * sum(z) + sum(A);");
    check_same(head, "target += sum(matrix_power(A, 3)) + sum(matrix_power(A, 0));",
               "target += sum(A * A * A) + 3;");
    check_same(head,
               "target += trace_quad_form(A, x) + trace_gen_quad_form(A', A, A) + "
               "quad_form_sym(A + A', z);",
               "target += quad_form(A, x) + trace(A' * quad_form(A, A)) + z' * (A + A') * z;");
    check_same(head,
               spd +
                   "target += sum(chol2inv(cholesky_decompose(B))) + "
                   "log_determinant_spd(B);",
               spd + "target += sum(inverse(B)) + log_determinant(B);");
    check_same(head, "target += int_step(x[1]) * x[2] + int_step(3) + int_step(-1);",
               "target += (1 - step(-x[1])) * x[2] + 1;");
    check_same(head,
               "target += rising_factorial(x[1], 3) + falling_factorial(x[2], 2) + "
               "rising_factorial(x[3], 0) + rising_factorial(4, 2) + falling_factorial(5, 3);",
               "target += x[1] * (x[1] + 1) * (x[1] + 2) + x[2] * (x[2] - 1) + 1 + 20 + 60;");
    check_same(head, "target += beta(exp(x[1]), 2.5);",
               "target += tgamma(exp(x[1])) * tgamma(2.5) / tgamma(exp(x[1]) + 2.5);");
    // the regularised incomplete gamma and beta functions, of parameters: closed forms
    check_same(head,
               "target += gamma_p(1, exp(x[2])) + gamma_q(exp(x[1]), exp(x[2])) + "
               "inc_beta(exp(x[1]), 1, inv_logit(x[3])) + inc_beta(1, 1, inv_logit(x[2]));",
               "target += 1 - exp(-exp(x[2])) + 1 - gamma_p(exp(x[1]), exp(x[2])) + "
               "pow(inv_logit(x[3]), exp(x[1])) + inv_logit(x[2]);");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("construction and power functions refuse bad arguments, naming the function", "[stan]") {
    auto error_of = [](const std::string& model) {
        try {
            (void)lower_text(kHead + "model { " + model + " }", "{}");
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(error_of("target += sum(one_hot_vector(3, 5)) * x[1];"),
               Catch::Contains("one_hot_vector: k = 5 must be in 1..n = 3"));
    CHECK_THAT(error_of("target += sum(linspaced_vector(3, 2, 1)) * x[1];"),
               Catch::Contains("linspaced_vector: low and high must be finite and low <= high"));
    CHECK_THAT(error_of("target += sum(zeros_vector(-1)) * x[1];"),
               Catch::Contains("zeros_vector: the size must be non-negative, got -1"));
    CHECK_THAT(error_of("target += sum(matrix_power(diag_matrix(x), -1));"),
               Catch::Contains("matrix_power: the power must be non-negative, got -1"));
    CHECK_THAT(error_of("target += rising_factorial(x[1], 1001);"),
               Catch::Contains("rising_factorial with n = 1001 > 1000 is not supported yet"));
    CHECK_THAT(error_of("target += falling_factorial(x[1], -2);"),
               Catch::Contains("falling_factorial: n must be non-negative, got -2"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("sorting, ranks and reversing, of parameters too", "[stan]") {
    check_same(kHead, "target += sort_asc(x)[1] + 2 * sort_desc(x)[1] + 3 * sort_asc(x)[2];",
               "target += min(x) + 2 * max(x) + 3 * (sum(x) - min(x) - max(x));");
    check_same(kHead, "target += x[sort_indices_asc(x)[1]] + x[sort_indices_desc(x)[1]];",
               "target += min(x) + max(x);");
    check_same(kHead, "target += rank(x, 1) * x[2];",
               "target += ((1 - step(x[2] - x[1])) + (1 - step(x[3] - x[1]))) * x[2];");
    check_same(kHead, "target += dot_product(reverse(x), [1, 2, 3]');",
               "target += 3 * x[1] + 2 * x[2] + x[3];");
    const std::string head = "data { array[4] real d; array[2, 2] int k; }\n" + kHead;
    const std::string json = R"({"d": [4, 1, 3, 2], "k": [[1, 2], [3, 4]]})";
    check_same(head,
               "target += x[1] * (sort_indices_asc(d)[1] + rank(d, 3) + sort_asc(k[2])[1]) + "
               "x[2] * sum(to_array_1d(k)[2:3]) + x[3] * reverse(d)[1];",
               "target += x[1] * (2 + 2 + 3) + x[2] * 5 + x[3] * 2;", json);
}

TEST_CASE("conversions, queries and quantiles of data", "[stan]") {
    const std::string head = "data { matrix[2, 2] M; array[4] real d; }\n" + kHead;
    const std::string json = R"({"M": [[1, 2], [3, 4]], "d": [1.9, -2.7, 3, 4]})";
    check_same(head,
               "array[4] real a = to_array_1d(M); array[2, 2] real b = to_array_2d(M); "
               "target += x[1] * (a[2] + b[1, 2]) + x[2] * (to_int(d[1]) + to_int(d[2])) + "
               "x[3] * (is_nan(d[1]) + is_inf(1 / 0.0) + quantile(d, 0.5));",
               "target += x[1] * (3 + 2) + x[2] * (1 - 2) + x[3] * (0 + 1 + 2.45);", json);
    check_same(head,
               "array[2] real q = quantile(d, {0.25, 1.0}); target += x[1] * q[1] + x[2] * q[2];",
               "target += x[1] * 0.75 + x[2] * 4;", json);
}

TEST_CASE("determinant, generalized inverse, quantile functions, ldexp, lambert_wm1", "[stan]") {
    const std::string head = "parameters { matrix[3, 3] A; vector[3] x; }\n";
    check_same(head, "target += determinant(A);",
               "target += A[1, 1] * (A[2, 2] * A[3, 3] - A[2, 3] * A[3, 2]) - "
               "A[1, 2] * (A[2, 1] * A[3, 3] - A[2, 3] * A[3, 1]) + "
               "A[1, 3] * (A[2, 1] * A[3, 2] - A[2, 2] * A[3, 1]);");
    check_same(head, "target += sum(generalized_inverse(A)) + sum(generalized_inverse(A[:, 1:2]));",
               "target += sum(inverse(A)) + "
               "sum(inverse(A[:, 1:2]' * A[:, 1:2]) * A[:, 1:2]');");
    check_same(head,
               "target += inv_Phi(Phi(x[1])) + std_normal_log_qf(log(Phi(x[2]))) + "
               "std_normal_qf(0.975) + ldexp(x[3], 3);",
               "target += x[1] + x[2] + 1.959963984540054 + 8 * x[3];");
    check_same(head,
               "real z = -exp(-1) * inv_logit(x[1]); real w = lambert_wm1(z); "
               "target += w * exp(w) + lambert_wm1(-exp(-1)) + lambert_wm1(-2 * exp(-2));",
               "target += -exp(-1) * inv_logit(x[1]) - 1 - 2;");
}

}  // namespace advi::stan

namespace advi::stan {
namespace {

// lp and gradient at a few points without the log-Jacobians (optimize's default).
void check_same_without_jacobian(const std::string& a, const std::string& b) {
    INFO(a << "\nagainst\n" << b);
    const auto la = lower_text(a, "{}");
    const auto lb = lower_text(b, "{}");
    advi::Program pa = compile(la->model().spec(), false), pb = compile(lb->model().spec(), false);
    REQUIRE(pa.dim() == pb.dim());
    for (double shift : {-0.7, 0.2, 1.1}) {
        Eigen::VectorXd z = Eigen::VectorXd::LinSpaced(pa.dim(), -0.5, 0.6).array() + shift;
        Eigen::VectorXd ga(pa.dim()), gb(pb.dim());
        CHECK(pa.run(z, ga) == Approx(pb.run(z, gb)).epsilon(1e-12));
        CHECK((ga - gb).norm() <= 1e-12 * (1 + gb.norm()));
    }
}

}  // namespace

TEST_CASE("jacobian += and the _jacobian functions count with the transforms' log-Jacobians",
          "[stan]") {
    // with the Jacobian (a fit): the terms are in; without (optimize's default): out
    const std::string p = "parameters { real y; vector[2] v; }\n";
    const std::string tail = "model { x ~ normal(3, 1); w ~ normal(0, 2); }";
    check_same_without_jacobian(
        p +
            "transformed parameters { real x = lower_bound_jacobian(y, 2); "
            "vector[2] w = offset_multiplier_jacobian(v, 1, 3); jacobian += 0.5 * y; }\n" +
            tail,
        p + "transformed parameters { real x = 2 + exp(y); vector[2] w = 1 + 3 * v; }\n"
            "model { x ~ normal(3, 1); w ~ normal(0, 2); }");
    // (the other program, with the Jacobian terms as target terms, agrees with the Jacobian on)
    const auto with_terms = lower_text(
        p +
            "transformed parameters { real x = lower_bound_jacobian(y, 2); "
            "vector[2] w = offset_multiplier_jacobian(v, 1, 3); jacobian += 0.5 * y; }\n" +
            tail,
        "{}");
    const auto as_target = lower_text(
        p + "transformed parameters { real x = 2 + exp(y); vector[2] w = 1 + 3 * v; }\n"
            "model { x ~ normal(3, 1); w ~ normal(0, 2); target += 1.5 * y + 2 * log(3); }",
        "{}");
    advi::test::check_same_density(with_terms->model().spec(), as_target->model().spec());
}

TEST_CASE("the constraint transforms as functions: Stan's maps and their inverses", "[stan]") {
    const std::string head = "parameters { vector[3] x; matrix[2, 3] M; }\n";
    check_same(head,
               "target += lower_bound_constrain(x[1], 2) + upper_bound_constrain(x[2], 2) + "
               "lower_upper_bound_constrain(x[3], -1, 3) + "
               "sum(offset_multiplier_constrain(x, 1, [1, 2, 3]'));",
               "target += 2 + exp(x[1]) + 2 - exp(x[2]) - 1 + 4 * inv_logit(x[3]) + "
               "3 + x[1] + 2 * x[2] + 3 * x[3];");
    check_same(head,
               "vector[3] o = ordered_constrain(x); vector[3] q = positive_ordered_constrain(x); "
               "target += dot_product(o, [1, 2, 3]') + dot_product(q, [1, 2, 3]');",
               "vector[3] o = [x[1], x[1] + exp(x[2]), x[1] + exp(x[2]) + exp(x[3])]'; "
               "vector[3] q = [exp(x[1]), exp(x[1]) + exp(x[2]), exp(x[1]) + exp(x[2]) + "
               "exp(x[3])]'; target += dot_product(o, [1, 2, 3]') + dot_product(q, [1, 2, 3]');");
    // each unconstrain undoes its constrain, arrays of vectors too
    check_same(head,
               "target += lower_bound_unconstrain(lower_bound_constrain(x[1], 2), 2) + "
               "upper_bound_unconstrain(upper_bound_constrain(x[2], 2), 2) + "
               "lower_upper_bound_unconstrain(lower_upper_bound_constrain(x[3], -1, 3), -1, 3) + "
               "sum(offset_multiplier_unconstrain(offset_multiplier_constrain(x, 1, 2), 1, 2)) + "
               "dot_product(ordered_unconstrain(ordered_constrain(x)), [1, 2, 3]') + "
               "dot_product(positive_ordered_unconstrain(positive_ordered_constrain(x)), "
               "[1, 2, 3]');",
               "target += 2 * sum(x) + 2 * dot_product(x, [1, 2, 3]');");
    check_same(head,
               "array[2] vector[3] a = {M[1]', M[2]'}; "
               "array[2] vector[3] o = ordered_constrain(a); "
               "array[2] vector[3] u = positive_ordered_unconstrain(positive_ordered_constrain(a));"
               " target += o[2][3] + u[1][2] + u[2][3];",
               "target += M[2, 1] + exp(M[2, 2]) + exp(M[2, 3]) + M[1, 2] + M[2, 3];");
}

TEST_CASE("the structured transforms as functions: valued in their sets, inverted, Jacobians",
          "[stan]") {
    const std::string head = "parameters { vector[3] x; matrix[2, 3] M; }\n";
    // each unconstrain undoes its constrain (simplex, unit_vector's direction, sum_to_zero,
    // stochastic rows and columns), on parameters
    check_same(head,
               "target += dot_product(simplex_unconstrain(simplex_constrain(x)), [1, 2, 3]') + "
               "dot_product(sum_to_zero_unconstrain(sum_to_zero_constrain(x)), [1, 2, 3]') + "
               "sum(sum_to_zero_unconstrain(sum_to_zero_constrain(M)) .* [[1, 2, 3], [4, 5, "
               "6]]) + sum(stochastic_row_unconstrain(stochastic_row_constrain(M)) .* [[1, 2, 3], "
               "[4, 5, 6]]) + sum(stochastic_column_unconstrain(stochastic_column_constrain(M)) "
               ".* [[1, 2, 3], [4, 5, 6]]);",
               "target += dot_product(x, [1, 2, 3]') + dot_product(x, [1, 2, 3]') + "
               "3 * sum(M .* [[1, 2, 3], [4, 5, 6]]);");
    // the values lie in their sets: a simplex sums to 1, sum_to_zero to 0, unit vectors have
    // norm 1, stochastic rows and columns sum to 1
    check_same(head,
               "target += sum(simplex_constrain(x)) + sum(sum_to_zero_constrain(x)) + "
               "dot_self(unit_vector_constrain(x)) + sum(sum_to_zero_constrain(M)) + "
               "sum(stochastic_row_constrain(M)) + sum(stochastic_column_constrain(M)) + "
               "sum(x);",
               "target += 1 + 0 + 1 + 0 + 2 + 3 + sum(x);");
    // cov_matrix of data, unconstrained and constrained again; the Jacobian form adds the
    // library's log|J|, as a cov_matrix parameter's density does
    check_same("parameters { vector[6] y; }\n",
               "matrix[3, 3] S = cov_matrix_constrain(cov_matrix_unconstrain([[2, 0.5, 0], [0.5, "
               "1, 0.2], [0, 0.2, 3]]), 3); target += S[1, 2] + S[3, 3] + sum(y);",
               "target += 0.5 + 3 + sum(y);");
    // the matrix transforms' inverses are numeric: of a parameter, refused by name
    CHECK_THROWS_WITH(lower(parse_program("parameters { cov_matrix[2] S; }\n"
                                          "model { target += sum(cov_matrix_unconstrain(S)); }",
                                          "m.stan"),
                            read_json_data("{}", "d.json")),
                      Catch::Contains("cov_matrix_unconstrain of a value that depends on the "
                                      "parameters is not supported yet"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("rep_array of more dimensions and of vectors, slices of int arrays, softmax of rows",
          "[stan]") {
    check_same(kHead,
               "array[2, 3] int k = rep_array(4, 2, 3); array[2] vector[3] v = rep_array(x, 2); "
               "array[2, 3] real a = rep_array(x[1], 2, 3); "
               "array[2, 2] int h = head(rep_array({1, 2}, 3), 2); "
               "array[1, 2] int s = segment(rep_array({3, 4}, 3), 2, 1); "
               "target += k[2, 3] * v[2][3] + sum(to_array_1d(a)) + h[2, 2] + s[1, 2] + "
               "sum(softmax(x') .* [1, 2, 3]);",
               "target += 4 * x[3] + 6 * x[1] + 2 + 4 + dot_product(softmax(x), [1, 2, 3]');");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("Bessel functions of parameters: the three-term recurrences", "[stan]") {
    // J_{v-1} + J_{v+1} = (2v / x) J_v (Y too), I_{v-1} - I_{v+1} = (2v / x) I_v,
    // K_{v+1} - K_{v-1} = (2v / x) K_v
    check_same(kHead,
               "real z = exp(x[1]); target += bessel_first_kind(0, z) + bessel_first_kind(2, z) + "
               "bessel_second_kind(1, z) + bessel_second_kind(3, z) + "
               "modified_bessel_first_kind(1, z) - modified_bessel_first_kind(3, z) + "
               "modified_bessel_second_kind(3, z) - modified_bessel_second_kind(1, z);",
               "real z = exp(x[1]); target += 2 / z * bessel_first_kind(1, z) + "
               "4 / z * bessel_second_kind(2, z) + 4 / z * modified_bessel_first_kind(2, z) + "
               "4 / z * modified_bessel_second_kind(2, z);");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("append_array of reals, vectors and ints", "[stan]") {
    check_same(kHead,
               "array[4] real a = append_array({x[1], x[2]}, {x[3], 5.0}); "
               "array[3] vector[3] v = append_array({x, 2 * x}, {3 * x}); "
               "array[3, 2] int k = append_array(rep_array(1, 1, 2), rep_array(7, 2, 2)); "
               "array[1] real one = {x[2]}; array[2] real two = append_array(one, one); "
               "target += a[3] * a[4] + v[3][2] + k[3, 2] * x[1] + two[2];",
               "target += 5 * x[3] + 3 * x[2] + 7 * x[1] + x[2];");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("the session's refusals name what is at fault", "[stan]") {
    auto error_of = [](const std::string& program) {
        try {
            (void)lower_text(program, "{}");
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string p = "parameters { real y; vector[3] x; }\n";
    CHECK_THAT(error_of(p + "transformed parameters { real z = y; if (y > 0) jacobian += y; }\n"
                            "model { y ~ normal(0, 1); x ~ normal(0, 1); }"),
               Catch::Contains("a Jacobian term inside a condition on the parameters is not "
                               "supported yet"));
    CHECK_THAT(error_of(p + "model { y ~ normal(0, 1); x ~ normal(0, 1); "
                            "target += rank(x, 4); }"),
               Catch::Contains("rank: s = 4 must be in 1..3"));
    CHECK_THAT(error_of(p + "model { y ~ normal(0, 1); x ~ normal(0, 1); "
                            "target += is_nan(y); }"),
               Catch::Contains("is_nan of values that depend on the parameters is not "
                               "supported yet"));
    CHECK_THAT(error_of(p + "model { y ~ normal(0, 1); x ~ normal(0, 1); "
                            "target += quantile({1.0, 2.0}, 1.5); }"),
               Catch::Contains("quantile: p = 1.5 must be in [0, 1]"));
}

TEST_CASE("binary functions of int arrays and ints are as on reals", "[stan]") {
    const std::string head = "data { array[3] int k; int j; array[2, 3] int kk; }\n" + kHead;
    const std::string json = R"({"k": [1, 2, 3], "j": 4, "kk": [[1, 2, 3], [4, 5, 6]]})";
    check_same(head, "target += dot_product(to_vector(atan2(k, j)), x);",
               "target += atan2(1, 4) * x[1] + atan2(2, 4) * x[2] + atan2(3, 4) * x[3];", json);
    check_same(head, "target += to_vector(atan2(kk, j)[2]) ' * x;",
               "target += atan2(4, 4) * x[1] + atan2(5, 4) * x[2] + atan2(6, 4) * x[3];", json);
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("Stan's forms over arrays of any dimensions are their elements written out", "[stan]") {
    // slices of the outermost dimension
    check_same(kHead,
               "array[3, 2] real a = {{x[1], x[2]}, {x[3], x[1]}, {x[2], x[3]}};"
               "array[2, 2] real h = head(a, 2); target += h[2, 1] * h[1, 2];",
               "target += x[3] * x[2];");
    check_same(kHead,
               "array[3] matrix[1, 2] m = {[[x[1], x[2]]], [[x[2], x[3]]], [[x[3], x[1]]]};"
               "array[2] matrix[1, 2] s = segment(m, 2, 2); target += s[2][1, 2] * s[1][1, 1];",
               "target += x[1] * x[2];");
    check_same(kHead, "array[2] vector[3] v = {x, 2 * x}; target += sum(tail(v, 1)[1]);",
               "target += 2 * sum(x);");
    // copies, fastest in the flat order
    check_same(kHead,
               "array[2, 2] vector[3] r = rep_array(x, 2, 2); target += r[2, 1][3] * r[1, 2][1];",
               "target += x[3] * x[1];");
    check_same(kHead,
               "array[2] real a = {x[1], x[2]}; array[3, 2] real r = rep_array(a, 3);"
               "target += r[3, 2] * r[1, 1];",
               "target += x[2] * x[1];");
    // each vector of an array
    check_same(kHead,
               "array[2] vector[3] s = softmax({x, 2 * x}); array[2] vector[3] l = "
               "log_softmax({x, 2 * x}); target += log(s[2][3]) + l[1][2];",
               "target += log(softmax(2 * x)[3]) + log_softmax(x)[2];");
    // mixtures of containers
    check_same(kHead, "target += log_mix([0.2, 0.3, 0.5]', x);",
               "target += log_sum_exp(log([0.2, 0.3, 0.5]') + x);");
    check_same(kHead, "target += log_mix({0.2, 0.8}, {x[1:2], x[2:3]});",
               "target += log_sum_exp(log(0.2) + x[1], log(0.8) + x[2])"
               " + log_sum_exp(log(0.2) + x[2], log(0.8) + x[3]);");
    // row vectors and matrices
    check_same(kHead, "row_vector[4] r = append_col(x', x[1]); target += r[4] * r[2];",
               "target += x[1] * x[2];");
    check_same(kHead, "matrix[2, 3] m = to_matrix({x', 2 * x'}); target += m[2, 1] * m[1, 3];",
               "target += 2 * x[1] * x[3];");
    check_same(kHead,
               "matrix[2, 2] m = to_matrix({x[1], x[2], x[3], x[1]}, 2, 2, 0);"
               "target += m[1, 2] * m[2, 1];",
               "target += x[2] * x[3];");
    // an int per element, paired in flat order
    check_same(kHead, "target += sum(ldexp(x, {1, 2, 3}));",
               "target += 2 * x[1] + 4 * x[2] + 8 * x[3];");
    check_same(kHead, "target += sum(falling_factorial(x, {0, 1, 2}));",
               "target += 1 + x[2] + x[3] * (x[3] - 1);");
    check_same(kHead, "target += sum(rising_factorial(x[1], {2, 3}));",
               "target += x[1] * (x[1] + 1) + x[1] * (x[1] + 1) * (x[1] + 2);");
    check_same(kHead, "target += sum(lmgamma({1, 2}, exp(x[1])));",
               "target += 2 * lgamma(exp(x[1])) + 0.5 * log(pi()) + lgamma(exp(x[1]) - 0.5);");
    check_same(kHead,
               "matrix[1, 2] p = [[inv_logit(x[1]), inv_logit(x[2])]];"
               "target += -sum(binary_log_loss({{1, 0}}, p));",
               "target += log(inv_logit(x[1])) + log1m(inv_logit(x[2]));");
}

TEST_CASE("one vector against an array of argument vectors is one density per vector", "[stan]") {
    check_same(kHead, "target += dirichlet_lpdf(softmax(x) | {exp(x), 2 * exp(x)});",
               "target += dirichlet_lpdf(softmax(x) | exp(x)) + dirichlet_lpdf(softmax(x) | 2 * "
               "exp(x));");
    check_same(
        kHead,
        "target += multi_normal_lpdf(x | {0.5 * x, [1, 2, 3]'}, diag_matrix(rep_vector(2, 3)));",
        "target += multi_normal_lpdf(x | 0.5 * x, diag_matrix(rep_vector(2, 3)))"
        " + multi_normal_lpdf(x | [1, 2, 3]', diag_matrix(rep_vector(2, 3)));");
}

TEST_CASE(
    "target() is the log density so far; `{a, b} ~` is an array; _lp in transformed "
    "parameters",
    "[stan]") {
    check_same(kHead, "target += normal_lpdf(x | 0, 1); target += target();",
               "target += 2 * normal_lpdf(x | 0, 1);");
    check_same(kHead, "{x[1], x[3]} ~ normal(0, 2);",
               "target += normal_lpdf(x[1] | 0, 2) + normal_lpdf(x[3] | 0, 2);");
    const auto lp =
        lower_text("functions { real f_lp(real a) { target += -a^2; return a; } }\n" + kHead +
                       "transformed parameters { real t = f_lp(x[1]); }\n"
                       "model { x ~ normal(0, 1); }",
                   "{}");
    const auto plain = lower_text(kHead + "model { target += -x[1]^2; x ~ normal(0, 1); }", "{}");
    advi::test::check_same_density(lp->model().spec(), plain->model().spec());
    // a parameter with a transform: its log-Jacobian is not in the lowering's total
    CHECK_THROWS_WITH(
        lower_text("parameters { real<lower=0> s; }\nmodel { target += target(); }", "{}"),
        Catch::Contains("`target()` is not supported yet where a parameter has a "
                        "transform (`s` is constrained)"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("the densities built as expressions equal their definitions and special cases",
          "[stan]") {
    const std::string s = "matrix[3, 3] S = [[2, 0.5, 0.1], [0.5, 1, 0.2], [0.1, 0.2, 1.5]];";
    check_same(kHead, s + "target += multi_normal_prec_lpdf(x | [1, 2, 3]', S);",
               s + "target += multi_normal_lpdf(x | [1, 2, 3]', inverse_spd(S));");
    check_same(kHead, s + "target += multi_normal_prec_lpdf({x, 2 * x} | [1, 2, 3]', S);",
               s + "target += multi_normal_lpdf({x, 2 * x} | [1, 2, 3]', inverse_spd(S));");
    // multi_student_t: its definition, K = 1 the univariate t, and the Cholesky form
    const std::string nu = "real nu = exp(x[1]) + 1;";
    check_same(kHead, s + nu + "target += multi_student_t_lpdf(x | nu, [1, 2, 3]', S);",
               s + nu +
                   "vector[3] r = x - [1, 2, 3]'; target += lgamma((nu + 3) / 2) - lgamma(nu / 2)"
                   " - 1.5 * log(nu * pi()) - 0.5 * log_determinant(S)"
                   " - (nu + 3) / 2 * log1p(quad_form(inverse(S), r) / nu);");
    check_same(kHead, nu + "target += multi_student_t_lpdf(x[2:2] | nu, x[3:3], [[exp(x[1])]]);",
               nu + "target += student_t_lpdf(x[2] | nu, x[3], sqrt(exp(x[1])));");
    check_same(kHead,
               s + nu +
                   "target += multi_student_t_cholesky_lpdf({x, -x} | nu, x * 0.5, "
                   "cholesky_decompose(S));",
               s + nu + "target += multi_student_t_lpdf({x, -x} | nu, x * 0.5, S);");
    // multi_gp: each row a multi_normal with the kernel scaled by 1 / w_k
    const std::string y = "matrix[2, 3] Y = [x', 2 * x'];";
    check_same(kHead, s + y + "target += multi_gp_lpdf(Y | S, [exp(x[1]), 2]');",
               s + y +
                   "target += multi_normal_lpdf(Y[1]' | rep_vector(0, 3), S / exp(x[1]))"
                   " + multi_normal_lpdf(Y[2]' | rep_vector(0, 3), S / 2);");
    check_same(kHead,
               s + y + "target += multi_gp_cholesky_lpdf(Y | cholesky_decompose(S), [1, 3]');",
               s + y + "target += multi_gp_lpdf(Y | S, [1, 3]');");
    // the multinomials; dirichlet_multinomial of two categories is beta_binomial
    check_same(kHead, "target += multinomial_lpmf({2, 0, 3} | softmax(x));",
               "target += lgamma(6) - lgamma(3) - lgamma(4) + 2 * log_softmax(x)[1]"
               " + 3 * log_softmax(x)[3];");
    check_same(kHead, "target += multinomial_logit_lpmf({1, 4, 0} | x);",
               "target += multinomial_lpmf({1, 4, 0} | softmax(x));");
    check_same(kHead, "target += dirichlet_multinomial_lpmf({3, 4} | exp(x[1:2]));",
               "target += beta_binomial_lpmf(3 | 7, exp(x[1]), exp(x[2]));");
    check_same(kHead, "target += dirichlet_multinomial_lpmf({0, 0, 0} | exp(x));", "");
    // ordered_probit: the probit of each category; two categories a Bernoulli
    check_same(kHead, "target += ordered_probit_lpmf({1, 3, 2} | x, [-0.5, 0.7]');",
               "target += log(Phi(-0.5 - x[1])) + log(Phi(x[2] - 0.7))"
               " + log(Phi(0.7 - x[3]) - Phi(-0.5 - x[3]));");
    check_same(
        kHead, "target += ordered_probit_lpmf({2, 1} | x[1], {[x[2]]', [x[3]]'});",
        "target += bernoulli_lpmf(1 | Phi(x[1] - x[2])) + bernoulli_lpmf(0 | Phi(x[1] - x[3]));");
    // ordered_logistic with cutpoints per observation: one library term each
    check_same(kHead, "target += ordered_logistic_lpmf({1, 3} | x[1:2], {[-1, x[3]]', [0, 1]'});",
               "target += ordered_logistic_lpmf(1 | x[1], [-1, x[3]]')"
               " + ordered_logistic_lpmf(3 | x[2], [0, 1]');");
    // lkj_cov: lognormal standard deviations and an LKJ correlation matrix
    const std::string w = "matrix[2, 2] W = [[exp(x[1]), x[3]], [x[3], exp(x[2]) + 1]];";
    check_same(kHead, w + "target += lkj_cov_lpdf(W | [0.1, 0.2]', [1, 2]', 1.5);",
               w + "vector[2] sd = sqrt(diagonal(W)); target += lognormal_lpdf(sd | [0.1, 0.2]', "
                   "[1, 2]') + lkj_corr_lpdf(quad_form_diag(W, 1 ./ sd) | 1.5);");
    // categorical_logit_glm: categorical_logit of each row's linear predictor
    const std::string b = "matrix[3, 2] B = [[x[1], 1], [0.5, x[2]], [x[3], -1]];";
    check_same(kHead,
               b + "target += categorical_logit_glm_lpmf({2, 1} | [[1, 2, 3], [0, -1, 2]], [0.5, "
                   "-0.5]', B);",
               b + "target += categorical_logit_lpmf(2 | ([1, 2, 3] * B)' + [0.5, -0.5]')"
                   " + categorical_logit_lpmf(1 | ([0, -1, 2] * B)' + [0.5, -0.5]');");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("QR of parameters: Q R = A, Q orthonormal, R's diagonal the column norms", "[stan]") {
    const std::string head = "parameters { matrix[3, 2] A; }\n";
    // (the identities hold with their derivatives)
    check_same(head, "target += sum(qr_thin_Q(A) * qr_thin_R(A));", "target += sum(A);");
    check_same(head, "target += qr_thin_R(A)[1, 1] + qr_R(A)[3, 2];",
               "target += sqrt(A[1, 1]^2 + A[2, 1]^2 + A[3, 1]^2);");
    check_same(head, "target += sum(crossprod(qr_thin_Q(A)));", "target += 2;");
    check_same(head, "target += qr_thin_Q(A)[2, 1];",
               "target += A[2, 1] / sqrt(dot_self(col(A, 1)));");
    check_same(head, "tuple(matrix[3, 2], matrix[2, 2]) f = qr_thin(A); target += sum(f.1 * f.2);",
               "target += sum(A);");
    // the second column: A's second column less its part along the first, normalised
    check_same(head, "target += qr_thin_R(A)[2, 2];",
               "vector[3] q = col(A, 1) / sqrt(dot_self(col(A, 1)));"
               "target += sqrt(dot_self(col(A, 2) - dot_product(q, col(A, 2)) * q));");
    // qr_Q of a tall matrix of parameters: its completion is no function of A
    CHECK_THROWS_WITH(lower_text(head + "model { target += sum(qr_Q(A)); }", "{}"),
                      Catch::Contains("qr_Q of a 3 x 2 matrix that depends on the parameters is "
                                      "not supported yet"));
}

TEST_CASE("QR of data: Stan's Householder factors, R's diagonal non-negative", "[stan]") {
    // A = [[3, 1], [4, 2], [0, 2]]: q1 = (0.6, 0.8, 0), r11 = 5, r12 = 2.2, and so on
    const std::string head =
        "transformed data { matrix[3, 2] A = [[3, 1], [4, 2], [0, 2]];"
        " matrix[3, 3] Q = qr_Q(A); matrix[3, 2] R = qr_R(A);"
        " matrix[2, 2] Rt = qr_thin_R(-A); }\n"
        "parameters { real z; }\n";
    check_same(head, "target += z * (R[1, 1] + 10 * R[1, 2] + 100 * abs(R[3, 2]));",
               "target += z * (5 + 22);");
    check_same(head, "target += z * Rt[1, 1] + z^2 * Q[2, 1];", "target += 5 * z + 0.8 * z^2;");
    // Q is orthogonal, its last column orthogonal to A's columns
    check_same(head, "target += z * (sum(Q' * Q) + dot_product(col(Q, 3), col(A, 2)));",
               "target += 3 * z;");
}

TEST_CASE("gp kernels: each definition, and a finite gradient where points coincide", "[stan]") {
    const std::string head = "parameters { real<lower=0> l; real<lower=0> s; vector[2] p; }\n";
    const std::string x = "array[3] real x = {0.5, p[1], 0.5};";
    check_same(head, x + "target += sum(gp_exponential_cov(x, s, l));",
               x + "target += s^2 * (3 + 2 * exp(-abs(0.5 - p[1]) / l) * 2 + 2);");
    check_same(
        head, x + "target += gp_matern32_cov(x, s, l)[1, 2];",
        x + "real r = abs(0.5 - p[1]) / l; target += s^2 * (1 + sqrt(3) * r) * exp(-sqrt(3) * r);");
    check_same(head,
               x + "target += gp_matern52_cov(x, s, l)[2, 1] + gp_matern52_cov(x, s, l)[3, 1];",
               x + "real r = abs(0.5 - p[1]) / l; target += s^2 * (1 + sqrt(5) * r + 5 * r^2 / 3)"
                   " * exp(-sqrt(5) * r) + s^2;");
    check_same(head, x + "target += gp_periodic_cov(x, s, l, 2.5)[1, 2];",
               x + "target += s^2 * exp(-2 * square(sin(pi() * abs(0.5 - p[1]) / 2.5)) / l^2);");
    check_same(head,
               "array[2] vector[2] v = {p, [1, 2]'}; target += gp_exponential_cov(v, {[0, 0]'}, s, "
               "{l, 2 * l})[2, 1];",
               "target += s^2 * exp(-sqrt(1 / l^2 + 4 / (4 * l^2)));");
    check_same(head, "target += sum(gp_dot_prod_cov({p[1], 2}, s));",
               "target += 4 * s^2 + p[1]^2 + 4 * p[1] + 4;");
    check_same(head, "target += gp_dot_prod_cov({p}, {[1, 3]'}, s)[1, 1];",
               "target += s^2 + p[1] + 3 * p[2];");
}

TEST_CASE("compressed rows, trace_dot", "[stan]") {
    // [[1, 0, 2], [0, p1, 0]]: w = (1, 2, p1), v = (1, 3, 2), u = (1, 3, 4)
    const std::string head = "parameters { vector[2] p; }\n";
    const std::string a =
        "matrix[2, 3] A = csr_to_dense_matrix(2, 3, [1, 2, p[1]]', {1, 3, 2}, {1, 3, 4});";
    check_same(head, a + "target += A[1, 3] * A[2, 2] + A[1, 2] + A[2, 3];", "target += 2 * p[1];");
    check_same(head,
               "target += sum(csr_matrix_times_vector(2, 3, [1, 2, p[1]]', {1, 3, 2}, {1, 3, 4}, "
               "[p[2], 1, 1]'));",
               "target += p[2] + 2 + p[1];");
    check_same(head, "target += trace_dot([[p[1], 1], [2, p[2]]], [[1, 3], [4, 1]]);",
               "target += p[1] + 4 + 6 + p[2];");
    CHECK_THROWS_WITH(lower_text(head + "model { target += sum(csr_to_dense_matrix(2, 3, [1, 2]', "
                                        "{1, 4}, {1, 2, 3})); }",
                                 "{}"),
                      Catch::Contains("column index v[2] = 4 is not in 1..3"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("algebraic solvers: the root and its derivative in the parameters", "[stan]") {
    // y0^2 = theta0, y1 = y0 theta1 (from a positive guess): (sqrt(theta0), sqrt(theta0) theta1)
    const std::string functions =
        "functions {\n"
        "  vector legacy(vector y, vector theta, data array[] real x_r, array[] int x_i) {\n"
        "    return [y[1]^2 - theta[1], y[2] - y[1] * theta[2] * x_r[1] * x_i[1]]';\n"
        "  }\n"
        "  vector system(vector y, real a, vector b) { return [y[1]^2 - a, y[2] - y[1] * b[1]]'; "
        "}\n"
        "}\n";
    const std::string head = functions + kHead;
    const std::string closed = "target += sqrt(exp(x[1])) + sqrt(exp(x[1])) * x[2];";
    for (const char* solver : {"algebra_solver", "algebra_solver_newton"}) {
        check_same(head,
                   fmt::format("vector[2] r = {}(legacy, [1, 1]', [exp(x[1]), x[2]]', {{1.0}}, "
                               "{{1}}); target += r[1] + r[2];",
                               solver),
                   closed);
        check_same(head,
                   fmt::format("vector[2] r = {}(legacy, [1, 1]', [exp(x[1]), x[2]]', {{1.0}}, "
                               "{{1}}, 1e-10, 1e-8, 100); target += r[1] + r[2];",
                               solver),
                   closed);
    }
    for (const char* solver : {"solve_newton", "solve_powell"}) {
        check_same(head,
                   fmt::format("vector[2] r = {}(system, [1, 1]', exp(x[1]), [x[2]]'); "
                               "target += r[1] + r[2];",
                               solver),
                   closed);
        check_same(head,
                   fmt::format("vector[2] r = {}_tol(system, [1, 1]', 1e-3, 1e-8, 100, exp(x[1]), "
                               "[x[2]]'); target += r[1] + r[2];",
                               solver),
                   closed);
    }
    // the tolerances are data
    std::string message;
    try {
        check(parse_program("functions { vector g(vector y) { return y; } }\n" + kHead +
                                "model { target += solve_newton_tol(g, x, x[1], 1e-6, 10)[1]; }",
                            "m.stan"));
    } catch (const ParseError& e) {
        message = e.what();
    }
    CHECK_THAT(message, Catch::Contains("solve_newton_tol: argument 3 must be data only"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("integrate_1d: integrals of parameters with closed forms, and their gradients",
          "[stan]") {
    const std::string functions =
        "functions {\n"
        "  real legacy(real x, real xc, array[] real theta, array[] real x_r, array[] int x_i) {\n"
        "    return theta[1] * exp(-theta[2] * x^2) * x_r[1] * x_i[1];\n"
        "  }\n"
        "  real gauss(real x, real xc, real s, vector w) { return w[1] * exp(-s * x^2); }\n"
        "  real poly(real x, real xc) { return x^2; }\n"
        "}\n";
    const std::string head = functions + kHead;
    // (the quadratures' own accuracy, well within their relative tolerance)
    constexpr double kQuadrature = 1e-8;
    // the integral of c exp(-s x^2) over [a, b]: c sqrt(pi / s) (Phi(b sqrt(2 s)) - Phi(a ...))
    const std::string closed =
        "real s = exp(x[2]); target += x[1] * sqrt(pi() / s) * "
        "(Phi(exp(x[3]) * sqrt(2 * s)) - Phi(-0.5 * sqrt(2 * s)));";
    check_same(head,
               "target += integrate_1d(legacy, -0.5, exp(x[3]), {x[1], exp(x[2])}, {1.0}, {1});",
               closed, "{}", kQuadrature);
    check_same(
        head,
        "target += integrate_1d(legacy, -0.5, exp(x[3]), {x[1], exp(x[2])}, {1.0}, {1}, 1e-10);",
        closed, "{}", kQuadrature);
    for (const char* rule : {"double_exponential", "gauss_kronrod"}) {
        check_same(
            head,
            fmt::format("target += integrate_1d_{}(gauss, -0.5, exp(x[3]), exp(x[2]), [x[1]]');",
                        rule),
            closed, "{}", kQuadrature);
        check_same(head,
                   fmt::format("target += integrate_1d_{}_tol(gauss, -0.5, exp(x[3]), 1e-9, 0, 12, "
                               "exp(x[2]), [x[1]]');",
                               rule),
                   closed, "{}", kQuadrature);
        // an infinite range: c sqrt(pi / s)
        check_same(head,
                   fmt::format("target += integrate_1d_{}(gauss, negative_infinity(), "
                               "positive_infinity(), exp(x[2]), [x[1]]');",
                               rule),
                   "target += x[1] * sqrt(pi() / exp(x[2]));", "{}", kQuadrature);
    }
    // limits that are parameters: the integral of x^2 from x1 to x2
    check_same(head, "target += integrate_1d_double_exponential(poly, x[1], x[1] + exp(x[2]));",
               "target += ((x[1] + exp(x[2]))^3 - x[1]^3) / 3;", "{}", kQuadrature);
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("eigendecompositions of symmetric parameters: closed forms and A = V diag(l) V'",
          "[stan]") {
    // S = [[a, b], [b, d]]: lambda = (a + d)/2 -+ sqrt(((a - d)/2)^2 + b^2)
    const std::string s = "matrix[2, 2] S = [[x[1], x[2]], [x[2], x[3] + 3]];";
    check_same(kHead, s + "vector[2] l = eigenvalues_sym(S); target += l[1] + 2 * l[2];",
               s + "real m = (x[1] + x[3] + 3) / 2; real r = sqrt(((x[1] - x[3] - 3) / 2)^2 + "
                   "x[2]^2); target += (m - r) + 2 * (m + r);",
               "{}", 1e-10);
    // the eigenvector of the largest: its first component squared is b^2 / (b^2 + (l2 - a)^2)
    check_same(kHead, s + "target += eigenvectors_sym(S)[1, 2]^2;",
               s + "real m = (x[1] + x[3] + 3) / 2; real r = sqrt(((x[1] - x[3] - 3) / 2)^2 + "
                   "x[2]^2); target += x[2]^2 / (x[2]^2 + (m + r - x[1])^2);",
               "{}", 1e-10);
    // three by three: V diag(l) V' is S, with the derivatives through both ops
    const std::string s3 =
        "matrix[3, 3] S = [[x[1] + 4, x[2], 0.3], [x[2], 2, x[3]], "
        "[0.3, x[3], -1]]; matrix[3, 3] W = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];";
    check_same(kHead,
               s3 + "tuple(matrix[3, 3], vector[3]) e = eigendecompose_sym(S);"
                    "target += sum((e.1 * diag_matrix(e.2) * e.1') .* W);",
               s3 + "target += sum(S .* W);", "{}", 1e-10);
}

TEST_CASE("the special functions against closed forms and their inverses", "[stan]") {
    const std::string head =
        "parameters { real<lower=0, upper=1> p; real<lower=-0.9, upper=0.9> z; }\n";
    // log I_v(z) against log of the Bessel function of an integer order
    check_same(head, "target += log_modified_bessel_first_kind(2, 3 + z);",
               "target += log(modified_bessel_first_kind(2, 3 + z));");
    check_same(head, "target += log_modified_bessel_first_kind({0, 1}, {3 + z, 1 + z});",
               "target += log(modified_bessel_first_kind(0, 3 + z))"
               " + log(modified_bessel_first_kind(1, 1 + z));");
    // the inverses: I_x(a, b) at x = inv_inc_beta(a, b, p) is p, student_t's CDF at its quantile
    check_same(head, "target += log(inc_beta(2, 3.5, inv_inc_beta(2, 3.5, p)));",
               "target += log(p);");
    check_same(head, "target += student_t_lcdf(student_t_qf(p, 3, 0.5, 2) | 3, 0.5, 2);",
               "target += log(p);");
    check_same(head, "target += sum(student_t_qf([p, 0.2]', 4, 1, 2));",
               "target += student_t_qf(p, 4, 1, 2) + student_t_qf(0.2, 4, 1, 2);");
    // the hypergeometric series in closed form
    check_same(head, "target += hypergeometric_1F0(1.5, z);", "target += pow(1 - z, -1.5);");
    check_same(head, "target += hypergeometric_2F1(1, 1, 2, z);", "target += -log1m(z) / z;");
    check_same(head, "target += hypergeometric_3F2([1, 2, 3]', [3, 2]', z);",
               "target += 1 / (1 - z);");
    check_same(head, "target += hypergeometric_pFq([1]', [2]', z);", "target += expm1(z) / z;");
    // in their parameters: (1 - z)^-a, and cancelled pairs whose derivatives cancel
    check_same(head, "target += hypergeometric_2F1(p + 0.5, 1, 1, z);",
               "target += pow(1 - z, -(p + 0.5));");
    check_same(head, "target += hypergeometric_3F2([1, p + 0.5, 2]', [p + 0.5, 2]', z);",
               "target += 1 / (1 - z);");
    check_same(head, "target += hypergeometric_pFq([p + 1, 1]', [p + 1, 2]', z);",
               "target += expm1(z) / z;");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("the solvers' functions: what they return and take is checked by name", "[stan]") {
    const std::string functions =
        "functions {\n"
        "  vector two(vector y) { return [y[1], y[1]]'; }\n"
        "  vector shifted(vector y, int k) { return y - k; }\n"
        "}\n";
    CHECK_THROWS_WITH(
        lower_text(functions + kHead + "model { target += solve_newton(two, [1]')[1]; }", "{}"),
        Catch::Contains("`two` returned vector[2] for 1 unknown"));
    CHECK_THROWS_WITH(
        lower_text(functions + kHead +
                       "model { x ~ normal(0, 1); }\n"
                       "generated quantities { int k = poisson_rng(2);"
                       " vector[1] r = solve_newton(shifted, [1]', k); }",
                   "{}"),
        Catch::Contains("`solve_newton`: an integer known only per draw cannot be passed to "
                        "`shifted`"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("session 26's refusals name what is at fault", "[stan]") {
    const auto error = [](const std::string& model) {
        try {
            (void)lower_text(kHead + "model { " + model + " }", "{}");
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("ok");
    };
    CHECK_THAT(error("target += multinomial_lpmf({2, -1, 3} | softmax(x));"),
               Catch::Contains("multinomial: count 2 is negative (-1)"));
    CHECK_THAT(error("target += multinomial_lpmf({2, 1} | softmax(x));"),
               Catch::Contains("multinomial: 2 counts for 3 categories"));
    CHECK_THAT(error("target += dirichlet_multinomial_lpmf({2, 1} | exp(x));"),
               Catch::Contains("dirichlet_multinomial: 2 counts for 3 categories"));
    CHECK_THAT(error("target += ordered_probit_lpmf({1, 4} | x[1:2], [0, 1]');"),
               Catch::Contains("ordered_probit: outcome 2 is 4, not in 1..3"));
    CHECK_THAT(error("target += trace_dot([[1, 2]], [[1, 2]]);"),
               Catch::Contains("trace_dot: mat[1,2] and mat[1,2] (A B must be square)"));
    CHECK_THAT(error("target += sum(gp_dot_prod_cov({1.0, 2.0}, -1.0));"),
               Catch::Contains("gp_dot_prod_cov: sigma must be non-negative, got -1"));
    CHECK_THAT(error("target += log_mix([0.5, 0.5]', x);"),
               Catch::Contains("log_mix: 2 proportions and 3 densities"));
    CHECK_THAT(error("target += sum(ldexp(x, {1, 2}));"),
               Catch::Contains("ldexp of vector[3] and array[2] int: the sizes differ"));
    CHECK_THAT(
        error("target += sum(csr_to_dense_matrix(2, 3, [1, 2]', {1, 2}, {1, 3}));"),
        Catch::Contains("csr_to_dense_matrix: u has 2 elements for m = 2 rows (needs m + 1)"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("hmm_marginal against the forward algorithm written in Stan", "[stan]") {
    const std::string head =
        "data { array[5] real y; }\n"
        "parameters { simplex[2] rho; array[2] simplex[2] g; ordered[2] mu; }\n";
    const std::string json = R"({"y": [-1.2, 0.3, 2.5, 1.9, -0.4]})";
    const std::string log_omega =
        "matrix[2, 5] lo; for (n in 1:5) for (k in 1:2) lo[k, n] = normal_lpdf(y[n] | mu[k], 1);"
        "matrix[2, 2] Gamma = [g[1]', g[2]'];";
    check_same(head, log_omega + "target += hmm_marginal(lo, Gamma, rho);",
               log_omega +
                   "array[5] vector[2] la; la[1] = log(rho) + lo[:, 1];"
                   "for (n in 2:5) for (k in 1:2) "
                   "  la[n][k] = log_sum_exp(la[n - 1] + log(Gamma[:, k])) + lo[k, n];"
                   "target += log_sum_exp(la[5]);",
               json, 1e-10);
}

TEST_CASE(
    "hmm_hidden_state_prob: the smoothed probabilities; of parameters only where no "
    "gradient is taken",
    "[stan]") {
    // two steps: P(z_2 = k | y) is proportional to sum_i rho_i w_i1 Gamma_ik w_k2
    const std::string head =
        "transformed data { matrix[2, 2] lo = [[-1, -0.5], [-2, 0.25]];"
        "  matrix[2, 2] G = [[0.9, 0.1], [0.3, 0.7]]; vector[2] rho = [0.4, 0.6]';"
        "  matrix[2, 2] P = hmm_hidden_state_prob(lo, G, rho);"
        "  vector[2] q; for (k in 1:2) q[k] = (rho[1] * exp(lo[1, 1]) * G[1, k] + "
        "    rho[2] * exp(lo[2, 1]) * G[2, k]) * exp(lo[k, 2]); q = q / sum(q); }\n" +
        kHead;
    check_same(head, "target += x[1] * P[1, 2] + x[2] * P[2, 2];",
               "target += x[1] * q[1] + x[2] * q[2];", "{}", 1e-12);
    try {
        const auto l = lower_text(
            "parameters { simplex[2] rho; } model { target += hmm_hidden_state_prob("
            "[[-1, -0.5], [-2, 0.25]], [[0.9, 0.1], [0.3, 0.7]], rho)[1, 1]; }",
            "{}");
        (void)compile(l->model().spec(), false);
        FAIL("hmm_hidden_state_prob of a parameter in the model block was not refused");
    } catch (const advi::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("`hmm_hidden_state_prob` takes data only"));
    }
}

TEST_CASE(
    "posteriordb's loops: int arrays from data, multivariate terms, a scalar against "
    "per-iteration data",
    "[stan]") {
    // transformed data filling an int array from data in a loop longer than the unrolling
    // limit (posteriordb's M0: s[i] = sum(y[i]), then a count of the rows seen)
    std::string rows;
    int seen = 0, total = 0;
    for (int i = 0; i < 1500; ++i) {
        const int a = i % 3 == 0, b = i % 7 == 0;
        seen += a + b > 0;
        total += a + b;
        rows += fmt::format("{}[{}, {}]", i ? ", " : "", a, b);
    }
    const std::string json = "{\"y\": [" + rows + "]}";
    const std::string head =
        "data { array[1500, 2] int<lower=0, upper=1> y; }\n"
        "transformed data { array[1500] int<lower=0> s; int C = 0;"
        "  for (i in 1:1500) s[i] = sum(y[i]);"  // vectorised
        "  for (i in 1:1500) if (s[i] > 0) C = C + 1; }\n" +
        kHead;
    check_same(head, "target += C * x[1] + sum(s) * x[2];",
               fmt::format("target += {} * x[1] + {} * x[2];", seen, total), json);
    // as posteriordb writes it, one loop (unrolled: it reads what it wrote)
    const std::string unrolled =
        "data { array[1500, 2] int<lower=0, upper=1> y; }\n"
        "transformed data { array[900] int<lower=0> s; int C = 0;"
        "  for (i in 1:900) { s[i] = sum(y[i]); if (s[i] > 0) C = C + 1; } }\n" +
        kHead;
    int seen900 = 0;
    for (int i = 0; i < 900; ++i) seen900 += (i % 3 == 0) || (i % 7 == 0);
    check_same(unrolled, "target += C * x[1];", fmt::format("target += {} * x[1];", seen900), json);
    // a multivariate density per iteration of a loop (posteriordb's hmm_drive)
    const std::string simplexes =
        "transformed data { matrix[2, 3] alpha = [[1, 2, 3], [4, 0.5, 2]]; }\n"
        "parameters { array[2] simplex[3] theta; }\n";
    check_same(simplexes, "for (k in 1:2) target += dirichlet_lpdf(theta[k] | alpha[k]');",
               "target += dirichlet_lpdf(theta[1] | alpha[1]') + "
               "dirichlet_lpdf(theta[2] | alpha[2]');");
    // pow of one value against one per iteration (posteriordb's dugongs)
    check_same(head, "for (i in 1:3) target += pow(exp(x[1]), i * 0.5);",
               "target += pow(exp(x[1]), 0.5) + pow(exp(x[1]), 1.0) + pow(exp(x[1]), 1.5);", json);
    // the sum of ints known only per draw is an int (posteriordb's Mh: N = sum(z))
    CHECK_NOTHROW(lower_text(kHead + "model { x ~ normal(0, 1); }\n"
                                     "generated quantities { array[3] int z; int N;"
                                     "  for (i in 1:3) z[i] = bernoulli_rng(0.5); N = sum(z); }",
                             "{}"));
}

TEST_CASE("matrix_exp against closed forms, and the products", "[stan]") {
    const std::string W = "matrix[2, 2] W = [[1, -2], [0.5, 3]];";
    // upper triangular: exp([[a, b], [0, c]]) = [[e^a, b (e^a - e^c) / (a - c)], [0, e^c]]
    check_same(kHead,
               W + "matrix[2, 2] A = [[x[1], x[2]], [0, x[3] + 3]];"
                   "target += sum(matrix_exp(A) .* W);",
               W + "real a = x[1]; real c = x[3] + 3;"
                   "target += exp(a) * W[1, 1] + x[2] * (exp(a) - exp(c)) / (a - c) * W[1, 2]"
                   " + exp(c) * W[2, 2];",
               "{}", 1e-10);
    // a rotation generator: exp(t [[0, -1], [1, 0]]) = [[cos t, -sin t], [sin t, cos t]]
    check_same(kHead, W + "target += sum(matrix_exp([[0, -x[1]], [x[1], 0]]) .* W);",
               W + "target += sum([[cos(x[1]), -sin(x[1])], [sin(x[1]), cos(x[1])]] .* W);", "{}",
               1e-10);
    const std::string A3 =
        "matrix[3, 3] A = [[x[1], 0.3, -0.2], [x[2], -0.5, 0.1], [0.4, x[3], 0.2]];"
        "matrix[3, 2] B = [[1, 2], [-1, 0.5], [0.3, x[1]]];";
    check_same(kHead, A3 + "target += sum(matrix_exp_multiply(A, B));",
               A3 + "target += sum(matrix_exp(A) * B);", "{}", 1e-12);
    check_same(kHead, A3 + "target += sum(scale_matrix_exp_multiply(x[2], A, B));",
               A3 + "target += sum(matrix_exp(x[2] * A) * B);", "{}", 1e-12);
}

TEST_CASE("singular value decompositions: norms, determinants and U diag(s) V' = A", "[stan]") {
    const std::string tall =
        "matrix[3, 2] A = [[x[1] + 2, x[2]], [0.3, x[3] - 1], [0.5, 0.2]];"
        "matrix[3, 2] W = [[1, -2], [0.5, 3], [0.25, -1]];";
    check_same(kHead, tall + "target += dot_self(singular_values(A));",
               tall + "target += sum(square(A));", "{}", 1e-10);
    check_same(kHead,
               tall +
                   "target += sum((svd_U(A) * diag_matrix(singular_values(A)) * svd_V(A)') "
                   ".* W);",
               tall + "target += sum(A .* W);", "{}", 1e-10);
    // wide: A' of the tall one, through the tuple
    check_same(kHead,
               tall +
                   "tuple(matrix[2, 2], vector[2], matrix[3, 2]) d = svd(A');"
                   "target += sum((d.1 * diag_matrix(d.2) * d.3') .* W');",
               tall + "target += sum(A' .* W');", "{}", 1e-10);
    const std::string square = "matrix[2, 2] B = [[x[1] + 2, x[2]], [0.3, x[3] - 1.5]];";
    check_same(kHead, square + "target += log(prod(singular_values(B)));",
               square + "target += log(abs(determinant(B)));", "{}", 1e-10);
    // decreasing, and of known matrices (Eigen's JacobiSVD, as Stan)
    const std::string known =
        "transformed data { matrix[2, 3] K = [[3, 1, 0.5], [-1, 2, 0.25]];"
        "  vector[2] s = singular_values(K); matrix[2, 2] U = svd_U(K);"
        "  matrix[3, 2] V = svd_V(K); real err = max(abs(U * diag_matrix(s) * V' - K));"
        "  real order = s[1] - s[2]; }\n" +
        kHead;
    check_same(known, "target += x[1] * (err < 1e-12) + x[2] * (order > 0);",
               "target += x[1] + x[2];");
}

TEST_CASE("fft, inv_fft, fft2, inv_fft2: closed forms, Parseval, round trips", "[stan]") {
    const std::string z = "complex_vector[3] z = to_complex(x, [0.5, -1, x[1] * x[2]]');";
    // y_1 = sum z; y_2 = sum_k z_k e^(-2 pi i (k-1) / 3)
    check_same(kHead, z + "target += get_real(fft(z)[1]) + 2 * get_imag(fft(z)[2]);",
               "target += sum(x) + 2 * (1 - 0.5 * x[1] * x[2] + sin(2 * pi() / 3) * (x[3] - "
               "x[2]));",
               "{}", 1e-12);
    // Parseval: |fft(z)|^2 = n |z|^2; the inverse undoes it
    check_same(kHead, z + "target += dot_self(abs(fft(z)));", z + "target += 3 * dot_self(abs(z));",
               "{}", 1e-10);
    check_same(kHead,
               z + "complex_vector[3] w = inv_fft(fft(z));"
                   "target += sum(get_real(w) .* [1, 2, 3]') + sum(get_imag(w) .* [-1, 0.5, 2]');",
               z + "target += sum(get_real(z) .* [1, 2, 3]') + sum(get_imag(z) .* [-1, 0.5, 2]');",
               "{}", 1e-12);
    const std::string Z =
        "complex_matrix[2, 3] Z = to_complex([[x[1], 1, x[2]], [x[3], -2, 0.5]], "
        "[[0.25, x[1] * x[3], 0], [1, 0, x[2]]]);";
    check_same(kHead, Z + "target += sum(square(abs(fft2(Z))));",
               Z + "target += 6 * sum(square(abs(Z)));", "{}", 1e-10);
    check_same(kHead,
               Z + "complex_matrix[2, 3] W = inv_fft2(fft2(Z));"
                   "target += sum(get_real(W)) + 2 * sum(get_imag(W));",
               Z + "target += sum(get_real(Z)) + 2 * sum(get_imag(Z));", "{}", 1e-12);
    // fft2 is the transform of the columns, then of the rows
    check_same(kHead, Z + "target += get_real(fft2(Z)[2, 1]) + get_imag(fft2(Z)[1, 1]);",
               Z + "target += get_real(sum(Z[1]) - sum(Z[2])) + get_imag(sum(Z));", "{}", 1e-12);
}

TEST_CASE("arrays of matrix types: each element its own transform, in CmdStan's order", "[stan]") {
    // the twin declares the free coordinates as a matrix, one element per row (the array's
    // zeta, column-major), and transforms each row with the _jacobian function
    const auto same = [](const std::string& a, const std::string& b) {
        INFO(a << "\nagainst\n" << b);
        advi::test::check_same_density(lower_text(a, "{}")->model().spec(),
                                       lower_text(b, "{}")->model().spec(), 1e-12);
    };
    same(
        "parameters { array[2] cholesky_factor_corr[3] L; }\n"
        "model { for (j in 1:2) L[j] ~ lkj_corr_cholesky(2 + j); }",
        "parameters { matrix[2, 3] Z; }\n"
        "transformed parameters { array[2] matrix[3, 3] L;"
        "  for (j in 1:2) L[j] = cholesky_factor_corr_jacobian(Z[j]', 3); }\n"
        "model { for (j in 1:2) L[j] ~ lkj_corr_cholesky(2 + j); }");
    // two dimensions: element (i, j) is row i + 2 (j - 1)
    same(
        "parameters { array[2, 3] cov_matrix[2] S; }\n"
        "model { for (i in 1:2) for (j in 1:3) S[i, j] ~ wishart(4, [[1, 0.3], [0.3, 2]] * j); }",
        "parameters { matrix[6, 3] Z; }\n"
        "transformed parameters { array[2, 3] matrix[2, 2] S;"
        "  for (i in 1:2) for (j in 1:3) S[i, j] = cov_matrix_jacobian(Z[i + 2 * (j - 1)]', 2); }\n"
        "model { for (i in 1:2) for (j in 1:3) S[i, j] ~ wishart(4, [[1, 0.3], [0.3, 2]] * j); }");
    same(
        "parameters { array[3] sum_to_zero_matrix[2, 3] Z; array[2] column_stochastic_matrix[3, 2] "
        "P; }\n"
        "model { for (k in 1:3) to_vector(Z[k]) ~ normal(0, k);"
        "  for (k in 1:2) target += sum(log(P[k])) * k; }",
        "parameters { matrix[3, 2] Y; matrix[2, 4] W; }\n"
        "transformed parameters { array[3] matrix[2, 3] Z; array[2] matrix[3, 2] P;"
        "  for (k in 1:3) Z[k] = sum_to_zero_jacobian(to_matrix(Y[k], 1, 2));"
        "  for (k in 1:2) P[k] = stochastic_column_jacobian(to_matrix(W[k], 2, 2)); }\n"
        "model { for (k in 1:3) to_vector(Z[k]) ~ normal(0, k);"
        "  for (k in 1:2) target += sum(log(P[k])) * k; }");
}

TEST_CASE("gaussian_dlm_obs against the observations' joint normal", "[stan]") {
    // one state, one observation per step: y_t = f theta_t + v_t, theta_t = g theta_(t-1) + w_t;
    // y is normal with mean f g^t m0 and covariance f^2 Cov(theta_s, theta_t) + v [s == t],
    // Cov(theta_s, theta_t) = g^(s + t) c0 + w sum_(k <= min(s, t)) g^(s - k) g^(t - k)
    const std::string known = "real f = 1.3; real w = 0.4; real c0 = 0.9;";
    check_same(kHead,
               known +
                   "target += gaussian_dlm_obs_lpdf([[0.5, -0.3, 1.2]] | [[f]], [[tanh(x[3])]], "
                   "[[exp(x[2])]], [[w]], [x[1]]', [[c0]]);",
               known +
                   "real g = tanh(x[3]); real v = exp(x[2]); vector[3] mu; matrix[3, 3] S;"
                   "for (t in 1:3) mu[t] = f * g^t * x[1];"
                   "for (s in 1:3) for (t in 1:3) { real c = g^(s + t) * c0;"
                   "  for (k in 1:min(s, t)) c += w * g^(s - k) * g^(t - k);"
                   "  S[s, t] = f^2 * c + (s == t ? v : 0); }"
                   "target += multi_normal_lpdf([0.5, -0.3, 1.2]' | mu, S);",
               "{}", 1e-10);
    // V given by its diagonal is V as a diagonal matrix
    const std::string two =
        "matrix[2, 4] y = [[0.5, -0.3, 1.2, 0.1], [1, 0.2, -0.4, 0.6]];"
        "matrix[2, 2] F = [[1, 0.2], [0.3, 1]]; matrix[2, 2] G = [[0.9, x[3] / 10], [0, 0.7]];"
        "matrix[2, 2] W = [[0.5, 0.1], [0.1, 0.4]]; vector[2] V = exp(x[1:2]);";
    check_same(kHead,
               two + "target += gaussian_dlm_obs_lpdf(y | F, G, V, W, [0, 1]', [[1, 0], [0, 2]]);",
               two +
                   "target += gaussian_dlm_obs_lpdf(y | F, G, diag_matrix(V), W, [0, 1]', "
                   "[[1, 0], [0, 2]]);",
               "{}", 1e-12);
}

TEST_CASE("decompositions with complex results and csr_extract, of known matrices", "[stan]") {
    const std::string known =
        "transformed data {"
        // a rotation's eigenvalues are +-i; a triangular matrix's its diagonal
        "  complex_vector[2] r = eigenvalues([[0, -1], [1, 0]]);"
        "  real rot = abs(get_real(r[1])) + abs(get_real(r[2])) + abs(abs(get_imag(r[1])) - 1)"
        "    + abs(get_imag(r[1]) + get_imag(r[2]));"
        "  tuple(complex_matrix[2, 2], complex_vector[2]) e = eigendecompose([[2, 1], [0, 3]]);"
        "  real tri = abs(get_real(e.2[1]) * get_real(e.2[2]) - 6) + abs(get_real(sum(e.2)) - 5);"
        // a Hermitian matrix [[2, i], [-i, 2]]: eigenvalues 1 and 3; its singular values 3, 1
        "  complex_matrix[2, 2] H = to_complex([[2, 0], [0, 2]], [[0, 1], [-1, 0]]);"
        "  complex_vector[2] h = eigenvalues_sym(H); vector[2] sv = singular_values(H);"
        "  real herm = abs(get_real(h[1]) - 1) + abs(get_real(h[2]) - 3) + abs(sv[1] - 3)"
        "    + abs(sv[2] - 1) + abs(get_imag(h[1]));"
        // the Schur form of a symmetric matrix: its eigenvalues on T's diagonal
        "  complex_matrix[2, 2] T = complex_schur_decompose_t([[2, 1], [1, 2]]);"
        "  real schur = abs(get_real(T[1, 1]) * get_real(T[2, 2]) - 3) + abs(get_real(T[2, 1]));"
        // compressed rows of [[1, 0, 2], [0, 0, 3]]
        "  tuple(vector[3], array[3] int, array[3] int) c = csr_extract([[1, 0, 2], [0, 0, 3]]);"
        "  real csr = abs(c.1[2] - 2) + abs(c.1[3] - 3) + abs(c.2[2] - 3) + abs(c.3[2] - 3)"
        "    + abs(csr_extract_u([[1, 0, 2], [0, 0, 3]])[3] - 4); }\n" +
        kHead;
    check_same(known,
               "target += x[1] * (rot < 1e-12) + x[2] * (tri < 1e-12) + x[3] * (herm < 1e-12)"
               " + (schur < 1e-12) + 2 * (csr == 0);",
               "target += x[1] + x[2] + x[3] + 3;");
    // of a matrix that depends on the parameters: refused by name
    CHECK_THROWS_WITH(lower_text(kHead + "model { target += get_real(eigenvalues([[x[1], 1], "
                                         "[0, 2]])[1]); }",
                                 "{}"),
                      Catch::Contains("eigenvalues of a matrix that depends on the parameters is "
                                      "not supported yet"));
}

TEST_CASE("posteriordb's prophet and RBM: && stops early; a category per iteration of a matrix",
          "[stan]") {
    // `idx <= 3 && a[idx] < 10` does not read a[4]
    const std::string head =
        "transformed data { array[3] int a = {1, 2, 3}; int idx = 1;"
        "  while ((idx <= 3) && (a[idx] < 10)) idx += 1;"
        "  int other = 0; if (idx > 3 || a[idx] > 0) other = 1; }\n" +
        kHead;
    check_same(head, "target += idx * x[1] + other * x[2];", "target += 4 * x[1] + x[2];");
    // y[n] ~ categorical_logit(v[n]') over n: each row's log softmax at its outcome
    const std::string rows =
        "matrix[3, 2] v = [[x[1], 0.5], [x[2], -1], [0.2, x[3]]]; array[3] int y = {2, 1, 2};";
    check_same(kHead, rows + "for (n in 1:3) y[n] ~ categorical_logit(v[n]');",
               rows + "for (n in 1:3) target += log_softmax(v[n]')[y[n]];", "{}", 1e-12);
    check_same(kHead,
               rows + "for (n in 1:3) target += categorical_lpmf(y[n] | softmax(v[n]')) * n;",
               rows + "for (n in 1:3) target += log_softmax(v[n]')[y[n]] * n;", "{}", 1e-12);
}

TEST_CASE("ints known only per draw: in array expressions; as a density's outcome, refused",
          "[stan]") {
    const std::string head =
        "parameters { real<lower=0> lam; }\nmodel { lam ~ gamma(2, 1); }\n"
        "generated quantities { int k = poisson_rng(lam); ";
    CHECK_NOTHROW(lower_text(head + "array[2] int z = {k, 1}; int s = sum(z); }", "{}"));
    CHECK_THROWS_WITH(lower_text(head + "real l = poisson_lpmf(k | rep_vector(lam, 3)); }", "{}"),
                      Catch::Contains("poisson: an outcome known only per draw") &&
                          Catch::Contains("is not supported yet"));
}

}  // namespace advi::stan
