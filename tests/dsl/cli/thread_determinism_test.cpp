// `advi fit` writes the same CSV on any thread count: a regression long enough for its
// gradient program to split into parts, with a transformed parameter and generated quantities
// (one an _rng draw), fitted mean-field and full-rank on 1, 2, 3 and 8 threads with one seed,
// gives byte-identical files but for the header lines that record the thread count, the file
// names and the elapsed time.
#include <random>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "support/cli_runner.hpp"

using namespace advi::test;

namespace {

const char* kRegression = R"(data {
  int<lower=0> N;
  int<lower=1> K;
  matrix[N, K] X;
  vector[N] y;
}
parameters {
  real alpha;
  vector[K] beta;
  real<lower=0> sigma;
}
transformed parameters {
  real log_sigma = log(sigma);
}
model {
  alpha ~ normal(0, 5);
  beta ~ normal(0, 2);
  sigma ~ lognormal(0, 1);
  y ~ normal(X * beta + alpha, sigma);
}
generated quantities {
  real y_rep = normal_rng(alpha + X[1] * beta, sigma);
  real mse = mean(square(y - X * beta - alpha));
}
)";

// N = 5003 rows (not a multiple of the loops' blocks), K = 8 predictors, as CmdStan JSON.
std::string regression_json() {
    const int n = 5003, k = 8;
    std::mt19937 rng(3);
    std::normal_distribution<double> z(0.0, 1.0);
    std::ostringstream x, y;
    x.precision(17);
    y.precision(17);
    for (int r = 0; r < n; ++r) {
        double mean = 1.5;
        x << (r > 0 ? ",[" : "[");
        for (int c = 0; c < k; ++c) {
            const double v = z(rng);
            mean += v * (c - 3.5) / 4;
            x << (c > 0 ? "," : "") << v;
        }
        x << "]";
        y << (r > 0 ? "," : "") << mean + 0.7 * z(rng);
    }
    return "{\"N\": " + std::to_string(n) + ", \"K\": " + std::to_string(k) + ", \"X\": [" +
           x.str() + "], \"y\": [" + y.str() + "]}";
}

// The file without the lines that name the thread count, the files or the elapsed time.
std::string csv_body(const std::string& text) {
    std::istringstream in(text);
    std::string line, body;
    while (std::getline(in, line)) {
        const bool recorded =
            line.rfind('#', 0) == 0 && (contains(line, "num_threads") || contains(line, "file =") ||
                                        contains(line, "Elapsed Time"));
        if (!recorded)
            body += line + "\n";
    }
    return body;
}

}  // namespace

TEST_CASE("cli: the same seed writes the same CSV on 1, 2, 3 and 8 threads", "[cli][threads]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("threads.stan", kRegression));
    const std::string d = q(write_file("threads.json", regression_json()));
    // The gradient program does split (else this test would show nothing).
    const Run listing = tool("program " + m + " --data " + d);
    REQUIRE(listing.status == 0);
    CHECK(contains(listing.out, " parts"));
    for (const char* algorithm : {"meanfield", "fullrank"}) {
        INFO("algorithm " << algorithm);
        std::string first;
        for (const int threads : {1, 2, 3, 8}) {
            INFO("threads " << threads);
            const std::string out = "threads" + std::to_string(threads) + ".csv";
            const Run r = tool("fit " + m + " --data " + d + " --algorithm " + algorithm +
                               " --seed 5 --iter 300 --output-samples 100 -q --threads " +
                               std::to_string(threads) + " --output " + out);
            INFO("stderr: " << r.err);
            REQUIRE(r.status == 0);
            const std::string text = read_file(scratch() / out);
            CHECK(contains(text, "num_threads = " + std::to_string(threads)));
            const std::string body = csv_body(text);
            REQUIRE(contains(body, "y_rep"));
            if (first.empty())
                first = body;
            else
                CHECK(body == first);
        }
    }
}
