// The Wiener first-passage time distribution function in log (ops_wiener_cdf.hpp): the
// probability of the lower boundary against its closed form; F and G against quadrature of
// the density (ops_wiener.hpp's series, a separate computation) times the drift's factor; the
// two series against each other where both converge; the first derivatives against central
// differences of the values and the second against central differences of the first; the
// limits at u <= 0 and the domain.
#include <cmath>
#include <limits>

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>

#include <advi/graph/ops_wiener.hpp>
#include <advi/graph/ops_wiener_cdf.hpp>

namespace advi {
namespace {

using wiener::CdfSeries;
using wiener::CdfTail;
using wiener::log_first_passage_cdf;
using wiener::log_first_passage_cdf_by;

// The density of the first passage through the lower boundary at time s: the driftless
// density times e^{-cw - c^2 s / 2} (Navarro & Fuss 2009, eq. 3 with a = 1).
double density(double s, double w, double c) {
    return std::exp(wiener::log_first_passage(s, w)[0] - c * w - 0.5 * c * c * s);
}
double kInfinity() {
    return std::numeric_limits<double>::infinity();
}
double quadrature_f(double u, double w, double c) {
    return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
        [&](double s) { return density(s, w, c); }, 0, u, 12, 1e-11);
}
double quadrature_g(double u, double w, double c) {
    boost::math::quadrature::exp_sinh<double> integrator;
    return integrator.integrate([&](double s) { return density(s, w, c); }, u, kInfinity(), 1e-13);
}
bool near(double x, double y, double rel, double abs = 0) {
    return std::fabs(x - y) <= rel * std::max(std::fabs(x), std::fabs(y)) + abs;
}

}  // namespace

TEST_CASE("wiener cdf: log P(w, c) against (e^-2cw - e^-2c) / (1 - e^-2c), and 1 - w at c = 0",
          "[graph][wiener]") {
    for (double w : {0.01, 0.3, 0.5, 0.9, 0.999}) {
        CHECK(wiener::log_lower_probability(w, 0) == Approx(std::log1p(-w)).epsilon(1e-15));
        for (double c : {-30.0, -3.0, -0.5, -0.09, -1e-6, 1e-6, 0.05, 0.11, 0.7, 4.0, 25.0}) {
            INFO("w " << w << " c " << c);
            // each written with expm1 of arguments <= 0, so that neither side cancels; log P
            // within 1e-14: P to 1e-14 relative
            const double p =
                c > 0 ? std::exp(-2 * c * w) * std::expm1(-2 * c * (1 - w)) / std::expm1(-2 * c)
                      : std::expm1(2 * c * (1 - w)) / std::expm1(2 * c);
            CHECK(wiener::log_lower_probability(w, c) ==
                  Approx(std::log(p)).epsilon(1e-12).margin(1e-14));
        }
    }
}

TEST_CASE("wiener cdf: F and G against quadrature of the density", "[graph][wiener]") {
    for (double w : {0.1, 0.5, 0.85}) {
        for (double c : {-2.5, -0.4, 0.0, 0.8, 3.0}) {
            for (double u : {0.02, 0.15, 0.6, 1.5, 4.0}) {
                INFO("u " << u << " w " << w << " c " << c);
                const double f = quadrature_f(u, w, c), g = quadrature_g(u, w, c);
                const auto lf = log_first_passage_cdf(u, w, c, CdfTail::Lower);
                const auto lg = log_first_passage_cdf(u, w, c, CdfTail::Upper);
                CHECK(near(lf[0], std::log(f), 1e-8, 1e-9));
                CHECK(near(lg[0], std::log(g), 1e-8, 1e-9));
                // the two tails make up P
                CHECK(std::exp(lf[0]) + std::exp(lg[0]) ==
                      Approx(std::exp(wiener::log_lower_probability(w, c))).epsilon(1e-12));
            }
        }
    }
}

TEST_CASE("wiener cdf: the small-time and large-time series agree where both converge",
          "[graph][wiener]") {
    for (double u : {0.15, 0.3, 0.6, 1.0}) {
        for (double w : {0.05, 0.5, 0.95}) {
            for (double c : {-1.5, 0.0, 2.0}) {
                for (CdfTail t : {CdfTail::Lower, CdfTail::Upper}) {
                    INFO("u " << u << " w " << w << " c " << c << " tail " << static_cast<int>(t));
                    CHECK(log_first_passage_cdf_by(CdfSeries::Small, u, w, c, t) ==
                          Approx(log_first_passage_cdf_by(CdfSeries::Large, u, w, c, t))
                              .epsilon(1e-9));
                }
            }
        }
    }
}

TEST_CASE("wiener cdf: derivatives against central differences", "[graph][wiener]") {
    // extreme times too: far in either tail the value is a log of a tiny number
    for (double u : {0.004, 0.08, 0.5, 2.0, 12.0}) {
        for (double w : {0.07, 0.5, 0.93}) {
            for (double c : {-4.0, -0.3, 0.0, 1.1, 6.0}) {
                for (CdfTail t : {CdfTail::Lower, CdfTail::Upper}) {
                    INFO("u " << u << " w " << w << " c " << c << " tail " << static_cast<int>(t));
                    const auto d = log_first_passage_cdf(u, w, c, t);
                    for (double v : d) REQUIRE(std::isfinite(v));
                    const std::array<double, 3> x = {u, w, c};
                    const std::array<double, 3> h = {1e-5 * u, 1e-6, 1e-6};
                    for (int i = 0; i < 3; ++i) {
                        auto plus = x, minus = x;
                        plus[i] += h[i];
                        minus[i] -= h[i];
                        const auto p = log_first_passage_cdf(plus[0], plus[1], plus[2], t);
                        const auto m = log_first_passage_cdf(minus[0], minus[1], minus[2], t);
                        INFO("input " << i);
                        CHECK(near(d[1 + i], (p[0] - m[0]) / (2 * h[i]), 1e-6, 1e-6));
                        // row i of the Hessian against differences of the gradient
                        for (int j = 0; j < 3; ++j) {
                            const int lo = std::min(i, j), hi = std::max(i, j);
                            const int at = lo * 3 - lo * (lo - 1) / 2 + (hi - lo);
                            INFO("hessian " << i << ", " << j);
                            CHECK(near(d[4 + at], (p[1 + j] - m[1 + j]) / (2 * h[i]), 1e-5, 1e-5));
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("wiener cdf: limits and domain", "[graph][wiener]") {
    const double lp = wiener::log_lower_probability(0.4, 0.7);
    CHECK(log_first_passage_cdf(0, 0.4, 0.7, CdfTail::Lower)[0] ==
          -std::numeric_limits<double>::infinity());
    CHECK(log_first_passage_cdf(-1, 0.4, 0.7, CdfTail::Upper)[0] == Approx(lp));
    CHECK(log_first_passage_cdf(1e6, 0.4, 0.7, CdfTail::Lower)[0] == Approx(lp));
    CHECK(log_first_passage_cdf(1e-9, 0.4, 0.7, CdfTail::Lower)[0] < -1e7);
    for (double w : {0.0, 1.0, -0.1, std::nan("")}) {
        CHECK(std::isnan(log_first_passage_cdf(0.5, w, 0.7, CdfTail::Lower)[0]));
    }
    CHECK(std::isnan(log_first_passage_cdf(std::nan(""), 0.5, 0.7, CdfTail::Upper)[0]));
}

}  // namespace advi

namespace advi {
namespace {

using wiener::log_first_passage_cdf_sv;

// F and G averaged over the drift c ~ normal(m, s), as an independent reference: adaptive
// quadrature over the drift of the drift-free-variability functions (checked above against
// quadrature of the density), in x = (c - m) / s.
double averaged(double u, double w, double m, double s, CdfTail t) {
    auto integrand = [&](double x) {
        if (std::fabs(x) > 40)
            return 0.0;  // (and the drift finite)
        const double c = m + s * x;
        return std::exp(log_first_passage_cdf(u, w, c, t)[0] - 0.5 * x * x) / std::sqrt(2 * M_PI);
    };
    return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(integrand, -kInfinity(),
                                                                         kInfinity(), 15, 1e-12);
}

}  // namespace

TEST_CASE("wiener cdf with drift variability: against quadrature over the drift",
          "[graph][wiener]") {
    for (double s : {0.3, 1.5, 4.0}) {
        for (double w : {0.2, 0.6}) {
            for (double m : {-2.0, 0.0, 1.5}) {
                for (double u : {0.03, 0.3, 1.2, 3.0}) {
                    for (CdfTail t : {CdfTail::Lower, CdfTail::Upper}) {
                        INFO("u " << u << " w " << w << " m " << m << " s " << s << " tail "
                                  << static_cast<int>(t));
                        const double want = averaged(u, w, m, s, t);
                        const auto got = log_first_passage_cdf_sv(u, w, m, s, t);
                        CHECK(near(got[0], std::log(want), 1e-8, 1e-9));
                    }
                }
            }
        }
    }
}

TEST_CASE("wiener cdf with drift variability: s = 0 is the function without, far tails",
          "[graph][wiener]") {
    for (double u : {0.01, 0.4, 2.5, 9.0}) {
        for (double c : {-3.0, 0.4}) {
            for (CdfTail t : {CdfTail::Lower, CdfTail::Upper}) {
                INFO("u " << u << " c " << c << " tail " << static_cast<int>(t));
                const auto with = log_first_passage_cdf_sv(u, 0.35, c, 0.0, t);
                const auto without = log_first_passage_cdf(u, 0.35, c, t);
                CHECK(near(with[0], without[0], 1e-11, 1e-12));
                CHECK(near(with[1], without[1], 1e-8, 1e-9));
                CHECK(near(with[3], without[3], 1e-8, 1e-9));
            }
        }
    }
    // far in the upper tail (G about e^-60 of P): finite, and below the next time's
    const double g9 = log_first_passage_cdf_sv(9.0, 0.5, 0.5, 1.0, CdfTail::Upper)[0];
    const double g12 = log_first_passage_cdf_sv(12.0, 0.5, 0.5, 1.0, CdfTail::Upper)[0];
    CHECK(std::isfinite(g12));
    CHECK(g12 < g9 - 10);
    CHECK(near(g9, std::log(averaged(9.0, 0.5, 0.5, 1.0, CdfTail::Upper)), 1e-7, 1e-9));
}

TEST_CASE("wiener cdf with drift variability: derivatives against central differences",
          "[graph][wiener]") {
    for (double u : {0.05, 0.6, 3.0, 8.0}) {
        for (double w : {0.3, 0.8}) {
            for (double m : {-1.0, 2.0}) {
                for (double s : {0.5, 2.0}) {
                    for (CdfTail t : {CdfTail::Lower, CdfTail::Upper}) {
                        INFO("u " << u << " w " << w << " m " << m << " s " << s << " tail "
                                  << static_cast<int>(t));
                        const auto d = log_first_passage_cdf_sv(u, w, m, s, t);
                        for (double v : d) REQUIRE(std::isfinite(v));
                        const std::array<double, 4> x = {u, w, m, s};
                        const std::array<double, 4> h = {1e-5 * u, 1e-6, 1e-6, 1e-6};
                        for (int i = 0; i < 4; ++i) {
                            auto plus = x, minus = x;
                            plus[i] += h[i];
                            minus[i] -= h[i];
                            const auto p =
                                log_first_passage_cdf_sv(plus[0], plus[1], plus[2], plus[3], t);
                            const auto q =
                                log_first_passage_cdf_sv(minus[0], minus[1], minus[2], minus[3], t);
                            INFO("input " << i);
                            CHECK(near(d[1 + i], (p[0] - q[0]) / (2 * h[i]), 1e-6, 1e-6));
                            for (int j = 0; j < 4; ++j) {
                                const int lo = std::min(i, j), hi = std::max(i, j);
                                const int at = lo * 4 - lo * (lo - 1) / 2 + (hi - lo);
                                INFO("hessian " << i << ", " << j);
                                CHECK(near(d[5 + at], (p[1 + j] - q[1 + j]) / (2 * h[i]), 1e-5,
                                           1e-5));
                            }
                        }
                    }
                }
            }
        }
    }
}

}  // namespace advi
