// Tuples lowered: a program written with tuples has the log density and gradient of the same
// program written without them (data read from CmdStan JSON's tuple objects, parameters with
// constraints inside tuples and arrays of tuples, user functions taking and returning tuples,
// unpacking, element assignment, foreach), its outputs carry CmdStan's names in CmdStan's order
// (`p:1`, `q.1:2`, tuple by tuple for arrays), and print shows tuples as Stan does.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

std::unique_ptr<LoweredProgram> lower_text(const std::string& program, const std::string& json) {
    return lower(parse_program(program, "model.stan"), read_json_data(json, "data.json"));
}

std::vector<std::string> latent_names(const LoweredProgram& p) {
    std::vector<std::string> out;
    for (const auto& v : p.model().spec().latents) out.push_back(v.name);
    return out;
}

std::vector<std::string> reported_names(const std::vector<ReportedValue>& values) {
    std::vector<std::string> out;
    for (const auto& v : values) out.push_back(v.name);
    return out;
}

}  // namespace

TEST_CASE("a program with tuples has the density of the same program without them",
          "[stan][tuple]") {
    const std::string with_tuples = R"(
functions {
  tuple(real, vector) shifted(tuple(real, vector) t, real by) {
    return (t.1 + by, t.2 + by);
  }
  real pair_lpdf(tuple(real, real) y, real mu, real sigma) {
    return normal_lpdf(y.1 | mu, sigma) + normal_lpdf(y.2 | mu, 2 * sigma);
  }
}
data {
  int N;
  tuple(array[N] real, vector[N]) xy;
  array[2] tuple(int, real) counts;
}
transformed data {
  tuple(real, vector[N]) moved = shifted((1.5, xy.2), 0.5);
  real a = 0;
  real b = 0;
  (a, b) = (counts[2].2, counts[1].2);
  array[2] tuple(real, real) pairs = {(xy.1[1], xy.1[2]), (a, b)};
  pairs[2].1 = pairs[2].1 * 2;
}
parameters {
  tuple(real, real<lower=0>) p;
  array[2] tuple(real<lower=0>, simplex[3]) q;
  tuple(real, tuple(real<lower=-1, upper=1>, vector[2])) nested;
}
model {
  p.1 ~ normal(moved.1, 3);
  p.2 ~ lognormal(0, 1);
  xy.2 ~ normal(p.1 + moved.2 * 0.1, p.2);
  for (t in pairs) t ~ pair(p.1, p.2);
  for (i in 1:2) {
    q[i].1 ~ exponential(counts[i].1);
    q[i].2 ~ dirichlet([1, 2, 3]');
  }
  nested.1 ~ normal(0, 1);
  nested.2.2 ~ normal(nested.2.1, 1);
}
)";
    const std::string without = R"(
data {
  int N;
  array[N] real x;
  vector[N] y;
  array[2] int c;
  array[2] real r;
}
transformed data {
  real moved1 = 2.0;
  vector[N] moved2 = y + 0.5;
  real a = r[2];
  real b = r[1];
}
parameters {
  real p1;
  real<lower=0> p2;
  real<lower=0> q11;
  simplex[3] q12;
  real<lower=0> q21;
  simplex[3] q22;
  real n1;
  real<lower=-1, upper=1> n21;
  vector[2] n22;
}
model {
  p1 ~ normal(moved1, 3);
  p2 ~ lognormal(0, 1);
  y ~ normal(p1 + moved2 * 0.1, p2);
  target += normal_lpdf(x[1] | p1, p2) + normal_lpdf(x[2] | p1, 2 * p2);
  target += normal_lpdf(a * 2 | p1, p2) + normal_lpdf(b | p1, 2 * p2);
  q11 ~ exponential(c[1]);
  q12 ~ dirichlet([1, 2, 3]');
  q21 ~ exponential(c[2]);
  q22 ~ dirichlet([1, 2, 3]');
  n1 ~ normal(0, 1);
  n22 ~ normal(n21, 1);
}
)";
    const std::string tuple_data =
        R"({"N": 3, "xy": {"1": [0.5, -1.0, 2.0], "2": [1.0, 2.5, -0.5]},
            "counts": [{"1": 2, "2": 0.25}, {"2": 1.75, "1": 3}]})";
    const std::string plain_data = R"({"N": 3, "x": [0.5, -1.0, 2.0], "y": [1.0, 2.5, -0.5],
            "c": [2, 3], "r": [0.25, 1.75]})";
    const auto a = lower_text(with_tuples, tuple_data);
    const auto b = lower_text(without, plain_data);
    advi::test::check_same_density(a->model().spec(), b->model().spec(), 1e-12);
    // CmdStan's names, tuple by tuple for the array
    CHECK(latent_names(*a) == std::vector<std::string>{"p:1", "p:2", "q.1:1", "q.1:2", "q.2:1",
                                                       "q.2:2", "nested:1", "nested:2:1",
                                                       "nested:2:2"});
}

TEST_CASE("outputs of tuples: CmdStan's names and order, the values of their elements",
          "[stan][tuple]") {
    const auto p = lower_text(R"(
parameters { real mu; }
model { mu ~ normal(0, 1); }
generated quantities {
  array[3, 2] tuple(real, int) g;
  for (i in 1:3) for (j in 1:2) g[i, j] = (0.5 + 10 * i + j, i * j);
  tuple(real, tuple(int, vector[2])) h = (mu, (7, [1, 2]'));
  (h.2.1, g[3, 2].2) = (8, 9);
}
)",
                              "{}");
    const auto& gq = p->generated_quantities();
    CHECK(reported_names(gq) == std::vector<std::string>{"g.1.1:1", "g.1.1:2", "g.2.1:1", "g.2.1:2",
                                                         "g.3.1:1", "g.3.1:2", "g.1.2:1", "g.1.2:2",
                                                         "g.2.2:1", "g.2.2:2", "g.3.2:1", "g.3.2:2",
                                                         "h:1", "h:2:1", "h:2:2"});
    // (values of data and constants only: known while lowering)
    auto at_zero = [&](const ReportedValue& v) { return p->model().evaluate(v.value); };
    CHECK(at_zero(gq[4]) == std::vector<double>{31.5});  // g[3, 1].1
    CHECK(at_zero(gq[5]) == std::vector<double>{3});     // g[3, 1].2 = 3
    CHECK(at_zero(gq[11]) == std::vector<double>{9});    // g[3, 2].2, unpacked
    CHECK(at_zero(gq[13]) == std::vector<double>{8});    // h.2.1, unpacked
    CHECK(at_zero(gq[14]) == std::vector<double>{1, 2});
}

TEST_CASE("print shows tuples as Stan does; data tuples are checked like any data",
          "[stan][tuple]") {
    const auto p = lower_text(R"(
data { tuple(int<lower=0>, array[2] real) d; }
transformed data {
  tuple(real, tuple(int, vector[2])) t = (1.5, (d.1, [d.2[1], d.2[2]]'));
  print("t = ", t, ", d.2 = ", d.2);
  array[2, 2] tuple(int, real) a = {{(1, 1.5), (2, 2.5)}, {(3, 3.5), (4, 4.5)}};
  print(a, " ", a[2]);
}
parameters { real mu; }
model { mu ~ normal(0, 1); }
)",
                              R"({"d": {"1": 3, "2": [0.5, 2]}})");
    CHECK(p->printed() == std::vector<std::string>{
                              "t = (1.5, (3, [0.5,2])), d.2 = [0.5,2]",
                              "[[(1, 1.5),(2, 2.5)],[(3, 3.5),(4, 4.5)]] [(3, 3.5),(4, 4.5)]"});
    const std::string program =
        "data { tuple(int<lower=0>, array[2] real) d; }\n"
        "parameters { real mu; } model { mu ~ normal(0, 1); }";
    CHECK_THROWS_WITH(lower_text(program, R"({"d": {"1": -1, "2": [0.5, 2]}})"),
                      Catch::Contains("data variable `d.1`: element 1 is -1, outside the "
                                      "declared bounds"));
    CHECK_THROWS_WITH(lower_text(program, R"({"d": {"1": 1, "2": [0.5]}})"),
                      Catch::Contains("`d.2`"));
    CHECK_THROWS_WITH(lower_text(program, R"({"e": 1})"),
                      Catch::Contains("data variable `d.1` is missing from the data"));
}

TEST_CASE("tuples in loops: read in vectorised loops, written in unrolled ones", "[stan][tuple]") {
    const std::string program = R"(
data { int N; array[N] tuple(real, real) xy; }
parameters { real a; real b; }
model {
  array[N] tuple(real, real) fitted;
  for (n in 1:N) fitted[n] = (a + b * xy[n].1, xy[n].2);
  for (n in 1:N) fitted[n].2 ~ normal(fitted[n].1, 1);
}
)";
    const std::string plain = R"(
data { int N; array[N] real x; array[N] real y; }
parameters { real a; real b; }
model { for (n in 1:N) y[n] ~ normal(a + b * x[n], 1); }
)";
    const auto t = lower_text(program, R"({"N": 4, "xy": [{"1": 0, "2": 1}, {"1": 1, "2": 2.5},
        {"1": 2, "2": 2.9}, {"1": 3, "2": 4.2}]})");
    const auto u = lower_text(plain, R"({"N": 4, "x": [0, 1, 2, 3], "y": [1, 2.5, 2.9, 4.2]})");
    advi::test::check_same_density(t->model().spec(), u->model().spec(), 1e-12);
    // the first loop writes a tuple: unrolled; the second only reads: vectorised
    REQUIRE(t->loop_report().size() == 2);
    CHECK_THAT(t->loop_report()[0], Catch::Contains("unrolled"));
    CHECK_THAT(t->loop_report()[0], Catch::Contains("an assignment to a tuple"));
    CHECK_THAT(t->loop_report()[1], Catch::Contains("vectorised over 4 iterations"));
}

TEST_CASE(
    "transformed data's declared constraints are checked at the end of the block, as Stan "
    "does, inside tuples too",
    "[stan][tuple]") {
    const std::string tail = "parameters { real y; } model { y ~ normal(0, 1); }";
    CHECK_THROWS_WITH(lower_text("transformed data { real<lower=0> x = -1; }\n" + tail, "{}"),
                      "model.stan:1:34: transformed data variable `x`: element 1 is -1, outside "
                      "the declared bounds [0, inf]");
    CHECK_THROWS_WITH(
        lower_text("transformed data { real<upper=1> x = not_a_number(); }\n" + tail, "{}"),
        Catch::Contains("element 1 is nan, outside the declared bounds [-inf, 1]"));
    CHECK_THROWS_WITH(
        lower_text(
            "transformed data { tuple(real<lower=0>, simplex[2]) t = (1, [0.5, 0.6]'); }\n" + tail,
            "{}"),
        Catch::Contains("transformed data variable `t.2` is not a simplex"));
    CHECK_NOTHROW(lower_text(
        "transformed data { array[2] tuple(int<lower=1>, real) t = {(1, -5), (2, 3)}; }\n" + tail,
        "{}"));
}

TEST_CASE("constraints inside tuples of transformed parameters are checked", "[stan][tuple]") {
    const auto p = lower_text(R"(
parameters { real mu; }
transformed parameters { tuple(real<lower=0>, real) t = (mu, 2 * mu); }
model { mu ~ normal(0, 1); }
)",
                              "{}");
    REQUIRE(p->model().spec().checks.size() == 1);
    CHECK(p->model().spec().checks[0].what == "transformed parameter `t:1`");
}

}  // namespace advi::stan
