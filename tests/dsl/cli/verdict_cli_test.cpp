// `advi fit`'s verdict (issue 19, item 4) as a user meets it: the first line of the summary, the
// CSV trailer's lines; `--runs K` (each run's ELBO listed, the best kept) and `--psis-resample`
// (rows that are q's draws, picked again, with their own log_p__ and transformed parameters);
// the Auto rule's two endings no other test reached: max_iterations before two blocks of
// eval_elbo iterations, and a plateau where too few of q's draws have a finite log density
// for the gradient checks.
#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

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

TEST_CASE("cli: max_iterations before two blocks of eval_elbo iterations says so, not reliable",
          "[cli][verdict]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("blocks.stan", normal_model()));
    const std::string d = q(write_file("blocks.json", kNormalJson));
    // The rule compares the iterate average of one block with that of an earlier one: below
    // two blocks (max_iterations < 2 eval_elbo) there is nothing to compare, at two there is.
    struct Case {
        int iter, eval_elbo;
        bool before_two_blocks;
    };
    for (const Case c : {
             Case{150, 100, true },
             Case{199, 100, true },
             Case{99,  50,  true },
             Case{200, 100, false},
             Case{100, 50,  false}
    }) {
        const std::string csv = "blocks_" + std::to_string(c.iter) + ".csv";
        const Run r = tool("fit " + m + " --data " + d + " --seed 1 --threads 1 -q --iter " +
                           std::to_string(c.iter) + " --eval-elbo " + std::to_string(c.eval_elbo) +
                           " --output " + csv);
        INFO("--iter " << c.iter << " --eval-elbo " << c.eval_elbo << "\nstdout: " << r.out
                       << "\nstderr: " << r.err);
        REQUIRE(r.status == 0);
        const std::string verdict = lines(r.out).at(0);
        const std::string message = fmt::format(
            "max_iterations reached before two blocks of eval_elbo = {} iterations could be "
            "compared",
            c.eval_elbo);
        const std::string c_text = comments_text(advi::read_stan_csv(scratch() / csv));
        CHECK(contains(c_text, fmt::format("# iterations = {}\n", c.iter)));
        // Never a gain computed from nothing ("rose nan nats", before a1ced55).
        CHECK_FALSE(contains(verdict, "nan"));
        if (c.before_two_blocks) {
            CHECK(verdict.rfind("Verdict: not reliable: not converged (" + message + ")", 0) == 0);
            CHECK(contains(c_text, "# converged = 0\n"));
            CHECK(contains(c_text, "# convergence: " + message + "\n"));
        } else {
            // Two blocks compared: a plateau, convergence or max_iterations in a later step
            // size, never this message.
            CHECK(contains(c_text, "# convergence: "));
            CHECK_FALSE(contains(c_text, "before two blocks"));
        }
    }
}

TEST_CASE("cli: a plateau where most of q's draws have no finite log density is not convergence",
          "[cli][verdict]") {
    if (!cli_built())
        return;
    // x ~ normal(0, 1), rejected where |x| < 0.8 (a transformed parameter's bound): the ELBO
    // and its gradient see only the draws outside, so q settles (about N(0, 0.97^2)) with some
    // 60% of its draws inside, where the gradient checks cannot look.
    const std::string m = q(write_file("hole.stan",
                                       "parameters {\n  real x;\n}\n"
                                       "transformed parameters {\n  real<lower=0.8> far = "
                                       "abs(x);\n}\n"
                                       "model {\n  x ~ normal(0, 1);\n}\n"));
    // 1200 iterations: past the first plateaus (from iteration 1125 on, seed 1), before the
    // back-offs from draws that all fall inside run out (FitError at iteration 3359).
    const Run r = tool("fit " + m +
                       " --seed 1 --threads 1 -q --iter 1200 --elbo-samples 200 --output hole.csv"
                       " --init 0");  // zeros chosen: inside the hole, kept
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.status == 0);
    const std::string verdict = lines(r.out).at(0);
    std::smatch match;
    REQUIRE(std::regex_search(
        verdict, match,
        std::regex("^Verdict: not reliable: not converged \\(max_iterations reached in step "
                   "size [0-9]+ \\(eta [0-9.e+-]+\\) before its iterate average reached a "
                   "plateau.*; .*only ([0-9]+) of the 200 draws of q have a finite log "
                   "density and gradient, too few for the gradient checks to vouch for q")));
    const int used = std::stoi(match[1].str());
    CHECK(used < 100);  // under half: the rule's threshold
    const advi::StanCsv csv = advi::read_stan_csv(scratch() / "hole.csv");
    const std::string c = comments_text(csv);
    CHECK(contains(c, "# converged = 0\n"));
    // The same share of q's mass outside the hole, counted independently: the output draws are
    // q's, the ones inside rejected and replaced until 1000 were kept. Measured 82 / 200 = 0.41
    // against 1000 / 2589 = 0.386; the binomial sd of 200 draws is 0.035.
    std::smatch rejected;
    const std::string key = "# rejected_tp_constraint_draws = ";
    REQUIRE(std::regex_search(c, rejected, std::regex(key + "([0-9]+)")));
    const double outside = 1000.0 / (1000.0 + std::stod(rejected[1].str()));
    CHECK(std::fabs(used / 200.0 - outside) < 0.1);
    CHECK(outside < 0.5);
}
