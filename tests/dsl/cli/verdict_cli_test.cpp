// `advi fit`'s verdict (issue 19, item 4) as a user meets it: the first line of the summary, the
// CSV trailer's lines; `--runs K` (each run's ELBO listed, the best kept) and `--psis-resample`
// (rows that are q's draws, picked again, with their own log_p__ and transformed parameters).
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/io/cmdstan_csv.hpp>
#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/csv_comments.hpp"
#include "support/normal_model.hpp"

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

const std::string kModel =
    normal_model({.transformed_parameters = "  real z3 = (y[3] - mu) / sigma;\n"});
const char* const kData = kNormalJson;

}  // namespace

TEST_CASE("cli: the verdict is the summary's first line and in the CSV trailer", "[cli][verdict]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("verdict.stan", kModel));
    const std::string d = q(write_file("verdict.json", kData));
    const Run r = tool("fit " + m + " --data " + d +
                       " --seed 3 --output-samples 400 --threads 1 -q --output verdict.csv");
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.status == 0);
    const std::vector<std::string> out = lines(r.out);
    REQUIRE(!out.empty());
    CHECK(out[0].rfind("Verdict: ", 0) == 0);
    CHECK(out.size() > 1);
    CHECK(out[1].rfind("  Pareto k-hat ", 0) == 0);
    const advi::StanCsv csv = advi::read_stan_csv(scratch() / "verdict.csv");
    CHECK(csv.values.rows() == 401);
    const std::string c = comments_text(csv);
    // The same line in both places.
    CHECK(contains(c, "# verdict = " + out[0].substr(9) + "\n"));
    CHECK(contains(c, "# pareto_k = "));
    CHECK(contains(c, "# psis_ess = "));
    CHECK(contains(c, "# draws = q\n"));
}

TEST_CASE("cli: --runs lists every run and keeps the best; --psis-resample picks q's draws again",
          "[cli][verdict]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("runs.stan", kModel));
    const std::string d = q(write_file("runs.json", kData));
    const std::string common =
        "fit " + m + " --data " + d + " --seed 7 --output-samples 300 --runs 3 -q";
    const Run plain = tool(common + " --threads 1 --output runs.csv");
    const Run resampled = tool(common + " --threads 2 --psis-resample --output resampled.csv");
    INFO("stdout: " << resampled.out << "\nstderr: " << resampled.err);
    REQUIRE(plain.status == 0);
    REQUIRE(resampled.status == 0);
    CHECK(lines(resampled.out)[0].rfind("Verdict: ", 0) == 0);
    CHECK(contains(plain.out, "3 runs (ELBO from their output draws): seed 7: "));
    CHECK(contains(plain.out, "; seed 8: "));
    CHECK(contains(plain.out, "; seed 9: "));
    CHECK(contains(resampled.out, "draws resampled by their Pareto-smoothed importance weights"));

    const advi::StanCsv a = advi::read_stan_csv(scratch() / "runs.csv");
    const advi::StanCsv b = advi::read_stan_csv(scratch() / "resampled.csv");
    const std::string ca = comments_text(a), cb = comments_text(b);
    for (const std::string& c : {ca, cb}) {
        CHECK(contains(c, "# runs = 3\n"));
        CHECK(contains(c, "# run_1 = seed 7, ELBO "));
        CHECK(contains(c, "# run_3 = seed 9, ELBO "));
        CHECK(contains(c, ", kept\n"));
        CHECK(contains(c, "# runs_rhat_max = "));
    }
    CHECK(contains(ca, "# draws = q\n"));
    CHECK(contains(cb, "# draws = psis_resampled ("));
    // The settings header says how the rows came about, as cmdstanpy reads settings.
    CHECK(has_comment(a, "#     runs = 3"));
    CHECK(has_comment(a, "#     psis_resample = 0 (Default)"));
    CHECK(has_comment(b, "#     psis_resample = 1"));
    const auto config_a = cmdstanpy_config(read_file(scratch() / "runs.csv"));
    const auto config_b = cmdstanpy_config(read_file(scratch() / "resampled.csv"));
    CHECK(config_a.at("runs") == "3");
    CHECK(config_a.at("psis_resample") == "0");
    CHECK(config_b.at("runs") == "3");
    CHECK(config_b.at("psis_resample") == "1");
    CHECK(config_b.at("seed") == "7");
    CHECK(config_b.at("output_samples") == "300");
    REQUIRE(a.values.rows() == 301);
    REQUIRE(b.values.rows() == 301);
    // The mean row is q's either way; every resampled row is one of the kept run's rows, with
    // its log_p__, log_g__ and transformed parameter (threads 1 or 2: the same runs).
    CHECK(a.values.row(0) == b.values.row(0));
    std::set<std::vector<double>> rows;
    for (Eigen::Index i = 1; i < a.values.rows(); ++i) {
        const Eigen::RowVectorXd r = a.values.row(i);
        rows.insert(std::vector<double>(r.data(), r.data() + r.size()));
    }
    std::set<std::vector<double>> distinct;
    for (Eigen::Index i = 1; i < b.values.rows(); ++i) {
        const Eigen::RowVectorXd r = b.values.row(i);
        const std::vector<double> row(r.data(), r.data() + r.size());
        CHECK(rows.count(row) == 1);
        distinct.insert(row);
    }
    CHECK(contains(cb, "# draws = psis_resampled (" + std::to_string(distinct.size()) +
                           " distinct of 300)\n"));
    CHECK(distinct.size() < 300);
}
