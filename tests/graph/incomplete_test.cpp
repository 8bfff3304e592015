// The regularised incomplete gamma and beta functions in log (ops_incomplete.hpp): values against
// Boost.Math's gamma_p, gamma_q, ibeta and ibetac over shapes from 0.05 to 5,000 and both sides
// of the switch between series and continued fraction; the derivatives in x against Boost's
// gamma_p_derivative and ibeta_derivative; the derivatives in the shapes, which Boost does not
// give, against central differences of Boost's values; the second derivatives against central
// differences of the first; the ends of the support.
#include <cmath>
#include <limits>

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <catch2/catch.hpp>

#include <advi/graph/ops_incomplete.hpp>

namespace advi {
namespace {

using incomplete::log_inc_beta;
using incomplete::log_inc_gamma;
using incomplete::Tail;

double log_boost_gamma(double a, double x, Tail t) {
    return std::log(t == Tail::Lower ? boost::math::gamma_p(a, x) : boost::math::gamma_q(a, x));
}
double log_boost_beta(double a, double b, double x, Tail t) {
    return std::log(t == Tail::Lower ? boost::math::ibeta(a, b, x) : boost::math::ibetac(a, b, x));
}

// |x - y| within rel of the larger magnitude, or within abs.
bool near(double x, double y, double rel, double abs = 0) {
    return std::fabs(x - y) <= rel * std::max(std::fabs(x), std::fabs(y)) + abs;
}

}  // namespace

TEST_CASE(
    "log_inc_gamma: log P and log Q against Boost, derivatives against Boost and "
    "differences",
    "[graph][incomplete]") {
    for (double a : {0.05, 0.5, 1.0, 3.7, 20.0, 250.0, 5000.0}) {
        for (double x : {1e-3, 0.1, 0.9, 1.0, 2.5, 10.0, 40.0, 300.0, 4900.0, 5100.0}) {
            for (Tail t : {Tail::Lower, Tail::Upper}) {
                const double ref = log_boost_gamma(a, x, t);
                if (!std::isfinite(ref) || ref < -600)
                    continue;  // Boost underflows; the log form goes on (checked below)
                INFO("a " << a << " x " << x << " tail " << static_cast<int>(t));
                const auto d = log_inc_gamma(a, x, t);
                for (double v : d) REQUIRE(std::isfinite(v));
                CHECK(near(d[0], ref, 1e-11, 1e-14));
                // d/dx log P = p(x) / P, p the gamma(a, 1) density
                const double density = boost::math::gamma_p_derivative(a, x);
                const double dx = (t == Tail::Lower ? density : -density) / std::exp(ref);
                CHECK(near(d[2], dx, 1e-9, 1e-14));
                const double ha = 1e-5 * a, hx = 1e-4 * x;
                const double da =
                    (log_boost_gamma(a + ha, x, t) - log_boost_gamma(a - ha, x, t)) / (2 * ha);
                CHECK(near(d[1], da, 1e-5, 1e-8));
                const auto ap = log_inc_gamma(a + ha, x, t), am = log_inc_gamma(a - ha, x, t);
                const auto xp = log_inc_gamma(a, x + hx, t), xm = log_inc_gamma(a, x - hx, t);
                CHECK(near(d[3], (ap[1] - am[1]) / (2 * ha), 1e-5, 1e-8));
                CHECK(near(d[4], (ap[2] - am[2]) / (2 * ha), 1e-5, 1e-8));
                CHECK(near(d[4], (xp[1] - xm[1]) / (2 * hx), 1e-5, 1e-8));
                CHECK(near(d[5], (xp[2] - xm[2]) / (2 * hx), 1e-5, 1e-7));
            }
        }
    }
}

TEST_CASE("log_inc_gamma: the far tails in log space, the support's ends, the domain",
          "[graph][incomplete]") {
    // log Q(2, 2000) = log((1 + 2000) e^-2000): Boost's Q underflows to 0
    CHECK(log_inc_gamma(2, 2000, Tail::Upper)[0] == Approx(std::log(2001.0) - 2000).epsilon(1e-13));
    // log P(3, 1e-6) = log(x^3 / 3!) to first order
    CHECK(log_inc_gamma(3, 1e-6, Tail::Lower)[0] ==
          Approx(3 * std::log(1e-6) - std::log(6.0)).epsilon(1e-5));
    constexpr double inf = std::numeric_limits<double>::infinity();
    CHECK(log_inc_gamma(2, 0, Tail::Lower)[0] == -inf);
    CHECK(log_inc_gamma(2, 0, Tail::Upper)[0] == 0);
    CHECK(log_inc_gamma(2, 0, Tail::Upper)[1] == 0);
    CHECK(log_inc_gamma(2, inf, Tail::Lower)[0] == 0);
    CHECK(log_inc_gamma(2, inf, Tail::Upper)[0] == -inf);
    CHECK(std::isnan(log_inc_gamma(0, 1, Tail::Lower)[0]));
    CHECK(std::isnan(log_inc_gamma(-1, 1, Tail::Upper)[1]));
    CHECK(std::isnan(log_inc_gamma(1, std::nan(""), Tail::Upper)[0]));
}

TEST_CASE(
    "log_inc_beta: log I and log(1 - I) against Boost, derivatives against Boost and "
    "differences",
    "[graph][incomplete]") {
    for (double a : {0.05, 0.5, 1.0, 3.7, 40.0, 2000.0}) {
        for (double b : {0.3, 1.0, 6.0, 900.0}) {
            for (double x : {1e-4, 0.02, 0.3, 0.5, 0.7, 0.98, 0.9999}) {
                for (Tail t : {Tail::Lower, Tail::Upper}) {
                    const double ref = log_boost_beta(a, b, x, t);
                    if (!std::isfinite(ref) || ref < -600)
                        continue;
                    INFO("a " << a << " b " << b << " x " << x << " tail " << static_cast<int>(t));
                    const auto d = log_inc_beta(a, b, x, t);
                    for (double v : d) REQUIRE(std::isfinite(v));
                    CHECK(near(d[0], ref, 1e-11, 1e-14));
                    const double density = boost::math::ibeta_derivative(a, b, x);
                    const double dx = (t == Tail::Lower ? density : -density) / std::exp(ref);
                    CHECK(near(d[3], dx, 1e-9, 1e-14));
                    const double ha = 1e-5 * a, hb = 1e-5 * b;
                    const double hx = 1e-4 * std::min(x, 1 - x);
                    CHECK(near(d[1],
                               (log_boost_beta(a + ha, b, x, t) - log_boost_beta(a - ha, b, x, t)) /
                                   (2 * ha),
                               1e-5, 1e-8));
                    CHECK(near(d[2],
                               (log_boost_beta(a, b + hb, x, t) - log_boost_beta(a, b - hb, x, t)) /
                                   (2 * hb),
                               1e-5, 1e-8));
                    // Hessian (aa ab ax bb bx xx) at 4..9 against differences of the gradient
                    const auto ap = log_inc_beta(a + ha, b, x, t),
                               am = log_inc_beta(a - ha, b, x, t);
                    const auto bp = log_inc_beta(a, b + hb, x, t),
                               bm = log_inc_beta(a, b - hb, x, t);
                    const auto xp = log_inc_beta(a, b, x + hx, t),
                               xm = log_inc_beta(a, b, x - hx, t);
                    CHECK(near(d[4], (ap[1] - am[1]) / (2 * ha), 1e-5, 1e-7));
                    CHECK(near(d[5], (bp[1] - bm[1]) / (2 * hb), 1e-5, 1e-7));
                    CHECK(near(d[6], (xp[1] - xm[1]) / (2 * hx), 1e-5, 1e-7));
                    CHECK(near(d[7], (bp[2] - bm[2]) / (2 * hb), 1e-5, 1e-7));
                    CHECK(near(d[8], (xp[2] - xm[2]) / (2 * hx), 1e-5, 1e-7));
                    CHECK(near(d[9], (xp[3] - xm[3]) / (2 * hx), 1e-5, 1e-7));
                    CHECK(near(d[6], (ap[3] - am[3]) / (2 * ha), 1e-5, 1e-7));
                }
            }
        }
    }
}

TEST_CASE("log_inc_beta: the support's ends and the domain", "[graph][incomplete]") {
    constexpr double inf = std::numeric_limits<double>::infinity();
    CHECK(log_inc_beta(2, 3, 0, Tail::Lower)[0] == -inf);
    CHECK(log_inc_beta(2, 3, 0, Tail::Upper)[0] == 0);
    CHECK(log_inc_beta(2, 3, 1, Tail::Lower)[0] == 0);
    CHECK(log_inc_beta(2, 3, 1.5, Tail::Upper)[0] == -inf);
    CHECK(log_inc_beta(2, 3, 1, Tail::Lower)[2] == 0);
    // I_x(1, 1) = x: log x, d/dx = 1 / x
    const auto u = log_inc_beta(1, 1, 0.25, Tail::Lower);
    CHECK(u[0] == Approx(std::log(0.25)).epsilon(1e-14));
    CHECK(u[3] == Approx(4).epsilon(1e-13));
    CHECK(u[9] == Approx(-16).epsilon(1e-12));
    CHECK(std::isnan(log_inc_beta(0, 1, 0.5, Tail::Lower)[0]));
    CHECK(std::isnan(log_inc_beta(1, -2, 0.5, Tail::Upper)[3]));
}

}  // namespace advi
