// Loops the vectoriser cannot lift, run as a loop op (dsl/advi/stan/lower_loop.cpp): with the
// unroll limit at 4 every longer such loop takes the loop op, and each program must have the
// density and gradient of the same program unrolled into the graph (the default for short loops):
// recurrences in scalars, arrays, vectors and matrices, conditions on the iteration, target
// terms inside the body, data read at the iteration (reals and ints), nested loops, user
// functions; and what the loop op cannot do yet is refused by name.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

std::unique_ptr<LoweredProgram> lower_text(const std::string& program, const std::string& json,
                                           int unroll_limit) {
    return lower(parse_program(program, "m.stan"), read_json_data(json, "d.json"), 0, unroll_limit);
}

bool took_loop_op(const LoweredProgram& p) {
    for (const std::string& line : p.loop_report()) {
        if (line.find("run as a loop op over") != std::string::npos)
            return true;
    }
    return false;
}

void check_same(const std::string& program, const std::string& json) {
    INFO(program);
    const auto looped = lower_text(program, json, 4);
    const auto unrolled = lower_text(program, json, kDefaultUnrollLimit);
    CHECK(took_loop_op(*looped));
    CHECK_FALSE(took_loop_op(*unrolled));
    advi::test::check_same_density(looped->model().spec(), unrolled->model().spec(), 1e-10);
}

// 12 iterations: with the unroll limit at 4 the loops over the series take the loop op, the
// short loops inside their bodies are unrolled
const std::string kSeries =
    R"({"T": 12, "y": [0.3, -0.2, 1.1, 0.4, -0.9, 0.25, 0.6, -0.1, 0.0, 0.8, -0.5, 0.2],
        "k": [1, 2, 2, 1, 3, 1, 3, 3, 2, 1, 1, 2],
        "x": [[0.1, 0.2], [0.3, -0.1], [0.0, 0.5], [1.0, 0.2], [-0.4, 0.3], [0.2, 0.2],
              [0.1, 0.0], [0.3, 0.3], [-0.2, 0.5], [0.4, 0.1], [0.0, -0.3], [0.2, 0.6]]})";
const std::string kData = "data { int T; vector[T] y; array[T] int k; array[T] vector[2] x; }\n";

}  // namespace

TEST_CASE("loop op: GARCH's recurrence in an array, then a vectorised likelihood", "[stan][loop]") {
    check_same(kData + R"(
parameters { real mu; real<lower=0> a0; real<lower=0, upper=1> a1; real<lower=0, upper=1 - a1> b1; }
model {
  array[T] real sigma;
  sigma[1] = 1;
  for (t in 2:T)
    sigma[t] = sqrt(a0 + a1 * pow(y[t - 1] - mu, 2) + b1 * pow(sigma[t - 1], 2));
  y ~ normal(mu, sigma);
}
)",
               kSeries);
}

TEST_CASE("loop op: target terms in the body, a scalar state, a condition on the iteration",
          "[stan][loop]") {
    check_same(kData + R"(
parameters { real<lower=-1, upper=1> phi; real<lower=0> s; }
model {
  real h = 0;
  for (t in 1:T) {
    if (t > 1)
      h = phi * h + y[t - 1];
    else
      h = y[1] / 2;
    y[t] ~ normal(tanh(h), s);
    target += -0.5 * square(h) / T;
  }
  s ~ lognormal(0, 1);
}
)",
               kSeries);
}

TEST_CASE("loop op: a vector state, ints of data read at the iteration, a nested loop",
          "[stan][loop]") {
    check_same(kData + R"(
parameters { vector[3] w; real<lower=0> s; }
model {
  vector[3] state = rep_vector(0, 3);
  for (t in 1:T) {
    vector[3] prev = state;
    for (j in 1:3)
      state[j] = 0.5 * prev[j] + w[j] * k[t];
    state[k[t]] = state[k[t]] + y[t];
    target += normal_lpdf(y[t] | sum(state) / 10, s);
  }
  w ~ normal(0, 1);
  s ~ lognormal(0, 1);
}
)",
               kSeries);
}

TEST_CASE("loop op: the forward algorithm of a hidden Markov model (a matrix of log alphas)",
          "[stan][loop]") {
    check_same(kData + R"(
parameters { simplex[2] theta1; simplex[2] theta2; ordered[2] mu; real<lower=0> s; }
model {
  matrix[T, 2] la;
  for (j in 1:2) la[1, j] = log(0.5) + normal_lpdf(y[1] | mu[j], s);
  for (t in 2:T) {
    for (j in 1:2) {
      la[t, j] = log_sum_exp(la[t - 1, 1] + log(theta1[j]), la[t - 1, 2] + log(theta2[j]))
                 + normal_lpdf(y[t] | mu[j], s);
    }
  }
  target += log_sum_exp(la[T]);
  mu ~ normal(0, 2);
  s ~ lognormal(0, 1);
}
)",
               kSeries);
}

TEST_CASE("loop op: arrays of vectors read at the iteration, a user function in the body",
          "[stan][loop]") {
    check_same(R"(
functions {
  real step_of(real h, vector x, vector b) { return tanh(h + dot_product(x, b)); }
}
)" + kData + R"(
parameters { vector[2] b; real<lower=0> s; }
model {
  real h = 0;
  for (t in 1:T) {
    h = step_of(h, x[t], b);
    y[t] ~ normal(h, s);
  }
  b ~ normal(0, 1);
}
)",
               kSeries);
}

// z is carried whole: z[t - 2] at t = 2 is out of range, on the side of `t > 4` not taken (whose
// gradient must stay finite); u is emitted row by row, w sliced
TEST_CASE(
    "loop op: rows at the iteration: a parameter vector sliced, an array emitted, old rows "
    "kept where a condition does not write",
    "[stan][loop]") {
    const std::string program = kData + R"(
parameters { vector[T] w; real<lower=0> s; }
model {
  vector[T] z = rep_vector(0.5, T);
  array[T] real u;
  u[1] = 0;
  for (t in 2:T) {
    if (t > 4)
      z[t] = tanh(w[t] + z[t - 1] * z[t - 2]);
    u[t] = z[t] + u[t - 1] / 2;
    y[t] ~ normal(u[t], s);
  }
  target += -0.5 * dot_self(z);
  w ~ normal(0, 1);
}
)";
    check_same(program, kSeries);
    const auto looped = lower_text(program, kSeries, 4);
    bool windows = false;
    for (const std::string& line : looped->loop_report())
        windows = windows || line.find("rows at the iteration: `u`, `w`") != std::string::npos;
    CHECK(windows);
}

TEST_CASE(
    "loop op: densities inside a condition on the iteration, reading out of range on the "
    "side not taken",
    "[stan][loop]") {
    check_same(kData + R"(
parameters { real<lower=-1, upper=1> phi; real<lower=0> s; }
model {
  real h = 0;
  for (t in 1:T) {
    if (t == 1)
      y[t] ~ normal(0, s);
    else
      y[t] ~ normal(phi * y[t - 1] + tanh(h), s);
    h = h * phi + y[t];
  }
}
)",
               kSeries);
}

TEST_CASE("loop op: a break, a foreach, an int state: unrolled instead, saying why",
          "[stan][loop]") {
    // past the unrolling limit the loop op is tried; where it cannot run the loop, the loop is
    // unrolled (up to 200,000 iterations), the report naming the reason
    auto unrolled_instead = [](const std::string& body, const std::string& reason) {
        const std::string program =
            kData + "parameters { real<lower=0, upper=1> a; }\nmodel {\n" + body + "\n}\n";
        INFO(program);
        const auto limited = lower_text(program, kSeries, 4);
        const auto unrolled = lower_text(program, kSeries, kDefaultUnrollLimit);
        CHECK_FALSE(took_loop_op(*limited));
        bool said = false;
        for (const std::string& line : limited->loop_report())
            said = said || (line.find("the loop op cannot run it") != std::string::npos &&
                            line.find(reason) != std::string::npos);
        CHECK(said);
        advi::test::check_same_density(limited->model().spec(), unrolled->model().spec(), 1e-12);
    };
    unrolled_instead(
        "real h = 0; for (t in 2:T) { h = h * a + y[t - 1]; if (h > 2) break; } "
        "target += -square(h);",
        "a break or continue");
    unrolled_instead(
        "real h = 0; int c = 0; for (t in 2:T) { h = h * a + y[t - 1]; c = c + 1; } "
        "target += -square(h) * c;",
        "assigning the int variable `c` in it is not supported yet");
    unrolled_instead("real h = 0; for (v in y) { h = h * a + v; } target += -square(h);",
                     "a foreach loop is not supported yet");
    unrolled_instead(
        "matrix[T, T] m = rep_matrix(0, T, T); for (t in 2:T) m[t, t - 1] = tanh(m[t - 1, t - 1] "
        "* a + sum(m)) + y[t]; target += -sum(square(m));",
        "indexing by two ints known only per draw is not supported yet");
}

}  // namespace advi::stan

namespace advi::stan {

TEST_CASE("loop op: a categorical outcome of data read at the iteration (posteriordb's IRT)",
          "[stan][loop]") {
    check_same(kData + R"(
parameters { vector[2] a; real b; }
model {
  for (t in 1:T)
    target += categorical_lpmf(k[t] | softmax(append_row(rep_vector(0, 1), a * y[t] + b)))
              + categorical_logit_lpmf(k[t] | append_row(b, a * y[t]));
}
)",
               kSeries);
}

}  // namespace advi::stan
