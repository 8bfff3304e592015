// log f(u | w), the Wiener first-passage time density (ops_wiener.hpp): the two series agree
// where both converge; f integrates to the probability of the lower boundary, 1 - w; the first
// and second derivatives match finite differences far outside the op table's unit points; the
// distribution built on it reproduces RWiener's values (Stan's own tests of wiener_lpdf), and
// its drift-variability form integrates the four-parameter density over the drift.
#include <cmath>
#include <limits>
#include <vector>

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>

#include <advi/dist/distribution.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_wiener.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

using wiener::log_first_passage;
using wiener::log_first_passage_by;
using wiener::Series;

// wiener(y | alpha, tau, beta, delta, sv) from the library's table, through a compiled program.
double wiener_lpdf(double y, double alpha, double tau, double beta, double delta, double sv = 0) {
    Graph g;
    std::vector<NodeId> args;
    for (double v : {alpha, tau, beta, delta, sv, 0.0, 0.0}) args.push_back(g.constant(v));
    g.set_output("lp", log_density(g, distribution("wiener"), g.constant(y), args));
    Program p = test::value_program(g, {}, 0);
    return test::value_at(p, Eigen::VectorXd());
}

}  // namespace

TEST_CASE("wiener: the small-time and large-time series agree where both converge",
          "[graph][wiener]") {
    // (each loses digits outside its range, to terms of both signs that cancel: beyond u = 1 the
    // small-time terms sum to f e^(w^2 / 2u) (2 pi u^3)^1/2, below u = 0.05 the Fourier terms
    // to f e^(pi^2 u / 2) / pi; log_first_passage sums the one with fewer terms, the accurate one)
    for (double u : {0.1, 0.2, 0.3, 0.5, 0.7}) {
        for (double w : {0.01, 0.2, 0.5, 0.77, 0.99}) {
            INFO("u " << u << " w " << w);
            CHECK(log_first_passage_by(Series::Small, u, w) ==
                  Approx(log_first_passage_by(Series::Large, u, w)).epsilon(1e-11));
        }
    }
}

TEST_CASE("wiener: f(u | w) integrates to 1 - w, the probability of the lower boundary",
          "[graph][wiener]") {
    boost::math::quadrature::exp_sinh<double> integrator;
    for (double w : {0.05, 0.3, 0.5, 0.9}) {
        const double mass = integrator.integrate(
            [w](double u) { return std::exp(log_first_passage(u, w)[0]); }, 1e-12);
        CHECK(mass == Approx(1 - w).epsilon(1e-9));
    }
}

TEST_CASE("wiener: first and second derivatives match finite differences from u = 1e-3 to 100",
          "[graph][wiener]") {
    for (double u : {1e-3, 0.01, 0.08, 0.4, 2.0, 15.0, 100.0}) {
        for (double w : {0.02, 0.3, 0.6, 0.97}) {
            INFO("u " << u << " w " << w);
            const auto d = log_first_passage(u, w);
            for (double v : d) REQUIRE(std::isfinite(v));
            const double hu = 1e-5 * u, hw = 1e-6;
            auto at = [](double uu, double ww) { return log_first_passage(uu, ww); };
            const auto up = at(u + hu, w), um = at(u - hu, w);
            const auto wp = at(u, w + hw), wm = at(u, w - hw);
            // central differences: relative error about h^2 f''' / f' plus rounding
            CHECK(d[1] == Approx((up[0] - um[0]) / (2 * hu)).epsilon(1e-6).margin(1e-6));
            CHECK(d[2] == Approx((wp[0] - wm[0]) / (2 * hw)).epsilon(1e-6).margin(1e-6));
            CHECK(d[3] == Approx((up[1] - um[1]) / (2 * hu)).epsilon(1e-6).margin(1e-6));
            CHECK(d[4] == Approx((wp[1] - wm[1]) / (2 * hw)).epsilon(1e-6).margin(1e-6));
            CHECK(d[4] == Approx((up[2] - um[2]) / (2 * hu)).epsilon(1e-6).margin(1e-6));
            CHECK(d[5] == Approx((wp[2] - wm[2]) / (2 * hw)).epsilon(1e-6).margin(1e-6));
        }
    }
}

TEST_CASE("wiener: no underflow far in either tail; outside the domain -inf or NaN",
          "[graph][wiener]") {
    // u = 1e-4: f is about e^-1250, below the smallest double; its log is finite
    const double tiny = log_first_passage(1e-4, 0.5)[0];
    CHECK(tiny ==
          Approx(-0.5 * std::log(2 * M_PI) - 1.5 * std::log(1e-4) - 0.25 / 2e-4 + std::log(0.5))
              .epsilon(1e-12));
    // u = 1e3: only the first Fourier term is left, pi e^(-pi^2 u / 2) sin(pi w)
    CHECK(log_first_passage(1e3, 0.3)[0] ==
          Approx(std::log(M_PI) - M_PI * M_PI * 1e3 / 2 + std::log(std::sin(M_PI * 0.3)))
              .epsilon(1e-12));
    CHECK(log_first_passage(0, 0.5)[0] == -std::numeric_limits<double>::infinity());
    CHECK(log_first_passage(-1, 0.5)[0] == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(log_first_passage(0.5, 1.2)[0]));
    CHECK(std::isnan(log_first_passage(0.5, 0)[2]));
    CHECK(std::isnan(log_first_passage(std::nan(""), 0.5)[0]));
}

TEST_CASE("wiener: the density matches RWiener's dwiener (the values of Stan's tests)",
          "[graph][wiener]") {
    // RWiener::dwiener(y, alpha, tau, beta, delta, give_log = TRUE), as quoted by Stan Math's
    // test/prob/wiener/wiener_test.hpp
    CHECK(wiener_lpdf(1.1, 2.1, 0.3, 0.55, 0.4) == Approx(-0.892976431870503).epsilon(1e-10));
    CHECK(wiener_lpdf(2.1, 4.1, 0.6, 0.05, 0.1) == Approx(-5.28933922584833).epsilon(1e-10));
    CHECK(wiener_lpdf(1.2, 10.1, 0.35, 0.95, 0.5) == Approx(-1.36212169454714).epsilon(1e-10));
    CHECK(wiener_lpdf(50.1, 4.3, 1.05, 0.65, 0.15) == Approx(-15.3049368722015).epsilon(1e-10));
    CHECK(wiener_lpdf(1.51, 1.1, 0.9, 0.2, 10.5) == Approx(-26.4531852275477).epsilon(1e-10));
}

TEST_CASE("wiener: the upper boundary's density integrates to its hitting probability",
          "[graph][wiener]") {
    // started at beta alpha with drift delta, the upper boundary alpha is hit first with
    // probability (1 - e^(-2 delta beta alpha)) / (1 - e^(-2 delta alpha))
    boost::math::quadrature::exp_sinh<double> integrator;
    // (no structured bindings: lambdas below capture these, which clang 14 cannot)
    for (const std::array<double, 3>& set : {
             std::array{1.0, 0.5, 0.0 },
             std::array{2.0, 0.3, 0.7 },
             std::array{0.8, 0.6, -1.2}
    }) {
        const double alpha = set[0], beta = set[1], delta = set[2];
        const double tau = 0.2;
        const double mass = integrator.integrate(
            [&](double t) { return std::exp(wiener_lpdf(tau + t, alpha, tau, beta, delta)); },
            1e-12);
        const double expected =
            delta == 0 ? beta
                       : -std::expm1(-2 * delta * beta * alpha) / -std::expm1(-2 * delta * alpha);
        INFO("alpha " << alpha << " beta " << beta << " delta " << delta);
        CHECK(mass == Approx(expected).epsilon(1e-8));
    }
}

TEST_CASE("wiener: drift variability sv integrates the density over normal(delta, sv) drifts",
          "[graph][wiener]") {
    for (const std::array<double, 2>& point : {
             std::array{0.5, 0.3},
             std::array{1.7, 1.0},
             std::array{4.0, 2.5}
    }) {
        const double y = point[0], sv = point[1];
        const double alpha = 1.4, tau = 0.15, beta = 0.4, delta = 0.9;
        auto integrand = [&](double z) {
            return std::exp(wiener_lpdf(y, alpha, tau, beta, delta + sv * z) - z * z / 2) /
                   std::sqrt(2 * M_PI);
        };
        const double mixed = boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
            integrand, -14.0, 14.0, 12, 1e-14);
        INFO("y " << y << " sv " << sv);
        CHECK(wiener_lpdf(y, alpha, tau, beta, delta, sv) ==
              Approx(std::log(mixed)).epsilon(1e-10));
    }
    // sv = 0 is the four-parameter density
    CHECK(wiener_lpdf(1.1, 2.1, 0.3, 0.55, 0.4, 0.0) == Approx(-0.892976431870503).epsilon(1e-10));
}

}  // namespace advi
