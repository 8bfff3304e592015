// Issue 17, class 3: the declared constraints of transformed parameters and generated
// quantities are checked where Stan checks them. A transformed parameter outside its
// constraint makes the log density -inf (the engine drops the draw, the output rejects it,
// both counted, in the summary and the CSV trailer); a generated quantity outside its
// constraint is an error naming it. Where the constraints hold, the log density is unchanged.
#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/fit/cmdstan_output.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/stan/lower.hpp>
#include <advi/stan/parser.hpp>
#include <advi/stan/report.hpp>

namespace advi::stan {
namespace {

using Catch::Matchers::Contains;

std::unique_ptr<LoweredProgram> lower_text(const std::string& program,
                                           const std::string& json = "{}") {
    return lower(parse_program(program, "model.stan"), read_json_data(json, "data.json"));
}

std::string trailer(const CsvOutput& out) {
    std::string s;
    for (const std::string& line : out.trailer) s += line + "\n";
    return s;
}

TEST_CASE("a transformed parameter below its lower bound: dropped, rejected and counted",
          "[stan][constraints]") {
    // q puts mass on both sides of 0; Stan rejects every draw with tp < 0.
    auto low = lower_text(R"(
parameters { real mu; }
transformed parameters { real<lower=0> tp = mu; }
model { mu ~ normal(0.5, 1); }
)");
    const Options options{.seed = 1};
    const Fit fit = advi::fit(low->model().spec(), options);
    const ReportedDraws r = report(*low, fit, 1);
    REQUIRE(r.draws.rows() == 1000);
    CHECK(r.draws.col(0).minCoeff() >= 0);  // no output draw has tp < 0
    CHECK(fit.draws("mu").minCoeff() >= 0);
    CHECK(fit.result().dropped_draws > 0);
    CHECK(fit.rejected_tp_constraint_draws() > 100);  // about a third of q's mass is below 0
    CHECK(fit.nonfinite_log_p() == 0);
    CHECK_THAT(fit.summary(1), Contains(fmt::format("{} output draws were rejected because a "
                                                    "transformed parameter violated",
                                                    fit.rejected_tp_constraint_draws())) &&
                                   Contains("transformed parameter `tp` is -") &&
                                   Contains("below the lower bound 0"));
    const CsvOutput csv = cmdstan_output(fit, options);
    CHECK_THAT(trailer(csv),
               Contains(fmt::format("rejected_tp_constraint_draws = {}\n",
                                    fit.rejected_tp_constraint_draws())) &&
                   Contains(fmt::format("dropped_draws = {}\n", fit.result().dropped_draws)));
}

// The mean row T^-1(mu) is CmdStan's and is written as computed, but Stan would reject a point
// whose transformed parameter violates its constraint: the summary and the trailer say so,
// naming it. Interrupted at once, q is the initial approximation, mu = 0, so tp = -0.2 there.
TEST_CASE("the mean row is checked against the constraints of transformed parameters",
          "[stan][constraints]") {
    const char* program = R"(
parameters { real x; }
transformed parameters { real<lower=0> tp = x - 0.2; }
model { x ~ normal(3, 1); }
)";
    auto low = lower_text(program);
    std::atomic<bool> stop{true};
    Options options{.seed = 1, .output_samples = 200, .interrupt = &stop};
    // zeros given: the default init would move to random initial values, as Stan's test of an
    // init point rejects a violated constraint
    options.init = Eigen::VectorXd::Zero(1);
    const Fit fit = advi::fit(low->model().spec(), options);
    REQUIRE(fit.result().q.mu()[0] == 0.0);
    REQUIRE(fit.mean_tp_violation());
    CHECK(*fit.mean_tp_violation() ==
          "transformed parameter `tp` is -0.2, below the lower bound 0");
    CHECK_THAT(fit.summary(1),
               Contains("q's mean row, T^-1(mu), violates a declared constraint, so Stan would "
                        "reject that point; its values are written as computed (transformed "
                        "parameter `tp` is -0.2, below the lower bound 0)"));
    CHECK_THAT(trailer(cmdstan_output(fit, options)),
               Contains("mean_row_tp_constraint = violated: transformed parameter `tp` is -0.2, "
                        "below the lower bound 0\n"));
    // The draws are still checked one by one: x >= 0.2 only, about 58% of N(0, 1) rejected.
    CHECK(fit.theta_draws().col(0).minCoeff() >= 0.2);
    CHECK(fit.rejected_tp_constraint_draws() > 100);

    // A fit whose mean satisfies them says so; a model without such constraints says nothing.
    auto ok = lower_text(R"(
parameters { real mu; }
transformed parameters { real<lower=0> tp = mu; }
model { mu ~ normal(3, 1); }
)");
    const Fit good = advi::fit(ok->model().spec(), {.seed = 1});
    INFO(good.result().stop_reason);
    REQUIRE(good.mean_tp_violation());
    CHECK(good.mean_tp_violation()->empty());
    CHECK_THAT(trailer(cmdstan_output(good, {.seed = 1})),
               Contains("mean_row_tp_constraint = satisfied\n"));
    CHECK_THAT(good.summary(1), !Contains("mean row"));
    auto plain = lower_text("parameters { real x; } model { x ~ normal(3, 1); }");
    const Fit none = advi::fit(plain->model().spec(), {.seed = 1});
    CHECK_FALSE(none.mean_tp_violation());
    CHECK_THAT(trailer(cmdstan_output(none, {.seed = 1})), !Contains("mean_row_tp_constraint"));
}

TEST_CASE("structured constraints of transformed parameters: ordered, rows of ordered vectors",
          "[stan][constraints]") {
    // q starts with half its mass outside each constraint and ends with a few percent there. (A
    // fixed step size: the eta search's trials reject most of their draws here.)
    auto low = lower_text(R"(
parameters { vector[2] a; vector[2] b; }
transformed parameters {
  ordered[2] o = a;
  positive_ordered[2] p = exp(b);
}
model { a[1] ~ normal(0, 1); a[2] ~ normal(3, 1); b[1] ~ normal(0, 0.5); b[2] ~ normal(2, 0.5); }
)");
    const Fit fit =
        advi::fit(low->model().spec(),
                  {.seed = 2, .adapt_engaged = false, .eta = 0.1, .output_samples = 500});
    const ReportedDraws r = report(*low, fit, 1);
    REQUIRE(r.draws.cols() == 4);
    for (Eigen::Index i = 0; i < r.draws.rows(); ++i) {
        CHECK(r.draws(i, 1) > r.draws(i, 0));
        CHECK(r.draws(i, 3) > r.draws(i, 2));
        CHECK(r.draws(i, 2) > 0);
    }
    CHECK(fit.rejected_tp_constraint_draws() > 0);
    CHECK(fit.result().dropped_draws > 0);
}

TEST_CASE("a transformed parameter that can never satisfy its constraint names it",
          "[stan][constraints]") {
    auto low = lower_text(R"(
parameters { vector[3] a; }
transformed parameters { simplex[3] s = a; }
model { a ~ normal(0.33, 0.3); }
)");
    CHECK_THROWS_WITH(advi::fit(low->model().spec(), {.seed = 1}),
                      Contains("transformed parameter `s` is not a simplex: ") &&
                          Contains("(Stan rejects such a draw)"));
}

TEST_CASE("a generated quantity outside its declared constraint is an error naming it",
          "[stan][constraints]") {
    auto low = lower_text(R"(
parameters { real mu; }
model { mu ~ normal(0.5, 1); }
generated quantities {
  real<lower=0> g = mu;
  simplex[2] ok = [0.25, 0.75]';
}
)");
    const Fit fit = advi::fit(low->model().spec(), {.seed = 1});
    CHECK(fit.rejected_tp_constraint_draws() == 0);
    CHECK_THROWS_WITH(report(*low, fit, 1), Contains("generated quantity `g` is -") &&
                                                Contains("below the lower bound 0") &&
                                                Contains("output draw"));
    auto fine = lower_text(R"(
parameters { real mu; }
model { mu ~ normal(0.5, 1); }
generated quantities {
  real<lower=0> g = exp(mu);
  cov_matrix[2] S = diag_matrix(rep_vector(exp(mu), 2));
  simplex[3] s = softmax([mu, 1, 2]');
}
)");
    const Fit fine_fit = advi::fit(fine->model().spec(), {.seed = 1, .output_samples = 50});
    CHECK_NOTHROW(report(*fine, fine_fit, 1));
    auto bad_cov = lower_text(R"(
parameters { real mu; }
model { mu ~ normal(0.5, 1); }
generated quantities { cov_matrix[2] S = diag_matrix(rep_vector(mu, 2)); }
)");
    const Fit cov_fit = advi::fit(bad_cov->model().spec(), {.seed = 1, .output_samples = 200});
    CHECK_THROWS_WITH(report(*bad_cov, cov_fit, 1),
                      Contains("generated quantity `S` is not a covariance matrix: it is not "
                               "positive definite"));
}

TEST_CASE("where the constraints hold, the log density and its gradient are unchanged",
          "[stan][constraints]") {
    // The same model with and without the declared constraints of its transformed parameters.
    const std::string body = R"(
data { int N; vector[N] y; }
parameters { real mu; real<lower=0> sigma; vector[2] a; }
transformed parameters {
  real%1% m = mu;
  vector%2%[N] z = (y - mu) / sigma;
  %3%[2] o = a;
}
model { y ~ normal(mu, sigma); a ~ normal(0, 1); mu ~ normal(0, 5); }
)";
    const auto with = [&](const std::string& a, const std::string& b, const std::string& c) {
        std::string s = body;
        s.replace(s.find("%1%"), 3, a);
        s.replace(s.find("%2%"), 3, b);
        s.replace(s.find("%3%"), 3, c);
        return s;
    };
    const std::string data = R"({"N": 3, "y": [0.5, 1.5, 1.0]})";
    auto checked = lower_text(with("<lower=-1, upper=3>", "<lower=-10>", "ordered"), data);
    auto plain = lower_text(with("", "", "vector"), data);
    advi::Program pc = compile(checked->model().spec());
    advi::Program pp = compile(plain->model().spec());
    REQUIRE(pc.dim() == 4);
    Eigen::VectorXd gc, gp;
    // (mu, log sigma, a1, a2): inside every constraint
    for (const auto& z : {Eigen::Vector4d(0.9, 0.1, -0.3, 0.4), Eigen::Vector4d(2.5, -0.5, 1, 1.5),
                          Eigen::Vector4d(-0.8, 0.7, -2, 3)}) {
        const double lc = pc.run(z, gc);
        const double lp = pp.run(z, gp);
        CHECK(std::abs(lc - lp) <= 1e-12 * std::abs(lp));
        CHECK((gc - gp).cwiseAbs().maxCoeff() <= 1e-12);
    }
    // outside: m > 3, z below -10, a not ordered
    for (const auto& z : {Eigen::Vector4d(3.5, 0.1, -0.3, 0.4), Eigen::Vector4d(0.9, -4, -0.3, 0.4),
                          Eigen::Vector4d(0.9, 0.1, 0.4, -0.3)}) {
        CHECK(pc.run(z, gc) == -std::numeric_limits<double>::infinity());
        CHECK(std::isfinite(pp.run(z, gp)));
    }
}

}  // namespace
}  // namespace advi::stan
