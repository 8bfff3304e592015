// Signatures of the function table that the lowering did not do until signatures_test lowered
// every one of them, with numbers: each call's model has the same log density and gradient as
// the same model written out by hand.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/json_reader.hpp>
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
                const std::string& json = "{}") {
    INFO(a << "\nagainst\n" << b);
    const auto la = lower_text(head + "model { " + a + " }", json);
    const auto lb = lower_text(head + "model { " + b + " }", json);
    advi::test::check_same_density(la->model().spec(), lb->model().spec());
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
