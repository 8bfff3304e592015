// CmdStan's variational CSV: Stan's flattened column names, a fit written and read back (names,
// the mean row, the draws, log_p__ and log_g__, the comments around them), exact round trip of
// numbers, and a file write that never leaves a partial file.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/fit/cmdstan_output.hpp>
#include <advi/io/cmdstan_csv.hpp>
#include <advi/io/csv_reader.hpp>

#include "support/csv_comments.hpp"
#include "support/temp_dir.hpp"

#include <unistd.h>

namespace advi {
namespace {

namespace fs = std::filesystem;
using advi::test::has_comment;
using advi::test::read_text;
using advi::test::TempDir;
using Catch::Matchers::Contains;
using Names = std::vector<std::string>;

Names names(std::string_view name, std::vector<std::int64_t> dims) {
    return stan_column_names(name, dims);
}

bool contains_text(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

// The small model of these tests: a vector, a 2x3 matrix, a simplex and a positive scalar.
struct SmallModel {
    Eigen::VectorXd w = (Eigen::VectorXd(3) << 4.0, 9.0, 14.0).finished();
    Model m;
    SmallModel() {
        auto beta = m.param("beta", normal(0, 1), 2);
        auto Sigma = m.param("Sigma", normal(0, 1), 2, 3);
        auto wd = m.data("w", w);
        auto theta = m.param("theta", uniform(0, 1), 3, {.support = Support::simplex()});
        auto sigma = m.param("sigma", lognormal(0, 0.5));
        m.target_add(dot(wd, log(theta)));
        (void)beta;
        (void)Sigma;
        (void)sigma;
    }
};

ExtraBlock y_rep_block(Eigen::Index draws) {
    // an array[2] vector[3] as the Stan front end would give it: column-major, the array
    // index first (fastest)
    ExtraBlock b{
        .name = "y_rep", .dims = {2, 3}
    };
    b.at_mean = Eigen::VectorXd::LinSpaced(6, 0.5, 5.5);
    b.draws.resize(draws, 6);
    for (Eigen::Index i = 0; i < draws; ++i)
        for (Eigen::Index j = 0; j < 6; ++j) b.draws(i, j) = i + j / 7.0;
    return b;
}

}  // namespace

TEST_CASE("stan_column_names: scalars, vectors, matrices and arrays, column-major",
          "[io][cmdstan_csv]") {
    CHECK(names("lp", {}) == Names{"lp"});
    CHECK(names("beta", {3}) == Names{"beta.1", "beta.2", "beta.3"});
    CHECK(names("Sigma", {2, 3}) ==
          Names{"Sigma.1.1", "Sigma.2.1", "Sigma.1.2", "Sigma.2.2", "Sigma.1.3", "Sigma.2.3"});
    // array[2] vector[3] theta: the array index first, and first fastest like every index
    CHECK(names("theta", {2, 3}).front() == "theta.1.1");
    CHECK(names("theta", {2, 3})[1] == "theta.2.1");
    // array[2, 3, 4] real foo: 24 columns, first index fastest, last slowest
    const Names foo = names("foo", {2, 3, 4});
    REQUIRE(foo.size() == 24);
    CHECK(Names(foo.begin(), foo.begin() + 6) ==
          Names{"foo.1.1.1", "foo.2.1.1", "foo.1.2.1", "foo.2.2.1", "foo.1.3.1", "foo.2.3.1"});
    CHECK(foo[6] == "foo.1.1.2");
    CHECK(foo.back() == "foo.2.3.4");
    // element (i, j, k) (0-based) sits at i + 2 j + 6 k, as in a column-major buffer
    CHECK(foo[1 + 2 * 2 + 6 * 3] == "foo.2.3.4");
    CHECK(foo[0 + 2 * 1 + 6 * 2] == "foo.1.2.3");
    // indices past 9 are numbers, not digits
    CHECK(names("v", {12})[11] == "v.12");
    CHECK(names("e", {0}).empty());
    CHECK(names("e", {3, 0}).empty());
    CHECK_THROWS_AS(names("bad", {2, -1}), ShapeError);
    CHECK_THROWS_WITH(names("bad", {2, -1}),
                      "column names of `bad`: dims 2x-1 has a negative size");
}

TEST_CASE("a fit written as CmdStan's variational CSV reads back exactly", "[io][cmdstan_csv]") {
    SmallModel sm;
    const Options opts{.seed = 4, .output_samples = 200};
    Fit f = fit(sm.m, opts);
    INFO(f.summary());
    TempDir dir("fit");
    const fs::path path = dir.path / "fit.csv";
    const Eigen::Index n = f.theta_draws().rows();
    REQUIRE(n == 200);

    std::vector<ExtraBlock> extra{y_rep_block(n)};
    CsvOutput out = cmdstan_output(
        f, opts, extra,
        cmdstan_settings(
            opts, {.model = "small_model", .data_file = "d.json", .output_file = path.string()}));
    write_cmdstan_csv_file(path, out);
    CHECK(dir.files() == std::vector<std::string>{"fit.csv"});  // no temporary left behind
    const StanCsv csv = read_stan_csv(path);

    // names: the three method columns, the latents in declaration order, the extra block
    Names expected{"lp__", "log_p__", "log_g__", "beta.1", "beta.2"};
    for (int j = 1; j <= 3; ++j)
        for (int i = 1; i <= 2; ++i) expected.push_back(fmt::format("Sigma.{}.{}", i, j));
    for (const char* s : {"theta.1", "theta.2", "theta.3", "sigma"}) expected.push_back(s);
    for (int j = 1; j <= 3; ++j)
        for (int i = 1; i <= 2; ++i) expected.push_back(fmt::format("y_rep.{}.{}", i, j));
    CHECK(csv.columns == expected);
    REQUIRE(csv.values.rows() == n + 1);
    CHECK(csv.columns[6] == "Sigma.2.1");

    // the first row: zeros for lp__, log_p__, log_g__ (as CmdStan), then T^-1(mu) exactly
    CHECK(csv.values(0, 0) == 0.0);
    CHECK(csv.values(0, 1) == 0.0);
    CHECK(csv.values(0, 2) == 0.0);
    Eigen::Index at = 3;
    for (const char* name : {"beta", "Sigma", "theta", "sigma"}) {
        const Eigen::VectorXd mu = f.at_mu(name);
        const Eigen::MatrixXd d = f.draws(name);
        INFO(name);
        CHECK((csv.values.row(0).segment(at, mu.size()).transpose().array() == mu.array()).all());
        CHECK((csv.values.block(1, at, n, d.cols()).array() == d.array()).all());
        at += mu.size();
    }
    // Sigma.2.1 is element (1, 0) of the matrix: flat index 1 column-major
    CHECK((csv.column("Sigma.2.1").tail(n).array() == f.draws("Sigma").col(1).array()).all());
    CHECK((csv.column("Sigma.1.2").tail(n).array() == f.draws("Sigma").col(2).array()).all());
    // the simplex: positive, sums to 1 in every row, the mean row included
    Eigen::MatrixXd simplex(n + 1, 3);
    for (int k = 0; k < 3; ++k) simplex.col(k) = csv.column(fmt::format("theta.{}", k + 1));
    CHECK((simplex.rowwise().sum().array() - 1.0).abs().maxCoeff() < 1e-12);
    CHECK(simplex.minCoeff() > 0.0);
    // the extra block as given
    CHECK((csv.values.row(0).tail(6).transpose().array() == extra[0].at_mean.array()).all());
    CHECK((csv.values.bottomRightCorner(n, 6).array() == extra[0].draws.array()).all());

    // lp__ is 0 in every row (CmdStan's variational output); log_p__ and log_g__ are the fit's
    CHECK((csv.column("lp__").array() == 0.0).all());
    CHECK((csv.column("log_p__").tail(n).array() == f.log_p().array()).all());
    CHECK((csv.column("log_g__").tail(n).array() == f.log_g().array()).all());
    // log_p__ - log_g__ averages to the ELBO (Monte Carlo error of both estimates)
    const Eigen::VectorXd w = csv.column("log_p__").tail(n) - csv.column("log_g__").tail(n);
    const double sd = std::sqrt((w.array() - w.mean()).square().sum() / (n - 1));
    CHECK(std::abs(w.mean() - f.result().elbo_trace.back()) <
          4.0 * sd * std::sqrt(1.0 / n + 1.0 / opts.elbo_samples));

    // settings above, CmdStan's names and indentation
    for (const char* line : {"# model = small_model",
                             "# method = variational",
                             "#   variational",
                             "#     algorithm = meanfield (Default)",
                             "#       meanfield",
                             "#     iter = 10000 (Default)",
                             "#     grad_samples = 1 (Default)",
                             "#     elbo_samples = 100 (Default)",
                             "#     eta = 1 (Default)",
                             "#     adapt",
                             "#       engaged = 1 (Default)",
                             "#       iter = 50 (Default)",
                             "#     tol_rel_obj = 0.01 (Default)",
                             "#     eval_elbo = 100 (Default)",
                             "#     output_samples = 200",
                             "#     convergence = auto (Default)",
                             "#     start = auto (Default)",
                             "#     runs = 1 (Default)",
                             "#     psis_resample = 0 (Default)",
                             "# id = 1 (Default)",
                             "# data",
                             "#   file = d.json",
                             "# random",
                             "#   seed = 4",
                             "# output"}) {
        CHECK(has_comment(csv, line));
    }
    CHECK(has_comment(csv, "#   file = " + path.string()));
    // trailing comments
    const AdviResult& r = f.result();
    CHECK(has_comment(csv, fmt::format("# eta = {}", r.eta)));
    CHECK(has_comment(csv, fmt::format("# iterations = {}", r.iterations)));
    CHECK(has_comment(csv, fmt::format("# ELBO = {}", r.elbo)));
    CHECK(has_comment(csv, fmt::format("# converged = {}", r.converged ? 1 : 0)));
    CHECK(has_comment(csv, "# convergence: " + r.stop_reason));
    CHECK(has_comment(csv, fmt::format("# log_p__ at mean = {}", f.log_p_at_mu())));
    CHECK(has_comment(csv, fmt::format("# log_g__ at mean = {}", f.log_g_at_mu())));
    CHECK(has_comment(csv, fmt::format("# dropped_draws = {}", r.dropped_draws)));
    CHECK(has_comment(csv, "# nonfinite_log_p_draws = 0"));
    CHECK(std::any_of(csv.comments.begin(), csv.comments.end(), [](const std::string& c) {
        return c.starts_with("#  Elapsed Time: ") && c.ends_with(" seconds (Total)");
    }));

    // the layout CmdStan's readers scan: settings, names, the adaptation block, the mean row;
    // the trailer after the last row
    const std::string text = read_text(path);
    const std::string names_line = fmt::format("{}\n", fmt::join(expected, ","));
    const std::size_t p = text.find(names_line);
    REQUIRE(p != std::string::npos);
    CHECK(text.rfind("# ", p) != std::string::npos);
    CHECK(text.substr(p + names_line.size())
              .starts_with(fmt::format("# Stepsize adaptation complete.\n# eta = {}\n0,0,0,{},",
                                       r.eta, f.at_mu("beta")[0])));
    CHECK(text.ends_with(" seconds (Total)\n#\n"));
}

TEST_CASE("full-rank and a given eta: the settings say so, the eta line is in the trailer",
          "[io][cmdstan_csv]") {
    SmallModel sm;
    const Options opts{.family = Family::FullRank,
                       .seed = 6,
                       .adapt_engaged = false,
                       .eta = 0.1,
                       .output_samples = 50};
    Fit f = fit(sm.m, opts);
    std::ostringstream os;
    write_cmdstan_csv(os, cmdstan_output(f, opts));
    const StanCsv csv = read_stan_csv(os.str(), "fit.csv");
    CHECK(has_comment(csv, "#     algorithm = fullrank"));
    CHECK(has_comment(csv, "#       fullrank"));
    CHECK(has_comment(csv, "#     eta = 0.1"));
    CHECK(has_comment(csv, "#       engaged = 0"));
    CHECK(has_comment(csv, "# model = model"));
    CHECK(has_comment(csv, "#   file =  (Default)"));
    CHECK_FALSE(has_comment(csv, "# Stepsize adaptation complete."));
    // no comment between the names and the mean row without adaptation (cmdstanpy reads the
    // line after the names as the mean row unless it is the adaptation block)
    const std::string text = os.str();
    const std::size_t names_end = text.find("\n", text.find("lp__,log_p__,log_g__"));
    CHECK(text.substr(names_end + 1).starts_with("0,0,0,"));
    // readers that look for eta after "Stepsize adaptation" find it in the trailer
    const auto it =
        std::find(csv.comments.begin(), csv.comments.end(), "# Stepsize adaptation not engaged.");
    REQUIRE(it != csv.comments.end());
    REQUIRE(it + 1 != csv.comments.end());
    CHECK(*(it + 1) == "# eta = 0.1");
    CHECK(csv.values.rows() == 51);
    CHECK((csv.values.row(0).segment(3, 2).transpose().array() == f.at_mu("beta").array()).all());
}

// `advi fit --start init --runs K --psis-resample` change the draws as much as CmdStan's
// options do, so the settings header says so in CmdStan's way: indented under the variational
// block, "(Default)" when not given, read by cmdstanpy's scan_config as keys of their own that
// leave CmdStan's keys as they were.
TEST_CASE("the settings header names the start, the runs and the PSIS resampling",
          "[io][cmdstan_csv]") {
    const Options given{.seed = 12, .start = StartFrom::Init};
    const CsvRunInfo run{.model = "m_model", .data_file = "d.json", .output_file = "out.csv"};
    const std::vector<std::string> h =
        cmdstan_settings(given, run, {.runs = 4, .psis_resample = true});
    const auto at = [&](std::string_view line) {
        return std::find(h.begin(), h.end(), line) - h.begin();
    };
    const auto n = static_cast<std::ptrdiff_t>(h.size());
    CHECK(at("    start = init") < n);
    CHECK(at("    runs = 4") < n);
    CHECK(at("    psis_resample = 1") < n);
    // In the variational block, after CmdStan's own settings and before "id".
    CHECK(at("  variational") < at("    output_samples = 1000 (Default)"));
    CHECK(at("    output_samples = 1000 (Default)") < at("    start = init"));
    CHECK(at("    psis_resample = 1") < at("id = 1 (Default)"));
    const std::vector<std::string> d = cmdstan_settings(Options{});
    CHECK(std::find(d.begin(), d.end(), "    start = auto (Default)") != d.end());
    CHECK(std::find(d.begin(), d.end(), "    runs = 1 (Default)") != d.end());
    CHECK(std::find(d.begin(), d.end(), "    psis_resample = 0 (Default)") != d.end());
    CHECK(d.size() == h.size());

    // The file as cmdstanpy reads its settings: the comment lines above the column names.
    CsvOutput out{
        .header = h,
        .columns = {"lp__", "log_p__",                 "log_g__",        "mu"},
        .adaptation = {"Stepsize adaptation complete.",      "eta = 0.1"},
        .mean_row = Eigen::Vector4d(0, 0, 0, 1.5),
        .draws = Eigen::RowVector4d(0, -1.25, -0.5, 1.75),
        .trailer = {"",     "runs = 4",                "draws = psis_resampled (1 distinct of 1)"}
    };
    std::ostringstream os;
    write_cmdstan_csv(os, out);
    const std::map<std::string, std::string> config = advi::test::cmdstanpy_config(os.str());
    CHECK(config.at("start") == "init");
    CHECK(config.at("runs") == "4");
    CHECK(config.at("psis_resample") == "1");
    // CmdStan's keys as before; the trailer (after the rows) is not read as settings.
    CHECK(config.at("algorithm") == "meanfield");
    CHECK(config.at("output_samples") == "1000");
    CHECK(config.at("seed") == "12");
    CHECK(config.at("data_file") == "d.json");
    CHECK(config.at("convergence") == "auto");
    CHECK(config.count("draws") == 0);
    // Written with their defaults, the same keys read as the defaults' values.
    out.header = cmdstan_settings(Options{}, run);
    std::ostringstream os2;
    write_cmdstan_csv(os2, out);
    const std::map<std::string, std::string> plain = advi::test::cmdstanpy_config(os2.str());
    CHECK(plain.at("start") == "auto");
    CHECK(plain.at("runs") == "1");
    CHECK(plain.at("psis_resample") == "0");
    CHECK(plain.size() == config.size());
}

// After a signal during the eta search no eta was chosen and no iteration run: the file must
// not claim "Stepsize adaptation complete. eta = 1". cmdstanpy reads the line after the names as
// that block or else as the mean row, so the block is left out and the trailer says what
// happened, with "eta = nan" on the line after it.
TEST_CASE("an interrupted eta search: no adaptation block, the trailer says so",
          "[io][cmdstan_csv]") {
    SmallModel sm;
    std::atomic<bool> stop{true};
    const Options opts{.seed = 6, .output_samples = 20, .interrupt = &stop};
    Fit f = fit(sm.m, opts);
    REQUIRE(f.result().eta_search_interrupted);
    CHECK(std::isnan(f.result().eta));
    std::ostringstream os;
    write_cmdstan_csv(os, cmdstan_output(f, opts));
    const StanCsv csv = read_stan_csv(os.str(), "fit.csv");
    CHECK_FALSE(has_comment(csv, "# Stepsize adaptation complete."));
    const std::string text = os.str();
    const std::size_t names_end = text.find("\n", text.find("lp__,log_p__,log_g__"));
    CHECK(text.substr(names_end + 1).starts_with("0,0,0,"));
    const auto it = std::find(csv.comments.begin(), csv.comments.end(),
                              "# Stepsize adaptation interrupted after 0 trial step size(s): no "
                              "eta was chosen and no iteration was run (the draws are from the "
                              "initial approximation).");
    REQUIRE(it != csv.comments.end());
    REQUIRE(it + 1 != csv.comments.end());
    CHECK(*(it + 1) == "# eta = nan");
    CHECK(has_comment(csv, "# iterations = 0"));
    CHECK(has_comment(csv, "# converged = 0"));
    CHECK_THAT(f.summary(1),
               Contains("0 iterations, eta none (search interrupted), not converged"));
    // The search completed: the block, with the eta the iterations used.
    stop = false;
    Fit g = fit(sm.m, opts);
    REQUIRE_FALSE(g.result().eta_search_interrupted);
    std::ostringstream os2;
    write_cmdstan_csv(os2, cmdstan_output(g, opts));
    const StanCsv csv2 = read_stan_csv(os2.str(), "fit.csv");
    const auto it2 =
        std::find(csv2.comments.begin(), csv2.comments.end(), "# Stepsize adaptation complete.");
    REQUIRE(it2 != csv2.comments.end());
    CHECK(*(it2 + 1) == fmt::format("# eta = {}", g.result().eta));
    CHECK(g.result().eta > 0.0);
    CHECK_FALSE(contains_text(os2.str(), "interrupted"));
}

TEST_CASE("numbers round trip exactly, non-finite values as nan, inf, -inf", "[io][cmdstan_csv]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CsvOutput out;
    out.header = {"model = numbers", "", "  indented"};
    out.columns = {"a", "b", "c"};
    out.mean_row = Eigen::Vector3d(0.1, 1.0 / 3.0, -2.0 / 3.0);
    out.draws.resize(4, 3);
    out.draws << 1e-300, 5e-324, std::numeric_limits<double>::max(),     //
        -std::numeric_limits<double>::max(), 123456789.123456789, 1e16,  //
        inf, -inf, nan,                                                  //
        -nan, 0.0, 2.0;
    out.trailer = {"done", "two\nlines"};
    std::ostringstream os;
    write_cmdstan_csv(os, out);
    const std::string text = os.str();
    CHECK(text.starts_with("# model = numbers\n#\n#   indented\na,b,c\n"));
    CHECK(text.find("\ninf,-inf,nan\nnan,0,2\n") != std::string::npos);
    CHECK(text.ends_with("# done\n# two\n# lines\n"));
    const StanCsv csv = read_stan_csv(text, "n.csv");
    REQUIRE(csv.values.rows() == 5);
    CHECK((csv.values.row(0).transpose().array() == out.mean_row.array()).all());
    for (Eigen::Index i = 0; i < 4; ++i) {
        for (Eigen::Index j = 0; j < 3; ++j) {
            const double x = out.draws(i, j);
            const double y = csv.values(i + 1, j);
            if (std::isnan(x))
                CHECK(std::isnan(y));
            else
                CHECK(x == y);
        }
    }
}

TEST_CASE("write_cmdstan_csv_file replaces a file whole or not at all", "[io][cmdstan_csv]") {
    TempDir dir("atomic");
    const fs::path path = dir.path / "out.csv";
    {
        std::ofstream old(path);
        old << "old contents\n";
    }
    CsvOutput good;
    good.columns = {"lp__", "x"};
    good.mean_row = Eigen::Vector2d(0, 1.5);
    good.draws = Eigen::MatrixXd::Ones(3, 2);

    // a bad output fails before the file changes, and leaves no temporary behind
    CsvOutput bad = good;
    bad.mean_row = Eigen::Vector3d(0, 1, 2);
    CHECK_THROWS_WITH(write_cmdstan_csv_file(path, bad),
                      "CSV output: the mean row has 3 values for 2 columns");
    CHECK(read_text(path) == "old contents\n");
    CHECK(dir.files() == std::vector<std::string>{"out.csv"});
    bad = good;
    bad.draws = Eigen::MatrixXd::Ones(3, 5);
    CHECK_THROWS_AS(write_cmdstan_csv_file(path, bad), ShapeError);
    bad = good;
    bad.columns = {"lp__", "x,y"};
    CHECK_THROWS_WITH(write_cmdstan_csv_file(path, bad),
                      "CSV output: `x,y` cannot be a column name");
    CHECK(read_text(path) == "old contents\n");
    CHECK(dir.files() == std::vector<std::string>{"out.csv"});

    // a good one replaces it
    write_cmdstan_csv_file(path, good);
    CHECK(read_text(path) == "lp__,x\n0,1.5\n1,1\n1,1\n1,1\n");
    CHECK(dir.files() == std::vector<std::string>{"out.csv"});

    // a directory that does not exist: an Error naming the file
    const fs::path nowhere = dir.path / "missing" / "out.csv";
    CHECK_THROWS_AS(write_cmdstan_csv_file(nowhere, good), Error);
    CHECK_THROWS_WITH(write_cmdstan_csv_file(nowhere, good),
                      Contains(fmt::format("cannot write `{}`", nowhere.string())));
    CHECK_FALSE(fs::exists(dir.path / "missing"));
}

TEST_CASE("cmdstan_output refuses extra blocks that do not fit", "[io][cmdstan_csv]") {
    Model m;
    auto x = m.param("x", normal(0, 1), 2);
    (void)x;
    const Options opts{.seed = 1, .output_samples = 10};
    Fit f = fit(m, opts);

    ExtraBlock b = y_rep_block(10);
    b.at_mean = Eigen::VectorXd::Zero(5);
    CHECK_THROWS_WITH(cmdstan_output(f, opts, {b}),
                      "CSV output: block `y_rep` (dims 2x3): the mean row has 5 values, "
                      "expected 6");
    b = y_rep_block(9);
    CHECK_THROWS_WITH(cmdstan_output(f, opts, {b}),
                      "CSV output: block `y_rep` (dims 2x3): the draws are 9x6, expected 10x6 "
                      "(a row per draw of the fit)");
    ExtraBlock dup{.name = "x", .dims = {2}};
    dup.at_mean = Eigen::VectorXd::Zero(2);
    dup.draws = Eigen::MatrixXd::Zero(10, 2);
    CHECK_THROWS_AS(cmdstan_output(f, opts, {dup}), ModelError);
    CHECK_THROWS_WITH(cmdstan_output(f, opts, {dup}), "CSV output: column `x.1` appears twice");

    // a scalar block is one column under its bare name
    ExtraBlock s{.name = "total", .dims = {}};
    s.at_mean = Eigen::VectorXd::Constant(1, 2.5);
    s.draws = Eigen::MatrixXd::Constant(10, 1, 3.5);
    const CsvOutput out = cmdstan_output(f, opts, {s});
    CHECK(out.columns == Names{"lp__", "log_p__", "log_g__", "x.1", "x.2", "total"});
    CHECK(out.mean_row[5] == 2.5);
    CHECK((out.draws.col(5).array() == 3.5).all());
}

TEST_CASE("draws with a non-finite log_p__ never reach the CSV; the trailer counts them",
          "[io][cmdstan_csv]") {
    Model m;
    auto x = m.param("x", normal(1, 1));
    m.target_add(log(x));
    const Options opts{.seed = 5, .output_samples = 2000};
    Fit f = fit(m, opts);
    REQUIRE(f.nonfinite_log_p() > 0);
    std::ostringstream os;
    write_cmdstan_csv(os, cmdstan_output(f, opts));
    const StanCsv csv = read_stan_csv(os.str(), "fit.csv");
    REQUIRE(csv.values.rows() == 2001);  // replaced by new draws
    CHECK(csv.values.allFinite());
    CHECK(has_comment(csv, fmt::format("# nonfinite_log_p_draws = {}", f.nonfinite_log_p())));
}

}  // namespace advi
