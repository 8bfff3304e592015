// `advi optimize` as a user runs it: the CSV read back against the mode's analytic conditions
// and the log density computed here, CmdStan's header lines, --jacobian, --init from a file,
// bad options (status 2), a run cut short (a warning and converged = 0).
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <Eigen/Core>

#include <advi/engine/initial_point.hpp>
#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/csv_comments.hpp"
#include "support/normal_model.hpp"

using namespace advi::test;

namespace {

const std::string kModel =
    normal_model({.transformed_parameters = "  real log_sigma = log(sigma);\n",
                  .generated_quantities = "  real y_new = normal_rng(mu, sigma);\n"});
const char* const kData = kNormalJson;

double normal_lpdf(double x, double m, double s) {
    return -0.5 * std::pow((x - m) / s, 2) - std::log(s) - 0.5 * std::log(2 * std::numbers::pi);
}

// The model's log density in constrained space with every constant.
double log_density(double mu, double sigma) {
    double lp = normal_lpdf(mu, 0, 10) + normal_lpdf(std::log(sigma), 0, 1) - std::log(sigma);
    for (double y : kNormalY) lp += normal_lpdf(y, mu, sigma);
    return lp;
}

}  // namespace

TEST_CASE("advi optimize: the CSV holds the mode, lp__ and CmdStan's header", "[cli][optimize]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("opt.stan", kModel));
    const std::string d = q(write_file("opt.json", kData));
    const fs::path out = scratch() / "opt.csv";
    for (const bool jacobian : {false, true})
        for (const std::string algorithm : {"lbfgs", "newton"}) {
            CAPTURE(jacobian, algorithm);
            // Tighter than CmdStan's default tol_rel_grad (which stops where g' H^-1 g is about
            // 3e-8 here, a gradient of about 1e-3), for the conditions below at 1e-5.
            const Run r = tool("optimize " + m + " --data " + d + " --output " + q(out) +
                               " --tol-rel-grad 100 --tol-rel-obj 1 --algorithm " + algorithm +
                               (jacobian ? " --jacobian 1" : ""));
            INFO(r.err);
            REQUIRE(r.status == 0);
            CHECK(contains(r.out, "converged: "));
            const advi::StanCsv csv = advi::read_stan_csv(out);
            CHECK(csv.columns ==
                  std::vector<std::string>{"lp__", "mu", "sigma", "log_sigma", "y_new"});
            REQUIRE(csv.values.rows() == 1);
            CHECK(has_comment(csv, "# method = optimize"));
            CHECK(has_comment(csv, algorithm == "lbfgs" ? "#     algorithm = lbfgs (Default)"
                                                        : "#     algorithm = newton"));
            CHECK(has_comment(csv, "#         tol_rel_grad = 100"));
            CHECK(has_comment(csv, "#         tol_grad = 1e-08 (Default)"));
            CHECK(
                has_comment(csv, jacobian ? "#     jacobian = 1" : "#     jacobian = 0 (Default)"));
            CHECK(has_comment(csv, "#   converged = 1"));  // the header's result block
            const double mu = csv.values(0, 1), sigma = csv.values(0, 2);
            // The mode's conditions, from the derivatives of log p in (mu, log sigma):
            // d/dmu: -mu / 100 + sum(y - mu) / sigma^2 = 0;
            // sigma d/dsigma: -1 - log sigma - N + S / sigma^2 (+ 1 with the Jacobian) = 0.
            double sum = 0, s2 = 0;
            for (double y : kNormalY) {
                sum += y - mu;
                s2 += (y - mu) * (y - mu);
            }
            CHECK(std::abs(-mu / 100 + sum / (sigma * sigma)) < 1e-5);
            CHECK(std::abs((jacobian ? 0.0 : -1.0) - std::log(sigma) - 10.0 +
                           s2 / (sigma * sigma)) < 1e-5);
            // lp__: every constant, and the log-Jacobian log sigma when asked for.
            CHECK(
                csv.values(0, 0) ==
                Approx(log_density(mu, sigma) + (jacobian ? std::log(sigma) : 0.0)).epsilon(1e-12));
            CHECK(csv.values(0, 3) == Approx(std::log(sigma)).epsilon(1e-14));
            CHECK(std::isfinite(csv.values(0, 4)));
        }
}

TEST_CASE("advi optimize: --init from a file and by radius", "[cli][optimize]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("opt.stan", kModel));
    const std::string d = q(write_file("opt.json", kData));
    const std::string init = q(write_file("opt_init.json", R"({"mu": 3, "sigma": 2})"));
    const fs::path out = scratch() / "opt_init.csv";
    // One iteration from a given point: the header names the file.
    Run r = tool("optimize " + m + " --data " + d + " --init " + init + " --output " + q(out) +
                 " --iter 1 -q");
    INFO(r.err);
    REQUIRE(r.status == 0);
    const advi::StanCsv csv = advi::read_stan_csv(out);
    CHECK(has_comment(csv, "# init = " + (scratch() / "opt_init.json").string()));
    CHECK(has_comment(csv, "#   converged = 0"));
    // Not converged: said on stderr, the point still written.
    CHECK(contains(r.err, "advi: warning: not converged: iteration limit 1 reached"));
    r = tool("optimize " + m + " --data " + d + " --init 0 --output " + q(out) + " -q");
    REQUIRE(r.status == 0);
    CHECK(has_comment(advi::read_stan_csv(out), "# init = 0"));
}

TEST_CASE("advi fit: --init as optimize takes it, from a file or by radius", "[cli][fit]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("fit_init.stan", kModel));
    const std::string d = q(write_file("fit_init.json", kData));
    const std::string init = q(write_file("fit_init_values.json", R"({"mu": 3, "sigma": 2})"));
    const fs::path out = scratch() / "fit_init.csv";
    // q's mean starts at --init's point (--start init) and a step of 1e-8 leaves it there:
    // the CSV's first row, the mean, is the init file's values.
    const std::string steady = " --start init --eta 1e-8 --iter 1 --output-samples 3 -q";
    Run r = tool("fit " + m + " --data " + d + " --init " + init + " --output " + q(out) + steady);
    INFO(r.err);
    REQUIRE(r.status == 0);
    advi::StanCsv csv = advi::read_stan_csv(out);
    CHECK(has_comment(csv, "# init = " + (scratch() / "fit_init_values.json").string()));
    CHECK(csv.values(0, 3) == Approx(3.0).epsilon(1e-9));
    CHECK(csv.values(0, 4) == Approx(2.0).epsilon(1e-9));
    // A radius: CmdStan's uniform draws on (-2, 2), the same point as `advi optimize --init 2`
    // with that seed (engine/initial_point); sigma's unconstrained coordinate is log sigma.
    r = tool("fit " + m + " --data " + d + " --init 2 --seed 7 --output " + q(out) + steady);
    REQUIRE(r.status == 0);
    csv = advi::read_stan_csv(out);
    const Eigen::VectorXd z = advi::uniform_init(7 ^ advi::kInitStream, 2, 2.0);
    CHECK(std::abs(z[0]) > 0.1);  // not the zero start
    CHECK(csv.values(0, 3) == Approx(z[0]).epsilon(1e-9));
    CHECK(csv.values(0, 4) == Approx(std::exp(z[1])).epsilon(1e-9));
    CHECK(has_comment(csv, "# init = 2"));
    // The default: zeros (mu = 0, sigma = 1), marked as the default.
    r = tool("fit " + m + " --data " + d + " --output " + q(out) + steady);
    REQUIRE(r.status == 0);
    csv = advi::read_stan_csv(out);
    CHECK(csv.values(0, 3) == 0.0);
    CHECK(csv.values(0, 4) == 1.0);
    CHECK(has_comment(csv, "# init = 0 (Default)"));
    // Refused with the option named, as optimize refuses it.
    check_one_line_error(tool("fit " + m + " --data " + d + " --init=-1"), 1,
                         "--init: expected a radius >= 0 or a file, got `-1`");
    const std::string partial = q(write_file("fit_init_partial.json", R"({"mu": 3})"));
    check_one_line_error(tool("fit " + m + " --data " + d + " --init " + partial), 1,
                         "parameter `sigma` is not given");
}

TEST_CASE("advi optimize: bad options are one line and status 2", "[cli][optimize]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("opt.stan", kModel));
    check_one_line_error(tool("optimize " + m + " --algorithm bfgs"), 2, "--algorithm");
    check_one_line_error(tool("optimize " + m + " --jacobian 2"), 2, "--jacobian");
    check_one_line_error(tool("optimize " + m + " --iter 0"), 2,
                         "--iter: expected a positive integer, got `0`");
    check_one_line_error(tool("optimize " + m + " --tol-rel-grad -1"), 2,
                         "--tol-rel-grad: expected a non-negative number, got `-1`");
    check_one_line_error(tool("optimize " + m + " --tol-obj nan"), 2, "--tol-obj");
    check_one_line_error(tool("optimize " + m + " --history-size 0"), 2, "--history-size");
    check_one_line_error(tool("optimize " + m + " --init-alpha 0"), 2,
                         "--init-alpha: expected a positive number, got `0`");
    check_one_line_error(tool("optimize " + m + " --seed -3"), 2, "--seed");
    const std::string d = q(write_file("opt.json", kData));
    check_one_line_error(tool("optimize " + m + " --data " + d + " --init=-1"), 1,
                         "--init: expected a radius >= 0 or a file, got `-1`");
    check_one_line_error(tool("optimize " + m + " --data " + d + " --init missing.json"), 1,
                         "missing.json");
}

TEST_CASE(
    "advi optimize: random initial values where the density is not finite are retried, "
    "as Stan does",
    "[cli][optimize]") {
    if (!cli_built())
        return;
    // Finite only for mu > 1.5: a draw on (-2, 2) lands there one time in eight. The mode of
    // log(mu - 1.5) - (mu - 3)^2 / 2 is at mu = (4.5 + sqrt(6.25)) / 2 = 3.5.
    const std::string m =
        q(write_file("opt_retry.stan",
                     "parameters {\n  real mu;\n}\nmodel {\n  target += log(mu - 1.5) - "
                     "square(mu - 3) / 2;\n}\n"));
    const fs::path out = scratch() / "opt_retry.csv";
    int retried = 0;
    for (int seed = 1; seed <= 4; ++seed) {
        const Run r =
            tool("optimize " + m + " --seed " + std::to_string(seed) + " --output " + q(out));
        INFO(r.err);
        REQUIRE(r.status == 0);
        const advi::StanCsv csv = advi::read_stan_csv(out);
        CHECK(csv.values(0, 1) == Approx(3.5).epsilon(1e-6));
        const double z =
            advi::uniform_init(static_cast<std::uint64_t>(seed) ^ advi::kInitStream, 1, 2.0)[0];
        if (z <= 1.5) {
            ++retried;
            CHECK(contains(r.out + r.err, "from random initial values of try"));
        }
    }
    CHECK(retried > 0);  // at least one seed's first point is outside (7 in 8 are)
    // Where no try is finite, the error says so.
    const std::string never = q(write_file(
        "opt_never.stan", "parameters {\n  real mu;\n}\nmodel {\n  target += log(mu - 10);\n}\n"));
    const Run r = tool("optimize " + never + " --output " + q(out));
    CHECK(r.status != 0);
    CHECK(contains(r.err, "and at each of the 100 random initial points tried"));
}

TEST_CASE("optimize: nothing follows the mode's row, as cmdstanpy reads an optimize CSV",
          "[cli][optimize]") {
    if (!cli_built())
        return;
    const fs::path model = write_file("opt_last_row.stan", normal_model());
    write_file("opt_last_row.json", kNormalJson);
    REQUIRE(tool("optimize " + q(model) + " --data opt_last_row.json --output opt_last_row.csv")
                .status == 0);
    // cmdstanpy's scan_optimize_csv takes every line after the column names for a row of
    // numbers and the last for the mode: the file ends with the row.
    const std::vector<std::string> text = lines(read_file(scratch() / "opt_last_row.csv"));
    REQUIRE(text.size() >= 2);
    CHECK(text.back().find('#') == std::string::npos);
    CHECK(text[text.size() - 2].rfind("lp__,", 0) == 0);
    // The ending is in the header's last block.
    const std::string all = read_file(scratch() / "opt_last_row.csv");
    CHECK(
        contains(all, "\n# result\n#   status = converged\n#   converged = 1\n#   convergence: "));
}
