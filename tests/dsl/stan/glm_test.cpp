// Stan's GLM densities (functions.cpp, glm_density) are their base densities of the linear
// predictor: `y ~ bernoulli_logit_glm(x, alpha, beta)` is `y ~ bernoulli_logit(alpha + x *
// beta)`, with the same log density and gradient at random points, for each GLM and for each
// shape Stan allows (a matrix or one row vector of predictors, a scalar or vector intercept,
// one outcome or an array; normal_id_glm's scalar or vector sigma).
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

#include "support/same_model.hpp"

namespace advi::stan {
namespace {

constexpr const char* kData = R"(data {
  matrix[3, 2] X; row_vector[2] xr;
  array[3] int b; array[3] int k; array[3] int T; array[3] int cat; vector[3] yv; real y1;
  int b1;
}
parameters {
  real alpha; vector[3] alpha_v; vector[2] beta; real<lower=0> sigma;
  vector<lower=0>[3] sigma_v; real<lower=0> phi; ordered[2] cuts;
}
)";
constexpr const char* kJson =
    R"({"X": [[0.5, -1.0], [1.5, 0.3], [-0.7, 2.0]], "xr": [0.4, -0.9], "b": [1, 0, 1],
        "k": [3, 0, 7], "T": [5, 4, 9], "cat": [1, 3, 2], "yv": [0.3, -1.1, 2.4], "y1": 0.7,
        "b1": 1})";

// The lowered program (its model's spec reads the program's data: keep it alive).
std::unique_ptr<LoweredProgram> lowered(const std::string& model) {
    const std::string text = std::string(kData) + "model {\n  " + model +
                             "\n  alpha ~ normal(0, 1); alpha_v ~ normal(0, 1);\n"
                             "  beta ~ normal(0, 1); sigma ~ lognormal(0, 1);\n"
                             "  sigma_v ~ lognormal(0, 1); phi ~ lognormal(0, 1);\n}\n";
    INFO(text);
    return lower(parse_program(text, "glm.stan"), read_json_data(kJson, "glm.json"));
}

}  // namespace

TEST_CASE("each GLM density is its base density of alpha + x * beta", "[stan][distributions]") {
    struct Pair {
        std::string glm, base;
    };
    const std::vector<Pair> pairs = {
        {"b ~ bernoulli_logit_glm(X, alpha, beta);",                   "b ~ bernoulli_logit(alpha + X * beta);"  },
        {"b ~ bernoulli_logit_glm(X, alpha_v, beta);",                 "b ~ bernoulli_logit(alpha_v + X * beta);"},
        {"b ~ bernoulli_logit_glm(xr, alpha, beta);",                  "b ~ bernoulli_logit(alpha + xr * beta);" },
        {"b1 ~ bernoulli_logit_glm(X, alpha, beta);",
         "target += bernoulli_logit_lpmf(rep_array(b1, 3) | alpha + X * beta);"                                  },
        {"target += bernoulli_logit_glm_lupmf(b | X, alpha_v, beta);",
         "b ~ bernoulli_logit(alpha_v + X * beta);"                                                              },
        {"k ~ poisson_log_glm(X, alpha, beta);",                       "k ~ poisson_log(alpha + X * beta);"      },
        {"k ~ neg_binomial_2_log_glm(X, alpha_v, beta, phi);",
         "k ~ neg_binomial_2_log(alpha_v + X * beta, phi);"                                                      },
        {"yv ~ normal_id_glm(X, alpha, beta, sigma);",                 "yv ~ normal(alpha + X * beta, sigma);"   },
        {"yv ~ normal_id_glm(X, alpha_v, beta, sigma_v);",
         "yv ~ normal(alpha_v + X * beta, sigma_v);"                                                             },
        {"y1 ~ normal_id_glm(X, alpha, beta, sigma);",
         "target += normal_lpdf(rep_vector(y1, 3) | alpha + X * beta, sigma);"                                   },
        {"k ~ binomial_logit_glm(T, X, alpha, beta);",                 "k ~ binomial_logit(T, alpha + X * beta);"},
        {"cat ~ ordered_logistic_glm(X, beta, cuts);",                 "cat ~ ordered_logistic(X * beta, cuts);" },
    };
    for (const Pair& p : pairs) {
        INFO(p.glm << "  vs  " << p.base);
        const auto base = lowered(p.base), glm = lowered(p.glm);
        advi::test::check_same_density(base->model().spec(), glm->model().spec());
    }
}

TEST_CASE("a GLM takes Stan's argument types and refuses others as Stan does", "[stan]") {
    // ordered_logistic_glm has no intercept: four arguments are one too many
    CHECK_THROWS_WITH(lowered("cat ~ ordered_logistic_glm(X, alpha, beta, cuts);"),
                      Catch::Contains("ordered_logistic_glm takes"));
    // the predictors are a matrix or a row vector, not an array
    CHECK_THROWS_WITH(lowered("b ~ bernoulli_logit_glm(yv, alpha, beta);"),
                      Catch::Contains("bernoulli_logit_glm takes"));
}

}  // namespace advi::stan
