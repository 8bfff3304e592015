// Lowering with made-up data (`advi check --lower`): each data variable gets a value of its
// declared type inside its declared constraints, so that what the lowering refuses shows
// without the data, and nothing else stops it.
#include <string>

#include <catch2/catch.hpp>

#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

namespace advi::stan {

TEST_CASE(
    "made-up data: sizes of 2, reals inside their bounds, the simplest member of each "
    "structured type",
    "[stan][placeholder]") {
    const auto p = lower_with_placeholder_data(parse_program(R"(
data {
  int<lower=1> N;
  int<lower=0, upper=1> flag;
  int<lower=5> big;
  array[N] real<lower=0> x;
  real<lower=-3, upper=-1> between;
  real<upper=10> below;
  simplex[3] s;
  cov_matrix[2] S;
  array[N] ordered[3] o;
  tuple(int<lower=4>, vector[N]) t;
}
transformed data {
  print(N, " ", flag, " ", big, " ", x, " ", between, " ", below, " ", s, " ", S, " ", o, " ", t);
}
parameters { real mu; }
model { x ~ normal(mu, 1); }
)",
                                                             "m.stan"));
    REQUIRE(p->printed().size() == 1);
    CHECK(p->printed()[0] ==
          "2 1 5 [0.5,0.5] -2 9.5 [0.3333333333333333,0.3333333333333333,0.3333333333333333] "
          "[[1,0],[0,1]] "
          "[[1,2,3],[1,2,3]] (4, [0.5,0.5])");
}

TEST_CASE("made-up data: what the lowering refuses is refused with its reason",
          "[stan][placeholder]") {
    CHECK_THROWS_WITH(lower_with_placeholder_data(parse_program(R"(
data { int N; }
parameters { real mu; }
model { print(mu); mu ~ normal(0, 1); }
)",
                                                                "m.stan")),
                      Catch::Contains("print of `mu`, which depends on the parameters"));
}

}  // namespace advi::stan
