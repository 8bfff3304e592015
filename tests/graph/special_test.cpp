// The special functions of ops_special.hpp: log I_v(z) against Boost.Math's cyl_bessel_i on both
// sides of the switch between the series and the asymptotic expansion, its derivative in z
// against the recurrence I_v' / I_v = I_{v+1} / I_v + v / z, in v against central differences of
// Boost's values; inv_inc_beta against Boost's ibeta_inv, its derivatives against central
// differences of Boost's inverse; Stan's von Mises CDF against a quadrature of the density, its
// derivative in x the density; every Hessian against central differences of the gradient.
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>
#include <vector>

#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/hypergeometric_pFq.hpp>
#include <catch2/catch.hpp>

#include <advi/graph/ops_special.hpp>

namespace advi {
namespace {

// |x - y| within rel of the larger magnitude, or within abs.
bool near(double x, double y, double rel, double abs = 0) {
    return std::fabs(x - y) <= rel * std::max(std::fabs(x), std::fabs(y)) + abs;
}

// Checks the Hessian entries of f (components laid out as Dual2<N>'s) against central differences
// of its gradient, input by input, with step h[i].
template <int N, class F>
void check_hessian(F f, std::array<double, N> at, std::array<double, N> h, double rel, double abs) {
    const auto d = f(at);
    for (int i = 0; i < N; ++i) {
        auto up = at, down = at;
        up[i] += h[i];
        down[i] -= h[i];
        const auto fu = f(up), fd = f(down);
        for (int j = 0; j < N; ++j) {
            const int lo = std::min(i, j), hi = std::max(i, j);
            const int k = 1 + N + lo * N - lo * (lo - 1) / 2 + (hi - lo);
            const double diff = (fu[1 + j] - fd[1 + j]) / (2 * h[i]);
            INFO("d2/dx" << i << " dx" << j << ": " << d[k] << " against " << diff);
            CHECK(near(d[k], diff, rel, abs));
        }
    }
}

double log_boost_i(double v, double z) {
    return std::log(boost::math::cyl_bessel_i(v, z));
}

}  // namespace

TEST_CASE("log_bessel_i: values, the z-derivative's recurrence, v-derivative, Hessian",
          "[graph][special]") {
    for (double v : {0.0, 0.5, 1.0, 2.7, 6.0, 15.0}) {
        for (double z : {1e-3, 0.1, 1.0, 5.0, 29.0, 31.0, 36.0, 50.0, 200.0, 600.0}) {
            INFO("v " << v << " z " << z);
            const double ref = log_boost_i(v, z);
            if (!std::isfinite(ref))
                continue;
            const auto d = special::log_bessel_i(v, z);
            for (double c : d) REQUIRE(std::isfinite(c));
            CHECK(near(d[0], ref, 1e-13, 1e-14));
            const double ratio =
                boost::math::cyl_bessel_i(v + 1, z) / boost::math::cyl_bessel_i(v, z);
            CHECK(near(d[2], ratio + v / z, 1e-12));
            if (v > 0) {
                const double h = 1e-5 * std::max(v, 1.0);
                // (round-off of the difference quotient: a few ulps of the value over the step)
                const double roundoff = 8 * 2.2e-16 * std::fabs(ref) / h;
                CHECK(near(d[1], (log_boost_i(v + h, z) - log_boost_i(v - h, z)) / (2 * h), 1e-7,
                           1e-9 + roundoff));
                check_hessian<2>(
                    [](std::array<double, 2> x) { return special::log_bessel_i(x[0], x[1]); },
                    {v, z}, {h, 1e-5 * z}, 1e-6, 1e-8);
            }
        }
    }
    // far beyond Boost's overflow: log I_0(z) = z - log(2 pi z) / 2 + log(1 + 1 / (8 z) + ...)
    const double z = 1e4;
    CHECK(special::log_bessel_i(0, z)[0] == Approx(z - 0.5 * std::log(2 * std::numbers::pi * z) +
                                                   std::log1p(1 / (8 * z) + 9 / (128 * z * z)))
                                                .epsilon(1e-15));
    // the ends of the domain
    CHECK(special::log_bessel_i(0, 0)[0] == 0);
    CHECK(special::log_bessel_i(0, 0)[5] == 0.5);
    CHECK(special::log_bessel_i(1.5, 0)[0] == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(special::log_bessel_i(-1, 1)[0]));
    CHECK(std::isnan(special::log_bessel_i(1, -1)[0]));
}

TEST_CASE("inv_inc_beta: Boost's inverse, derivatives by the implicit function theorem",
          "[graph][special]") {
    for (double a : {0.3, 1.0, 2.5, 40.0}) {
        for (double b : {0.5, 1.0, 3.0, 25.0}) {
            for (double p : {1e-6, 0.02, 0.3, 0.5, 0.7, 0.98, 1 - 1e-6}) {
                INFO("a " << a << " b " << b << " p " << p);
                const auto d = special::inv_inc_beta(a, b, p);
                const double x = boost::math::ibeta_inv(a, b, p);
                CHECK(near(d[0], x, 1e-14));
                if (x < 1e-12 || 1 - x < 1e-12 || 1 - p < 1e-3)
                    continue;  // the differences below lose their digits (p = 1 - 1e-6 rounds
                               // at 1e-10 of 1 - p; the closed form below checks that end)
                auto inverse = [](double aa, double bb, double pp) {
                    return boost::math::ibeta_inv(aa, bb, pp);
                };
                // (steps in p relative to the nearer end: p = 1 - 1e-6 itself rounds at 1e-16)
                const double ha = 1e-5 * a, hb = 1e-5 * b, hp = 1e-4 * std::min(p, 1 - p);
                CHECK(near(d[1], (inverse(a + ha, b, p) - inverse(a - ha, b, p)) / (2 * ha), 1e-6,
                           1e-10));
                CHECK(near(d[2], (inverse(a, b + hb, p) - inverse(a, b - hb, p)) / (2 * hb), 1e-6,
                           1e-10));
                CHECK(near(d[3], (inverse(a, b, p + hp) - inverse(a, b, p - hp)) / (2 * hp), 1e-6,
                           1e-10));
                check_hessian<3>(
                    [](std::array<double, 3> q) { return special::inv_inc_beta(q[0], q[1], q[2]); },
                    {a, b, p}, {ha, hb, hp}, 1e-5, 1e-7);
            }
        }
    }
    // b = 1: I_x(a, 1) = x^a, so x = p^(1/a), exactly differentiable
    for (double a : {0.3, 2.0}) {
        for (double p : {1e-6, 0.4, 1 - 1e-6}) {
            const auto d = special::inv_inc_beta(a, 1, p);
            const double x = std::pow(p, 1 / a);
            CHECK(d[0] == Approx(x).epsilon(1e-14));
            CHECK(d[1] == Approx(-x * std::log(p) / (a * a)).epsilon(1e-9));
            CHECK(d[3] == Approx(x / (a * p)).epsilon(1e-9));
            CHECK(d[9] == Approx((1 / a) * (1 / a - 1) * x / (p * p)).epsilon(1e-8));
        }
    }
    CHECK(special::inv_inc_beta(2, 3, 0)[0] == 0);
    CHECK(special::inv_inc_beta(2, 3, 1)[0] == 1);
    CHECK(std::isnan(special::inv_inc_beta(2, 3, 1.5)[0]));
    CHECK(std::isnan(special::inv_inc_beta(-2, 3, 0.5)[0]));
    // Boost's root finder throws at extreme shapes: NaN instead (a kernel never throws)
    for (const auto& [a, b, p] : {
             std::tuple{1e308, 0.5,    0.3},
             std::tuple{1e308, 1e-320, 0.3},
             std::tuple{745.0, 1e308,  0.3},
             std::tuple{1e308, 1e308,  0.3}
    }) {
        INFO(a << " " << b << " " << p);
        std::array<double, 10> d{};
        CHECK_NOTHROW(d = special::inv_inc_beta(a, b, p));
        CHECK((std::isnan(d[0]) || (d[0] >= 0 && d[0] <= 1)));
    }
}

namespace {
// The von Mises mass over [-pi, x] about mu, by Simpson's rule.
double von_mises_mass(double x, double mu, double kappa) {
    const int n = 20000;
    const double a = -std::numbers::pi, h = (x - a) / n;
    const double log_norm = std::log(2 * std::numbers::pi * boost::math::cyl_bessel_i(0, kappa));
    auto f = [&](double t) { return std::exp(kappa * std::cos(t - mu) - log_norm); };
    double s = f(a) + f(x);
    for (int i = 1; i < n; ++i) s += (i % 2 == 1 ? 4 : 2) * f(a + i * h);
    return s * h / 3;
}
}  // namespace

TEST_CASE("von_mises_log_cdf: Stan's CDF against quadrature, derivatives, Hessian",
          "[graph][special]") {
    const double pi = std::numbers::pi;
    for (double mu : {-2.8, -0.4, 0.0, 1.1, 3.0, 7.5}) {
        for (double kappa : {0.05, 1.0, 8.0, 30.0, 49.5, 80.0}) {
            for (double x : {-3.0, -1.2, 0.0, 0.9, 2.9}) {
                INFO("x " << x << " mu " << mu << " kappa " << kappa);
                const double mass = von_mises_mass(x, mu, kappa);
                // Stan's normal approximation above kappa 49 is good to about 1e-4
                const double tol = kappa < 49 ? 1e-9 : 2e-4;
                CHECK(std::fabs(special::von_mises_cdf(x, mu, kappa) - mass) < tol);
                for (bool upper : {false, true}) {
                    const auto d = special::von_mises_log_cdf(x, mu, kappa, upper);
                    const double f = upper ? 1 - mass : mass;
                    // F(x) - F(cut) loses digits where F is small: its tails are checked above
                    if (f < 1e-3)
                        continue;
                    CHECK(std::fabs(std::exp(d[0]) - f) < tol);
                    // d/dx log F = density / F (the series; the normal form is an approximation)
                    const double density = std::exp(kappa * std::cos(x - mu)) /
                                           (2 * pi * boost::math::cyl_bessel_i(0, kappa));
                    if (kappa < 49)
                        CHECK(near(d[1], (upper ? -density : density) / f, 1e-7, 1e-9));
                    check_hessian<3>(
                        [upper](std::array<double, 3> q) {
                            return special::von_mises_log_cdf(q[0], q[1], q[2], upper);
                        },
                        {x, mu, kappa}, {1e-4, 1e-4, 1e-4 * kappa}, 1e-5, 1e-7);
                }
            }
        }
    }
    CHECK(special::von_mises_log_cdf(-pi, 0.3, 2, false)[0] ==
          -std::numeric_limits<double>::infinity());
    CHECK(special::von_mises_log_cdf(pi, 0.3, 2, false)[0] == 0);
    CHECK(std::isnan(special::von_mises_log_cdf(3.5, 0.3, 2, false)[0]));
    CHECK(std::isnan(special::von_mises_log_cdf(0.5, 0.3, 0, false)[0]));
}

TEST_CASE("hypergeometric_pfq: the series against Boost's hypergeometric_pFq", "[graph][special]") {
    struct Case {
        std::vector<double> a, b;
    };
    const Case cases[] = {
        {{1.5},           {}        }, // 1F0
        {{0.7, 1.3},      {2.2}     }, // 2F1
        {{1.0, 2.0, 3.5}, {4.0, 5.5}}, // 3F2
        {{0.5},           {1.5}     }, // 1F1
        {{},              {2.5}     }, // 0F1
        {{-3.0, 2.0},     {1.5}     }, // a polynomial
        {{1.2, -0.4},     {0.3, 2.0}}, // 2F2
    };
    for (const Case& c : cases) {
        for (double z : {-0.95, -0.5, -0.1, 0.0, 0.2, 0.7, 0.95}) {
            INFO("p " << c.a.size() << " q " << c.b.size() << " z " << z);
            const double ref = boost::math::hypergeometric_pFq(c.a, c.b, z);
            CHECK(special::hypergeometric_pfq(c.a, c.b, z) == Approx(ref).epsilon(1e-12));
        }
    }
    // p <= q converges everywhere (1F1(0.5; 1.5; z) at z = 12 and -8)
    for (double z : {12.0, -8.0}) {
        const std::vector<double> a{0.5}, b{1.5};
        CHECK(special::hypergeometric_pfq(a, b, z) ==
              Approx(boost::math::hypergeometric_pFq(a, b, z)).epsilon(1e-10));
    }
    // p = q + 1 beyond the unit disc diverges; a pole in b
    CHECK(std::isnan(special::hypergeometric_pfq(std::vector{1.0, 2.0}, std::vector{3.0}, 1.5)));
    CHECK(std::isnan(special::hypergeometric_pfq(std::vector{1.0}, std::vector{-2.0}, 0.5)));
    // more parameters above than below: a series only when a polynomial
    CHECK(
        std::isnan(special::hypergeometric_pfq(std::vector{1.0, 2.0, 3.0}, std::vector{1.0}, 0.1)));
    CHECK(special::hypergeometric_pfq(std::vector{-1.0, 2.0, 3.0}, std::vector{1.0}, 0.1) ==
          Approx(1 - 0.6));
}

TEST_CASE("hypergeometric_pfq_derivatives: the derivative series against differences",
          "[graph][special]") {
    struct Case {
        std::vector<double> a, b;
        double z;
    };
    const Case cases[] = {
        {{0.7, 1.3},      {2.2},      0.6 },
        {{0.7, 1.3},      {2.2},      -0.8},
        {{1.0, 2.0, 3.5}, {4.0, 5.5}, 0.9 },
        {{0.5},           {1.5},      2.5 },
        {{1.2, -0.4},     {0.3, 2.0}, 1.7 },
        {{2.5},           {},         0.3 },
        {{},              {1.5},      2.0 },
    };
    for (const Case& c : cases) {
        INFO("p " << c.a.size() << " q " << c.b.size() << " z " << c.z);
        const std::size_t p = c.a.size(), q = c.b.size();
        const auto d = special::hypergeometric_pfq_derivatives(c.a, c.b, c.z);
        CHECK(d.value == Approx(boost::math::hypergeometric_pFq(c.a, c.b, c.z)).epsilon(1e-12));
        // the inputs as one vector x = (a, b, z): value, gradient and Hessian by differences
        std::vector<double> x = c.a;
        x.insert(x.end(), c.b.begin(), c.b.end());
        x.push_back(c.z);
        auto split = [&](const std::vector<double>& v) {
            return std::tuple{std::vector<double>(v.begin(), v.begin() + p),
                              std::vector<double>(v.begin() + p, v.begin() + p + q), v.back()};
        };
        auto grad = [&](const std::vector<double>& v) {  // (da, db, dz)
            const auto [a, b, z] = split(v);
            const auto e = special::hypergeometric_pfq_derivatives(a, b, z);
            std::vector<double> g = e.da;
            g.insert(g.end(), e.db.begin(), e.db.end());
            // d/dz = prod(a) / prod(b) pFq(a + 1; b + 1; z)
            std::vector<double> a1 = a, b1 = b;
            double f = 1;
            for (double& u : a1) f *= u++;
            for (double& u : b1) f /= u++;
            g.push_back(f * special::hypergeometric_pfq(a1, b1, z));
            return g;
        };
        auto value = [&](const std::vector<double>& v) {
            const auto [a, b, z] = split(v);
            return special::hypergeometric_pfq(a, b, z);
        };
        const std::size_t n = x.size();
        const std::vector<double> g = grad(x);
        for (std::size_t i = 0; i + 1 < n; ++i) {
            auto up = x, down = x;
            const double h = 1e-6 * std::max(1.0, std::fabs(x[i]));
            up[i] += h;
            down[i] -= h;
            INFO("d/dx" << i);
            CHECK(near(g[i], (value(up) - value(down)) / (2 * h), 1e-7, 1e-9));
            // the Hessian's row i against differences of the gradient
            const std::vector<double> gu = grad(up), gd = grad(down);
            for (std::size_t j = 0; j + 1 < n; ++j) {
                const double fd = (gu[j] - gd[j]) / (2 * h);
                const double hij = i < p   ? (j < p ? d.haa[i * p + j] : d.hab[i * q + (j - p)])
                                   : j < p ? d.hab[j * q + (i - p)]
                                           : d.hbb[(i - p) * q + (j - p)];
                INFO("d2/dx" << i << " dx" << j << ": " << hij << " against " << fd);
                CHECK(near(hij, fd, 1e-6, 1e-8));
            }
            // the mixed derivative in z: d/dz of the a, b gradient against the differences of
            // the z-derivative (a closed form of shifted parameters) in x_i
            const double hz = i < p ? d.haz[i] : d.hbz[i - p];
            CHECK(near(hz, (gu[n - 1] - gd[n - 1]) / (2 * h), 1e-6, 1e-8));
        }
    }
    // a polynomial's derivatives in a are NaN (its terms past the degree vanish, theirs do not)
    const auto poly =
        special::hypergeometric_pfq_derivatives(std::vector{-2.0, 1.5}, std::vector{2.5}, 0.3);
    CHECK(std::isfinite(poly.value));
    CHECK(std::isnan(poly.da[0]));
}

}  // namespace advi
