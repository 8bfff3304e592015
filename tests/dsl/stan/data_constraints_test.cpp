// Data that violate their declared structured constraint are refused, one vector or matrix per
// array element, naming the element and what is wrong (dsl/advi/stan/data_constraints.hpp).
#include <string>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>

namespace advi::stan {
namespace {

// The error of lowering `data { <decl> }` with `json`, or "" when it is accepted.
std::string error_of(const std::string& decl, const std::string& json) {
    try {
        const Program p = parse_program("data { " + decl + " }\n", "d.stan");
        (void)lower(p, read_json_data(json, "d.json"));
    } catch (const Error& e) {
        return std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
    }
    return "";
}

}  // namespace

TEST_CASE("structured data constraints: valid values pass, each violation is named",
          "[stan][data]") {
    struct Row {
        std::string decl, json, error;  // error "" : accepted
    };
    const Row rows[] = {
  // clang-format off
        {"simplex[3] w;", R"({"w": [0.2, 0.3, 0.5]})", ""},
        {"simplex[3] w;", R"({"w": [0, 1, 0]})", ""},  // written as ints
        {"simplex[3] w;", R"({"w": [0.5, 0.5, 0.5]})", "d.stan:1:19: data variable `w` is not a simplex: it sums to 1.5"},
        {"simplex[3] w;", R"({"w": [1.5, -0.5, 0]})", "data variable `w` is not a simplex: element 2 is -0.5"},
        {"array[2] simplex[2] w;", R"({"w": [[0.5, 0.5], [0.7, 0.2]]})", "data variable `w[2]` is not a simplex: it sums to 0.9"},
        {"array[2, 2] simplex[2] w;", R"({"w": [[[0.5, 0.5], [1, 0]], [[0.3, 0.7], [0.1, 0.2]]]})",
         "data variable `w[2, 2]` is not a simplex"},
        {"sum_to_zero_vector[3] s;", R"({"s": [0.5, -1.5, 1]})", ""},
        {"sum_to_zero_vector[3] s;", R"({"s": [0.5, -1.5, 1.5]})", "data variable `s` is not a sum_to_zero_vector: it sums to 0.5"},
        {"array[2] sum_to_zero_vector[2] s;", R"({"s": [[1, -1], [2, -1]]})", "data variable `s[2]` is not a sum_to_zero_vector: it sums to 1"},
        {"sum_to_zero_matrix[2, 3] S;", R"({"S": [[1, -2, 1], [-1, 2, -1]]})", ""},
        {"sum_to_zero_matrix[2, 3] S;", R"({"S": [[1, -2, 1], [-1, 2, -2]]})", "data variable `S` is not a sum_to_zero_matrix: row 2 sums to -1"},
        {"sum_to_zero_matrix[2, 2] S;", R"({"S": [[1, -1], [1, -1]]})", "data variable `S` is not a sum_to_zero_matrix: column 1 sums to 2"},
        {"row_stochastic_matrix[2, 3] P;", R"({"P": [[0.2, 0.3, 0.5], [1, 0, 0]]})", ""},
        {"row_stochastic_matrix[2, 3] P;", R"({"P": [[0.2, 0.3, 0.5], [0.5, 0, 0]]})", "data variable `P` is not a row_stochastic_matrix: row 2 sums to 0.5"},
        {"column_stochastic_matrix[2, 2] P;", R"({"P": [[0.2, 1], [0.8, 0]]})", ""},
        {"column_stochastic_matrix[2, 2] P;", R"({"P": [[-0.2, 1], [1.2, 0]]})", "data variable `P` is not a column_stochastic_matrix: element [1, 1] is -0.2"},
        {"unit_vector[2] u;", R"({"u": [0.6, 0.8]})", ""},
        {"unit_vector[2] u;", R"({"u": [0.6, 0.6]})", "data variable `u` is not a unit vector: its squared length is 0.72"},
        {"ordered[3] o;", R"({"o": [-1, 0, 2]})", ""},
        {"ordered[3] o;", R"({"o": [-1, 2, 2]})",
         "data variable `o` is not ordered: element 3 (2) is not greater than element 2 (2)"},
        {"positive_ordered[2] o;", R"({"o": [0.5, 1]})", ""},
        {"positive_ordered[2] o;", R"({"o": [0, 1]})", "data variable `o` is not positive_ordered: element 1 is 0"},
        {"cov_matrix[2] S;", R"({"S": [[2, 0.5], [0.5, 1]]})", ""},
        {"cov_matrix[2] S;", R"({"S": [[2, 0.5], [0.4, 1]]})",
         "data variable `S` is not a covariance matrix: it is not symmetric ([2, 1] is 0.4, [1, 2] is 0.5)"},
        {"cov_matrix[2] S;", R"({"S": [[1, 2], [2, 1]]})", "data variable `S` is not a covariance matrix: it is not positive definite"},
        {"corr_matrix[2] R;", R"({"R": [[1, 0.3], [0.3, 1]]})", ""},
        {"corr_matrix[2] R;", R"({"R": [[2, 0.3], [0.3, 1]]})",
         "data variable `R` is not a correlation matrix: diagonal element [1, 1] is 2"},
        {"cholesky_factor_cov[3, 2] L;", R"({"L": [[1, 0], [0.5, 2], [3, 4]]})", ""},
        {"cholesky_factor_cov[2] L;", R"({"L": [[1, 0.1], [0.5, 2]]})",
         "data variable `L` is not a Cholesky factor: element [1, 2] above the diagonal is 0.1"},
        {"cholesky_factor_cov[2] L;", R"({"L": [[1, 0], [0.5, -2]]})",
         "data variable `L` is not a Cholesky factor: diagonal element [2, 2] is -2, not positive"},
        {"cholesky_factor_corr[2] L;", R"({"L": [[1, 0], [0.6, 0.8]]})", ""},
        {"cholesky_factor_corr[2] L;", R"({"L": [[1, 0], [0.6, 0.6]]})",
         "data variable `L` is not the Cholesky factor of a correlation matrix: row 2 has squared length 0.72"},
  // clang-format on
    };
    for (const Row& row : rows) {
        INFO(row.decl << " " << row.json);
        const std::string e = error_of(row.decl, row.json);
        if (row.error.empty()) {
            CHECK(e.empty());
        } else {
            CHECK_THAT(e, Catch::Contains(row.error));
        }
    }
}

}  // namespace advi::stan
