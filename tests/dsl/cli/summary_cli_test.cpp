// `advi summary` as a user runs it: on the CSV of a fit (stansummary's columns, the percentiles
// and significant figures asked, the trailer's ELBO and verdict beneath), on optimize's one row,
// on several files as chains, on CmdStan's own variational CSV (the mean row left out, k-hat
// computed from its columns), --csv_filename's file read back, and the errors.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/normal_model.hpp"

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

const fs::path& fitted() {
    static const fs::path csv = [] {
        const fs::path model = write_file("summary_normal.stan", normal_model());
        const fs::path data = write_file("summary_normal.json", kNormalJson);
        const Run r = tool(fmt::format("fit {} --data {} --output summary_fit.csv --seed 3 -q",
                                       q(model), q(data)));
        INFO(r.err);
        REQUIRE(r.status == 0);
        return scratch() / "summary_fit.csv";
    }();
    return csv;
}

// The row of `name` in the table, split on spaces.
std::vector<std::string> row_of(const std::string& out, const std::string& name) {
    for (const std::string& line : lines(out)) {
        if (line.rfind(name + " ", 0) == 0) {
            std::vector<std::string> cells;
            std::istringstream in(line);
            for (std::string c; in >> c;) cells.push_back(c);
            return cells;
        }
    }
    return {};
}

}  // namespace

TEST_CASE("summary: a fit's CSV, as stansummary lays it out, with the run's facts",
          "[cli][summary]") {
    if (!cli_built())
        return;
    const Run r = tool("summary " + q(fitted()));
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "Inference for Stan model: summary_normal_model"));
    CHECK(contains(r.out, "variational (meanfield), written by advi "));
    CHECK(contains(r.out, "1000 draws (the mean row of each file left out)"));
    bool header = false;
    for (const std::string& line : lines(r.out)) {
        std::istringstream in(line);
        std::vector<std::string> cells;
        for (std::string c; in >> c;) cells.push_back(c);
        header = header ||
                 cells == std::vector<std::string>{"Mean", "MCSE", "StdDev",   "MAD",      "5%",
                                                   "50%",  "95%",  "ESS_bulk", "ESS_tail", "R_hat"};
    }
    CHECK(header);
    // The numbers against the draws themselves.
    const advi::StanCsv csv = advi::read_stan_csv(fitted());
    const Eigen::VectorXd mu = csv.column("mu").tail(csv.values.rows() - 1);
    const std::vector<std::string> row = row_of(r.out, "mu");
    REQUIRE(row.size() == 11);
    CHECK(std::stod(row[1]) == Approx(mu.mean()).epsilon(0.01));
    const double sd = std::sqrt((mu.array() - mu.mean()).square().sum() / (mu.size() - 1));
    CHECK(std::stod(row[3]) == Approx(sd).epsilon(0.05));
    CHECK(std::stod(row[8]) > 700);    // ESS_bulk of 1000 independent draws
    CHECK(std::stod(row[10]) < 1.02);  // R_hat
    CHECK(!row_of(r.out, "sigma").empty());
    CHECK(!row_of(r.out, "lp__").empty());
    // The trailer's facts.
    CHECK(contains(r.out, "\nELBO "));
    CHECK(contains(r.out, "(Monte Carlo standard error "));
    CHECK(contains(r.out, "\nVerdict: "));
    CHECK(contains(r.out, "\nPareto k-hat "));
    CHECK(contains(r.out, " iterations, "));
    CHECK(contains(r.out, "\nConvergence: "));
    CHECK(contains(r.out, "\nDraws: q"));
}

TEST_CASE("summary: --percentiles and --sig_figs", "[cli][summary]") {
    if (!cli_built())
        return;
    const Run r = tool("summary " + q(fitted()) + " --percentiles 2.5,25,75,97.5 --sig_figs 4");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "2.5%"));
    CHECK(contains(r.out, "97.5%"));
    CHECK(!contains(r.out, " 5% "));
    const std::vector<std::string> row = row_of(r.out, "mu");
    REQUIRE(row.size() == 12);
    // Four significant digits: mu's mean is near 4.9, so three decimals.
    CHECK(row[1].size() == 5);
    const advi::StanCsv csv = advi::read_stan_csv(fitted());
    Eigen::VectorXd mu = csv.column("mu").tail(csv.values.rows() - 1);
    std::sort(mu.data(), mu.data() + mu.size());
    // R's type 7 at 25%: (n - 1) 0.25 = 249.75.
    const double q25 = mu[249] + 0.75 * (mu[250] - mu[249]);
    CHECK(std::stod(row[6]) == Approx(q25).margin(0.0051));
    const Run spaced = tool("summary " + q(fitted()) + " -p '10 90' -s 3");
    CHECK(spaced.status == 0);
    CHECK(contains(spaced.out, "10%"));
    CHECK(contains(spaced.out, "90%"));
}

TEST_CASE("summary: --csv_filename writes the statistics as CSV", "[cli][summary]") {
    if (!cli_built())
        return;
    const fs::path out = scratch() / "summary_stats.csv";
    const Run r = tool("summary " + q(fitted()) + " --csv_filename " + q(out));
    INFO(r.err);
    REQUIRE(r.status == 0);
    const std::vector<std::string> text = lines(read_file(out));
    REQUIRE(text.size() > 4);
    CHECK(text[0] == "name,Mean,MCSE,StdDev,MAD,5%,50%,95%,ESS_bulk,ESS_tail,R_hat");
    CHECK(text[1].rfind("\"lp__\",", 0) == 0);
    bool mu = false, note = false;
    for (const std::string& l : text) {
        mu = mu || l.rfind("\"mu\",", 0) == 0;
        note = note || l.rfind("# Verdict: ", 0) == 0;
    }
    CHECK(mu);
    CHECK(note);
    // Six significant digits by default, as stansummary: more than the table's two.
    const advi::StanCsv csv = advi::read_stan_csv(fitted());
    const double mean = csv.column("mu").tail(csv.values.rows() - 1).mean();
    for (const std::string& l : text) {
        if (l.rfind("\"mu\",", 0) == 0)
            CHECK(std::stod(l.substr(5)) == Approx(mean).epsilon(1e-5));
    }
}

TEST_CASE("summary: files of one run as chains; optimize's one row", "[cli][summary]") {
    if (!cli_built())
        return;
    const fs::path model = write_file("summary_normal.stan", normal_model());
    const fs::path data = write_file("summary_normal.json", kNormalJson);
    REQUIRE(tool(fmt::format("fit {} --data {} --output summary_fit2.csv --seed 4 -q", q(model),
                             q(data)))
                .status == 0);
    const Run two = tool("summary " + q(fitted()) + " summary_fit2.csv");
    INFO(two.out << two.err);
    REQUIRE(two.status == 0);
    CHECK(contains(two.out, "2 files, 2000 draws"));
    CHECK(std::stod(row_of(two.out, "mu")[8]) > 1400);
    CHECK(contains(two.out, "summary_fit2.csv:\n  ELBO "));

    REQUIRE(tool(fmt::format("optimize {} --data {} --output summary_opt.csv", q(model), q(data)))
                .status == 0);
    const Run opt = tool("summary summary_opt.csv");
    INFO(opt.out << opt.err);
    REQUIRE(opt.status == 0);
    CHECK(contains(opt.out, "optimize, written by advi"));
    CHECK(contains(opt.out, "One row, not draws"));
    CHECK(row_of(opt.out, "mu")[2] == "nan");
    CHECK(contains(opt.out, "\nConvergence: converged"));
}

TEST_CASE("summary: CmdStan's variational CSV", "[cli][summary]") {
    if (!cli_built())
        return;
    // CmdStan's layout: its version lines, the mean row first, log_g__ without q's constants.
    std::string text =
        "# stan_version_major = 2\n# stan_version_minor = 36\n# stan_version_patch = 0\n"
        "# model = bernoulli_model\n# method = variational\n#   variational\n"
        "#     algorithm = meanfield (Default)\n# output\n#   file = output.csv (Default)\n"
        "lp__,log_p__,log_g__,theta\n# Stepsize adaptation complete.\n# eta = 1\n"
        "0,0,0,0.25\n";
    std::mt19937_64 rng(5);
    std::normal_distribution<double> z;
    for (int i = 0; i < 400; ++i) {
        const double e = z(rng);
        const double theta = 1.0 / (1.0 + std::exp(1.1 - 0.6 * e));
        const double log_p =
            2 * std::log(theta) + 8 * std::log(1 - theta) + std::log(theta * (1 - theta));
        text += fmt::format("0,{},{},{}\n", log_p, -0.5 * e * e, theta);
    }
    text += "#\n#  Elapsed Time: 0.01 seconds (Total)\n#\n";
    write_file("cmdstan_vb.csv", text);
    const Run r = tool("summary cmdstan_vb.csv");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "Inference for Stan model: bernoulli_model"));
    CHECK(contains(r.out, "variational (meanfield), written by CmdStan 2.36.0: 1 file, 400 draws"));
    CHECK(std::stod(row_of(r.out, "theta")[1]) == Approx(0.26).margin(0.02));
    CHECK(contains(r.out, "Pareto k-hat"));
    CHECK(contains(r.out, "(of log_p__ - log_g__, computed here)"));
}

TEST_CASE("summary: errors name the file or the option", "[cli][summary]") {
    if (!cli_built())
        return;
    check_one_line_error(tool("summary no_such.csv"), 1, "`no_such.csv`");
    check_one_line_error(tool("summary " + q(fitted()) + " -p 50,5"), 1,
                         "percentiles must be increasing");
    check_one_line_error(tool("summary " + q(fitted()) + " -p 0,50"), 1,
                         "`0` is not a number between 0 and 100");
    check_one_line_error(tool("summary " + q(fitted()) + " --sig_figs 0"), 2, "sig_figs");
    check_one_line_error(tool("summary " + q(fitted()) + " --csv_filename " + q(fitted())), 1,
                         "--csv_filename");
    write_file("other_columns.csv", "# method = optimize\nlp__,a\n1,2\n");
    check_one_line_error(tool("summary " + q(fitted()) + " other_columns.csv"), 1,
                         "has other columns than");
    write_file("only_mean.csv", "# method = variational\nlp__,log_p__,log_g__,a\n0,0,0,1\n");
    check_one_line_error(tool("summary only_mean.csv"), 1, "has no draws to summarise");
    write_file("not_csv.csv", "lp__,a\n1,x\n");
    const Run bad = tool("summary not_csv.csv");
    CHECK(bad.status == 1);
    CHECK(contains(bad.err, "advi: error: not_csv.csv:2:3: column `a`: expected a number"));
    // The summarised file is untouched by a refused --csv_filename.
    CHECK(fs::file_size(fitted()) > 1000);
}
