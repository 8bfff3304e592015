// The scalar distributions through the DSL: integer data as binomial's N (a number, a scalar
// or a vector of data), the checks observe() makes against N and the supports, natural
// supports of priors, and a fit against a conjugate posterior.
#include <cmath>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>

namespace advi {

TEST_CASE("binomial with N as integer data: the program's log density by hand", "[dsl][dist]") {
    Eigen::VectorXi y(4), N(4);
    y << 0, 3, 7, 12;
    N << 5, 3, 10, 20;
    Model m;
    const Expr yd = m.data("y", y), Nd = m.data("N", N);
    const Expr theta = m.param("theta", beta(2, 3));
    m.observe(yd, binomial(Nd, theta));
    Program p = compile(m);
    Eigen::VectorXd z(1), grad(1);
    z << -0.3;
    const double lp = p.run(z, grad);
    // theta = logit^-1(z); log|J| = log(theta (1 - theta))
    const double t = 1 / (1 + std::exp(0.3));
    double expected = std::log(boost::math::pdf(boost::math::beta_distribution<>(2, 3), t)) +
                      std::log(t * (1 - t));
    for (int i = 0; i < 4; ++i) {
        expected += std::log(boost::math::pdf(boost::math::binomial(N[i], t), y[i]));
    }
    CHECK(lp == Approx(expected).epsilon(1e-12));
}

TEST_CASE("observe checks counts against N and N's domain, naming both", "[dsl][dist]") {
    Eigen::VectorXi y(3), N(3), Nneg(3);
    y << 1, 7, 2;
    N << 5, 6, 9;
    Nneg << 5, 9, -1;
    Model m;
    const Expr yd = m.data("y", y), Nd = m.data("N", N), Nn = m.data("Nneg", Nneg);
    const Expr theta = m.param("theta", beta(1, 1));
    CHECK_THROWS_AS(m.observe(yd, binomial(5, theta)), DataError);
    CHECK_THROWS_WITH(m.observe(yd, binomial(5, theta)),
                      Catch::Contains("observe `y`") &&
                          Catch::Contains("value 7 at index 1 is above binomial's `N` = 5"));
    CHECK_THROWS_WITH(m.observe(yd, binomial_logit(Nd, 0.5)),
                      Catch::Contains("value 7 at index 1 is above binomial_logit's `N` = 6"));
    CHECK_THROWS_WITH(m.observe(yd, beta_binomial(Nd * 1.0, 1.0, 2.0)),
                      Catch::Contains("above beta_binomial's `N` = 6"));
    CHECK_THROWS_AS(m.observe(yd, binomial(Nn, theta)), ModelError);
    CHECK_THROWS_WITH(
        m.observe(yd, binomial(Nn, theta)),
        Catch::Contains("binomial: argument `N` must be a non-negative integer, got -1 "
                        "(element 2 of data `Nneg`)"));
    CHECK_THROWS_WITH(m.observe(yd, binomial(7.5, theta)),
                      Catch::Contains("`N` must be a non-negative integer, got 7.5"));
    Eigen::VectorXi neg(2);
    neg << 0, -3;
    const Expr nd = m.data("neg", neg);
    CHECK_THROWS_WITH(
        m.observe(nd, neg_binomial_2(2.0, 1.0)),
        Catch::Contains("value -3 at index 1 is outside the support of neg_binomial_2"));
    // Integer data arguments of other distributions are checked too.
    CHECK_THROWS_WITH(m.observe(yd, poisson(Nn)),
                      Catch::Contains("poisson: argument `lambda` must be non-negative, got -1"));
    // ... and in range it is accepted.
    Eigen::VectorXi ok(3);
    ok << 5, 6, 0;
    const Expr okd = m.data("ok", ok);
    CHECK_NOTHROW(m.observe(okd, binomial(Nd, theta)));
}

TEST_CASE("priors of the scalar rows imply their supports", "[dsl][dist]") {
    Model m;
    m.param("c", chi_square(3));
    m.param("ic", inv_chi_square(3));
    m.param("sc", scaled_inv_chi_square(3, 0.5));
    m.param("f", frechet(2, 1));
    const Expr p = m.param("p", pareto(1.5, 2));
    m.param("p2", pareto_type_2(-1, 2, 3));
    m.param("v", von_mises(0.5, 2));
    m.param("g", gumbel(0, 1));
    m.param("l", logistic(0, 1));
    m.param("d", double_exponential(0, 1));
    m.param("sn", skew_normal(0, 1, 3));
    const ModelSpec spec = m.spec();
    for (const char* name : {"c", "ic", "sc", "f"})
        CHECK(spec.latent(name).support == Support::positive());
    CHECK(spec.latent("p").support == Support::lower_bound(1.5));
    CHECK(spec.latent("p2").support == Support::lower_bound(-1.0));
    CHECK(spec.latent("v").support == Support::interval(-M_PI, M_PI));
    for (const char* name : {"g", "l", "d", "sn"})
        CHECK(spec.latent(name).support == Support::real());
    // A pareto bound that is a parameter is not known when the prior is built.
    CHECK_THROWS_WITH(m.param("q", pareto(p, 2)),
                      Catch::Contains("param `q` prior: pareto") && Catch::Contains("`y_min`"));
    // Data outside the support: von_mises lives on (-pi, pi).
    Eigen::VectorXd angles(2);
    angles << 0.5, 3.5;
    const Expr a = m.data("angles", angles);
    CHECK_THROWS_WITH(m.observe(a, von_mises(0, 1)),
                      Catch::Contains("value 3.5 at index 1 is outside the support") &&
                          Catch::Contains("von_mises"));
    CHECK_THROWS_WITH(m.param("bad", gumbel(0, -2)),
                      Catch::Contains("gumbel: argument `beta` must be positive, got -2"));
}

TEST_CASE("binomial fit recovers the conjugate Beta posterior", "[dsl][dist][fit]") {
    // theta ~ beta(2, 2), y_i ~ binomial(N_i, theta): theta | y ~ Beta(2 + sum y, 2 + sum(N - y)).
    Eigen::VectorXi y(5), N(5);
    y << 3, 7, 4, 9, 6;
    N << 10, 12, 10, 15, 11;
    Model m;
    const Expr yd = m.data("y", y), Nd = m.data("N", N);
    const Expr theta = m.param("theta", beta(2, 2));
    m.observe(yd, binomial(Nd, theta));
    const Fit fit = advi::fit(m, {.seed = 3});
    const double a = 2 + y.sum(), b = 2 + (N - y).sum();
    const double mean = a / (a + b);
    const double sd = std::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)));
    CHECK(fit.mean("theta")[0] == Approx(mean).margin(0.5 * sd));
    CHECK(fit.sd("theta")[0] == Approx(sd).epsilon(0.3));
}

}  // namespace advi
