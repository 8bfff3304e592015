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
