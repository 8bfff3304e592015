// advi::optimize against analytic modes: a ridge regression (known noise, normal prior), the
// same with an uncentred predictor and with an outcome in raw dollars; sigma ~ lognormal(0, 1)
// with and without the log-Jacobian; and a hierarchical model whose group scale runs to 0.
#include <cmath>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <advi/advi.hpp>
#include <advi/fit/optimize.hpp>

namespace advi {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

// y ~ normal(X beta, s), beta ~ normal(0, t): the posterior is Gaussian and its mode the
// ridge solution (X'X / s^2 + I / t^2)^-1 X'y / s^2.
struct Ridge {
    Eigen::MatrixXd X;
    Eigen::VectorXd y;
    double s, t;
    Model m;
    Ridge(Eigen::MatrixXd x, Eigen::VectorXd yy, double noise, double prior)
        : X(std::move(x)), y(std::move(yy)), s(noise), t(prior) {
        auto Xd = m.data("X", X);
        auto yd = m.data("y", y);
        auto beta = m.param("beta", normal(0, t), X.cols());
        m.observe(yd, normal(Xd * beta, s));
    }
    [[nodiscard]] Eigen::VectorXd mode() const {
        const Eigen::MatrixXd A =
            X.transpose() * X / (s * s) + Eigen::MatrixXd::Identity(X.cols(), X.cols()) / (t * t);
        return A.ldlt().solve(X.transpose() * y / (s * s));
    }
};

// An intercept column and `extra` predictors; column 1 is `shift` + N(0, 1) (an uncentred
// year), the outcome is `scale` times a linear predictor plus noise (earnings in dollars).
Ridge make_ridge(int n, double shift, double scale, double noise, double prior) {
    std::mt19937 rng(7);
    std::normal_distribution<double> z(0.0, 1.0);
    Eigen::MatrixXd X(n, 3);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
        X(i, 0) = 1.0;
        X(i, 1) = shift + z(rng);
        X(i, 2) = 0.5 * X(i, 1) - 0.5 * shift + z(rng);  // correlated with column 1
        y[i] = scale * (0.7 + 0.3 * (X(i, 1) - shift) - 0.2 * X(i, 2)) + noise * z(rng);
    }
    return {X, y, noise, prior};
}

// Tighter than CmdStan's defaults (which stop where g' H^-1 g < 1e7 epsilon max(|lp|, 1),
// about 1e-4 posterior sds from the mode here), for comparisons at 1e-6.
OptimizeOptions tight(OptimizerAlgorithm a) {
    OptimizeOptions o;
    o.algorithm = a;
    o.tol_rel_grad = 1.0;
    o.tol_rel_obj = 1.0;
    o.tol_obj = 0.0;
    o.tol_param = 0.0;
    o.tol_grad = 0.0;
    o.iter = 5000;
    return o;
}

// The rate in "... rising at a steady 7.97 per unit moved ...".
double steady_rate(const std::string& message) {
    const std::string key = "at a steady ";
    const auto at = message.find(key);
    return at == std::string::npos ? -1.0 : std::stod(message.substr(at + key.size()));
}

double relative_error(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return (a - b).norm() / b.norm();
}

}  // namespace

TEST_CASE("optimize: a ridge regression's mode is the analytic ridge solution", "[optimize]") {
    struct Case {
        const char* what;
        double shift, scale, noise, prior;
    };
    const Case cases[] = {
        {"centred predictors",                   0.0,    1.0, 0.8, 2.0 },
        {"uncentred predictor (2000 + N(0, 1))", 2000.0, 1.0, 0.8, 10.0},
        {"outcome in raw dollars (scale 1e4)",   0.0,    1e4, 5e3, 1e5 }
    };
    for (const Case& c : cases) {
        CAPTURE(c.what);
        const Ridge r = make_ridge(60, c.shift, c.scale, c.noise, c.prior);
        const Eigen::VectorXd want = r.mode();
        for (auto a : {OptimizerAlgorithm::Lbfgs, OptimizerAlgorithm::Newton}) {
            CAPTURE(a == OptimizerAlgorithm::Newton);
            const Optimum o = optimize(r.m.spec(), tight(a));
            CAPTURE(o.message(), o.iterations(), o.value("beta").transpose(), want.transpose());
            REQUIRE(o.converged());
            CHECK(relative_error(o.value("beta"), want) < 1e-6);
            // The same with CmdStan's defaults: converged, close in the posterior's metric.
            OptimizeOptions d;
            d.algorithm = a;
            const Optimum od = optimize(r.m.spec(), d);
            REQUIRE(od.converged());
            const Eigen::VectorXd e = od.value("beta") - want;
            const Eigen::MatrixXd P = r.X.transpose() * r.X / (r.s * r.s);
            CHECK(std::sqrt(e.dot(P * e)) < 1e-2);  // in posterior sds
        }
    }
}

TEST_CASE(
    "optimize: sigma ~ lognormal(0, 1) has mode exp(-1) without the Jacobian and 1 "
    "with it",
    "[optimize]") {
    Model m;
    (void)m.param("sigma", lognormal(0, 1));
    for (auto a : {OptimizerAlgorithm::Lbfgs, OptimizerAlgorithm::Newton}) {
        OptimizeOptions o = tight(a);
        const Optimum without = optimize(m.spec(), o);
        CAPTURE(without.message());
        REQUIRE(without.converged());
        CHECK(without.value("sigma")[0] == Approx(std::exp(-1.0)).epsilon(1e-8));
        // lp: log lognormal(exp(-1) | 0, 1) with every constant = 1 - 1/2 - log sqrt(2 pi).
        CHECK(without.lp() == Approx(0.5 - 0.5 * std::log(2 * M_PI)).epsilon(1e-12));
        o.jacobian = true;
        const Optimum with = optimize(m.spec(), o);
        REQUIRE(with.converged());
        CHECK(with.value("sigma")[0] == Approx(1.0).epsilon(1e-8));
        CHECK(with.zeta()[0] == Approx(0.0).margin(1e-8));
        // With the Jacobian: log N(0 | 0, 1) = -log sqrt(2 pi).
        CHECK(with.lp() == Approx(-0.5 * std::log(2 * M_PI)).epsilon(1e-12));
    }
}

TEST_CASE("optimize: a centred hierarchical model has no mode, and says so", "[optimize]") {
    // Eight schools, centred: as tau -> 0 with every theta_j = mu, lp rises like -8 log tau.
    const Eigen::VectorXd y = (Eigen::VectorXd(8) << 28, 8, -3, 7, -1, 1, 18, 12).finished();
    const Eigen::VectorXd sigma = (Eigen::VectorXd(8) << 15, 10, 16, 11, 9, 11, 10, 18).finished();
    Model m;
    auto yd = m.data("y", y);
    auto sd = m.data("sigma", sigma);
    auto mu = m.param("mu", normal(0, 5));
    auto tau = m.param("tau", cauchy(0, 5), {.lower = 0.0});
    auto theta = m.param("theta", normal(mu, tau), 8);
    m.observe(yd, normal(theta, sd));
    for (auto a : {OptimizerAlgorithm::Lbfgs, OptimizerAlgorithm::Newton}) {
        OptimizeOptions o;
        o.algorithm = a;
        o.seed = 4;
        const Optimum r = optimize(m.spec(), o);
        CAPTURE(r.message(), r.iterations(), r.value("tau")[0]);
        CHECK(r.status() == OptimizeStatus::NoMode);
        CHECK(!r.converged());
        CHECK_THAT(r.message(), StartsWith("no mode: ") && Contains("`tau`"));
        CHECK_THAT(r.summary(), Contains("no mode: "));
        // lp rises like -8 log tau: 8 per unit of log tau moved.
        CHECK(steady_rate(r.message()) == Approx(8.0).margin(0.15));
        // The log-Jacobian adds log tau: the unconstrained density still rises like -7 log tau
        // (the centred eight schools have no mode there either).
        o.jacobian = true;
        const Optimum j = optimize(m.spec(), o);
        CAPTURE(j.message());
        CHECK(j.status() == OptimizeStatus::NoMode);
        CHECK_THAT(j.message(), Contains("`tau`"));
        // The rate is per unit moved in all coordinates, approaching 7 from below as tau
        // leads the move. Newton's steps are long: where the rule stops it after a few dozen
        // (the two-stage H v program rounds differently from the whole graph's, which took
        // Newton 1,996 steps to tau = e^-46.6, at 7.00), the window still has mu and theta
        // settling, 5.89 from e^-4 to e^-40. Below 8 either way: the Jacobian's log tau counted.
        if (a == OptimizerAlgorithm::Lbfgs) {
            CHECK(steady_rate(j.message()) == Approx(7.0).margin(0.15));
        } else {
            CHECK(steady_rate(j.message()) > 5.5);
            CHECK(steady_rate(j.message()) < 7.15);
        }
    }
}

TEST_CASE("optimize: options and names are checked", "[optimize]") {
    Model m;
    (void)m.param("sigma", lognormal(0, 1));
    OptimizeOptions o;
    o.iter = 0;
    CHECK_THROWS_WITH(optimize(m.spec(), o), Contains("option `iter` = 0"));
    o = {};
    o.tol_rel_grad = -1;
    CHECK_THROWS_WITH(optimize(m.spec(), o), Contains("option `tol_rel_grad` = -1"));
    o = {};
    o.init = Eigen::VectorXd::Zero(2);
    CHECK_THROWS_AS(optimize(m.spec(), o), ShapeError);
    o = {};
    o.init = Eigen::VectorXd::Constant(1, 0.25);
    o.iter = 1;
    const Optimum one = optimize(m.spec(), o);
    CHECK(one.iterations() == 1);
    CHECK(one.status() == OptimizeStatus::IterationLimit);
    CHECK_THROWS_WITH(one.value("tau"), Contains("sigma"));
    CHECK_THAT(one.summary(1), Contains("sigma") && Contains("iteration limit 1"));
}

}  // namespace advi

namespace advi {

TEST_CASE("optimize: 10,000 parameters, both algorithms, the analytic mode", "[optimize]") {
    // theta_k ~ normal(0, 10), y_k ~ normal(theta_k, 1): the mode is y_k * 100 / 101.
    const int k = 10000;
    Eigen::VectorXd y(k);
    for (int i = 0; i < k; ++i) y[i] = 3.0 * std::sin(0.37 * i);
    Model m;
    auto yd = m.data("y", y);
    auto theta = m.param("theta", normal(0, 10), k);
    m.observe(yd, normal(theta, 1));
    for (auto a : {OptimizerAlgorithm::Lbfgs, OptimizerAlgorithm::Newton}) {
        CAPTURE(a == OptimizerAlgorithm::Newton);
        const Optimum o = optimize(m.spec(), tight(a));
        CAPTURE(o.message());
        REQUIRE(o.converged());
        CHECK((o.value("theta") - y * (100.0 / 101.0)).cwiseAbs().maxCoeff() < 1e-6);
    }
}

}  // namespace advi

namespace advi {

TEST_CASE("optimize: an early L-BFGS claim is checked by Newton-CG on the exact Hessian",
          "[optimize]") {
    // A relative-gradient tolerance so loose that L-BFGS stops after its first step, far from
    // the mode of this badly scaled regression: the check's Newton decrement (exact, where
    // L-BFGS's is its approximation) meets the same loose test, and the Newton step that
    // follows lands on the mode of this Gaussian posterior.
    const Ridge r = make_ridge(60, 2000.0, 1.0, 0.8, 10.0);
    OptimizeOptions o;
    o.tol_rel_grad = 1e15;
    o.tol_rel_obj = 0;
    o.tol_obj = 0;
    o.tol_param = 0;
    const Optimum opt = optimize(r.m.spec(), o);
    CAPTURE(opt.message());
    REQUIRE(opt.converged());
    CHECK_THAT(opt.message(), Contains("L-BFGS stopped by tol_rel_grad") &&
                                  Contains("Newton-CG on the exact Hessian"));
    CHECK(relative_error(opt.value("beta"), r.mode()) < 1e-6);
    CHECK(opt.result().hessian_vector_products > 0);
}

}  // namespace advi
