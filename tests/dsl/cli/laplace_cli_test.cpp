// `advi laplace` as a user runs it: a regression with known noise whose posterior is exactly
// Gaussian (the CSV read back: CmdStan's laplace header and columns, the transformed parameter
// and generated quantity per draw, means and sds against the analytic posterior), --mode from
// JSON and from an optimize CSV giving the same draws, and the same seed the same file.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

// beta ~ normal(0, 10), y ~ normal(X beta, 1.5) with sigma known: the posterior of beta is
// N(P^-1 X'y / s^2, P^-1), P = X'X / s^2 + I / 100.
const char* kRegression = R"(data {
  int N;
  matrix[N, 2] X;
  vector[N] y;
}
parameters {
  vector[2] beta;
}
transformed parameters {
  real slope2 = 2 * beta[2];
}
model {
  beta ~ normal(0, 10);
  y ~ normal(X * beta, 1.5);
}
generated quantities {
  real y1 = normal_rng(X[1] * beta, 1.5);
}
)";

struct Data {
    Eigen::MatrixXd X;
    Eigen::VectorXd y;
    std::string json;
};

Data make_data() {
    Data d;
    const int N = 25;
    d.X.resize(N, 2);
    d.y.resize(N);
    std::string xs, ys;
    for (int i = 0; i < N; ++i) {
        d.X(i, 0) = 1.0;
        d.X(i, 1) = 1990.0 + i;  // an uncentred year: correlated, badly scaled
        d.y[i] = 3.0 + 0.02 * (1990.0 + i) + 1.5 * std::sin(1.7 * i);
        xs += (i ? ", " : "") + std::string("[1, ") + std::to_string(1990 + i) + "]";
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", d.y[i]);
        ys += (i ? ", " : "") + std::string(buf);
    }
    d.json = "{\"N\": " + std::to_string(N) + ", \"X\": [" + xs + "], \"y\": [" + ys + "]}";
    return d;
}

}  // namespace

TEST_CASE("cli: advi laplace on an exactly Gaussian posterior", "[cli][laplace]") {
    if (!cli_built())
        return;
    const Data d = make_data();
    write_file("lreg.stan", kRegression);
    write_file("lreg.json", d.json);
    const Run r = tool("laplace lreg.stan --data lreg.json --draws 4000 --seed 2 --output lap.csv");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(
        contains(r.out, "Laplace approximation at the mode of the log density with the Jacobian"));
    // At the exact mode (optimize's point refined by Newton steps) log p - log g is constant.
    CHECK(contains(r.out, "exact up to a constant"));
    CHECK(contains(r.out, "slope2"));
    const advi::StanCsv csv = advi::read_stan_csv(scratch() / "lap.csv");
    CHECK(csv.comments[0].rfind("# advi_version = ", 0) == 0);
    CHECK(csv.comments[2] == "# method = laplace");
    CHECK(csv.comments[3] == "#   laplace");
    CHECK(csv.comments[4] == "#     mode =  (Default)");
    CHECK(csv.comments[5] == "#     jacobian = 1 (Default)");
    CHECK(csv.comments[6] == "#     draws = 4000");
    CHECK(csv.columns ==
          std::vector<std::string>{"log_p__", "log_g__", "beta.1", "beta.2", "slope2", "y1"});
    REQUIRE(csv.values.rows() == 4000);

    const double s2 = 1.5 * 1.5;
    const Eigen::Matrix2d P = d.X.transpose() * d.X / s2 + Eigen::Matrix2d::Identity() / 100.0;
    const Eigen::Matrix2d S = P.inverse();
    const Eigen::Vector2d mean = P.llt().solve(d.X.transpose() * d.y / s2);
    for (int j = 0; j < 2; ++j) {
        const Eigen::VectorXd c = csv.values.col(2 + j);
        const double m = c.mean();
        const double sd = std::sqrt((c.array() - m).square().sum() / (c.size() - 1));
        CHECK(std::abs(m - mean[j]) < 4 * std::sqrt(S(j, j) / 4000));
        CHECK(sd == Approx(std::sqrt(S(j, j))).epsilon(0.04));
    }
    // The transformed parameter per draw.
    CHECK((csv.values.col(4) - 2 * csv.values.col(3)).cwiseAbs().maxCoeff() < 1e-12);
    // The same seed, the same file (but its time); the mode from the CSV as JSON gives the same
    // mode row.
    const auto without_time = [](std::string t) { return t.substr(0, t.find("Elapsed Time")); };
    const std::string first = without_time(read_file(scratch() / "lap.csv"));
    const Run again =
        tool("laplace lreg.stan --data lreg.json --draws 4000 --seed 2 --output lap.csv -q");
    REQUIRE(again.status == 0);
    CHECK(without_time(read_file(scratch() / "lap.csv")) == first);

    char mode[256];
    std::snprintf(mode, sizeof mode, "{\"beta\": [%.17g, %.17g]}", mean[0], mean[1]);
    write_file("lmode.json", mode);
    std::snprintf(mode, sizeof mode, "lp__,beta.1,beta.2\n0,%.17g,%.17g\n", mean[0], mean[1]);
    write_file("lmode.csv", mode);
    const Run j = tool("laplace lreg.stan --data lreg.json --mode lmode.json --output lj.csv -q");
    const Run c = tool("laplace lreg.stan --data lreg.json --mode lmode.csv --output lc.csv -q");
    REQUIRE(j.status == 0);
    REQUIRE(c.status == 0);
    const advi::StanCsv cj = advi::read_stan_csv(scratch() / "lj.csv");
    const advi::StanCsv cc = advi::read_stan_csv(scratch() / "lc.csv");
    CHECK(cj.comments[4] == "#     mode = lmode.json");
    CHECK((cj.values.leftCols(4) - cc.values.leftCols(4)).cwiseAbs().maxCoeff() == 0.0);
    CHECK(contains(j.out, "mode: file lmode.json"));
}

TEST_CASE("cli: advi laplace --init: where optimize starts, as `advi optimize --init`",
          "[cli][laplace]") {
    if (!cli_built())
        return;
    const Data d = make_data();
    write_file("lreg.stan", kRegression);
    write_file("lreg.json", d.json);
    const auto has = [](const advi::StanCsv& csv, const std::string& line) {
        for (const std::string& c : csv.comments) {
            if (c == line)
                return true;
        }
        return false;
    };
    // The default: CmdStan's radius 2, marked as the default.
    Run r = tool("laplace lreg.stan --data lreg.json --draws 10 --output li.csv -q");
    INFO(r.err);
    REQUIRE(r.status == 0);
    advi::StanCsv csv = advi::read_stan_csv(scratch() / "li.csv");
    CHECK(has(csv, "# init = 2 (Default)"));
    // From a file far from the mode and by radius 0 (zeros): the one mode either way, and
    // optimize's iterations differ (the start was used).
    write_file("linit.json", R"({"beta": [-50, 3]})");
    r = tool("laplace lreg.stan --data lreg.json --draws 10 --init linit.json --output lf.csv -q");
    REQUIRE(r.status == 0);
    const advi::StanCsv from_file = advi::read_stan_csv(scratch() / "lf.csv");
    CHECK(has(from_file, "# init = linit.json"));
    r = tool("laplace lreg.stan --data lreg.json --draws 10 --init 0 --output lz.csv -q");
    REQUIRE(r.status == 0);
    const advi::StanCsv from_zero = advi::read_stan_csv(scratch() / "lz.csv");
    CHECK(has(from_zero, "# init = 0"));
    const double s2 = 1.5 * 1.5;
    const Eigen::Matrix2d P = d.X.transpose() * d.X / s2 + Eigen::Matrix2d::Identity() / 100.0;
    const Eigen::Vector2d mean = P.llt().solve(d.X.transpose() * d.y / s2);
    const Eigen::Vector2d sd = P.inverse().diagonal().cwiseSqrt();
    // log_g__ is largest at the mode: the draws' centre is the mode whatever the start (the
    // same seed, the same standard normals, so the draws agree to the mode's rounding).
    CHECK((from_file.values.middleCols(2, 2) - from_zero.values.middleCols(2, 2))
              .cwiseAbs()
              .maxCoeff() < 1e-6 * sd.minCoeff());
    CHECK(std::abs(from_zero.values.col(2).mean() - mean[0]) < 2 * sd[0]);
    // Refusals name the thing at fault; --init with --mode is refused by the parser.
    check_one_line_error(tool("laplace lreg.stan --data lreg.json --init=-1"), 1,
                         "--init: expected a radius >= 0 or a file, got `-1`");
    write_file("lpartial.json", R"({"gamma": 1})");
    check_one_line_error(tool("laplace lreg.stan --data lreg.json --init lpartial.json"), 1,
                         "parameter `beta` is not given");
    write_file("lmode2.json", R"({"beta": [1, 0.02]})");
    const Run both = tool("laplace lreg.stan --data lreg.json --mode lmode2.json --init 0");
    CHECK(both.status == 2);
    CHECK(contains(both.err, "--init"));
}
