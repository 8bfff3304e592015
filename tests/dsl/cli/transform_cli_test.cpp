// `advi fit --transform log|softplus|auto` (issue 20, item 5): the header says which, auto
// reports its choice per variable (summary and CSV trailer), and combinations it cannot run are
// usage errors.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/csv_comments.hpp"
#include "support/normal_model.hpp"

using namespace advi::test;

TEST_CASE("cli: --transform", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("transform.stan", normal_model()));
    const std::string d = q(write_file("transform.json", kNormalJson));
    const std::string common = "fit " + m + " --data " + d + " --seed 3 --threads 1 -q ";
    const Run def = tool(common + "--output transform_log.csv");
    const Run soft = tool(common + "--transform softplus --output transform_soft.csv");
    const Run aut = tool(common + "--transform auto --output transform_auto.csv");
    INFO("stdout: " << aut.out << "\nstderr: " << aut.err);
    REQUIRE(def.status == 0);
    REQUIRE(soft.status == 0);
    REQUIRE(aut.status == 0);
    CHECK(contains(comments_text(advi::read_stan_csv(scratch() / "transform_log.csv")),
                   "#     transform = log (Default)\n"));
    CHECK(contains(comments_text(advi::read_stan_csv(scratch() / "transform_soft.csv")),
                   "#     transform = softplus\n"));
    const advi::StanCsv a = advi::read_stan_csv(scratch() / "transform_auto.csv");
    CHECK(contains(comments_text(a), "#     transform = auto\n"));
    CHECK(contains(comments_text(a), "# transform_sigma = "));
    CHECK(contains(aut.out, "Transforms chosen by ELBO"));
    CHECK(contains(aut.out, "\n  sigma: "));
    // mu is unbounded: nothing to choose for it.
    CHECK_FALSE(contains(aut.out, "\n  mu: "));
    // Every sigma draw is positive whichever transform made it.
    CHECK(a.column("sigma").minCoeff() > 0.0);

    for (const std::string bad :
         {"--transform exp", "--transform auto --runs 2", "--transform auto --algorithm dadvi"}) {
        CAPTURE(bad);
        const Run r = tool(common + bad + " --output transform_bad.csv");
        CHECK(r.status == 2);
        CHECK_FALSE(std::filesystem::exists(scratch() / "transform_bad.csv"));
    }
}
