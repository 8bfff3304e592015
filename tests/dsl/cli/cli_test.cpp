// The `advi` tool as a user runs it: the built binary on help, bad command lines, missing
// files, syntax errors, `check` of every test program, and small fits whose CSV is read back.
// Also read_data's choice of reader, which only the tool uses so far.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/version.hpp>
#include <advi/io/cmdstan_csv.hpp>
#include <advi/io/csv_reader.hpp>
#include <advi/io/read_data.hpp>

#include "support/cli_runner.hpp"
#include "support/normal_model.hpp"

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

// The normal model with a transformed parameter of each shape, a loop the lowering vectorises
// and a generated quantity.
const std::string kNormalModel =
    normal_model({.transformed_parameters = "  real log_sigma = log(sigma);\n"
                                            "  vector[N] z = (y - mu) / sigma;\n",
                  .likelihood = "  for (n in 1:N)\n    y[n] ~ normal(mu, sigma);\n",
                  .generated_quantities = "  real y_new = normal_rng(mu, sigma);\n"});

}  // namespace

TEST_CASE("cli: the tool is built", "[cli]") {
    if (!cli_built()) {
        WARN("ADVI_BUILD_CLI is OFF: the advi tool is not tested");
        return;
    }
    INFO("expected the tool at " << advi_binary());
    CHECK(fs::exists(advi_binary()));
}

TEST_CASE("cli: --help of the tool and of every subcommand", "[cli]") {
    if (!cli_built())
        return;
    const Run top = tool("--help");
    CHECK(top.status == 0);
    CHECK(top.err.empty());
    CHECK(contains(top.out, "Usage: advi"));
    for (const char* sub : {"fit", "laplace", "graph", "program", "check"}) {
        CHECK(contains(top.out, sub));
    }
    struct Case {
        std::string sub;
        std::vector<std::string> options;
    };
    const std::vector<Case> cases = {
        {"fit",
         {"--data", "--algorithm", "--iter", "--grad-samples", "--elbo-samples", "--eta",
          "--adapt-iter", "--tol-rel-obj", "--eval-elbo", "--output-samples", "--seed", "--threads",
          "--runs", "--psis-resample", "--dadvi-draws", "--dadvi-family", "--linear-response",
          "--output", "--quiet"}                  },
        {"laplace",
         {"--data", "--mode", "--jacobian", "--iter", "--draws", "--regularization", "--seed",
          "--threads", "--output", "--quiet"}     },
        {"graph",   {"--data", "--stage", "--dot"}},
        {"program", {"--data", "--hessian"}       },
        {"check",   {"--print"}                   },
    };
    for (const Case& c : cases) {
        for (const char* flag : {"--help", "-h"}) {
            const Run r = tool(c.sub + " " + flag);
            INFO(c.sub << " " << flag);
            CHECK(r.status == 0);
            CHECK(r.err.empty());
            CHECK(contains(r.out, "Usage: advi " + c.sub));
            for (const std::string& o : c.options) {
                CHECK(contains(r.out, o));
            }
        }
    }
    const Run v = tool("--version");
    CHECK(v.status == 0);
    CHECK(v.out.rfind("advi ", 0) == 0);
}

TEST_CASE("cli: a bad command line is one line and status 2", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("m.stan", kNormalModel));
    check_one_line_error(tool(""), 2, "subcommand is required");
    check_one_line_error(tool("frobnicate"), 2, "unknown command `frobnicate`");
    check_one_line_error(tool("--frobnicate"), 2, "unknown option `--frobnicate`");
    check_one_line_error(tool("fit"), 2, "model is required");
    check_one_line_error(tool("fit " + m + " --bogus"), 2, "--bogus (see `advi fit --help`)");
    check_one_line_error(tool("fit " + m + " --iter 0"), 2,
                         "--iter: expected a positive integer, got `0`");
    check_one_line_error(tool("fit " + m + " --iter ten"), 2,
                         "--iter: expected a positive integer, got `ten`");
    check_one_line_error(tool("fit " + m + " --eta -1"), 2,
                         "--eta: expected a positive number, got `-1`");
    check_one_line_error(tool("fit " + m + " --tol-rel-obj nan"), 2, "--tol-rel-obj");
    check_one_line_error(tool("fit " + m + " --seed -1"), 2, "--seed");
    check_one_line_error(tool("fit " + m + " --threads -2"), 2, "--threads");
    check_one_line_error(tool("fit " + m + " --algorithm fast"), 2, "--algorithm");
    check_one_line_error(tool("fit " + m + " --eta 0.1 --adapt-iter 10"), 2, "excludes");
    check_one_line_error(tool("fit " + m + " --data"), 2, "--data");
    check_one_line_error(tool("graph " + m + " --stage late"), 2, "--stage");
    check_one_line_error(tool("check"), 2, "models is required");
}

TEST_CASE("cli: missing and unreadable files are one line and status 1", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("m.stan", kNormalModel));
    const std::string d = q(write_file("d.json", kNormalJson));
    check_one_line_error(tool("check missing.stan"), 1,
                         "cannot read model file `missing.stan`: No such file or directory");
    check_one_line_error(tool("fit missing.stan --data " + d), 1, "`missing.stan`");
    check_one_line_error(tool("graph missing.stan"), 1, "`missing.stan`");
    check_one_line_error(tool("program missing.stan"), 1, "`missing.stan`");
    check_one_line_error(tool("check ."), 1, "is a directory");
    check_one_line_error(tool("fit " + m + " --data missing.json"), 1, "missing.json");
    check_one_line_error(tool("fit " + m + " --data " + q(write_file("d.txt", "N = 3"))), 1,
                         "unknown format `.txt`");
    check_one_line_error(tool("fit " + m + " --data " + d + " --output no/such/dir/fit.csv"), 1,
                         "directory `no/such/dir` does not exist");
    // The data do not fit the declarations.
    check_one_line_error(tool("fit " + m + " --data " + q(write_file("n.json", R"({"N": 3})"))), 1,
                         "`y`");
    check_one_line_error(tool("graph " + m), 1, "`N`");
}

TEST_CASE("cli: a syntax error shows file:line:col, the line and a caret", "[cli]") {
    if (!cli_built())
        return;
    const fs::path bad =
        write_file("bad.stan", "data {\n  int N;\n}\nparameters {\n  real mu\n}\n");
    for (const char* sub : {"check", "graph", "program", "fit"}) {
        const Run r = tool(std::string(sub) + " " + q(bad));
        INFO(sub << ": " << r.err);
        CHECK(r.status == 1);
        CHECK(r.out.empty());
        const std::vector<std::string> l = lines(r.err);
        REQUIRE(l.size() == 3);
        CHECK(l[0] == "advi: error: " + bad.string() + ":5:10: expected `;`");
        CHECK(contains(l[1], "real mu"));
        // The caret sits under the column after `mu`.
        CHECK(l[2].find('^') == l[1].find("mu") + 2);
    }
    // An error in a data file, likewise.
    const Run r = tool("fit " + q(write_file("m.stan", kNormalModel)) + " --data " +
                       q(write_file("bad.json", "{\"N\": 3,\n \"y\": [1, 2,]}")));
    CHECK(r.status == 1);
    CHECK(lines(r.err).size() == 3);
    CHECK(contains(lines(r.err)[0], "bad.json:2:"));
}

TEST_CASE("cli: check parses every test program and prints it back", "[cli]") {
    if (!cli_built())
        return;
    std::vector<fs::path> programs;
    for (const auto& e : fs::directory_iterator(programs_dir())) {
        if (e.path().extension() == ".stan")
            programs.push_back(e.path());
    }
    REQUIRE(!programs.empty());
    for (const fs::path& p : programs) {
        INFO(p);
        const Run r = tool("check " + q(p));
        CHECK(r.status == 0);
        CHECK(r.err.empty());
        CHECK(r.out == p.string() + ": ok\n");

        const Run printed = tool("check --print " + q(p));
        CHECK(printed.status == 0);
        const std::string header = p.string() + ": ok\n";
        REQUIRE(printed.out.rfind(header, 0) == 0);
        // The canonical print parses again to the same print.
        const fs::path again = write_file("again.stan", printed.out.substr(header.size()));
        const Run r2 = tool("check --print " + q(again));
        CHECK(r2.status == 0);
        CHECK(r2.out.substr(r2.out.find('\n') + 1) == printed.out.substr(header.size()));
    }
    // --lower lowers with made-up data, and says so; what the lowering refuses is an error
    const fs::path lowers =
        write_file("lowers.stan",
                   "data { int<lower=1> N; vector[N] y; }\nparameters { real mu; }\n"
                   "model { y ~ normal(mu, 1); }\n");
    const Run l = tool("check --lower " + q(lowers));
    CHECK(l.status == 0);
    CHECK(l.out == lowers.string() + ": ok (lowered with made-up data)\n");
    const fs::path refused = write_file(
        "refused.stan", "parameters { real mu; }\nmodel { print(mu); mu ~ normal(0, 1); }\n");
    CHECK(tool("check " + q(refused)).status == 0);
    const Run lr = tool("check --lower " + q(refused));
    CHECK(lr.status == 1);
    CHECK(contains(lr.err, refused.string() + ":2:15: print of `mu`, which depends on the "
                                              "parameters"));
    // Names are checked without data.
    const fs::path undeclared = write_file(
        "undeclared.stan", "parameters {\n  real mu;\n}\nmodel {\n  x ~ normal(mu, 1);\n}\n");
    const Run u = tool("check " + q(undeclared));
    CHECK(u.status == 1);
    CHECK(lines(u.err).size() == 3);
    CHECK(u.err.rfind("advi: error: " + undeclared.string() + ":5:3:", 0) == 0);
    CHECK(contains(lines(u.err)[0], "`x`"));

    // Several files: every one is reported, the status says whether all were fine.
    const fs::path bad = write_file("bad2.stan", "model {\n  target += ;\n}\n");
    const Run all = tool("check " + q(programs[0]) + " " + q(bad) + " " + q(programs[1]));
    CHECK(all.status == 1);
    CHECK(lines(all.out).size() == 2);
    CHECK(contains(all.err, "advi: error: " + bad.string() + ":2:"));
}

TEST_CASE("cli: fit writes CmdStan's CSV with the transformed parameters", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("normal.stan", kNormalModel));
    const std::string d = q(write_file("normal.json", kNormalJson));
    const Run r = tool("fit " + m + " --data " + d +
                       " --seed 7 --output-samples 200 --output fit.csv --threads 1");
    INFO("stderr: " << r.err);
    REQUIRE(r.status == 0);
    // Progress on stderr: the ELBO table with its elapsed column, then where the output went.
    CHECK(contains(r.err, "elapsed"));
    bool row_with_time = false;
    for (const std::string& l : lines(r.err)) {
        std::istringstream in(l);
        int iter = 0;
        double elbo = 0, rel_mean = 0, rel_med = 0, seconds = -1;
        char unit = 0;
        if (in >> iter >> elbo >> rel_mean >> rel_med >> seconds >> unit && unit == 's' &&
            seconds >= 0) {
            row_with_time = true;
        }
    }
    CHECK(row_with_time);
    CHECK(contains(r.err, "Output written to fit.csv"));
    // The summary on stdout.
    CHECK(contains(r.out, "mu"));
    CHECK(contains(r.out, "sigma"));

    const advi::StanCsv csv = advi::read_stan_csv(scratch() / "fit.csv");
    std::vector<std::string> expected = {"lp__", "log_p__", "log_g__", "mu", "sigma", "log_sigma"};
    for (int n = 1; n <= 10; ++n) expected.push_back("z." + std::to_string(n));
    expected.push_back("y_new");
    CHECK(csv.columns == expected);
    REQUIRE(csv.values.rows() == 201);  // the mean, then the draws
    const Eigen::VectorXd mu = csv.column("mu"), sigma = csv.column("sigma");
    const Eigen::VectorXd log_sigma = csv.column("log_sigma"), z3 = csv.column("z.3");
    for (Eigen::Index i = 0; i < csv.values.rows(); ++i) {
        CHECK(sigma[i] > 0);
        CHECK(log_sigma[i] == Approx(std::log(sigma[i])).epsilon(1e-12));
        CHECK(z3[i] == Approx((3.8 - mu[i]) / sigma[i]).epsilon(1e-12));
    }
    // The posterior of mu sits near the sample mean 4.9 (sd about 0.22).
    CHECK(std::abs(mu[0] - 4.9) < 0.5);
    // y_new is a draw per row from normal(mu, sigma): finite, and spread like the data.
    const Eigen::VectorXd y_new = csv.column("y_new").tail(200);
    CHECK(y_new.allFinite());
    const double mean = y_new.mean();
    const double sd = std::sqrt((y_new.array() - mean).square().sum() / 199);
    CHECK(std::abs(mean - 4.9) < 0.5);
    CHECK(sd > 0.3);
    CHECK(sd < 3.0);
    std::string comments;
    for (const std::string& c : csv.comments) comments += c + "\n";
    CHECK(contains(comments, "method = variational"));
    CHECK(contains(comments, "seed = 7"));
    CHECK(contains(comments, "normal.json"));
    CHECK(contains(comments, "engaged = 1"));

    // The same seed and threads give the same file.
    const std::string first = read_file(scratch() / "fit.csv");
    const Run again = tool("fit " + m + " --data " + d +
                           " --seed 7 --output-samples 200 --output fit.csv --threads 1 -q");
    REQUIRE(again.status == 0);
    CHECK(again.err.empty());  // --quiet
    auto body = [](const std::string& text) {
        // Everything but the trailing elapsed time.
        return text.substr(0, text.find("Elapsed Time"));
    };
    CHECK(body(read_file(scratch() / "fit.csv")) == body(first));
}

TEST_CASE("cli: fit with R dump data, a given eta, full rank, default output", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("normal.stan", kNormalModel));
    const std::string d = q(write_file("normal.data.R", kNormalRdump));
    fs::remove(scratch() / "output.csv");
    const Run r = tool("fit " + m + " --data " + d +
                       " --algorithm fullrank --eta 0.1 --output-samples 50 --iter 3000 -q");
    INFO("stderr: " << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.err.empty());
    const advi::StanCsv csv = advi::read_stan_csv(scratch() / "output.csv");
    CHECK(csv.values.rows() == 51);
    std::string comments;
    for (const std::string& c : csv.comments) comments += c + "\n";
    CHECK(contains(comments, "fullrank"));
    CHECK(contains(comments, "engaged = 0"));
    CHECK(contains(comments, "eta = 0.1"));
}

TEST_CASE("cli: graph prints each stage, program the compiled program", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("normal.stan", kNormalModel));
    const std::string d = q(write_file("normal.json", kNormalJson));

    const Run model = tool("graph " + m + " --data " + d + " --stage model");
    REQUIRE(model.status == 0);
    CHECK(model.err.empty());
    CHECK(contains(model.out, "= param mu"));
    CHECK(contains(model.out, "= data y"));
    CHECK(contains(model.out, "out lp = %"));
    // The loop of the model block, vectorised, reported above the listing.
    CHECK(contains(model.out, "# "));
    CHECK(contains(model.out, "vectorised"));
    CHECK(tool("graph " + m + " --data " + d).out == model.out);  // model is the default

    const Run constrained = tool("graph " + m + " --data " + d + " --stage constrained");
    REQUIRE(constrained.status == 0);
    CHECK(contains(constrained.out, "zeta[0:1] mu"));
    CHECK(!contains(constrained.out, "param mu"));

    for (const char* stage : {"gradient", "simplified"}) {
        const Run g = tool("graph " + m + " --data " + d + " --stage " + stage);
        REQUIRE(g.status == 0);
        CHECK(contains(g.out, "out grad"));
    }

    // The H v graph: v read after zeta, H v written after the gradient.
    for (const char* stage : {"hessian", "hessian_simplified"}) {
        const Run g = tool("graph " + m + " --data " + d + " --stage " + stage);
        REQUIRE(g.status == 0);
        CHECK(contains(g.out, "out grad mu[0:1]"));
        CHECK(contains(g.out, "zeta[2:3] v mu"));
        CHECK(contains(g.out, "out hv mu[2:3]"));
    }

    const Run dot = tool("graph " + m + " --data " + d + " --dot");
    REQUIRE(dot.status == 0);
    CHECK(contains(dot.out, "digraph"));
    for (const std::string& l : lines(dot.out)) {
        if (l.rfind("digraph", 0) == 0)
            break;
        CHECK(l.rfind("// ", 0) == 0);  // the loop report as DOT comments
    }

    const Run program = tool("program " + m + " --data " + d);
    REQUIRE(program.status == 0);
    CHECK(program.err.empty());
    CHECK(contains(program.out, "program:"));
    CHECK(contains(program.out, "(y)"));

    const Run hessian = tool("program " + m + " --data " + d + " --hessian");
    REQUIRE(hessian.status == 0);
    CHECK(contains(hessian.out, "program:"));
    CHECK(contains(hessian.out, "(v mu)"));
    CHECK(hessian.out != program.out);
}

TEST_CASE("read_data picks the reader by extension", "[io][cli]") {
    const fs::path json = write_file("a.json", R"({"N": 2, "y": [1.5, 2.5]})");
    const fs::path rdump = write_file("b.data.R", "M <- 3L\nx <- c(1, 2, 3)\n");
    const fs::path csv = write_file("c.csv", "u,v\n1,2.5\n3,4.5\n");
    const fs::path rdump2 = write_file("e.rdump", "K <- 4\n");
    CHECK(advi::read_data(json).at("y").reals == std::vector<double>{1.5, 2.5});
    CHECK(advi::read_data(rdump).at("M").as_int() == 3);
    CHECK(advi::read_data(csv).at("v").reals == std::vector<double>{2.5, 4.5});
    CHECK(advi::read_data(rdump2).at("K").as_int() == 4);

    const std::vector<fs::path> files = {json, rdump, csv};
    const advi::DataTable all = advi::read_data(files);
    CHECK(all.names() == std::vector<std::string>{"N", "y", "M", "x", "u", "v"});

    const std::vector<fs::path> twice = {json, json};
    CHECK_THROWS_WITH(advi::read_data(twice), Catch::Contains("`N`") && Catch::Contains("twice"));
    CHECK_THROWS_AS(advi::read_data(write_file("d.txt", "N <- 1\n")), advi::DataError);
    CHECK_THROWS_WITH(advi::read_data(write_file("d.txt", "N <- 1\n")),
                      Catch::Contains("unknown format `.txt`"));
    CHECK_THROWS_WITH(advi::read_data(write_file("noext", "N <- 1\n")),
                      Catch::Contains("without an extension"));
    CHECK_THROWS_AS(advi::read_data(scratch() / "missing.json"), advi::DataError);
    const std::vector<fs::path> none;
    CHECK(advi::read_data(none).empty());
}

TEST_CASE("cli: Ctrl-C stops a fit cleanly and writes what it has, marked not converged", "[cli]") {
    if (!cli_built())
        return;
    const fs::path model = write_file("int.stan", kNormalModel);
    const fs::path data = write_file("int.json", kNormalJson);
    const fs::path out = scratch() / "int.out", err = scratch() / "int.err";
    const fs::path csv = scratch() / "int.csv";
    // A tolerance no fit reaches under Stan's rule and a billion iterations: only the
    // interrupt ends it.
    const pid_t pid =
        spawn({"fit", model.string(), "--data", data.string(), "--tol-rel-obj", "1e-15",
               "--convergence", "stan", "--iter", "1000000000", "--output", csv.string()},
              out, err);
    REQUIRE(pid > 0);
    // The handler is installed before the fit starts; its table header comes after.
    REQUIRE(wait_for(err, "Begin stochastic gradient ascent", 30));
    ::usleep(200000);
    REQUIRE(::kill(pid, SIGINT) == 0);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    const std::string e = read_file(err);
    INFO("stderr: " << e);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    CHECK(contains(e, "interrupted"));
    const std::string text = read_file(csv);
    CHECK(contains(text, "# converged = 0"));
    CHECK(contains(text, "# convergence: interrupted after "));
    const advi::StanCsv parsed = advi::read_stan_csv(csv);
    CHECK(parsed.values.rows() == 1001);  // q's mean, then 1000 draws
    CHECK(parsed.values.allFinite());
    CHECK(contains(read_file(out), "not converged: interrupted"));
}

TEST_CASE("cli: a fit killed at any moment leaves the previous output or a complete one", "[cli]") {
    if (!cli_built())
        return;
    const fs::path model = write_file("kill.stan", kNormalModel);
    const fs::path data = write_file("kill.json", kNormalJson);
    const fs::path csv = scratch() / "kill.csv";
    const std::string previous = "previous output\n";
    int complete = 0, kept = 0;
    // Many draws make the report and the write take a while; the kills land across the fit,
    // the report and the write.
    for (int delay_ms : {20, 60, 150, 300, 500, 800, 1200}) {
        std::ofstream(csv) << previous;
        const pid_t pid = spawn({"fit", model.string(), "--data", data.string(), "--output-samples",
                                 "200000", "--output", csv.string(), "--quiet"},
                                scratch() / "kill.out", scratch() / "kill.err");
        REQUIRE(pid > 0);
        ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
        ::kill(pid, SIGKILL);
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        const std::string text = read_file(csv);
        INFO("killed after " << delay_ms << " ms");
        if (text == previous) {
            ++kept;
        } else {
            // A complete file: CmdStan's trailer ends it, and every row is there.
            CHECK(contains(text, "#  Elapsed Time: "));
            const advi::StanCsv parsed = advi::read_stan_csv(csv);
            CHECK(parsed.values.rows() == 200001);
            ++complete;
        }
    }
    INFO(kept << " kept, " << complete << " complete");
    CHECK(kept + complete == 7);
    CHECK(kept > 0);  // at least the earliest kill lands before the write
}

TEST_CASE(
    "cli: --sig-figs rounds every method's values as CmdStan's sig_figs; the header names "
    "advi's version",
    "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("sig.stan", kNormalModel));
    const std::string d = q(write_file("sig.json", kNormalJson));
    for (const std::string method : {"fit", "optimize", "laplace", "pathfinder"}) {
        INFO(method);
        const std::string common = method + " " + m + " --data " + d + " --seed 3 -q";
        const Run exact = tool(common + " --output exact.csv");
        const Run rounded = tool(common + " --sig-figs 3 --output rounded.csv");
        INFO(exact.err << rounded.err);
        REQUIRE(exact.status == 0);
        REQUIRE(rounded.status == 0);
        const advi::StanCsv a = advi::read_stan_csv(scratch() / "exact.csv");
        const advi::StanCsv b = advi::read_stan_csv(scratch() / "rounded.csv");
        REQUIRE(a.values.rows() == b.values.rows());
        REQUIRE(a.values.cols() == b.values.cols());
        // each value is the exact one rounded to 3 significant digits
        for (Eigen::Index i = 0; i < a.values.rows(); ++i) {
            for (Eigen::Index j = 0; j < a.values.cols(); ++j) {
                const double x = a.values(i, j);
                CHECK(b.values(i, j) == std::stod(fmt::format("{:.3g}", x)));
            }
        }
        std::string header;
        for (const std::string& c : b.comments) header += c + "\n";
        CHECK(contains(header, "sig_figs = 3"));
        CHECK(b.comments.at(0).find("advi_version = ") != std::string::npos);
        CHECK(b.comments.at(0).find(std::string(advi::version())) != std::string::npos);
    }
    check_one_line_error(tool("fit " + m + " --data " + d + " --sig-figs 19"), 2,
                         "--sig-figs: 19 not in");
}

TEST_CASE("cli: --refresh thins the ELBO table as CmdStan's refresh; 0 shows none", "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("refresh.stan", kNormalModel));
    const std::string d = q(write_file("refresh.json", kNormalJson));
    // the table's rows: lines that start with an iteration number
    auto rows = [](const std::string& err) {
        std::vector<int> iters;
        for (const std::string& l : lines(err)) {
            std::istringstream in(l);
            int iter = 0;
            std::string rest;
            if (in >> iter >> rest && iter > 0)
                iters.push_back(iter);
        }
        return iters;
    };
    const std::string common = "fit " + m + " --data " + d +
                               " --seed 2 --start init --eta 0.1 --iter 3000 --tol-rel-obj 1e-9 "
                               "--convergence stan --output refresh.csv";
    const Run every = tool(common);
    const Run thinned = tool(common + " --refresh 1000");
    const Run none = tool(common + " --refresh 0");
    INFO(every.err << thinned.err << none.err);
    REQUIRE(every.status == 0);
    REQUIRE(thinned.status == 0);
    REQUIRE(none.status == 0);
    const std::vector<int> all = rows(every.err);
    REQUIRE(all.size() == 30);  // every eval_elbo = 100 iterations
    CHECK(rows(thinned.err) == std::vector<int>{1000, 2000, 3000});
    CHECK(rows(none.err).empty());
    CHECK_FALSE(contains(none.err, "delta_ELBO_mean"));
    // the fit itself is the same
    CHECK(read_file(scratch() / "refresh.csv").size() > 0);
    check_one_line_error(tool(common + " --refresh -2"), 2, "--refresh");
}

TEST_CASE("cli: --diagnostic-file writes the ELBO trace as CSV, a row per ELBO evaluation",
          "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("diag.stan", kNormalModel));
    const std::string d = q(write_file("diag.json", kNormalJson));
    for (const std::string rule : {"auto", "stan"}) {
        INFO(rule);
        const Run r = tool("fit " + m + " --data " + d + " --seed 4 -q --convergence " + rule +
                           " --output diag_fit.csv --diagnostic-file diag.csv");
        INFO(r.err);
        REQUIRE(r.status == 0);
        const std::vector<std::string> rows = lines(read_file(scratch() / "diag.csv"));
        REQUIRE(rows.size() >= 2);
        CHECK(rows[0] ==
              "iter,time_in_seconds,ELBO,ELBO_mcse,gain,delta_ELBO_mean,delta_ELBO_med,eta");
        // the fit's iterations and its ELBO trace: every eval_elbo (100) iterations, time
        // running forward, the ELBO finite; the rule's own statistics filled, the other's nan
        const advi::StanCsv fit = advi::read_stan_csv(scratch() / "diag_fit.csv");
        std::string trailer;
        for (const std::string& c : fit.comments) trailer += c + "\n";
        double last_time = -1;
        int last_iter = 0;
        for (std::size_t k = 1; k < rows.size(); ++k) {
            std::vector<std::string> f;
            std::stringstream in(rows[k]);
            for (std::string cell; std::getline(in, cell, ',');) f.push_back(cell);
            REQUIRE(f.size() == 8);
            const int iter = std::stoi(f[0]);
            CHECK(iter % 100 == 0);
            CHECK(iter > last_iter);
            CHECK(std::stod(f[1]) >= last_time);
            CHECK(std::isfinite(std::stod(f[2])));
            CHECK(std::stod(f[7]) > 0);
            if (rule == "auto") {
                CHECK(std::stod(f[3]) > 0);  // the iterate average's Monte Carlo error
                CHECK(f[5] == "nan");
            } else {
                CHECK(f[3] == "nan");
                CHECK(std::isfinite(std::stod(f[5])));
            }
            last_iter = iter;
            last_time = std::stod(f[1]);
        }
        CHECK(contains(trailer, "iterations = " + std::to_string(last_iter)));
    }
    check_one_line_error(
        tool("fit " + m + " --data " + d + " --output same.csv --diagnostic-file same.csv"), 1,
        "--diagnostic-file `same.csv` is the --output file");
}
