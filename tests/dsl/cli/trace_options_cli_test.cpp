// --diagnostic-file and --refresh on the methods besides fit (whose ELBO trace cli_test.cpp
// checks): optimize's and laplace's search trace and pathfinder's per-path trace read back and
// checked against the run (lp rising to the CSV's mode, the last row's lp the mode's, the
// gradient evaluations counted as the trailer counts them), --refresh's progress rows, and the
// header's output block naming both.
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/normal_model.hpp"

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

std::string model_and_data() {
    const fs::path model = write_file("trace_normal.stan", normal_model());
    write_file("trace_normal.json", kNormalJson);
    return q(model) + " --data trace_normal.json";
}

}  // namespace

TEST_CASE("trace options: optimize's search as CSV, progress rows at --refresh", "[cli][trace]") {
    if (!cli_built())
        return;
    const Run r = tool("optimize " + model_and_data() +
                       " --output trace_opt.csv --diagnostic-file trace_opt_diag.csv --refresh 2");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const advi::StanCsv diag = advi::read_stan_csv(scratch() / "trace_opt_diag.csv");
    CHECK(diag.columns == std::vector<std::string>{"iter", "time_in_seconds", "lp__", "grad_norm",
                                                   "step_norm", "alpha", "gradient_evaluations"});
    const Eigen::Index n = diag.values.rows();
    REQUIRE(n >= 3);
    // Iterations 0, 1, 2, ...; lp of the last row is the mode's (the CSV's lp__).
    for (Eigen::Index i = 0; i < n; ++i) CHECK(diag.values(i, 0) == static_cast<double>(i));
    const advi::StanCsv mode = advi::read_stan_csv(scratch() / "trace_opt.csv");
    // (the CSV's lp__ is the exact-Hessian program's value: equal to rounding)
    CHECK(diag.values(n - 1, 2) == Approx(mode.column("lp__")[0]).epsilon(1e-9));
    CHECK(diag.values(n - 1, 2) >= diag.values(0, 2));
    CHECK(diag.values(0, 4) == 0.0);  // no step at the start
    // The gradient evaluations so far, rising; the run's total also counts what came after
    // the last accepted step (the exact-Hessian check of the mode at least once).
    const std::string text = read_file(scratch() / "trace_opt.csv");
    const auto at = text.find("#   gradient_evaluations = ");  // the header's result block
    REQUIRE(at != std::string::npos);
    const long total = std::stol(text.substr(at + 27));
    CHECK(diag.values(n - 1, 6) < static_cast<double>(total));
    CHECK(diag.values(n - 1, 6) >= diag.values(n - 2, 6));
    // The header's output block names the diagnostic file and the refresh.
    CHECK(contains(text, "#   diagnostic_file = trace_opt_diag.csv\n#   refresh = 2\n"));
    // --refresh 2: CmdStan's progress rows at iterations 0, 2, 4, ...
    CHECK(contains(r.err, "Iter"));
    CHECK(contains(r.err, "log prob"));
    int rows = 0;
    for (const std::string& line : lines(r.err)) {
        std::istringstream in(line);
        int iter = -1;
        if (in >> iter && iter >= 0) {
            CHECK(iter % 2 == 0);
            ++rows;
        }
    }
    CHECK(rows == (n - 1) / 2 + 1);
    // Without --refresh, no rows; the header says the default.
    const Run quiet = tool("optimize " + model_and_data() + " --output trace_opt2.csv");
    CHECK(!contains(quiet.err, "log prob"));
    CHECK(contains(read_file(scratch() / "trace_opt2.csv"),
                   "#   diagnostic_file =  (Default)\n#   refresh = 0 (Default)\n"));
}

TEST_CASE("trace options: laplace's mode search, and none with --mode", "[cli][trace]") {
    if (!cli_built())
        return;
    const Run r = tool("laplace " + model_and_data() +
                       " --output trace_lap.csv --diagnostic-file trace_lap_diag.csv -q");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const advi::StanCsv diag = advi::read_stan_csv(scratch() / "trace_lap_diag.csv");
    REQUIRE(diag.values.rows() >= 3);
    CHECK(diag.values(0, 0) == 0.0);
    CHECK(diag.columns[2] == "lp__");
    // With the mode given there is no search: the file says so and has no rows.
    REQUIRE(tool("optimize " + model_and_data() + " --jacobian 1 --output trace_mode.csv").status ==
            0);
    const Run given = tool("laplace " + model_and_data() +
                           " --mode trace_mode.csv --output trace_lap2.csv --diagnostic-file "
                           "trace_lap2_diag.csv -q");
    REQUIRE(given.status == 0);
    const std::string text = read_file(scratch() / "trace_lap2_diag.csv");
    CHECK(contains(text, "# the mode was read from trace_mode.csv: no search, no rows\n"));
    CHECK(advi::read_stan_csv(scratch() / "trace_lap2_diag.csv").values.rows() == 0);
}

TEST_CASE("trace options: pathfinder's paths, each iterate's ELBO", "[cli][trace]") {
    if (!cli_built())
        return;
    const Run r = tool("pathfinder " + model_and_data() +
                       " --output trace_pf.csv --diagnostic-file trace_pf_diag.csv --refresh 3");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const advi::StanCsv diag = advi::read_stan_csv(scratch() / "trace_pf_diag.csv");
    CHECK(diag.columns == std::vector<std::string>{"path", "iter", "time_in_seconds", "lp__",
                                                   "grad_norm", "step_norm", "alpha", "ELBO",
                                                   "ELBO_mcse", "gradient_evaluations"});
    const Eigen::VectorXd path = diag.column("path");
    CHECK(path.minCoeff() == 1.0);
    CHECK(path.maxCoeff() == 4.0);  // the default 4 paths
    // The best ELBO of path 1 is the one its summary line reports.
    double best = -INFINITY;
    for (Eigen::Index i = 0; i < diag.values.rows(); ++i) {
        if (path[i] == 1.0) {
            if (diag.values(i, 1) == 0.0)
                CHECK(std::isnan(diag.values(i, 7)));  // no approximation at the start
            else if (std::isfinite(diag.values(i, 7))) {
                best = std::max(best, diag.values(i, 7));
                CHECK(diag.values(i, 8) > 0.0);  // its Monte Carlo error
            }
        }
    }
    const std::string csv = read_file(scratch() / "trace_pf.csv");
    CHECK(contains(csv, fmt::format("ELBO {}", best)));
    // --refresh 3: a path's progress lines at iterations 0, 3, 6, ...
    CHECK(contains(r.err, "path 1:  iteration    3:"));
    CHECK(!contains(r.err, "path 1:  iteration    1:"));
    CHECK(contains(csv, "#   refresh = 3\n"));
}

TEST_CASE("trace options: the diagnostic file is refused where it would destroy a file",
          "[cli][trace]") {
    if (!cli_built())
        return;
    for (const char* method : {"optimize", "laplace", "pathfinder"}) {
        INFO(method);
        check_one_line_error(tool(fmt::format("{} {} --output same.csv --diagnostic-file same.csv",
                                              method, model_and_data())),
                             1, "--diagnostic-file `same.csv` is the --output file");
        check_one_line_error(
            tool(fmt::format("{} {} --output x.csv --diagnostic-file trace_normal.json", method,
                             model_and_data())),
            1, "--diagnostic-file `trace_normal.json` is the data file");
        CHECK(contains(read_file(scratch() / "trace_normal.json"), "\"N\": 10"));
    }
}
