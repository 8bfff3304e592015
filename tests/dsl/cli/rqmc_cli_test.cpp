// `advi fit --draws rqmc` (issue 20, item 4): the header says which draws the gradients used
// (draw_scheme = mc by default, rqmc when asked), the fit agrees with Monte Carlo's, and
// combinations that cannot work are usage errors.
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/csv_comments.hpp"
#include "support/normal_model.hpp"

using namespace advi::test;

TEST_CASE("cli: --draws rqmc", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("rqmc.stan", normal_model()));
    const std::string d = q(write_file("rqmc.json", kNormalJson));
    const std::string common = "fit " + m + " --data " + d + " --seed 3 --threads 1 -q ";
    const Run mc = tool(common + "--grad-samples 4 --output rqmc_mc.csv");
    const Run rq = tool(common + "--grad-samples 4 --draws rqmc --output rqmc.csv");
    INFO("stdout: " << rq.out << "\nstderr: " << rq.err);
    REQUIRE(mc.status == 0);
    REQUIRE(rq.status == 0);
    const advi::StanCsv a = advi::read_stan_csv(scratch() / "rqmc_mc.csv");
    const advi::StanCsv b = advi::read_stan_csv(scratch() / "rqmc.csv");
    CHECK(contains(comments_text(a), "#     draw_scheme = mc (Default)\n"));
    CHECK(contains(comments_text(b), "#     draw_scheme = rqmc\n"));
    // The same posterior: mu's mean from q (the first row) within a tenth of its sd.
    const double sd = std::sqrt((a.column("mu").array() - a.column("mu").mean()).square().mean());
    CHECK(std::abs(a.column("mu")[0] - b.column("mu")[0]) < 0.1 * sd);

    for (const std::string bad :
         {"--draws rqmc", "--draws rqmc --grad-samples 1",
          "--draws rqmc --grad-samples 4 --algorithm dadvi", "--draws sobol --grad-samples 4"}) {
        CAPTURE(bad);
        const Run r = tool(common + bad + " --output rqmc_bad.csv");
        CHECK(r.status == 2);
        CHECK_FALSE(std::filesystem::exists(scratch() / "rqmc_bad.csv"));
    }
}
