// The lowering of Stan programs onto the Model builder: the same graphs and log densities as
// the C++ DSL, loops vectorised (a graph whose size does not grow with N), short recurrences
// unrolled, and every error naming file:line:col or the data variable.
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

using advi::test::check_same_density;
using advi::test::read_file;

std::unique_ptr<LoweredProgram> lower_text(const std::string& program, const std::string& json) {
    const Program p = parse_program(program, "model.stan");
    const DataTable d = read_json_data(json, "data.json");
    return lower(p, d);
}

// Everything before `generated quantities`.
std::string without_generated_quantities(std::string text) {
    const auto at = text.find("generated quantities");
    return at == std::string::npos ? text : text.substr(0, at);
}

std::string regression_data(int n) {
    std::string x, y;
    for (int i = 0; i < n; ++i) {
        x += fmt::format("{}{}", i ? "," : "", 0.1 * i - 1.3);
        y += fmt::format("{}{}", i ? "," : "", std::sin(i) + 0.3 * i);
    }
    return fmt::format(R"({{"N": {}, "x": [{}], "y": [{}]}})", n, x, y);
}

}  // namespace

TEST_CASE("a loop over observations lowers to the same graph as the vectorised statement",
          "[stan]") {
    const std::string head = R"(
data { int<lower=0> N; vector[N] x; vector[N] y; }
parameters { real alpha; real beta; real<lower=0> sigma; }
model {
  alpha ~ normal(0, 10);
  beta ~ normal(0, 10);
  sigma ~ lognormal(0, 1);
)";
    const std::string data = regression_data(50);
    auto looped =
        lower_text(head + "  for (n in 1:N) y[n] ~ normal(alpha + beta * x[n], sigma);\n}\n", data);
    auto vectorised = lower_text(head + "  y ~ normal(alpha + beta * x, sigma);\n}\n", data);
    CHECK(looped->model().graph().str() == vectorised->model().graph().str());
    REQUIRE(looped->loop_report().size() == 1);
    CHECK_THAT(looped->loop_report()[0], Catch::Contains("vectorised over 50 iterations"));

    SECTION("and to the graph of the same model in C++") {
        const DataTable d = read_json_data(data, "data.json");
        const Eigen::VectorXd x = d.at("x").as_vector(), y = d.at("y").as_vector();
        Model m;
        auto xe = m.data("x", x);
        auto ye = m.data("y", y);
        auto alpha = m.param("alpha", flat());
        auto beta = m.param("beta", flat());
        auto sigma = m.param("sigma", flat(), {.lower = 0.0});
        m.observe(alpha, normal(0, 10));
        m.observe(beta, normal(0, 10));
        m.observe(sigma, lognormal(0, 1));
        m.observe(ye, normal(alpha + beta * xe, sigma));
        CHECK(vectorised->model().graph().str() == m.graph().str());
        // the same fit, bit for bit
        const Options o{.seed = 3, .max_iterations = 300};
        const Fit a = fit(vectorised->model().spec(), o), b = fit(m.spec(), o);
        CHECK(a.mean("beta")[0] == b.mean("beta")[0]);
        CHECK(a.sd("sigma")[0] == b.sd("sigma")[0]);
    }
}

TEST_CASE("a loop over a million rows builds a graph whose size does not depend on N", "[stan]") {
    const std::string program = R"(
data { int<lower=1> N; int<lower=1> J; array[N] int<lower=1, upper=J> idx; vector[N] y; }
parameters { vector[J] mu; real<lower=0> sigma; }
model {
  mu ~ normal(0, 1);
  for (n in 1:N) y[n] ~ normal(mu[idx[n]], sigma);
}
)";
    auto data = [](int n) {
        std::string idx, y;
        idx.reserve(static_cast<std::size_t>(n) * 3);
        y.reserve(static_cast<std::size_t>(n) * 4);
        for (int i = 0; i < n; ++i) {
            idx += fmt::format("{}{}", i ? "," : "", 1 + i % 5);
            y += fmt::format("{}{}", i ? "," : "", i % 7);
        }
        return fmt::format(R"({{"N": {}, "J": 5, "idx": [{}], "y": [{}]}})", n, idx, y);
    };
    auto small = lower_text(program, data(1000));
    auto large = lower_text(program, data(1000000));
    CHECK(small->model().graph().size() == large->model().graph().size());
    CHECK_THAT(large->loop_report().at(0), Catch::Contains("vectorised over 1000000 iterations"));
    // and it computes the same density as the direct formula
    advi::Program p = compile(small->model().spec());
    Eigen::VectorXd zeta = Eigen::VectorXd::Zero(p.dim()), g(p.dim());
    zeta << 0.1, -0.2, 0.3, 0.0, 0.5, std::log(2.0);
    const double lp = p.run(zeta, g);
    double want = 0;
    const double c = 0.5 * std::log(2 * M_PI);
    for (int j = 0; j < 5; ++j) want += -0.5 * zeta[j] * zeta[j] - c;
    for (int i = 0; i < 1000; ++i) {
        const double r = (i % 7 - zeta[i % 5]) / 2.0;
        want += -0.5 * r * r - std::log(2.0) - c;
    }
    want += std::log(2.0);  // log-Jacobian of sigma = exp(zeta)
    CHECK(lp == Approx(want).epsilon(1e-12));
}

TEST_CASE("the classic programs lower and match their C++ twins", "[stan]") {
    const std::string dir = std::string(ADVI_SOURCE_DIR) + "/tests/dsl/stan/programs/";
    SECTION("eight schools, centred") {
        auto low = lower_text(read_file(dir + "eight_schools_centered.stan"),
                              R"({"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12],
                                  "sigma": [15, 10, 16, 11, 9, 11, 10, 18]})");
        Eigen::VectorXd y(8), s(8);
        y << 28, 8, -3, 7, -1, 1, 18, 12;
        s << 15, 10, 16, 11, 9, 11, 10, 18;
        Model m;
        auto mu = m.param("mu", flat());
        auto tau = m.param("tau", flat(), {.lower = 0.0});
        auto theta = m.param("theta", flat(), 8);
        auto ye = m.data("y", y);
        auto se = m.data("sigma", s);
        m.target_add(m.log_density(mu, normal(0, 5)));
        m.target_add(m.log_density(tau, cauchy(0, 5)));
        m.target_add(m.log_density(theta, normal(mu, tau)));
        m.target_add(m.log_density(ye, normal(theta, se)));
        check_same_density(low->model().spec(), m.spec());
    }
    SECTION("radon varying intercept: the loop that fills y_hat is vectorised") {
        std::string county, x, y;
        for (int i = 0; i < 40; ++i) {
            county += fmt::format("{}{}", i ? "," : "", 1 + (i * 7) % 4);
            x += fmt::format("{}{}", i ? "," : "", i % 2);
            y += fmt::format("{}{}", i ? "," : "", std::cos(i));
        }
        auto low =
            lower_text(read_file(dir + "radon_varying_intercept.stan"),
                       fmt::format(R"({{"N": 40, "J": 4, "county": [{}], "x": [{}], "y": [{}]}})",
                                   county, x, y));
        CHECK_THAT(low->loop_report().at(0), Catch::Contains("vectorised over 40 iterations"));
        Eigen::VectorXi c(40);
        Eigen::VectorXd xv(40), yv(40);
        for (int i = 0; i < 40; ++i) {
            c[i] = (i * 7) % 4;
            xv[i] = i % 2;
            yv[i] = std::cos(i);
        }
        Model m;
        auto a = m.param("a", flat(), 4);
        auto b = m.param("b", flat());
        auto mu_a = m.param("mu_a", flat());
        auto sigma_a = m.param("sigma_a", flat(), {.lower = 0.0});
        auto sigma_y = m.param("sigma_y", flat(), {.lower = 0.0});
        auto ce = m.data("county", c);
        auto xe = m.data("x", xv);
        auto ye = m.data("y", yv);
        m.target_add(m.log_density(mu_a, normal(0, 1)));
        m.target_add(m.log_density(sigma_a, normal(0, 1)));
        m.target_add(m.log_density(sigma_y, normal(0, 1)));
        m.target_add(m.log_density(a, normal(mu_a, sigma_a)));
        m.target_add(m.log_density(b, normal(0, 1)));
        m.target_add(m.log_density(ye, normal(a[ce] + xe * b, sigma_y)));
        check_same_density(low->model().spec(), m.spec());
    }
    SECTION("logistic regression with centring in transformed data") {
        std::string X, y;
        Eigen::MatrixXd Xm(30, 3);
        Eigen::VectorXi yv(30);
        for (int i = 0; i < 30; ++i) {
            for (int k = 0; k < 3; ++k) Xm(i, k) = std::sin(1.0 + i * (k + 1));
            yv[i] = (i * 5) % 3 == 0;
            X += fmt::format("{}[{},{},{}]", i ? "," : "", Xm(i, 0), Xm(i, 1), Xm(i, 2));
            y += fmt::format("{}{}", i ? "," : "", yv[i]);
        }
        auto low =
            lower_text(without_generated_quantities(read_file(dir + "logistic_regression.stan")),
                       fmt::format(R"({{"N": 30, "K": 3, "X": [{}], "y": [{}]}})", X, y));
        const Eigen::MatrixXd Xc = Xm.rowwise() - Xm.colwise().mean();
        Model m;
        auto alpha = m.param("alpha", flat());
        auto beta = m.param("beta", flat(), 3);
        auto Xe = m.data("Xc", Xc);
        auto ye = m.data("y", yv);
        m.target_add(m.log_density(alpha, student_t(3, 0, 2.5)));
        m.target_add(m.log_density(beta, normal(0, 2.5)));
        m.target_add(m.log_density(ye, bernoulli_logit(alpha + Xe * beta)));
        check_same_density(low->model().spec(), m.spec(), 1e-10);
    }
    SECTION("mixtures with log_mix and log_sum_exp in nested loops") {
        std::string y;
        Eigen::VectorXd yv(25);
        for (int i = 0; i < 25; ++i) {
            yv[i] = 3 * std::sin(0.7 * i);
            y += fmt::format("{}{}", i ? "," : "", yv[i]);
        }
        auto low = lower_text(read_file(dir + "mixture.stan"),
                              fmt::format(R"({{"N": 25, "K": 3, "y": [{}]}})", y));
        Model m;
        auto lambda = m.param("lambda", flat(), {.lower = 0.0, .upper = 1.0});
        auto mu2 = m.param("mu2", flat(), 2, {.support = Support::ordered()});
        auto sigma2 = m.param("sigma2", flat(), 2, {.lower = 0.0});
        auto theta = m.param("theta", flat(), 3, {.support = Support::simplex()});
        auto mu = m.param("mu", flat(), 3, {.support = Support::ordered()});
        auto sigma = m.param("sigma", flat(), 3, {.lower = 0.0});
        auto ye = m.data("y", yv);
        m.target_add(m.log_density(mu2, normal(0, 10)));
        m.target_add(m.log_density(sigma2, lognormal(0, 2)));
        m.target_add(m.log_density(mu, normal(0, 10)));
        m.target_add(m.log_density(sigma, lognormal(0, 2)));
        const double c = 0.5 * std::log(2 * M_PI);
        auto comp = [&](const Expr& mk, const Expr& sk) {
            return -0.5 * square((ye - mk) / sk) - log(sk) - c;
        };
        auto a = log(lambda) + comp(sum(segment(mu2, 0, 1)), sum(segment(sigma2, 0, 1)));
        auto b = log1m(lambda) + comp(sum(segment(mu2, 1, 1)), sum(segment(sigma2, 1, 1)));
        m.target_add(sum(log_sum_exp_rows(append_col(a, b))));
        Expr L;
        for (int k = 0; k < 3; ++k) {
            auto colk = log(sum(segment(theta, k, 1))) +
                        comp(sum(segment(mu, k, 1)), sum(segment(sigma, k, 1)));
            L = k == 0 ? colk : append_col(L, colk);
        }
        m.target_add(sum(log_sum_exp_rows(L)));
        check_same_density(low->model().spec(), m.spec(), 1e-10);
        CHECK(low->model().graph().size() < 400);
    }
}

TEST_CASE("a foreach over a vector is vectorised like the loop over its indices", "[stan]") {
    const std::string head = R"(
data { int<lower=0> N; vector[N] x; vector[N] y; }
parameters { real mu; }
model {
)";
    const std::string data = regression_data(2000);
    auto each = lower_text(head + "  for (yn in y) yn ~ normal(mu, 1);\n}\n", data);
    auto whole = lower_text(head + "  y ~ normal(mu, 1);\n}\n", data);
    CHECK(each->model().graph().str() == whole->model().graph().str());
    CHECK_THAT(each->loop_report().at(0),
               Catch::Contains("loop over `yn` vectorised over 2000 iterations"));
}

TEST_CASE("user-defined functions lower inline", "[stan]") {
    const std::string data = regression_data(20);
    const std::string tail = R"(
data { int<lower=0> N; vector[N] x; vector[N] y; }
parameters { real alpha; real beta; real<lower=0> sigma; }
)";
    auto with_functions = lower_text(R"(functions {
  real sq(real x) { return x * x; }
  vector affine(vector x, real a, real b) { return a + b * x; }
  real my_normal_lpdf(vector y, vector mu, real s) { return normal_lpdf(y | mu, s); }
  real square_sum(vector v);
  real square_sum(vector v) {
    real total = 0;
    for (i in 1:num_elements(v)) total += sq(v[i]);
    return total;
  }
}
)" + tail + R"(model {
  y ~ my_normal(affine(x, alpha, beta), sigma);
  target += -sq(alpha) - square_sum(x) * beta;
}
)",
                                     data);
    auto inline_written = lower_text(tail + R"(model {
  y ~ normal(alpha + beta * x, sigma);
  target += -(alpha * alpha) - sum(square(x)) * beta;
}
)",
                                     data);
    check_same_density(with_functions->model().spec(), inline_written->model().spec(), 1e-12);
    CHECK_THROWS_WITH(
        lower_text(R"(functions { real f(real x) { return f(x); } }
)" + tail + "model { target += f(alpha); }\n",
                   data),
        Catch::StartsWith(
            "model.stan:1:37: `f` calls itself: recursive functions are not supported"));
}

TEST_CASE("a linear recurrence becomes one scan op: the stochastic volatility program", "[stan]") {
    const std::string dir = std::string(ADVI_SOURCE_DIR) + "/tests/dsl/stan/programs/";
    const std::vector<double> y = {0.5, -1.2, 0.3, 2.0, -0.7, 0.1};
    auto low = lower_text(read_file(dir + "stochastic_volatility.stan"),
                          R"({"T": 6, "y": [0.5, -1.2, 0.3, 2.0, -0.7, 0.1]})");
    CHECK_THAT(low->loop_report().at(0),
               Catch::Contains("lowered to a linear recurrence (scan) over 5 iterations"));
    advi::Program p = compile(low->model().spec());
    // log p by hand: mu ~ cauchy(0, 10), phi ~ uniform(-1, 1), sigma ~ cauchy(0, 5),
    // h_std ~ std_normal, y ~ normal(0, exp(h / 2)), with the log-Jacobians
    auto by_hand = [&](const Eigen::VectorXd& z) {
        const double mu = z[0], phi = -1 + 2 / (1 + std::exp(-z[1])), sigma = std::exp(z[2]);
        const double c = 0.5 * std::log(2 * M_PI);
        std::vector<double> h(6);
        for (int t = 0; t < 6; ++t) h[t] = z[3 + t] * sigma;
        h[0] /= std::sqrt(1 - phi * phi);
        for (double& x : h) x += mu;
        for (int t = 1; t < 6; ++t) h[t] += phi * (h[t - 1] - mu);
        double lp = std::log(0.5) + std::log((1 + phi) * (1 - phi) / 2);
        lp += -std::log(M_PI * 5 * (1 + sigma * sigma / 25)) + z[2];
        lp += -std::log(M_PI * 10 * (1 + mu * mu / 100));
        for (int t = 0; t < 6; ++t) {
            const double s = std::exp(h[t] / 2);
            lp += -0.5 * z[3 + t] * z[3 + t] - c - 0.5 * (y[t] / s) * (y[t] / s) - std::log(s) - c;
        }
        return lp;
    };
    Eigen::VectorXd z = Eigen::VectorXd::LinSpaced(9, -0.3, 0.4), g(9);
    CHECK(p.run(z, g) == Approx(by_hand(z)).epsilon(1e-12));
    for (int k = 0; k < 9; ++k) {  // the scan's adjoint against central differences
        Eigen::VectorXd zp = z, zm = z;
        zp[k] += 1e-6;
        zm[k] -= 1e-6;
        CHECK(g[k] == Approx((by_hand(zp) - by_hand(zm)) / 2e-6).epsilon(1e-6).margin(1e-7));
    }
}

TEST_CASE("short recurrences are unrolled, long ones are an error that says why", "[stan]") {
    const std::string program = R"(
data { int<lower=2> T; }
parameters { real<lower=0, upper=1> a; }
model {
  vector[T] x;
  x[1] = 1;
  for (t in 2:T) x[t] = a * x[t - 1] * x[t - 1];
  target += sum(x);
}
)";
    auto low = lower_text(program, R"({"T": 6})");
    CHECK_THAT(low->loop_report().at(0), Catch::Contains("unrolled over 5 iterations"));
    advi::Program p = compile(low->model().spec());
    Eigen::VectorXd zeta(1), g(1);
    zeta << 0.3;
    const double a = 1 / (1 + std::exp(-0.3));
    // x = 1, a, a^3, a^7, a^15, a^31: not affine in x[t - 1], so not a scan
    const double want = 1 + a + std::pow(a, 3) + std::pow(a, 7) + std::pow(a, 15) +
                        std::pow(a, 31) + std::log(a) + std::log1p(-a);
    CHECK(p.run(zeta, g) == Approx(want).epsilon(1e-12));
    // too long to unroll: a loop op, the same density
    auto op = lower_text(program, R"({"T": 5000})");
    CHECK_THAT(op->loop_report().at(0),
               Catch::Contains("run as a loop op over 4999 iterations (`x` is read before the "
                               "loop assigns it at line 7)"));
    advi::Program q = compile(op->model().spec());
    double long_want = std::log(a) + std::log1p(-a), power = 1;  // a^(2^k - 1), k = 0..4999
    for (int k = 0; k < 5000; ++k) {
        long_want += power;
        power = a * power * power;
    }
    CHECK(q.run(zeta, g) == Approx(long_want).epsilon(1e-12));
}

TEST_CASE("data is checked against its declaration", "[stan]") {
    const std::string program = R"(data {
  int<lower=0> N;
  vector<lower=0>[N] y;
  array[N] int k;
}
parameters { real mu; }
model { y ~ normal(mu, 1); }
)";
    CHECK_THROWS_WITH(lower_text(program, R"({"N": 2, "y": [1, 2]})"),
                      "model.stan:4:16: data variable `k` is missing from the data");
    CHECK_THROWS_WITH(
        lower_text(program, R"({"N": 2, "y": [1, 2, 3], "k": [1, 2]})"),
        Catch::StartsWith("model.stan:3:22: data variable `y`: expected real[2], got"));
    CHECK_THROWS_WITH(
        lower_text(program, R"({"N": 2, "y": [1, 2], "k": [1.5, 2]})"),
        Catch::StartsWith("model.stan:4:16: data variable `k`: expected int[2], got real[2]"));
    CHECK_THROWS_WITH(
        lower_text(program, R"({"N": 2, "y": [1, -2], "k": [1, 2]})"),
        Catch::Contains("model.stan:3:22: data variable `y`: element 2 is -2, outside "
                        "the declared bounds [0, inf]"));
    CHECK_THROWS_WITH(lower_text(program, R"({"N": -1, "y": [], "k": []})"),
                      Catch::Contains("data variable `N`: element 1 is -1"));
}

TEST_CASE("errors in the model name the place and the problem", "[stan]") {
    const std::string data = R"({"N": 3, "y": [1, 2, 3]})";
    auto error_of = [&](const std::string& model) {
        try {
            (void)lower_text("data { int N; vector[N] y; }\nparameters { real mu; }\nmodel {\n" +
                                 model + "\n}\n",
                             data);
        } catch (const ParseError& e) {
            return std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
        }
        return std::string("no error");
    };
    CHECK(error_of("  y ~ normal(nu, 1);") == "model.stan:4:14: unknown identifier `nu`");
    CHECK(error_of("  y ~ norml(mu, 1);") == "model.stan:4:7: unknown distribution `norml`");
    CHECK(error_of("  target += foo(mu);") == "model.stan:4:13: unknown function `foo`");
    CHECK(error_of("  y = y * 2;") ==
          "model.stan:4:3: `y` cannot be assigned here (data variable)");
    CHECK(error_of("  y[4] ~ normal(mu, 1);") ==
          "model.stan:4:5: index 4 of `y[4]` is outside 1..3");
    CHECK(error_of("  target += generate_laplace_options(1).2;") ==
          "model.stan:4:13: `generate_laplace_options` is not supported yet: a Stan library "
          "function that "
          "advi does not lower");
    // break and continue belong in a loop (found by fuzz/stan_model).
    CHECK(error_of("  continue;") == "model.stan:4:3: `continue` outside a loop");
    CHECK(error_of("  if (N > 1) break;") == "model.stan:4:14: `break` outside a loop");
    CHECK(error_of("  for (n in 1:N) { if (n > 1) break; }\n  y ~ normal(mu, 1);") == "no error");
    CHECK(error_of("  while (N > 5) { continue; }") == "no error");
}

TEST_CASE("break in a function is outside a loop, even when the call is in one", "[stan]") {
    CHECK_THROWS_WITH(lower_text("functions { void f() { break; } }\nparameters { real y; }\n"
                                 "model { for (i in 1:3) { f(); } y ~ normal(0, 1); }\n",
                                 "{}"),
                      Catch::StartsWith("model.stan:1:24: `break` outside a loop"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("an empty slice is an empty vector (found by fuzz/stan_model)", "[stan]") {
    // h[:0] and h[3:2] select nothing: their sums add 0, inside a recurrence too.
    const std::string data = R"({"T": 4})";
    auto plain = lower_text(
        "data { int T; }\nparameters { vector[T] h; }\nmodel { h ~ normal(0, 1); }\n", data);
    auto empty = lower_text(
        "data { int T; }\nparameters { vector[T] h; }\n"
        "transformed parameters { vector[T] g = h;\n"
        "  for (t in 2:T) g[t] += 0.5 * (sum(g[:0]) + g[t - 1]); }\n"
        "model { h ~ normal(0, 1); target += sum(h[:0]) + sum(h[3:2]); }\n",
        data);
    advi::Program a = compile(plain->model().spec()), b = compile(empty->model().spec());
    Eigen::VectorXd zeta(4), ga(4), gb(4);
    zeta << 0.3, -1.2, 0.7, 2.0;
    CHECK(a.run(zeta, ga) == b.run(zeta, gb));
    CHECK(ga == gb);
}

TEST_CASE("sum, max and min of known ints are Stan's; other arities are refused", "[stan]") {
    const std::string data = R"({"a": [4, 9, 2]})";
    auto program = [](const std::string& n) {
        return "data { array[3] int a; }\ntransformed data { int n = " + n +
               "; }\nparameters { vector[n] x; }\nmodel { x ~ normal(0, 1); }";
    };
    // the value of n, read back as the size of x
    auto n_of = [&](const std::string& n) {
        return lower_text(program(n), data)->model().spec().latent("x").shape.size();
    };
    CHECK(n_of("max(2, 5)") == 5);
    CHECK(n_of("min(4, 3)") == 3);
    CHECK(n_of("max(a)") == 9);
    CHECK(n_of("min(a)") == 2);
    CHECK(n_of("sum(a)") == 15);
    // sum(2, 5) was min(2, 5) and max(1, 2, 3) was 1, silently
    CHECK_THROWS_WITH(lower_text(program("sum(2, 5)"), data),
                      Catch::Contains("sum takes (array[] int) or (array[] real) or (vector) or "
                                      "(row_vector) or (matrix) or (complex_vector) or "
                                      "(complex_row_vector) or (complex_matrix) or (array[] "
                                      "complex); got (int, int)"));
    CHECK_THROWS_WITH(lower_text(program("max(1, 2, 3)"), data),
                      Catch::Contains("max takes (array[] int) or (int, int) or (array[] real) or "
                                      "(vector) or (row_vector) or (matrix); got (int, int, int)"));
    CHECK_THROWS_WITH(lower_text(program("min(a, 2)"), data),
                      Catch::Contains("got (array[] int, int)"));
}

TEST_CASE("an error inside a built-in names its place once", "[stan]") {
    // was "model.stan:2:23: rep_vector: model.stan:2:23: rep_vector takes 2 arguments, got 1"
    CHECK_THROWS_WITH(
        lower_text("parameters { real mu; }\n"
                   "model { vector[3] v = rep_vector(1.0); mu ~ normal(0, 1); }",
                   "{}"),
        Catch::StartsWith("model.stan:2:23: rep_vector takes (real, int) or (complex, int); got "
                          "(real)\n"));
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE(
    "a term that is the same in every iteration of a vectorised loop counts once per "
    "iteration",
    "[stan]") {
    // `for (n in 1:3) target += c` added c once (found by tests/dsl/stan/distribution_forms_test)
    const std::string head = "parameters { real mu; vector[2] x; }\nmodel {\n";
    auto same = [&](const std::string& a, const std::string& b) {
        INFO(a << " vs " << b);
        check_same_density(lower_text(head + a + "\n}", "{}")->model().spec(),
                           lower_text(head + b + "\n}", "{}")->model().spec());
    };
    same("for (n in 1:3) target += normal_lpdf(mu | 0, 1);",
         "target += 3 * normal_lpdf(mu | 0, 1);");
    same("for (n in 1:4) mu ~ normal(0, 1);", "target += 4 * normal_lpdf(mu | 0, 1);");
    same("for (i in 1:2) for (j in 1:3) target += normal_lpdf(x[i] | mu, 1);",
         "target += 3 * normal_lpdf(x | mu, 1);");
    same("for (i in 1:2) for (j in 1:3) x[i] ~ normal(mu, j);",
         "x ~ normal(mu, 1); x ~ normal(mu, 2); x ~ normal(mu, 3);");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("print prints known values as Stan does; reject stops with its values", "[stan]") {
    const std::string data = R"({"N": 3, "y": [1.5, 2, -0.25]})";
    auto lowered = lower_text(R"(data { int N; vector[N] y; }
transformed data {
  int k = N * 2;
  print("N = ", N, ", k = ", k, ", y = ", y, ", sum = ", sum(y), ", 2^-1 = ", 2^-1);
  for (i in 1:2) print("i = ", i);
  if (N > 5) print("not printed");
}
parameters { real mu; }
model { print("in the model: ", N); mu ~ normal(0, 1); }
)",
                              data);
    CHECK(lowered->printed() ==
          std::vector<std::string>{"N = 3, k = 6, y = [1.5,2,-0.25], sum = 3.25, 2^-1 = 0.5",
                                   "i = 1", "i = 2", "in the model: 3"});
    // a value of the parameters would need a print at every evaluation: refused, not dropped
    CHECK_THROWS_WITH(lower_text("parameters { real mu; }\nmodel { print(\"mu = \", mu); mu ~ "
                                 "normal(0, 1); }",
                                 "{}"),
                      Catch::StartsWith("model.stan:2:24: print of `mu`, which depends on the "
                                        "parameters"));
    CHECK_THROWS_WITH(
        lower_text("parameters { real mu; }\nmodel { fatal_error(\"mu = \", mu); }", "{}"),
        Catch::StartsWith("model.stan:2:9: fatal_error: mu = `mu`"));
    CHECK_THROWS_WITH(lower_text(R"(data { int N; vector[N] y; }
transformed data { if (N < 5) reject("N = ", N, " is too small; y = ", y); }
parameters { real mu; }
model { mu ~ normal(0, 1); }
)",
                                 data),
                      Catch::StartsWith("model.stan:2:31: reject: N = 3 is too small; y = "
                                        "[1.5,2,-0.25]"));
}

}  // namespace advi::stan

namespace advi::stan {

// A parameter indexed by data in a balanced design: group ids sorted (runs of equal ids) read
// as repeats, cyclic (the same ids every G rows) as tiles, irregular as a gather; the same log
// density and gradient every way.
TEST_CASE("indexing by runs or tiles of ids repeats the values instead of gathering", "[stan]") {
    const int G = 4, per = 6, N = G * per;
    const std::string program = R"(
data { int N; int G; array[N] int<lower=1, upper=G> g; vector[N] y; }
parameters { vector[G] alpha; }
model { alpha ~ normal(0, 1); y ~ normal(alpha[g], 2); }
)";
    struct Layout {
        const char* name;
        std::vector<int> ids;
        const char* op;
    };
    std::vector<Layout> layouts{
        {"runs",      {}, "rep_rows" },
        {"tiles",     {}, "tile_rows"},
        {"irregular", {}, "gather"   }
    };
    for (int n = 0; n < N; ++n) {
        layouts[0].ids.push_back(n / per + 1);
        layouts[1].ids.push_back(n % G + 1);
        layouts[2].ids.push_back((n * 7 + n / 5) % G + 1);
    }
    const Eigen::VectorXd alpha{
        {0.3, -1.2, 0.8, 2.0}
    };
    for (const Layout& l : layouts) {
        INFO(l.name);
        std::string ids, ys;
        Eigen::VectorXd y(N);
        for (int n = 0; n < N; ++n) {
            y[n] = std::sin(1.7 * n) * 3;
            ids += fmt::format("{}{}", n ? "," : "", l.ids[static_cast<std::size_t>(n)]);
            ys += fmt::format("{}{}", n ? "," : "", y[n]);
        }
        const auto lowered = lower_text(
            program, fmt::format(R"({{"N": {}, "G": {}, "g": [{}], "y": [{}]}})", N, G, ids, ys));
        advi::Program p = compile(lowered->model().spec());
        INFO(p.str());
        CHECK(p.str().find(fmt::format("= {} ", l.op)) != std::string::npos);
        if (std::string(l.op) != "gather")
            CHECK(p.str().find("= gather ") == std::string::npos);
        double lp = -0.5 * alpha.squaredNorm() - G * 0.5 * std::log(2 * M_PI);
        Eigen::VectorXd want = -alpha;
        for (int n = 0; n < N; ++n) {
            const int j = l.ids[static_cast<std::size_t>(n)] - 1;
            const double r = y[n] - alpha[j];
            lp += -0.125 * r * r - std::log(2.0) - 0.5 * std::log(2 * M_PI);
            want[j] += r / 4;
        }
        Eigen::VectorXd grad(G);
        CHECK(p.run(alpha, grad) == Approx(lp).epsilon(1e-13));
        for (int j = 0; j < G; ++j) CHECK(grad[j] == Approx(want[j]).epsilon(1e-12));
    }
}

// The same with rows of a matrix parameter (B[g[n]] is a row per iteration: tiles and runs over
// N x D positions, column by column).
TEST_CASE("rows of a matrix read in runs or tiles of ids", "[stan]") {
    const int G = 3, D = 2, per = 4, N = G * per;
    const std::string program = R"(
data { int N; int G; int D; array[N] int<lower=1, upper=G> g; array[N] vector[D] x; vector[N] y; }
parameters { matrix[G, D] B; }
model {
  to_vector(B) ~ normal(0, 1);
  for (n in 1:N) y[n] ~ normal(B[g[n]] * x[n], 1);
}
)";
    for (int layout = 0; layout < 3; ++layout) {
        INFO("layout " << layout);
        std::vector<int> ids;
        for (int n = 0; n < N; ++n) {
            ids.push_back(layout == 0   ? n / per + 1
                          : layout == 1 ? n % G + 1
                                        : (n * 7 + n / 5) % G + 1);
        }
        Eigen::MatrixXd x(N, D);
        Eigen::VectorXd y(N);
        std::string id_text, x_text, y_text;
        for (int n = 0; n < N; ++n) {
            y[n] = std::cos(0.9 * n) * 2;
            for (int d = 0; d < D; ++d) x(n, d) = std::sin(0.4 * n + d);
            id_text += fmt::format("{}{}", n ? "," : "", ids[static_cast<std::size_t>(n)]);
            x_text += fmt::format("{}[{},{}]", n ? "," : "", x(n, 0), x(n, 1));
            y_text += fmt::format("{}{}", n ? "," : "", y[n]);
        }
        const auto lowered = lower_text(
            program,
            fmt::format(R"({{"N": {}, "G": {}, "D": {}, "g": [{}], "x": [{}], "y": [{}]}})", N, G,
                        D, id_text, x_text, y_text));
        advi::Program p = compile(lowered->model().spec());
        INFO(p.str());
        const char* op = layout == 0 ? "= rep_rows " : layout == 1 ? "= tile_rows " : "= gather ";
        CHECK(p.str().find(op) != std::string::npos);
        Eigen::VectorXd zeta(G * D);
        for (int k = 0; k < G * D; ++k) zeta[k] = 0.3 * k - 0.7;
        const Eigen::Map<const Eigen::MatrixXd> B(zeta.data(), G, D);
        double lp = -0.5 * zeta.squaredNorm() - G * D * 0.5 * std::log(2 * M_PI);
        Eigen::MatrixXd want = -B;
        for (int n = 0; n < N; ++n) {
            const int j = ids[static_cast<std::size_t>(n)] - 1;
            const double r = y[n] - B.row(j).dot(x.row(n));
            lp += -0.5 * r * r - 0.5 * std::log(2 * M_PI);
            want.row(j) += r * x.row(n);
        }
        Eigen::VectorXd grad(G * D);
        CHECK(p.run(zeta, grad) == Approx(lp).epsilon(1e-13));
        for (int k = 0; k < G * D; ++k) CHECK(grad[k] == Approx(want(k % G, k / G)).epsilon(1e-12));
    }
}

}  // namespace advi::stan
