// The DSL's scalar functions (dsl/advi/cpp/math.hpp): values against std:: and Boost.Math on data,
// gradients of each through a latent against finite differences of the compiled program,
// integer data arguments, and the errors.
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/acosh.hpp>
#include <boost/math/special_functions/asinh.hpp>
#include <boost/math/special_functions/atanh.hpp>
#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/lambert_w.hpp>
#include <boost/math/special_functions/owens_t.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/advi.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

namespace bm = boost::math;

enum class Where { Real, Positive, Unit, Negative };

struct Case {
    std::string name;
    std::function<Expr(const Expr&)> f;
    std::function<double(double)> ref;
    Where where;
};

std::vector<double> points(Where w) {
    switch (w) {
        case Where::Real: return {-3.2, -0.4, 0.3, 2.7};
        case Where::Positive: return {0.05, 0.8, 3.3, 12.0};
        case Where::Unit: return {0.01, 0.3, 0.75, 0.999};
        case Where::Negative: return {-8.0, -1.2, -0.4, -1e-3};
    }
    return {};
}

Support support(Where w) {
    switch (w) {
        case Where::Real: return Support::real();
        case Where::Positive: return Support::positive();
        case Where::Unit: return Support::interval(0, 1);
        case Where::Negative: return Support::upper_bound(0.0);
    }
    return Support::real();
}

double lbeta_ref(double a, double b) {
    return std::log(bm::beta(a, b));
}
// log C(n, k) = -log((n + 1) B(n - k + 1, k + 1)), for real n and k
double lchoose_ref(double n, double k) {
    return -std::log((n + 1) * bm::beta(n - k + 1, k + 1));
}
double inv_logit(double x) {
    return 1 / (1 + std::exp(-x));
}

const std::vector<Case>& cases() {
    static const bm::normal n01;
    static const std::vector<Case> c = {
  // clang-format off
        {"step", [](const Expr& x) { return step(x); }, [](double x) { return x < 0 ? 0.0 : 1.0; }, Where::Real},
        {"fabs", [](const Expr& x) { return fabs(x); }, [](double x) { return std::fabs(x); }, Where::Real},
        {"abs", [](const Expr& x) { return abs(x); }, [](double x) { return std::fabs(x); }, Where::Real},
        {"sin", [](const Expr& x) { return sin(x); }, [](double x) { return std::sin(x); }, Where::Real},
        {"cos", [](const Expr& x) { return cos(x); }, [](double x) { return std::cos(x); }, Where::Real},
        {"tanh", [](const Expr& x) { return tanh(x); }, [](double x) { return std::tanh(x); }, Where::Real},
        {"cbrt", [](const Expr& x) { return cbrt(x); }, [](double x) { return std::cbrt(x); }, Where::Real},
        {"erf", [](const Expr& x) { return erf(x); }, [](double x) { return bm::erf(x); }, Where::Real},
        {"erfc", [](const Expr& x) { return erfc(x); }, [](double x) { return bm::erfc(x); }, Where::Real},
        {"Phi", [](const Expr& x) { return Phi(x); }, [](double x) { return bm::cdf(n01, x); }, Where::Real},
        {"log_Phi", [](const Expr& x) { return log_Phi(x); }, [](double x) { return std::log(bm::cdf(n01, x)); }, Where::Real},
        {"Phi_approx", [](const Expr& x) { return Phi_approx(x); },
         [](double x) { return inv_logit(0.07056 * x * x * x + 1.5976 * x); }, Where::Real},
        {"log1m_exp", [](const Expr& x) { return log1m_exp(x); }, [](double x) { return std::log(1 - std::exp(x)); }, Where::Negative},
        {"log_bessel_i0", [](const Expr& x) { return log_bessel_i0(x); },
         [](double x) { return std::log(bm::cyl_bessel_i(0, x)); }, Where::Positive},
        {"digamma", [](const Expr& x) { return digamma(x); }, [](double x) { return bm::digamma(x); }, Where::Positive},
        {"fmin", [](const Expr& x) { return fmin(x, 0.5); }, [](double x) { return x < 0.5 ? x : 0.5; }, Where::Real},
        {"fmin2", [](const Expr& x) { return fmin(0.5, x); }, [](double x) { return x < 0.5 ? x : 0.5; }, Where::Real},
        {"fmax", [](const Expr& x) { return fmax(x, -1.0); }, [](double x) { return x > -1 ? x : -1.0; }, Where::Real},
        {"fmax2", [](const Expr& x) { return fmax(-1.0, x); }, [](double x) { return x > -1 ? x : -1.0; }, Where::Real},
        {"lmultiply", [](const Expr& x) { return lmultiply(x, 2.5); }, [](double x) { return x * std::log(2.5); }, Where::Real},
        {"lmultiply2", [](const Expr& x) { return lmultiply(1.5, x); }, [](double x) { return 1.5 * std::log(x); }, Where::Positive},
        {"log1m", [](const Expr& x) { return log1m(x); }, [](double x) { return std::log(1 - x); }, Where::Unit},
        {"inv", [](const Expr& x) { return inv(x); }, [](double x) { return 1 / x; }, Where::Positive},
        {"inv_sqrt", [](const Expr& x) { return inv_sqrt(x); }, [](double x) { return 1 / std::sqrt(x); }, Where::Positive},
        {"inv_square", [](const Expr& x) { return inv_square(x); }, [](double x) { return 1 / (x * x); }, Where::Positive},
        {"logit", [](const Expr& x) { return logit(x); }, [](double x) { return std::log(x / (1 - x)); }, Where::Unit},
        {"log1m_inv_logit", [](const Expr& x) { return log1m_inv_logit(x); },
         [](double x) { return std::log(1 - inv_logit(x)); }, Where::Real},
        {"inv_cloglog", [](const Expr& x) { return inv_cloglog(x); }, [](double x) { return 1 - std::exp(-std::exp(x)); }, Where::Real},
        {"tan", [](const Expr& x) { return tan(x); }, [](double x) { return std::sin(x) / std::cos(x); }, Where::Real},
        {"asin", [](const Expr& x) { return asin(x); }, [](double x) { return std::atan2(x, std::sqrt(1 - x * x)); }, Where::Unit},
        {"acos", [](const Expr& x) { return acos(x); }, [](double x) { return std::atan2(std::sqrt(1 - x * x), x); }, Where::Unit},
        {"atan", [](const Expr& x) { return atan(x); }, [](double x) { return std::atan2(x, 1.0); }, Where::Real},
        {"sinh", [](const Expr& x) { return sinh(x); }, [](double x) { return std::expm1(x) / 2 + std::expm1(-x) / -2; }, Where::Real},
        {"cosh", [](const Expr& x) { return cosh(x); }, [](double x) { return (std::exp(x) + std::exp(-x)) / 2; }, Where::Real},
        {"asinh", [](const Expr& x) { return asinh(x); }, [](double x) { return bm::asinh(x); }, Where::Real},
        {"acosh", [](const Expr& x) { return acosh(x + 1.0); }, [](double x) { return bm::acosh(x + 1); }, Where::Positive},
        {"atanh", [](const Expr& x) { return atanh(x); }, [](double x) { return bm::atanh(x); }, Where::Unit},
        // Gamma(12) = 4e7 would swamp the other points' finite differences in round-off: x / 4.
        {"tgamma", [](const Expr& x) { return tgamma(x / 4.0); }, [](double x) { return bm::tgamma(x / 4); }, Where::Positive},
        {"floor", [](const Expr& x) { return floor(x); }, [](double x) { return static_cast<double>(static_cast<long>(x + 100) - 100); }, Where::Real},
        {"ceil", [](const Expr& x) { return ceil(x); }, [](double x) { return static_cast<double>(static_cast<long>(x + 100) - 99); }, Where::Real},
        {"round", [](const Expr& x) { return round(x * 3.0); }, [](double x) { return static_cast<double>(static_cast<long>(3 * x + 100.5) - 100); }, Where::Real},
        {"trunc", [](const Expr& x) { return trunc(x); }, [](double x) { return static_cast<double>(static_cast<long>(x)); }, Where::Real},
        {"atan2", [](const Expr& x) { return atan2(x, -0.7); }, [](double x) { return std::atan(x / -0.7) + (x >= 0 ? M_PI : -M_PI); }, Where::Real},
        {"atan2b", [](const Expr& x) { return atan2(1.3, x); }, [](double x) { return M_PI / 2 - std::atan(x / 1.3); }, Where::Real},
        {"hypot", [](const Expr& x) { return hypot(x, 2.0); }, [](double x) { return std::sqrt(x * x + 4.0); }, Where::Real},
        {"lambert_w0", [](const Expr& x) { return lambert_w0(x); }, [](double x) { return boost::math::lambert_w0(x); }, Where::Positive},
        {"inv_erfc", [](const Expr& x) { return inv_erfc(x); }, [](double x) { return boost::math::erfc_inv(x); }, Where::Unit},
        {"owens_t", [](const Expr& x) { return owens_t(x, 1.5); }, [](double x) { return boost::math::owens_t(x, 1.5); }, Where::Real},
        {"fmod", [](const Expr& x) { return fmod(x, 1.3); }, [](double x) { return x - 1.3 * static_cast<double>(static_cast<long>(x / 1.3)); }, Where::Positive},
        {"fmodb", [](const Expr& x) { return fmod(6.93, x); }, [](double x) { return 6.93 - x * static_cast<double>(static_cast<long>(6.93 / x)); }, Where::Positive},
        {"log2", [](const Expr& x) { return log2(x); }, [](double x) { return std::log2(x); }, Where::Positive},
        {"log10", [](const Expr& x) { return log10(x); }, [](double x) { return std::log10(x); }, Where::Positive},
        {"exp2", [](const Expr& x) { return exp2(x); }, [](double x) { return std::exp2(x); }, Where::Real},
        {"log_diff_exp", [](const Expr& x) { return log_diff_exp(x, -9.0); },
         [](double x) { return std::log(std::exp(x) - std::exp(-9.0)); }, Where::Real},
        {"log_diff_exp2", [](const Expr& x) { return log_diff_exp(0.5, x); },
         [](double x) { return std::log(std::exp(0.5) - std::exp(x)); }, Where::Negative},
        {"lbeta", [](const Expr& x) { return lbeta(x, 2.5); }, [](double x) { return lbeta_ref(x, 2.5); }, Where::Positive},
        {"lbeta2", [](const Expr& x) { return lbeta(0.7, x); }, [](double x) { return lbeta_ref(0.7, x); }, Where::Positive},
        {"lchoose", [](const Expr& x) { return lchoose(x + 3.0, 2.0); }, [](double x) { return lchoose_ref(x + 3, 2); }, Where::Positive},
        {"lchoose2", [](const Expr& x) { return lchoose(15.0, x); }, [](double x) { return lchoose_ref(15, x); }, Where::Positive},
        {"lmgamma", [](const Expr& x) { return lmgamma(3, x + 1.0); },
         // Gamma_3(a) = pi^(3/2) Gamma(a) Gamma(a - 1/2) Gamma(a - 1)
         [](double x) {
             const double a = x + 1;
             return std::log(std::pow(M_PI, 1.5) * std::tgamma(a) * std::tgamma(a - 0.5) * std::tgamma(a - 1));
         },
         Where::Positive},
  // clang-format on
    };
    return c;
}

// f(x) on data x, evaluated by a program of its own.
Eigen::VectorXd values(const Case& c, const Eigen::VectorXd& x) {
    Model m;
    const Expr e = c.f(m.data("x", x));
    ModelSpec spec = m.spec();
    Graph g = spec.graph;
    g.clear_outputs();
    g.set_output("value", e.id(), 0);
    Program p = Program::compile(rebuild(g), spec.data, 0, static_cast<int>(x.size()));
    Eigen::VectorXd none, out;
    p.run(none, out);
    return out;
}

}  // namespace

TEST_CASE("DSL scalar functions match std:: and Boost.Math", "[dsl][math]") {
    for (const Case& c : cases()) {
        const std::vector<double> pts = points(c.where);
        const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(pts.data(), 4);
        const Eigen::VectorXd v = values(c, x);
        for (int i = 0; i < 4; ++i) {
            INFO(c.name << "(" << x[i] << ")");
            CHECK(v[i] == Approx(c.ref(x[i])).epsilon(1e-12).margin(1e-14));
        }
    }
}

TEST_CASE("DSL scalar functions: gradients through a latent match finite differences",
          "[dsl][math]") {
    for (const Case& c : cases()) {
        const std::vector<double> pts = points(c.where);
        Model m;
        const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(4, 0.6, 1.5);
        const Expr wd = m.data("w", w);
        ParamOptions options;
        options.support = support(c.where);
        const Expr x = m.param("x", normal(0, 3), 4, options);
        m.target_add(wd * c.f(x));
        Program p = compile(m);
        // zeta where theta = T^-1(zeta) is at the points
        Eigen::VectorXd z(4);
        for (int i = 0; i < 4; ++i) {
            const double t = pts[i];
            z[i] = c.where == Where::Real       ? t
                   : c.where == Where::Positive ? std::log(t)
                   : c.where == Where::Negative ? std::log(-t)
                                                : std::log(t / (1 - t));
        }
        Eigen::VectorXd grad(4);
        const double lp = p.run(z, grad);
        REQUIRE(std::isfinite(lp));
        const Eigen::VectorXd fd = test::numeric_gradient(p, z);
        for (int i = 0; i < 4; ++i) {
            INFO(c.name << " at theta = " << pts[i] << ": symbolic " << grad[i]
                        << ", finite difference " << fd[i]);
            CHECK(std::abs(grad[i] - fd[i]) <= 1e-6 * std::max(1.0, std::abs(fd[i])));
        }
    }
}

TEST_CASE("DSL scalar functions: both arguments expressions, integer data, errors", "[dsl][math]") {
    Eigen::VectorXd a(3), b(3);
    a << 0.4, 2.0, 7.5;
    b << 3.0, 0.1, 1.0;
    Eigen::VectorXi n(3), k(3);
    n << 10, 4, 0;
    k << 3, 4, 0;
    Model m;
    const Expr ad = m.data("a", a), bd = m.data("b", b), nd = m.data("n", n), kd = m.data("k", k);
    const std::vector<Expr> es{fmin(ad, bd),
                               fmax(ad, bd),
                               lbeta(ad, bd),
                               lchoose(ad + 8.0, bd),
                               log_diff_exp(ad + 5.0, bd),
                               lmultiply(ad, bd),
                               lchoose(nd, kd),
                               lmultiply(kd, ad)};
    ModelSpec spec = m.spec();
    Graph g = spec.graph;
    g.clear_outputs();
    for (std::size_t j = 0; j < es.size(); ++j)
        g.set_output(fmt::format("e{}", j), es[j].id(), static_cast<int>(3 * j));
    Program p = Program::compile(rebuild(g), spec.data, 0, static_cast<int>(3 * es.size()));
    Eigen::VectorXd none, out;
    p.run(none, out);
    for (int i = 0; i < 3; ++i) {
        INFO("element " << i);
        CHECK(out[i] == std::min(a[i], b[i]));
        CHECK(out[3 + i] == std::max(a[i], b[i]));
        CHECK(out[6 + i] == Approx(lbeta_ref(a[i], b[i])).epsilon(1e-12));
        CHECK(out[9 + i] == Approx(lchoose_ref(a[i] + 8, b[i])).epsilon(1e-12));
        CHECK(out[12 + i] == Approx(std::log(std::exp(a[i] + 5) - std::exp(b[i]))).epsilon(1e-14));
        CHECK(out[15 + i] == Approx(a[i] * std::log(b[i])).epsilon(1e-14));
        CHECK(out[18 + i] == Approx(lchoose_ref(n[i], k[i])).epsilon(1e-12).margin(1e-12));
        CHECK(out[21 + i] == Approx(k[i] * std::log(a[i])).epsilon(1e-14).margin(1e-300));
    }
    // Large arguments: log_diff_exp never forms e^x.
    Model big;
    Eigen::VectorXd x(2);
    x << 800.0, -750.0;
    const Expr xd = big.data("x", x);
    const Expr d = log_diff_exp(xd, xd - 1e-3);
    ModelSpec bs = big.spec();
    Graph bg = bs.graph;
    bg.clear_outputs();
    bg.set_output("d", d.id(), 0);
    Program bp = Program::compile(rebuild(bg), bs.data, 0, 2);
    bp.run(none, out);
    CHECK(out[0] == Approx(800 + std::log(-std::expm1(-1e-3))).epsilon(1e-13));
    CHECK(out[1] == Approx(-750 + std::log(-std::expm1(-1e-3))).epsilon(1e-13));

    Model e;
    const Expr ex = e.param("x", normal(0, 1), 2);
    CHECK_THROWS_AS(lmgamma(0, ex), ModelError);
    CHECK_THROWS_WITH(lmgamma(0, ex),
                      Catch::Contains("lmgamma: the dimension `k` must be at least 1, got 0"));
    // trigamma has a derivative rule (polygamma(2, x)): a latent may flow into it.
    e.target_add(trigamma(exp(ex)));
    CHECK_NOTHROW(compile(e));
    Eigen::VectorXd y3(3);
    y3.setOnes();
    CHECK_THROWS_AS(fmin(ex, e.data("y3", y3)), ShapeError);
    CHECK_THROWS_WITH(fmax(ex, e.data("y4", y3)), Catch::Contains("fmax") &&
                                                      Catch::Contains("vec[2]") &&
                                                      Catch::Contains("vec[3]"));
}

TEST_CASE("trigamma matches Boost.Math on data", "[dsl][math]") {
    Eigen::VectorXd x(3);
    x << 0.2, 1.0, 9.0;
    Model m;
    const Expr e = trigamma(m.data("x", x));
    ModelSpec spec = m.spec();
    Graph g = spec.graph;
    g.clear_outputs();
    g.set_output("v", e.id(), 0);
    Program p = Program::compile(rebuild(g), spec.data, 0, 3);
    Eigen::VectorXd none, out;
    p.run(none, out);
    for (int i = 0; i < 3; ++i) CHECK(out[i] == Approx(bm::trigamma(x[i])).epsilon(1e-14));
}

}  // namespace advi
