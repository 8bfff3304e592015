// `advi pathfinder` (issue 20, item 1) as a user coming from CmdStan meets it: the pathfinder
// CSV (lp_approx__, lp__, path__, then the parameters and generated quantities, one row per
// draw), the settings header by CmdStan's names as cmdstanpy reads it, the summary with the
// verdict, and options refused with a usage error.
#include <cmath>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/csv_comments.hpp"
#include "support/normal_model.hpp"

using namespace advi::test;

TEST_CASE("cli: pathfinder writes CmdStan's pathfinder CSV", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file(
        "pathfinder.stan", normal_model({.generated_quantities = "  real y_rep = normal_rng(mu, "
                                                                 "sigma);\n"})));
    const std::string d = q(write_file("pathfinder.json", kNormalJson));
    const Run r = tool("pathfinder " + m + " --data " + d +
                       " --seed 5 --threads 1 --num-draws 400 --num-psis-draws 700 "
                       "--output pathfinder.csv");
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "Verdict: "));
    CHECK(contains(r.out, "Pathfinder, 4 paths: converged: 4 of 4 paths gave draws"));
    CHECK(contains(r.out, "(PSIS-resampled from 1600 pooled draws)"));
    CHECK(contains(r.out, "\ny_rep "));
    CHECK(contains(r.err, "path 4: L-BFGS converged after "));
    CHECK(contains(r.err, "Output written to pathfinder.csv"));

    const std::string text = read_file(scratch() / "pathfinder.csv");
    const advi::StanCsv csv = advi::read_stan_csv(scratch() / "pathfinder.csv");
    REQUIRE(csv.columns.size() == 6);
    CHECK(csv.columns[0] == "lp_approx__");
    CHECK(csv.columns[1] == "lp__");
    CHECK(csv.columns[2] == "path__");
    CHECK(csv.columns[3] == "mu");
    CHECK(csv.columns[4] == "sigma");
    CHECK(csv.columns[5] == "y_rep");
    CHECK(csv.values.rows() == 700);  // num_psis_draws: no mean row
    const Eigen::VectorXd path = csv.column("path__");
    const std::set<double> paths(path.begin(), path.end());
    CHECK(*paths.begin() >= 1.0);
    CHECK(*paths.rbegin() <= 4.0);
    CHECK(csv.column("sigma").minCoeff() > 0.0);
    // lp__ is the model's log density with every constant: finite and below the log density
    // at the mode of this 2-parameter posterior plus a little; lp_approx__ a normal's.
    CHECK(csv.column("lp__").allFinite());
    CHECK(csv.column("lp_approx__").allFinite());
    // The posterior of mu: 10 points with mean 4.9 (the prior's pull is negligible).
    const Eigen::VectorXd mu = csv.column("mu");
    CHECK(mu.mean() == Approx(4.9).margin(0.1));

    const auto config = cmdstanpy_config(text);
    CHECK(config.at("method") == "pathfinder");
    CHECK(config.at("num_paths") == "4");
    CHECK(config.at("num_draws") == "400");
    CHECK(config.at("num_psis_draws") == "700");
    CHECK(config.at("psis_resample") == "1");
    CHECK(config.at("history_size") == "5");
    CHECK(config.at("seed") == "5");
    const std::string c = comments_text(csv);
    CHECK(contains(c, "# path_1 = L-BFGS converged after "));
    CHECK(contains(c, "# verdict = "));
    CHECK(contains(c, "# pareto_k = "));

    // One path: its draws, not resampled; every path__ is 1.
    const Run one = tool("pathfinder " + m + " --data " + d +
                         " --seed 5 --num-paths 1 --num-draws 250 -q --output pathfinder1.csv");
    INFO("stdout: " << one.out << "\nstderr: " << one.err);
    REQUIRE(one.status == 0);
    CHECK(one.err.empty());
    const advi::StanCsv c1 = advi::read_stan_csv(scratch() / "pathfinder1.csv");
    CHECK(c1.values.rows() == 250);
    CHECK(c1.column("path__").minCoeff() == 1.0);
    CHECK(c1.column("path__").maxCoeff() == 1.0);
    CHECK(contains(comments_text(c1), "# psis_resample = 0\n"));
}

TEST_CASE("cli: pathfinder refuses bad options with a usage error", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("pathfinder_bad.stan", normal_model()));
    const std::string d = q(write_file("pathfinder_bad.json", kNormalJson));
    for (const std::string bad : {"--num-paths 0", "--num-draws -3", "--psis-resample 2",
                                  "--history-size 0", "--tol-rel-grad -1"}) {
        CAPTURE(bad);
        const Run r =
            tool("pathfinder " + m + " --data " + d + " " + bad + " --output pathfinder_bad.csv");
        CHECK(r.status == 2);
        CHECK_FALSE(std::filesystem::exists(scratch() / "pathfinder_bad.csv"));
    }
}
