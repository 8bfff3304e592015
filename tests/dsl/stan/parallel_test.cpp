// reduce_sum and map_rect lowered as what they compute: reduce_sum(f, x, grainsize, ...) the sum
// of f over slices of x (recursion through reduce_sum on ever smaller slices ends, as in Stan),
// map_rect(f, phi, thetas, x_r, x_i) the stack of f over the jobs; the same density and gradient
// as the program written without them. The checker's rules on what they may be passed.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "stan_test_util.hpp"
#include "support/same_model.hpp"

namespace advi::stan {
namespace {

std::unique_ptr<LoweredProgram> lower_text(const std::string& program, const std::string& json) {
    return lower(parse_program(program, "model.stan"), read_json_data(json, "data.json"));
}

const char* kData = R"(
data {
  int N;
  array[N] real y;
  vector[N] sigma;
}
parameters {
  real mu;
  vector[2] phi;
  array[3] vector[2] thetas;
}
)";

}  // namespace

TEST_CASE("reduce_sum and map_rect have the density of the sums they compute", "[stan][parallel]") {
    const std::string with = std::string(R"(
functions {
  real partial_lpdf(array[] real y, int start, int end, real mu, vector sigma) {
    return normal_lpdf(y | mu, sigma[start:end]);
  }
  real g(array[] real y_slice, int start, int end) {
    if (size(y_slice) > 1) {
      return reduce_sum(g, y_slice, 1);
    } else {
      return normal_lpdf(y_slice | 0, 1);
    }
  }
  vector job(vector phi, vector theta, data array[] real xr, data array[] int xi) {
    return [phi[1] + theta[1] * xr[1], xi[1] * theta[2]]';
  }
}
)") + kData + R"(
model {
  target += reduce_sum(partial_lupdf, y, 3, mu, sigma);
  target += reduce_sum_static(partial_lpdf, y, 100, mu, sigma) / 2;
  target += g(y, 1, N);
  vector[6] m = map_rect(job, phi, thetas, {{1.0}, {2.0}, {3.0}}, {{1}, {2}, {3}});
  target += normal_lpdf(m | 0, 1);
}
)";
    const std::string without = std::string(kData) + R"(
model {
  target += 1.5 * normal_lpdf(y | mu, sigma);
  target += normal_lpdf(y | 0, 1);
  vector[6] m;
  for (j in 1:3) {
    m[2 * j - 1] = phi[1] + thetas[j][1] * j;
    m[2 * j] = j * thetas[j][2];
  }
  target += normal_lpdf(m | 0, 1);
}
)";
    std::string json = R"({"N": 40, "y": [)";
    for (int k = 0; k < 40; ++k) json += (k ? ", " : "") + std::to_string(0.1 * k - 1);
    json += R"(], "sigma": [)";
    for (int k = 0; k < 40; ++k) json += (k ? ", " : "") + std::to_string(1 + 0.05 * k);
    json += "]}";
    const auto a = lower_text(with, json);
    const auto b = lower_text(without, json);
    advi::test::check_same_density(a->model().spec(), b->model().spec(), 1e-12);
}

TEST_CASE("what reduce_sum and map_rect may be passed", "[stan][parallel]") {
    using test::first_line_of_error;
    const std::string f = R"(
functions {
  real part(array[] real y, int start, int end, real mu) { return normal_lpdf(y | mu, 1); }
  real part_lp(array[] real y, int start, int end) { return 0; }
  vector job(vector phi, vector theta, data array[] real xr, data array[] int xi) { return phi; }
}
)";
    CHECK(first_line_of_error(f + "parameters { real mu; array[3] real y; }\n"
                                  "model { target += reduce_sum(part, y, 1, mu); }") == "ok");
    // the slice must be the function's first argument's type
    CHECK_THAT(first_line_of_error(f + "parameters { real mu; vector[3] y; }\n"
                                       "model { target += reduce_sum(part, y, 1, mu); }"),
               Catch::Contains("slices an array"));
    CHECK_THAT(first_line_of_error(f + "parameters { real mu; array[3] real y; }\n"
                                       "model { target += reduce_sum(part, y, 1, mu, mu); }"),
               Catch::Contains("part"));
    CHECK_THAT(first_line_of_error(f + "parameters { array[3] real y; }\n"
                                       "model { target += reduce_sum(part_lp, y, 1); }"),
               Catch::Contains("ends in `_lp`"));
    CHECK_THAT(first_line_of_error(f + "parameters { array[3] real y; }\n"
                                       "model { target += reduce_sum(0.0, y, 1); }"),
               Catch::Contains("takes the name of a function"));
    // map_rect's x_r and x_i are data: not chosen by a parameter either
    CHECK_THAT(first_line_of_error(f + "parameters { real a; vector[2] phi; array[1] vector[2] "
                                       "t; }\nmodel { vector[2] m = map_rect(job, phi, t, "
                                       "{{1.0}}, {{a > 2 ? 1 : 2}}); }"),
               Catch::Contains("must be data only"));
}

}  // namespace advi::stan
