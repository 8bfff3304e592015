// `advi fit --rows N` without --minibatch as a user runs it: the full data read in shards of
// rows (fit/row_shards.hpp) gives the full-data fit (a regression of 20,000 rows, five shards,
// the last one short), the header's lines, the refusals named by the option. The same over MPI
// ranks is tests/mpi/ (built with -DADVI_MPI=ON).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

constexpr int kRows = 20000;

fs::path data_file() {
    static const fs::path p = [] {
        std::uint64_t s = 777;
        const auto uniform = [&] {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            return (static_cast<double>(s >> 11) + 0.5) * 0x1.0p-53;
        };
        std::string x, y;
        for (int n = 0; n < kRows; ++n) {
            const double xn = 4 * uniform() - 2;
            const double z =
                std::sqrt(-2 * std::log(uniform())) * std::cos(2 * 3.141592653589793 * uniform());
            x += fmt::format("{}{:.17g}", n ? "," : "", xn);
            y += fmt::format("{}{:.17g}", n ? "," : "", 1 + 2 * xn + 0.5 * z);
        }
        return write_file("row_shards.json",
                          fmt::format(R"({{"N": {}, "x": [{}], "y": [{}]}})", kRows, x, y));
    }();
    return p;
}

const std::string kRegression =
    "data {\n  int<lower=0> N;\n  vector[N] x;\n  vector[N] y;\n}\n"
    "parameters {\n  real alpha;\n  real beta;\n  real<lower=0> sigma;\n}\n"
    "model {\n  alpha ~ normal(0, 10);\n  beta ~ normal(0, 10);\n  sigma ~ normal(0, 5);\n"
    "  y ~ normal(alpha + beta * x, sigma);\n}\n";

struct Summary {
    Eigen::VectorXd mean, sd;
    std::string text, out;
};

Summary fit(const std::string& name, const std::string& options) {
    const fs::path model = write_file(name + ".stan", kRegression);
    const Run r = tool(fmt::format("fit {} --data {} --output {}.csv --seed 4 -q {}", q(model),
                                   q(data_file()), name, options));
    INFO(r.err);
    REQUIRE(r.status == 0);
    const advi::StanCsv csv = advi::read_stan_csv(scratch() / (name + ".csv"));
    Summary s;
    s.mean.resize(3);
    s.sd.resize(3);
    const std::vector<std::string> names = {"alpha", "beta", "sigma"};
    for (int k = 0; k < 3; ++k) {
        Eigen::VectorXd v = csv.column(names[static_cast<std::size_t>(k)]);
        v = v.tail(v.size() - 1).eval();  // the mean row left out
        s.mean[k] = v.mean();
        s.sd[k] = std::sqrt((v.array() - v.mean()).square().sum() / (v.size() - 1));
    }
    s.text = read_file(scratch() / (name + ".csv"));
    s.out = r.out;
    return s;
}

}  // namespace

TEST_CASE("fit --rows N: the full data in shards gives the full-data fit", "[cli][row_shards]") {
    if (!cli_built())
        return;
    const Summary full = fit("rs_full", "");
    const Summary shards = fit("rs_shards", "--rows N");
    INFO("full " << full.mean.transpose() << " / " << full.sd.transpose());
    INFO("shards " << shards.mean.transpose() << " / " << shards.sd.transpose());
    // The same fit up to rounding (the shards' sums are added in another order): means within
    // 0.02 posterior sds, sds within 2%; a term counted once per shard (a prior, a log-Jacobian)
    // or a short shard's padding left in moves sigma by several sds.
    for (int k = 0; k < 3; ++k) {
        CHECK(std::abs(shards.mean[k] - full.mean[k]) < 0.02 * full.sd[k]);
        CHECK(shards.sd[k] == Approx(full.sd[k]).epsilon(0.02));
    }
    CHECK(contains(shards.text, "    rows = N (20000 rows)"));
    CHECK(contains(shards.text, "    shards = 5 (4096 rows each)"));
    CHECK(contains(shards.text, "    ranks = 1"));
    CHECK_FALSE(contains(shards.text, "minibatch ="));
    // a full-data fit: the start from the mode, the verdict over every row
    CHECK(contains(shards.out, "q started from the mode"));
    CHECK(contains(shards.out, "Verdict: reliable"));
}

TEST_CASE("fit --rows N: what cannot be read in shards is refused, naming --rows",
          "[cli][row_shards]") {
    if (!cli_built())
        return;
    const auto refused = [](const std::string& name, const std::string& program,
                            const std::string& options, const std::string& reason) {
        const fs::path model = write_file(name + ".stan", program);
        const Run r = tool(fmt::format("fit {} --data {} --output {}.csv -q {}", q(model),
                                       q(data_file()), name, options));
        INFO(name << ": " << r.err);
        CHECK(r.status != 0);
        CHECK(contains(r.err, reason));
        CHECK_FALSE(fs::exists(scratch() / (name + ".csv")));
    };
    const std::string data = "data {\n  int<lower=0> N;\n  vector[N] x;\n  vector[N] y;\n}\n";
    // a latent per row
    refused("rs_per_row",
            data +
                "parameters {\n  vector[N] z;\n  real<lower=0> s;\n}\nmodel {\n  z ~ "
                "normal(0, 1);\n  y ~ normal(z, s);\n}\n",
            "--rows N", "`N` sizes a parameter under --rows N");
    // a term of the rows' mean: not a sum over rows
    refused("rs_coupled",
            data + "parameters {\n  real mu;\n}\nmodel {\n  mu ~ normal(mean(y), 1);\n}\n",
            "--rows N", "row shards: the log density is not a sum of terms of one row");
    refused("rs_dadvi", kRegression, "--rows N --algorithm dadvi",
            "--rows: is not supported with --algorithm dadvi");
}
