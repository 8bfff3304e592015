// `advi fit --start auto|init|pathfinder` (issue 20, item 1: Pathfinder as ADVI's start): the
// header records the choice, the trailer where q started, and what cannot run is refused.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/csv_comments.hpp"
#include "support/normal_model.hpp"

using namespace advi::test;

TEST_CASE("cli: --start pathfinder", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("start.stan", normal_model()));
    const std::string d = q(write_file("start.json", kNormalJson));
    const std::string common = "fit " + m + " --data " + d + " --seed 3 --threads 1 -q ";
    const Run pf = tool(common + "--start pathfinder --output start_pf.csv");
    INFO("stdout: " << pf.out << "\nstderr: " << pf.err);
    REQUIRE(pf.status == 0);
    const std::string c = comments_text(advi::read_stan_csv(scratch() / "start_pf.csv"));
    CHECK(contains(c, "#     start = pathfinder\n"));
    CHECK(contains(c, "# start = Pathfinder's point (iterate "));
    CHECK(contains(c, "then the mode and Hessian"));

    const Run stan = tool(common + "--start pathfinder --convergence stan --output start_bad.csv");
    CHECK(stan.status != 0);
    CHECK(contains(stan.err, "not Stan's start"));
    CHECK_FALSE(std::filesystem::exists(scratch() / "start_bad.csv"));
    const Run bad = tool(common + "--start mode --output start_bad.csv");
    CHECK(bad.status == 2);
}

TEST_CASE("cli: fit --init R tries random initial values as Stan does", "[cli]") {
    if (!cli_built())
        return;
    // x > 1 where the density is finite: log(x - 1) is -inf (and its gradient not finite) for
    // x <= 1, i.e. for log x <= 0, half of the points of radius 2 in unconstrained space.
    const std::string m = q(write_file("init_retry.stan",
                                       "parameters {\n  real<lower=0> x;\n}\nmodel {\n"
                                       "  x ~ gamma(4, 1);\n  target += log(x - 1);\n}\n"));
    int retried = 0;
    for (int seed = 0; seed < 12; ++seed) {
        const std::string out = "init_retry_" + std::to_string(seed) + ".csv";
        const Run r = tool("fit " + m + " --init 2 --seed " + std::to_string(seed) + " --output " +
                           out + " -q");
        INFO("seed " << seed << ": " << r.err);
        // Every seed fits: a first point outside the density's support is replaced by the next.
        REQUIRE(r.status == 0);
        const std::string c = comments_text(advi::read_stan_csv(scratch() / out));
        CHECK(contains(c, "# init = 2\n"));
        if (contains(c, "# start = random initial values of try "))
            ++retried;
    }
    // About half of the seeds' first points have x < 1.
    CHECK(retried >= 2);
    // zeros are outside too (x = 1): the default moves to random values, and the header says so.
    const Run d = tool("fit " + m + " --seed 1 --output init_retry_default.csv -q");
    REQUIRE(d.status == 0);
    const std::string c = comments_text(advi::read_stan_csv(scratch() / "init_retry_default.csv"));
    CHECK(contains(c, "# init = 0 (not finite at zeros: Stan's random initial values on (-2, 2))"));
    // An explicit --init 0 stands: the header says 0, not the random values.
    const Run zero = tool("fit " + m + " --init 0 --seed 1 --output init_retry_zero.csv -q");
    if (zero.status == 0) {
        const std::string z = comments_text(advi::read_stan_csv(scratch() / "init_retry_zero.csv"));
        CHECK(contains(z, "# init = 0"));
        CHECK(!contains(z, "random initial values"));
    }
}
