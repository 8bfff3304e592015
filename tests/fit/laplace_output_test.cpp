// The laplace CSV read back: CmdStan's header lines, its columns (log_p__, log_g__, then the
// parameters by Stan's names), one row per draw; log_p__ recomputed by the gradient program at
// T(theta) and log_g__ by an independent multivariate normal density; and the mode read from
// an optimize CSV and from JSON, with each bad mode file refused by name.
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/base/version.hpp>

#include <advi/advi.hpp>
#include <advi/fit/laplace_output.hpp>
#include <advi/io/csv_reader.hpp>

#include "support/temp_dir.hpp"

namespace advi {
namespace {

using Catch::Matchers::Contains;

struct Fixture {
    Eigen::VectorXd y = (Eigen::VectorXd(7) << 0.3, -1.2, 2.1, 0.8, -0.4, 1.7, 0.9).finished();
    Model m;
    Fixture() {
        auto yd = m.data("y", y);
        auto mu = m.param("mu", normal(0, 5), 2);
        auto sigma = m.param("sigma", lognormal(0, 1));
        m.observe(yd, normal(mu[Eigen::VectorXi::Zero(7)] + mu[Eigen::VectorXi::Ones(7)], sigma));
        m.target_add(-0.5 * (mu - 0.2) * (mu - 0.2));
    }
};

// log N(zeta | mode, Sigma) through Sigma's own Cholesky factor.
double log_normal(const Eigen::VectorXd& zeta, const Eigen::VectorXd& mode,
                  const Eigen::MatrixXd& Sigma) {
    const Eigen::LLT<Eigen::MatrixXd> llt(Sigma);
    const Eigen::VectorXd r = zeta - mode;
    const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    return -0.5 * r.dot(llt.solve(r)) -
           0.5 * (zeta.size() * std::log(2.0 * std::numbers::pi) + log_det);
}

}  // namespace

TEST_CASE("the laplace CSV: CmdStan's header and columns, log_p__ and log_g__ recomputed",
          "[fit][laplace]") {
    Fixture f;
    const ModelSpec& spec = f.m.spec();
    // A point near the mode, as a mode file gives one; Newton steps take it to the mode.
    const Eigen::VectorXd mode = spec.unconstrain(Eigen::Vector3d(0.3, 0.2, 1.1));
    const LaplaceFit fit = laplace(spec, {.draws = 200, .seed = 5, .mode = mode});
    const CsvRunInfo run{.model = "m_model", .data_file = "d.json", .output_file = "out.csv"};
    const LaplaceOptions opts{.draws = 200, .seed = 5};
    std::ostringstream text;
    write_cmdstan_csv(
        text, cmdstan_laplace_output(fit, {}, cmdstan_laplace_settings(opts, run, "mode.csv")));
    const StanCsv csv = read_stan_csv(text.str(), "out.csv");

    const std::vector<std::string> want_header = {"# advi_version = " + std::string(version()),
                                                  "# model = m_model",
                                                  "# method = laplace",
                                                  "#   laplace",
                                                  "#     mode = mode.csv",
                                                  "#     jacobian = 1 (Default)",
                                                  "#     draws = 200",
                                                  "#     regularization = 0 (Default)"};
    for (std::size_t i = 0; i < want_header.size(); ++i) CHECK(csv.comments[i] == want_header[i]);
    CHECK(csv.columns == std::vector<std::string>{"log_p__", "log_g__", "mu.1", "mu.2", "sigma"});
    REQUIRE(csv.values.rows() == 200);

    Program gradient = compile(spec);
    const Eigen::MatrixXd Sigma = fit.gaussian().covariance();
    Eigen::VectorXd grad(3);
    for (int i = 0; i < 200; ++i) {
        const Eigen::VectorXd theta = csv.values.row(i).tail(3).transpose();
        const Eigen::VectorXd zeta = spec.unconstrain(theta);
        CHECK(csv.values(i, 0) == Approx(gradient.run(zeta, grad)).epsilon(1e-12));
        CHECK(csv.values(i, 1) == Approx(log_normal(zeta, fit.mode(), Sigma)).epsilon(1e-10));
        CHECK(theta[2] == Approx(fit.theta_draws()(i, 2)).epsilon(1e-15));
    }
    // The trailer says where the mode came from and what PSIS found.
    const std::string all = text.str();
    CHECK_THAT(all, Contains("# mode: given") && Contains("# pareto_k = ") &&
                        Contains("# psis_ess = ") && Contains("# nonfinite_log_p_draws = 0"));
}

TEST_CASE("the mode from an optimize CSV or JSON, and bad mode files refused by name",
          "[fit][laplace]") {
    Fixture f;
    const ModelSpec& spec = f.m.spec();
    test::TempDir dir("laplace_mode");
    const auto write = [&](const std::string& name, const std::string& body) {
        std::ofstream(dir.path / name) << body;
        return dir.path / name;
    };
    const Eigen::VectorXd want = spec.unconstrain(Eigen::Vector3d(0.25, -0.5, 1.5));
    const auto csv =
        write("opt.csv", "# method = optimize\nlp__,mu.1,mu.2,sigma\n-3.5,0.25,-0.5,1.5\n");
    CHECK((read_mode_file(spec, csv) - want).cwiseAbs().maxCoeff() == 0.0);
    const auto json = write("mode.json", R"({"mu": [0.25, -0.5], "sigma": 1.5, "other": 3})");
    CHECK((read_mode_file(spec, json) - want).cwiseAbs().maxCoeff() == 0.0);

    CHECK_THROWS_WITH(read_mode_file(spec, write("a.csv", "lp__,mu.1,sigma\n1,2,3\n")),
                      Contains("column `mu.2` of parameter `mu` (vec[2]) is not in the file"));
    CHECK_THROWS_WITH(
        read_mode_file(spec, write("b.csv", "lp__,mu.1,mu.2,sigma\n1,2,3,4\n1,2,3,4\n")),
        Contains("expected one row of values (an optimize CSV), got 2"));
    CHECK_THROWS_WITH(read_mode_file(spec, write("c.json", R"({"mu": [1, 2]})")),
                      Contains("parameter `sigma` (real) is not in the file"));
    CHECK_THROWS_WITH(read_mode_file(spec, write("d.json", R"({"mu": [1, 2, 3], "sigma": 1})")),
                      Contains("mode file") && Contains("`mu`"));
    CHECK_THROWS_WITH(read_mode_file(spec, write("e.json", R"({"mu": [1, 2], "sigma": -1})")),
                      Contains("mode file") && Contains("`sigma`"));
    CHECK_THROWS_WITH(read_mode_file(spec, write("f.csv", "lp__,mu.1,mu.2,sigma\n1,nan,3,4\n")),
                      Contains("parameter `mu` element 1 is nan"));
    CHECK_THROWS_WITH(read_mode_file(spec, write("g.txt", "1 2 3")),
                      Contains("expected an optimize CSV (.csv) or JSON"));
}

}  // namespace advi
