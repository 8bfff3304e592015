// The DSL model builder: graphs of user expressions, supports inferred or given, the
// gradient program against a hand-written gradient, and errors that name the culprit.
#include <cmath>

#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>

#include <advi/base/memory_budget.hpp>

#include <advi/advi.hpp>
#include <advi/compile/constrain.hpp>

#include "support/gradient_check.hpp"

namespace advi {

TEST_CASE("linear regression: program value and gradient against a hand-written one", "[dsl]") {
    const int N = 30, D = 3;
    Eigen::MatrixXd X = Eigen::MatrixXd::Random(N, D);
    Eigen::VectorXd y = Eigen::VectorXd::Random(N);
    Model m;
    auto yd = m.data("y", y);
    auto Xd = m.data("X", X);
    auto beta = m.param("beta", normal(0, 10), D);
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(yd, normal(Xd * beta, sigma));
    Program p = compile(m);
    REQUIRE(p.dim() == D + 1);
    Eigen::VectorXd zeta(D + 1), grad(D + 1);
    zeta << 0.3, -0.2, 0.5, -0.4;
    const double lp = p.run(zeta, grad);

    // By hand: sigma = exp(z), log p = sum normal(y | X b, sigma) + sum normal(b | 0, 10)
    //          + lognormal(sigma | 0, 1) + z (log|det J|).
    const Eigen::VectorXd b = zeta.head(D);
    const double z = zeta[D], s = std::exp(z);
    const Eigen::VectorXd r = y - X * b;
    const double c = 0.5 * std::log(2 * M_PI);
    const double expected = -0.5 * r.squaredNorm() / (s * s) - N * (std::log(s) + c) +
                            (-0.5 * b.squaredNorm() / 100 - D * (std::log(10.0) + c)) +
                            (-0.5 * z * z - c - z) + z;
    CHECK(lp == Approx(expected).epsilon(1e-12));
    const Eigen::VectorXd gb = X.transpose() * r / (s * s) - b / 100;
    const double gz = r.squaredNorm() / (s * s) - N - z - 1 + 1;
    for (int d = 0; d < D; ++d) CHECK(grad[d] == Approx(gb[d]).epsilon(1e-10));
    CHECK(grad[D] == Approx(gz).epsilon(1e-10));
}

TEST_CASE("without the Jacobian, the program is the density of theta at T^-1(zeta)", "[dsl]") {
    // sigma = exp(z) and a bounded u = 2 + 3 inv_logit(w): their log|det J| are z and
    // log(3) + log_inv_logit(w) + log_inv_logit(-w); jacobian = false drops exactly those.
    Model m;
    auto sigma = m.param("sigma", lognormal(0, 1));
    auto u = m.param("u", uniform(2, 5));
    // Data is read in place: the vector must outlive the model.
    const Eigen::VectorXd y_value = Eigen::VectorXd::Constant(1, 0.7);
    auto y = m.data("y", y_value);
    m.observe(y, normal(u - 3, sigma));
    Program with = compile(m.spec(), true);
    Program without = compile(m.spec(), false);
    Eigen::VectorXd zeta(2), g1(2), g0(2);
    zeta << 0.4, -0.3;
    const double diff = with.run(zeta, g1) - without.run(zeta, g0);
    const double w = zeta[1];
    const double logit_part = -std::log1p(std::exp(-w)) - std::log1p(std::exp(w));
    CHECK(diff == Approx(zeta[0] + std::log(3.0) + logit_part).epsilon(1e-12));
    CHECK(g1[0] - g0[0] == Approx(1.0).epsilon(1e-12));
    // d/dw [log_inv_logit(w) + log_inv_logit(-w)] = 1 - 2 inv_logit(w)
    CHECK(g1[1] - g0[1] == Approx(1.0 - 2.0 / (1.0 + std::exp(-w))).epsilon(1e-12));
}

TEST_CASE("hierarchical priors: arguments that are expressions of other parameters", "[dsl]") {
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(6, -1, 2);
    Eigen::VectorXi group(6);
    group << 0, 0, 1, 1, 2, 2;
    Model m;
    auto yd = m.data("y", y);
    auto g = m.data("group", group);
    auto tau = m.param("tau", gamma(2, 2));
    auto alpha = m.param("alpha", gamma(1, 1));
    auto mu = m.param("mu", normal(0, tau / sqrt(alpha)), 3);
    m.observe(yd, normal(mu[g], 1.0));
    const ModelSpec spec = m.spec();
    CHECK(spec.latent("tau").support == Support::positive());
    CHECK(spec.latent("mu").support == Support::real());
    Graph graph;
    Eigen::VectorXd zeta(5);
    zeta << 0.2, -0.3, 0.1, -0.5, 0.9;
    test::check_gradient(constrain(spec), spec.data, zeta);
}

TEST_CASE("supports: inferred from the prior, given, or refused when wider", "[dsl]") {
    Model m;
    auto a = m.param("a", beta(2, 2));
    auto b = m.param("b", normal(0, 1), {.support = Support::positive()});  // half-normal
    auto c = m.param("c", uniform(-1, 3));
    auto d = m.param("d", gamma(2, 1), {.transform = PositiveTransform::Softplus});
    (void)a, (void)b, (void)c, (void)d;
    const ModelSpec s = m.spec();
    CHECK(s.latent("a").support == Support::interval(0, 1));
    CHECK(s.latent("b").support == Support::positive());
    CHECK(s.latent("c").support == Support::interval(-1, 3));
    CHECK(s.latent("d").positive == PositiveTransform::Softplus);
    CHECK_THROWS_WITH(m.param("e", gamma(2, 1), {.support = Support::real()}),
                      Catch::Contains("param `e` prior") &&
                          Catch::Contains("wider than gamma's support positive"));
}

TEST_CASE("bad input: errors name the variable, slot or argument", "[dsl]") {
    Eigen::VectorXd y = Eigen::VectorXd::Ones(4);
    Eigen::VectorXd y_bad = Eigen::VectorXd::Ones(4);
    y_bad[2] = std::nan("");
    Eigen::VectorXi counts(3);
    counts << 1, -2, 3;
    Eigen::MatrixXd X = Eigen::MatrixXd::Ones(5, 2);
    Model m;
    auto yd = m.data("y", y);
    auto Xd = m.data("X", X);
    auto beta = m.param("beta", normal(0, 1), 2);
    CHECK_THROWS_WITH(m.data("y", y), Catch::Contains("`y` is already a data slot"));
    // dims to report a matrix by must hold its values
    CHECK_THROWS_WITH(m.param("p", flat(), 2, 6,
                              {
                                  .dims = {2, 2, 2}
    }),
                      "param `p`: dims [2, 2, 2] hold 8 values; its shape holds 12");
    CHECK_THROWS_WITH(m.param("beta", normal(0, 1)),
                      Catch::Contains("`beta` is already a parameter"));
    CHECK_THROWS_WITH(m.data("y2", y_bad), Catch::Contains("data slot `y2`: element 2 is nan"));
    CHECK_THROWS_AS(m.observe(yd, normal(Xd * beta, 1.0)), ShapeError);
    CHECK_THROWS_WITH(m.observe(yd, normal(Xd * beta, 1.0)), Catch::Contains("observe `y`") &&
                                                                 Catch::Contains("vec[5]") &&
                                                                 Catch::Contains("vec[4]"));
    CHECK_THROWS_WITH(
        m.param("s", normal(0, -1)),
        Catch::Contains("param `s` prior: normal: argument `sigma` must be positive, got -1"));
    CHECK_THROWS_WITH(m.param("k", poisson(3)),
                      Catch::Contains("param `k` prior: poisson is a distribution over integers"));
    auto cd = m.data("counts", counts);
    CHECK_THROWS_WITH(
        m.observe(cd, poisson(2.0)),
        Catch::Contains("observe `counts`: value -2 at index 1 is outside the support of poisson"));
    CHECK_THROWS_WITH(m.observe(yd, poisson(2.0)),
                      Catch::Contains("observe `y`: poisson: the variate must be integer data"));
    Eigen::VectorXd neg = -Eigen::VectorXd::Ones(2);
    auto nd = m.data("neg", neg);
    CHECK_THROWS_WITH(
        m.observe(nd, lognormal(0, 1)),
        Catch::Contains(
            "observe `neg`: value -1 at index 0 is outside the support positive of lognormal"));
    CHECK_THROWS_WITH(m.spec().latent("gamma"),
                      Catch::Contains("no latent variable named `gamma` (the model has: beta)"));
    Model other;
    auto z = other.param("z", normal(0, 1));
    CHECK_THROWS_WITH(m.observe(yd, normal(z, 1.0)), Catch::Contains("another model"));
    // Sizes: negative, beyond what one node holds, beyond memory; refused before allocating.
    CHECK_THROWS_WITH(m.param("v", normal(0, 1), -3),
                      Catch::Contains("param `v`: negative size -3"));
    set_memory_budget_bytes(std::int64_t{1} << 50);  // whatever this machine's memory
    CHECK_THROWS_WITH(
        m.param("w", normal(0, 1), Eigen::Index{3000000000}),
        Catch::Contains(
            "param `w` has 3000000000 x 1 = 3000000000 elements, more than the 2147483647"));
    set_memory_budget_bytes(0);
    CHECK_THROWS_WITH(m.param("W", normal(0, 1), 4000000, 4000000),
                      Catch::Contains("param `W` (4000000 x 4000000) needs 128 TB") &&
                          Catch::Contains("more than this machine's"));
    CHECK_THROWS_AS(m.param("W", normal(0, 1), Eigen::Index{1} << 40, Eigen::Index{1} << 40),
                    SizeError);
}

TEST_CASE("the model graph prints with names, and int data is converted for arithmetic", "[dsl]") {
    Eigen::VectorXi k(2);
    k << 1, 4;
    Model m;
    auto kd = m.data("k", k);
    auto lambda = m.param("lambda", gamma(1, 1));
    m.observe(kd, poisson(lambda));
    m.target_add(log(kd + 1.0) * 0.0 + lambda * 0.0);
    const std::string s = m.graph().str();
    CHECK(s.find("data k int") != std::string::npos);
    CHECK(s.find("param lambda") != std::string::npos);
    CHECK(s.find("to_real") != std::string::npos);
    CHECK(s.find("out lp = ") != std::string::npos);
}

}  // namespace advi

namespace advi {

TEST_CASE("arguments computed from data are checked before the fit, naming the element", "[dsl]") {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(3);
    Eigen::VectorXd s(3);
    s << 1.0, -2.0, 0.5;
    Model m;
    auto yd = m.data("y", y);
    auto sd = m.data("s", s);
    CHECK_THROWS_WITH(
        m.observe(yd, normal(0.0, sd)),
        Catch::Contains("observe `y`: normal: argument `sigma` must be positive, got -2 "
                        "(element 1 of data `s`)"));
    CHECK_THROWS_WITH(
        m.param("mu", normal(0.0, sd * sd - 1.0), 3),
        Catch::Contains("param `mu` prior: normal: argument `sigma` must be positive, got 0 "
                        "(element 0 of an expression of data)"));
    // a parameter-valued argument is not known before the fit: no error now
    auto tau = m.param("tau", normal(0, 1));
    CHECK_NOTHROW(m.observe(yd, normal(0.0, tau)));
}

}  // namespace advi

// Data is read in place, so a temporary (also Eigen's const `.eval()` result) would dangle:
// the overloads that would bind one are deleted, and named objects still bind.
template <class T>
constexpr bool binds_data = requires(advi::Model& m, T&& v) {
    m.data("y", std::forward<T>(v));
};
static_assert(binds_data<Eigen::VectorXd&> && binds_data<const Eigen::MatrixXd&>);
static_assert(!binds_data<Eigen::VectorXd> && !binds_data<const Eigen::VectorXd>);
static_assert(!binds_data<Eigen::MatrixXd> && !binds_data<const Eigen::MatrixXd>);
static_assert(!binds_data<Eigen::VectorXi> && !binds_data<const Eigen::VectorXi>);
