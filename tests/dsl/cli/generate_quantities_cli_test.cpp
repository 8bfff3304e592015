// `advi generate-quantities` as a user runs it: a fit's draws read back as another program's
// parameters (the same parameters, new generated quantities), the quantities checked row by row
// against the draws they were computed from, CmdStan's layout (sampler columns, parameters,
// then the quantities; the variational mean row left out), the seed's role, optimize's and
// CmdStan's sample CSVs as fitted params, and the refusals.
#include <cmath>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/io/csv_reader.hpp>

#include "support/cli_runner.hpp"
#include "support/normal_model.hpp"

namespace fs = std::filesystem;
using namespace advi::test;

namespace {

// The same parameters as normal_model(), other generated quantities.
const std::string kPredictive = normal_model(
    {.transformed_parameters = "  real log_sigma = log(sigma);\n",
     .generated_quantities = "  real mu_plus = mu + 1;\n  real y_rep = normal_rng(mu, sigma);\n"
                             "  array[2] int flips;\n  for (k in 1:2) flips[k] = "
                             "bernoulli_rng(0.5);\n"});

const fs::path& fitted() {
    static const fs::path csv = [] {
        const fs::path model = write_file("gq_fit.stan", normal_model());
        const fs::path data = write_file("gq.json", kNormalJson);
        const Run r = tool(
            fmt::format("fit {} --data {} --output gq_fit.csv --seed 2 -q", q(model), q(data)));
        INFO(r.err);
        REQUIRE(r.status == 0);
        return scratch() / "gq_fit.csv";
    }();
    return csv;
}

Run generate(const std::string& fitted_file, const std::string& output,
             const std::string& extra = "") {
    const fs::path model = write_file("gq_predictive.stan", kPredictive);
    return tool(fmt::format("generate-quantities {} --data gq.json --fitted {} --output {} {}",
                            q(model), fitted_file, output, extra));
}

}  // namespace

TEST_CASE("generate-quantities: a fit's draws, new quantities at each, CmdStan's layout",
          "[cli][generate_quantities]") {
    if (!cli_built())
        return;
    const Run r = generate(q(fitted()), "gq_out.csv", "--seed 5");
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "Generated quantities at the 1000 draws of"));
    CHECK(contains(r.out, "variational; its mean row left out"));
    CHECK(contains(r.out, "y_rep"));
    const advi::StanCsv in = advi::read_stan_csv(fitted());
    const advi::StanCsv out = advi::read_stan_csv(scratch() / "gq_out.csv");
    CHECK(out.columns == std::vector<std::string>{"lp__", "log_p__", "log_g__", "mu", "sigma",
                                                  "log_sigma", "mu_plus", "y_rep", "flips.1",
                                                  "flips.2"});
    REQUIRE(out.values.rows() == in.values.rows() - 1);
    const Eigen::Index n = out.values.rows();
    // Row by row: the fitted draw carried over, the quantities computed from it.
    CHECK((out.column("mu") - in.column("mu").tail(n)).cwiseAbs().maxCoeff() == 0.0);
    CHECK((out.column("log_p__") - in.column("log_p__").tail(n)).cwiseAbs().maxCoeff() == 0.0);
    CHECK((out.column("mu_plus") - out.column("mu")).array().maxCoeff() == Approx(1.0));
    CHECK((out.column("mu_plus") - out.column("mu")).array().minCoeff() == Approx(1.0));
    CHECK((out.column("log_sigma") - out.column("sigma").array().log().matrix())
              .cwiseAbs()
              .maxCoeff() < 1e-14);
    // y_rep ~ normal(mu, sigma) at each row: standardised, mean 0 and sd 1 (4 standard errors).
    const Eigen::ArrayXd z =
        (out.column("y_rep") - out.column("mu")).array() / out.column("sigma").array();
    CHECK(std::abs(z.mean()) < 4.0 / std::sqrt(static_cast<double>(n)));
    CHECK(std::sqrt((z - z.mean()).square().mean()) == Approx(1.0).margin(0.1));
    // bernoulli(0.5) flips: ints, about half ones.
    const Eigen::VectorXd flips = out.column("flips.1");
    CHECK((flips.array() == 0 || flips.array() == 1).all());
    CHECK(flips.mean() == Approx(0.5).margin(0.07));
    // The header: CmdStan's method block and ours.
    const std::string text = read_file(scratch() / "gq_out.csv");
    CHECK(contains(text,
                   "\n# method = generate_quantities\n#   generate_quantities\n"
                   "#     fitted_params = "));
    CHECK(contains(text, "#     fitted_method = variational\n"));
    CHECK(contains(text, "#   seed = 5\n"));
    CHECK(
        contains(text, "# fitted_draws = 1000 (the fitted file's first row, q's mean, left out)"));
}

TEST_CASE("generate-quantities: the seed decides the draws, nothing else",
          "[cli][generate_quantities]") {
    if (!cli_built())
        return;
    REQUIRE(generate(q(fitted()), "gq_a.csv", "--seed 7 -q").status == 0);
    REQUIRE(generate(q(fitted()), "gq_b.csv", "--seed 7 -q").status == 0);
    REQUIRE(generate(q(fitted()), "gq_c.csv", "--seed 8 -q").status == 0);
    const advi::StanCsv a = advi::read_stan_csv(scratch() / "gq_a.csv");
    const advi::StanCsv b = advi::read_stan_csv(scratch() / "gq_b.csv");
    const advi::StanCsv c = advi::read_stan_csv(scratch() / "gq_c.csv");
    CHECK(a.values == b.values);
    CHECK(a.column("mu_plus") == c.column("mu_plus"));
    CHECK(a.column("y_rep") != c.column("y_rep"));
}

TEST_CASE("generate-quantities: optimize's mode and CmdStan's sample CSV as fitted params",
          "[cli][generate_quantities]") {
    if (!cli_built())
        return;
    const fs::path model = write_file("gq_fit.stan", normal_model());
    REQUIRE(tool(fmt::format("optimize {} --data gq.json --output gq_opt.csv", q(model))).status ==
            0);
    const Run opt = generate("gq_opt.csv", "gq_from_opt.csv", "-q");
    INFO(opt.out << opt.err);
    REQUIRE(opt.status == 0);
    CHECK(contains(opt.out, "at the 1 draw of gq_opt.csv (optimize)"));
    const advi::StanCsv from_opt = advi::read_stan_csv(scratch() / "gq_from_opt.csv");
    CHECK(from_opt.values.rows() == 1);
    CHECK(from_opt.columns.front() == "lp__");

    // CmdStan's sampler layout: its columns ending in __ carried over; no mean row.
    std::string sample =
        "# stan_version_major = 2\n# model = normal_model\n# method = sample (Default)\n"
        "lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,mu,sigma\n";
    for (int i = 0; i < 50; ++i)
        sample += fmt::format("-7.1,0.9,0.8,2,3,0,8.0,{},{}\n", 4.9 + 0.01 * i, 0.6 + 0.002 * i);
    write_file("cmdstan_sample.csv", sample);
    const Run s = generate("cmdstan_sample.csv", "gq_from_sample.csv", "-q");
    INFO(s.out << s.err);
    REQUIRE(s.status == 0);
    CHECK(contains(s.out, "at the 50 draws of cmdstan_sample.csv (sample)"));
    const advi::StanCsv out = advi::read_stan_csv(scratch() / "gq_from_sample.csv");
    CHECK(out.values.rows() == 50);
    CHECK(out.columns[1] == "accept_stat__");
    CHECK(out.column("mu_plus")[49] == Approx(5.39 + 1.0));
}

TEST_CASE("generate-quantities: refusals name the file, the row and the parameter",
          "[cli][generate_quantities]") {
    if (!cli_built())
        return;
    write_file("gq.json", kNormalJson);
    // A file of another model: its parameters are not these.
    write_file("other.csv", "# method = sample\nlp__,tau\n-1,0.5\n");
    check_one_line_error(generate("other.csv", "gq_x.csv"), 1,
                         "column `mu` of parameter `mu` (real) is not in the file");
    // A value outside its support.
    write_file("negative.csv", "# method = sample\nlp__,mu,sigma\n-1,5,0.7\n-1,5,-0.2\n");
    check_one_line_error(generate("negative.csv", "gq_x.csv"), 1,
                         "`negative.csv`, row 2: the values of `sigma` are outside its support");
    write_file("nan.csv", "# method = sample\nlp__,mu,sigma\n-1,nan,0.7\n");
    check_one_line_error(generate("nan.csv", "gq_x.csv"), 1, "row 1, column `mu` is nan");
    // A program without generated quantities.
    const fs::path plain = write_file("gq_plain.stan", normal_model());
    check_one_line_error(tool(fmt::format("generate-quantities {} --data gq.json --fitted {}",
                                          q(plain), q(fitted()))),
                         1, "has no generated quantities");
    // The output would destroy the fitted file.
    check_one_line_error(generate(q(fitted()), q(fitted())), 1, "is the fitted params file");
    CHECK(advi::read_stan_csv(fitted()).values.rows() == 1001);
    // No --fitted, or one that does not exist: a usage error.
    CHECK(tool("generate-quantities gq_plain.stan --data gq.json").status == 2);
    CHECK(generate("no_such.csv", "gq_x.csv").status == 2);
}
