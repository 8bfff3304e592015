// Values of three or more dimensions (array[N] matrix[R, C], array[N, M, K] real, array[N, M]
// vector[K]) as data, parameters, locals and outputs: rows by the first index, the others
// column-major in the columns, so that the flat order is Stan's. Elements and slices read the
// numbers the data put there; a parameter of three dimensions has the density of the same
// numbers declared as a matrix, and CmdStan's column names.
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/fit/cmdstan_output.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

std::unique_ptr<LoweredProgram> lower_text(const std::string& program, const std::string& json) {
    return lower(parse_program(program, "model.stan"), read_json_data(json, "data.json"));
}

// a[i][j][k] = 100 i + 10 j + k; ms[i][r, c] = 10 i + r + c / 10; vs[i, j][k] = 100 i + 10 j + k
std::string data_json() {
    std::string a, ms, vs;
    for (int i = 1; i <= 2; ++i) {
        a += i > 1 ? ",[" : "[";
        for (int j = 1; j <= 3; ++j) {
            a += j > 1 ? ",[" : "[";
            for (int k = 1; k <= 4; ++k)
                a += fmt::format("{}{}", k > 1 ? "," : "", 100 * i + 10 * j + k);
            a += "]";
        }
        a += "]";
        ms += i > 1 ? ",[" : "[";
        for (int r = 1; r <= 2; ++r) {
            ms += r > 1 ? ",[" : "[";
            for (int c = 1; c <= 3; ++c)
                ms += fmt::format("{}{}", c > 1 ? "," : "", 10 * i + r + 0.1 * c);
            ms += "]";
        }
        ms += "]";
        vs += i > 1 ? ",[" : "[";
        for (int j = 1; j <= 2; ++j) {
            vs += j > 1 ? ",[" : "[";
            for (int k = 1; k <= 3; ++k)
                vs += fmt::format("{}{}", k > 1 ? "," : "", 100 * i + 10 * j + k);
            vs += "]";
        }
        vs += "]";
    }
    return fmt::format(R"({{"a": [{}], "ms": [{}], "vs": [{}]}})", a, ms, vs);
}

}  // namespace

TEST_CASE("data of three dimensions: elements, slices and assignments read Stan's numbers",
          "[stan][arrays]") {
    const auto p = lower_text(R"(
data {
  array[2, 3, 4] real a;
  array[2] matrix[2, 3] ms;
  array[2, 2] vector[3] vs;
}
transformed data {
  real s = a[2, 3, 4] + a[1, 2, 3];
  matrix[2, 3] m2 = ms[2];
  vector[3] v21 = vs[2, 1];
  array[3, 4] real a2 = a[2];
  array[2, 3, 4] real b = a;
  b[1, 1, 1] = 100;
  print(s, " ", m2, " ", v21, " ", a2[3], " ", b[1, 1], " ", ms[1, 2, 3], " ", ms[:, 1, 2]);
}
parameters { real mu; }
model { for (i in 1:2) for (j in 1:3) a[i, j] ~ normal(mu, 10); }
)",
                              data_json());
    REQUIRE(p->printed().size() == 1);
    CHECK(p->printed()[0] ==
          "357 [[21.1,21.2,21.3],[22.1,22.2,22.3]] [211,212,213] [231,232,233,234] "
          "[100,112,113,114] 12.3 [11.2,21.2]");
}

TEST_CASE(
    "a parameter of three dimensions: the density of the same numbers as a matrix, "
    "CmdStan's names",
    "[stan][arrays]") {
    // p[i][r, c] is element (i, r + 2 (c - 1)) of the matrix: the same zeta coordinate
    const auto nd = lower_text(R"(
parameters { array[2] matrix<lower=0>[2, 3] p; }
model {
  for (i in 1:2) for (r in 1:2) for (c in 1:3) p[i][r, c] ~ lognormal(0.1 * i + r - c, 1);
}
generated quantities { array[2] matrix[2, 3] q = p; real e = p[2, 1, 3]; }
)",
                               "{}");
    const auto flat = lower_text(R"(
parameters { matrix<lower=0>[2, 6] p; }
model {
  for (i in 1:2) for (r in 1:2) for (c in 1:3) p[i, r + 2 * (c - 1)] ~ lognormal(0.1 * i + r - c, 1);
}
)",
                                 "{}");
    advi::test::check_same_density(nd->model().spec(), flat->model().spec(), 1e-12);
    const ModelSpec spec = nd->model().spec();
    const LatentVariable& v = spec.latents.at(0);
    const std::vector<std::string> names = stan_column_names(v.name, latent_dims(v));
    REQUIRE(names.size() == 12);
    CHECK(names[0] == "p.1.1.1");
    CHECK(names[1] == "p.2.1.1");
    CHECK(names[2] == "p.1.2.1");
    CHECK(names[11] == "p.2.2.3");
    const auto& gq = nd->generated_quantities();
    REQUIRE(gq.size() == 2);
    CHECK(gq[0].dims == std::vector<std::int64_t>{2, 2, 3});
    CHECK(gq[0].value.shape().size() == 12);
}

TEST_CASE("ints of three dimensions used as reals keep Stan's order", "[stan][arrays]") {
    const auto p = lower_text(R"(
data { array[2, 2, 3] int k; }
transformed data {
  array[2, 2, 3] real r = k;
  print(r[2, 1], " ", sum(to_vector(r[1, 2])));
}
parameters { real mu; }
model { mu ~ normal(0, 1); }
)",
                              R"({"k": [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]})");
    CHECK(p->printed() == std::vector<std::string>{"[7,8,9] 15"});
}

TEST_CASE("array expressions of matrices and of arrays", "[stan][arrays]") {
    const auto p = lower_text(R"(
transformed data {
  matrix[2, 3] A = [[1, 2, 3], [4, 5, 6]];
  array[2] matrix[2, 3] AB = {A, A * 10};
  array[2] vector[2] u = {[1, 2]', [3, 4]'};
  array[2, 2] vector[2] uv = {u, {[5, 6]', [7, 8]'}};
  print(AB[2, 1, 3], " ", AB[1, 2, 2], " ", uv[2, 1, 2], " ", uv[1, 2, 1], " ", AB);
}
parameters { real mu; }
model { mu ~ normal(0, 1); }
)",
                              "{}");
    CHECK(p->printed() ==
          std::vector<std::string>{"30 5 6 3 [[[1,2,3],[4,5,6]],[[10,20,30],[40,50,60]]]"});
    // of parameters: the same density as the elements read directly
    const auto a = lower_text(R"(
parameters { matrix[2, 2] M; vector[3] v; }
model {
  array[2] matrix[2, 2] both = {M, M'};
  array[2, 1] vector[3] vs = {{v}, {2 * v}};
  target += -dot_self(to_vector(both[2])) - both[1, 1, 2] - dot_self(vs[2, 1]);
}
)",
                              "{}");
    const auto b = lower_text(R"(
parameters { matrix[2, 2] M; vector[3] v; }
model { target += -dot_self(to_vector(M)) - M[1, 2] - 4 * dot_self(v); }
)",
                              "{}");
    advi::test::check_same_density(a->model().spec(), b->model().spec(), 1e-12);
}

}  // namespace advi::stan
