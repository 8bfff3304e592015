// `advi check`: names, functions, distributions and block rules without the data.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include <advi/stan/check.hpp>
#include <advi/stan/parser.hpp>

#include "stan_test_util.hpp"

namespace advi::stan {
namespace {

using test::first_line_of_error;

}  // namespace

TEST_CASE("every test program and example checks", "[stan]") {
    for (const std::string dir : {"/tests/dsl/stan/programs", "/examples"}) {
        for (const auto& entry :
             std::filesystem::directory_iterator(std::string(ADVI_SOURCE_DIR) + dir)) {
            if (entry.path().extension() != ".stan")
                continue;
            std::ifstream f(entry.path());
            std::stringstream s;
            s << f.rdbuf();
            INFO(entry.path());
            CHECK(first_line_of_error(s.str()) == "ok");
        }
    }
}

TEST_CASE("check names the first problem at file:line:col", "[stan]") {
    const std::string head = "data { int N; vector[N] y; }\nparameters { real mu; }\n";
    CHECK(first_line_of_error(head + "model { y ~ normal(nu, 1); }") ==
          "m.stan:3:20: unknown identifier `nu`");
    CHECK(first_line_of_error(head + "model { y ~ norml(mu, 1); }") ==
          "m.stan:3:13: unknown distribution `norml`");
    CHECK(first_line_of_error(head + "model { target += foo(mu); }") ==
          "m.stan:3:19: unknown function `foo`");
    CHECK(first_line_of_error(head + "model { y[1] = 2; }") ==
          "m.stan:3:9: `y` cannot be assigned here (data variable)");
    CHECK(first_line_of_error(head + "transformed parameters { real z = mu; z ~ normal(0, 1); }") ==
          "m.stan:3:39: `~` statements belong in the model block");
    CHECK(first_line_of_error(head + "model { target += normal_rng(0, 1); }") ==
          "m.stan:3:19: `normal_rng` is for generated quantities only");
    CHECK(first_line_of_error(head + "model { real a; real a; }") ==
          "m.stan:3:22: `a` is already declared");
    CHECK(first_line_of_error("functions { real f(real x) { return x; } }\n" + head +
                              "model { target += f(mu) + normal_lpdf(y | mu, 1); }") == "ok");
}

}  // namespace advi::stan
