// `advi fit --algorithm dadvi [--linear-response] [--dadvi-draws N]` (issue 20, item 2) as a user
// meets it: CmdStan's variational CSV with DADVI's settings in its header, no step size, the
// summary naming the method, and means that agree with ADVI's on the same model.
#include <cmath>
#include <regex>
#include <string>

#include <catch2/catch.hpp>

#include <advi/io/cmdstan_csv.hpp>
#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/csv_comments.hpp"
#include "support/normal_model.hpp"

using namespace advi::test;

namespace {

// Mean and sd of a column over the draws (row 0 is the mean row).
std::pair<double, double> moments(const advi::StanCsv& csv, const std::string& name) {
    const Eigen::VectorXd all = csv.column(name);
    const Eigen::VectorXd d = all.tail(all.size() - 1);
    const double mean = d.mean();
    return {mean, std::sqrt((d.array() - mean).square().sum() / (d.size() - 1))};
}

}  // namespace

TEST_CASE("cli: --algorithm dadvi writes CmdStan's CSV with its settings and agrees with ADVI",
          "[cli]") {
    if (!cli_built())
        return;
    const std::string m = q(write_file("dadvi.stan", normal_model()));
    const std::string d = q(write_file("dadvi.json", kNormalJson));
    const std::string common = "fit " + m + " --data " + d + " --seed 2 --threads 1 -q ";
    const Run advi_run = tool(common + "--output dadvi_advi.csv");
    REQUIRE(advi_run.status == 0);
    const Run r = tool(common + "--algorithm dadvi --dadvi-draws 40 --output dadvi.csv");
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "\nDADVI mean-field fit: "));
    CHECK(contains(r.out, "Newton-CG on the ELBO of 40 fixed draws: converged"));
    CHECK(contains(r.out, "Monte Carlo error of the means from the fixed draws: at most "));
    const advi::StanCsv csv = advi::read_stan_csv(scratch() / "dadvi.csv");
    CHECK(csv.values.rows() == 1001);
    const std::string c = comments_text(csv);
    CHECK(contains(c, "#     algorithm = meanfield (Default)\n"));
    CHECK(contains(c, "#     dadvi_draws = 40\n"));
    CHECK(contains(c, "#     linear_response = 0\n"));
    CHECK(contains(c, "# Stepsize adaptation not engaged.\n"));
    CHECK(contains(c, "# eta = nan\n"));
    CHECK(contains(c, "# converged = 1\n"));
    // The same posterior mean of mu as ADVI's, within the Monte Carlo error DADVI reports for
    // its fixed draws (three of them, in sds; 0.15 here at 40 draws) and a tenth of an sd for
    // ADVI's own error.
    std::smatch worst;
    REQUIRE(std::regex_search(r.out, worst, std::regex("at most ([0-9.e+-]+) sds")));
    const double mc_error = std::stod(worst[1]);
    CHECK(mc_error > 0.01);
    CHECK(mc_error < 0.5);
    const advi::StanCsv a = advi::read_stan_csv(scratch() / "dadvi_advi.csv");
    const auto [mu_a, sd_a] = moments(a, "mu");
    const auto [mu_d, sd_d] = moments(csv, "mu");
    CHECK(std::abs(mu_d - mu_a) < (3.0 * mc_error + 0.1) * sd_a);
    CHECK(sd_d == Approx(sd_a).epsilon(0.15));

    const Run lr = tool(common + "--algorithm dadvi --linear-response --output dadvi_lr.csv");
    INFO("stdout: " << lr.out << "\nstderr: " << lr.err);
    REQUIRE(lr.status == 0);
    CHECK(contains(lr.out, "\nDADVI full-rank fit: "));
    const advi::StanCsv l = advi::read_stan_csv(scratch() / "dadvi_lr.csv");
    CHECK(contains(comments_text(l), "#     linear_response = 1\n"));
    // The number of draws chosen (the default): the trailer says how many and why.
    CHECK(contains(comments_text(l), "#     dadvi_draws = auto (Default)\n"));
    CHECK(contains(lr.out, "fixed draws chosen: 30"));

    // Full-rank DADVI: the header says the family.
    const Run fr = tool(common + "--algorithm dadvi --dadvi-family fullrank --output dadvi_fr.csv");
    INFO("stdout: " << fr.out << "\nstderr: " << fr.err);
    REQUIRE(fr.status == 0);
    CHECK(contains(fr.out, "\nDADVI full-rank fit: "));
    const advi::StanCsv f = advi::read_stan_csv(scratch() / "dadvi_fr.csv");
    CHECK(contains(comments_text(f), "#     algorithm = fullrank\n"));
    CHECK(contains(comments_text(f), "#     linear_response = 0\n"));
}
