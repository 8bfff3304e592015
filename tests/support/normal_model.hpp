// The normal model the tool's tests fit: y ~ normal(mu, sigma), mu ~ normal(0, 10),
// sigma ~ lognormal(0, 1), on ten points, written once; each test adds the blocks it reads.
#pragma once

#include <string>
#include <vector>

namespace advi::test {

// The model's data: N = 10 points, as JSON and as an R dump (the same numbers).
inline const std::vector<double> kNormalY = {4.1, 5.3, 3.8, 6.0, 4.9, 5.5, 4.4, 5.1, 4.7, 5.2};
inline const char* const kNormalJson =
    R"({"N": 10, "y": [4.1, 5.3, 3.8, 6.0, 4.9, 5.5, 4.4, 5.1, 4.7, 5.2]})";
inline const char* const kNormalRdump =
    "N <- 10\ny <- c(4.1, 5.3, 3.8, 6.0, 4.9, 5.5, 4.4, 5.1, 4.7, 5.2)\n";

// What a test adds to the model: each string is a block's statements, one a line, indented;
// an empty block is left out.
struct NormalModelBlocks {
    std::string transformed_parameters;
    // The likelihood's statements (a test of the lowering may write it as a loop).
    std::string likelihood = "  y ~ normal(mu, sigma);\n";
    std::string generated_quantities;
};

inline std::string normal_model(const NormalModelBlocks& b = {}) {
    std::string s =
        "data {\n  int<lower=0> N;\n  vector[N] y;\n}\n"
        "parameters {\n  real mu;\n  real<lower=0> sigma;\n}\n";
    if (!b.transformed_parameters.empty())
        s += "transformed parameters {\n" + b.transformed_parameters + "}\n";
    s += "model {\n  mu ~ normal(0, 10);\n  sigma ~ lognormal(0, 1);\n" + b.likelihood + "}\n";
    if (!b.generated_quantities.empty())
        s += "generated quantities {\n" + b.generated_quantities + "}\n";
    return s;
}

}  // namespace advi::test
