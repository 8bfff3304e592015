// ODE solutions in models (dsl/advi/cpp/ode.hpp, graph/ops_ode.hpp): values against closed-form
// solutions, gradients (forward sensitivities) against the closed form and against finite
// differences of the compiled log density, each method, and the errors.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>

namespace advi {
namespace {

// y' = -k y: y(t) = y0 exp(-k t).
Expr decay(Model&, const Expr&, const Expr& y, const std::vector<Expr>& args) {
    return -args[0] * y;
}

double lp_at(Program& p, const Eigen::VectorXd& z) {
    Eigen::VectorXd g;
    return p.run(z, g);
}

Eigen::VectorXd finite_differences(Program& p, const Eigen::VectorXd& z) {
    Eigen::VectorXd g(z.size());
    for (Eigen::Index i = 0; i < z.size(); ++i) {
        const double h = 1e-5 * std::max(1.0, std::abs(z[i]));
        Eigen::VectorXd zp = z, zm = z;
        zp[i] += h;
        zm[i] -= h;
        g[i] = (lp_at(p, zp) - lp_at(p, zm)) / (2 * h);
    }
    return g;
}

TEST_CASE("ode_solve of exponential decay: values and gradient against the closed form") {
    for (const OdeMethod method : {OdeMethod::Rk45, OdeMethod::CashKarp}) {
        Model m;
        const Expr k = m.param("k", normal(0, 10));
        const Expr y0 = m.param("y0", normal(0, 10), 1);
        const std::vector<double> ts{0.5, 1.0, 2.5};
        OdeOptions o;
        o.method = method;
        o.relative_tolerance = 1e-10;
        o.absolute_tolerance = 1e-10;
        const Expr y = ode_solve(decay, y0, 0.0, ts, {k}, o);
        REQUIRE(y.shape() == Shape::matrix(3, 1));
        // lp = sum_i w_i y(t_i) plus the priors; d/dk y(t) = -t y0 e^{-kt}, d/dy0 = e^{-kt}.
        const Eigen::Vector3d w(1.0, -2.0, 0.5);
        m.target_add(sum(elt_multiply(to_vector(y), w)));
        Program p = compile(m);
        Eigen::VectorXd z(2);
        z << 0.7, 1.3;
        Eigen::VectorXd grad;
        const double lp = p.run(z, grad);
        double want = 0, dk = 0, dy0 = 0;
        for (int i = 0; i < 3; ++i) {
            const double e = std::exp(-z[0] * ts[i]);
            want += w[i] * z[1] * e;
            dk += w[i] * -ts[i] * z[1] * e;
            dy0 += w[i] * e;
        }
        // the priors
        want += -0.5 * (z[0] * z[0] + z[1] * z[1]) / 100 - 2 * std::log(10 * std::sqrt(2 * M_PI));
        dk += -z[0] / 100;
        dy0 += -z[1] / 100;
        CHECK(lp == Approx(want).epsilon(1e-8));
        CHECK(grad[0] == Approx(dk).epsilon(1e-7));
        CHECK(grad[1] == Approx(dy0).epsilon(1e-7));
    }
}

// Lotka-Volterra: two states, four parameters in a vector, a data argument, and a
// likelihood of the states: the gradient against finite differences of the same program.
TEST_CASE("ode_solve of Lotka-Volterra: gradient against finite differences") {
    Model m;
    const Expr theta = m.param("theta", lognormal(-1, 0.5), 4);
    const Expr z0 = m.param("z0", lognormal(1, 0.5), 2);
    const Eigen::Vector2d scale(1.0, 1.5);  // a constant argument
    const std::vector<double> ts{1, 2, 3, 4, 5};
    auto lv = [](Model&, const Expr&, const Expr& y, const std::vector<Expr>& a) {
        const Expr u = y[Eigen::VectorXi::Constant(1, 0)];
        const Expr v = y[Eigen::VectorXi::Constant(1, 1)];
        const Expr al = a[0][Eigen::VectorXi::Constant(1, 0)];
        const Expr be = a[0][Eigen::VectorXi::Constant(1, 1)];
        const Expr ga = a[0][Eigen::VectorXi::Constant(1, 2)];
        const Expr de = a[0][Eigen::VectorXi::Constant(1, 3)];
        const Expr du = (al - be * v) * u;
        const Expr dv = (-ga + de * u) * v;
        return append_row(du, dv) * a[1];
    };
    OdeOptions o;
    o.relative_tolerance = 1e-10;
    o.absolute_tolerance = 1e-10;
    const Expr y = ode_solve(lv, z0, 0.0, ts, {theta, m.constant(0) + scale}, o);
    Eigen::MatrixXd obs(5, 2);
    obs << 2, 1, 3, 2, 1.5, 4, 0.8, 3, 1, 1.5;
    static Eigen::VectorXd observed;
    observed = Eigen::Map<Eigen::VectorXd>(obs.data(), 10);
    m.observe(m.data("obs", observed), lognormal(log(to_vector(y)), 0.3));
    Program p = compile(m);
    Eigen::VectorXd z(6);
    z << std::log(0.55), std::log(0.028 * 10), std::log(0.8), std::log(0.024 * 10), std::log(3.0),
        std::log(1.5);
    Eigen::VectorXd grad;
    const double lp = p.run(z, grad);
    REQUIRE(std::isfinite(lp));
    const Eigen::VectorXd fd = finite_differences(p, z);
    for (Eigen::Index i = 0; i < z.size(); ++i) {
        INFO("coordinate " << i);
        CHECK(grad[i] == Approx(fd[i]).epsilon(1e-5).margin(1e-5));
    }
}

TEST_CASE("ode_solve refuses bad times and tolerances, naming the call") {
    Model m;
    const Expr k = m.param("k", normal(0, 1));
    const Expr y0 = m.constant(0) + Eigen::VectorXd::Ones(1);
    OdeOptions o;
    o.name = "ode_rk45";
    CHECK_THROWS_WITH(ode_solve(decay, y0, 1.0, {0.5, 2.0}, {k}, o),
                      Catch::Contains("ode_rk45") && Catch::Contains("initial time"));
    CHECK_THROWS_WITH(ode_solve(decay, y0, 0.0, {1.0, 0.5}, {k}, o),
                      Catch::Contains("ts must be sorted"));
    o.relative_tolerance = -1;
    CHECK_THROWS_WITH(ode_solve(decay, y0, 0.0, {1.0}, {k}, o),
                      Catch::Contains("relative_tolerance"));
    o.relative_tolerance = 1e-6;
    auto wrong_size = [](Model& rhs, const Expr&, const Expr&, const std::vector<Expr>&) {
        return rhs.constant(0) + Eigen::VectorXd::Ones(2);
    };
    CHECK_THROWS_WITH(ode_solve(wrong_size, y0, 0.0, {1.0}, {k}, o),
                      Catch::Contains("state has 1 element"));
}

TEST_CASE("a solve that exceeds max_num_steps gives a non-finite density, not a number") {
    Model m;
    const Expr k = m.param("k", normal(0, 1));
    const Expr y0 = m.constant(0) + Eigen::VectorXd::Ones(1);
    OdeOptions o;
    o.max_num_steps = 3;
    const Expr y = ode_solve(decay, y0, 0.0, {100.0}, {exp(k) * 100}, o);
    m.target_add(sum(y));
    Program p = compile(m);
    Eigen::VectorXd z = Eigen::VectorXd::Constant(1, 0.5), grad;
    CHECK_FALSE(std::isfinite(p.run(z, grad)));
}

TEST_CASE("the Hessian of a model with an ODE solve is refused with the reason") {
    Model m;
    const Expr k = m.param("k", normal(0, 1));
    const Expr y0 = m.constant(0) + Eigen::VectorXd::Ones(1);
    m.target_add(sum(ode_solve(decay, y0, 0.0, {1.0}, {k})));
    CHECK_THROWS_WITH(compile_hessian_vector(m.spec()),
                      Catch::Contains("second-order sensitivities of an ODE solution"));
}

TEST_CASE("a fit of a model with an ODE solve: the decay rate from noisy data") {
    // y(t) = 2 exp(-0.8 t) observed with noise sd 0.05 at 10 times: the posterior of k is close
    // to 0.8 with a small sd; the fit starts from the init point and says why.
    Model m;
    const Expr k = m.param("k", lognormal(0, 1));
    const Expr y0 = m.constant(0) + Eigen::VectorXd::Constant(1, 2.0);
    std::vector<double> ts;
    static Eigen::VectorXd obs(10);
    const double noise[10] = {0.03, -0.05, 0.01, 0.04, -0.02, 0.0, -0.06, 0.02, 0.05, -0.01};
    for (int i = 0; i < 10; ++i) {
        ts.push_back(0.3 * (i + 1));
        obs[i] = 2 * std::exp(-0.8 * ts.back()) + noise[i];
    }
    const Expr y = ode_solve(decay, y0, 0.0, ts, {k});
    m.observe(m.data("obs", obs), normal(to_vector(y), 0.05));
    Options o;
    o.seed = 3;
    const Fit f = fit(m, o);
    CHECK(f.mean("k")[0] == Approx(0.8).margin(0.03));
    CHECK_THAT(f.result().start, Catch::Contains("second-order sensitivities"));
}

}  // namespace
}  // namespace advi
