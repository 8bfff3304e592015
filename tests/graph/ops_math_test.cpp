// The scalar special-function ops (ops_math): values through compiled kernels against
// Boost.Math, long double or the definition, far into the tails where the stable forms
// matter; gradients where the op-table loop does not reach (negative cbrt, tails, large
// Bessel arguments) and the one-sided derivatives at kinks.
#include <cmath>
#include <numbers>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/special_functions/cbrt.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_math.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

namespace bm = boost::math;
using Vec = std::vector<double>;

// op(x) or op(x, y) elementwise, through a compiled program (the kernels, not the folds).
Vec eval(Op op, const Vec& x, const Vec& y = {}) {
    Graph g;
    const int n = static_cast<int>(x.size());
    const NodeId a = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "x");
    NodeId out;
    Eigen::VectorXd z(y.empty() ? n : 2 * n);
    for (int i = 0; i < n; ++i) z[i] = x[i];
    if (y.empty()) {
        out = g.apply(op, a);
    } else {
        const NodeId b = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, n, "y");
        for (int i = 0; i < n; ++i) z[n + i] = y[i];
        out = g.apply(op, a, b);
    }
    g.set_output("out", out, 0);
    Program p = Program::compile(g, {}, static_cast<int>(z.size()), n);
    Eigen::VectorXd r;
    p.run(z, r);
    return {r.data(), r.data() + n};
}

// The symbolic gradient of sum(w .* op(x[, y])) against finite differences at (x, y).
void check_op_gradient(Op op, const Vec& x, const Vec& y = {}) {
    Graph g;
    const int n = static_cast<int>(x.size());
    const NodeId a = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "x");
    Eigen::VectorXd z(y.empty() ? n : 2 * n), w(n);
    for (int i = 0; i < n; ++i) {
        z[i] = x[i];
        w[i] = 0.7 + 0.3 * i;
    }
    NodeId out;
    if (y.empty()) {
        out = g.apply(op, a);
    } else {
        const NodeId b = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, n, "y");
        for (int i = 0; i < n; ++i) z[n + i] = y[i];
        out = g.apply(op, a, b);
    }
    const NodeId wd = g.leaf(Op::Data, Shape::vector(n), DType::Real, 0, "w");
    g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Mul, wd, out)));
    const std::vector<DataSlot> data{
        {"w", Shape::vector(n), DType::Real, w.data(), nullptr}
    };
    INFO(op_name(op) << " at " << z.transpose());
    test::check_gradient(g, data, z);
}

// The symbolic gradient of sum(w .* op(x[, y])) itself, for the kinks.
Eigen::VectorXd symbolic_gradient(Op op, const Vec& x, const Vec& y = {}) {
    Graph g;
    const int n = static_cast<int>(x.size());
    const NodeId a = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "x");
    Eigen::VectorXd z(y.empty() ? n : 2 * n);
    for (int i = 0; i < n; ++i) z[i] = x[i];
    NodeId out;
    if (y.empty()) {
        out = g.apply(op, a);
    } else {
        const NodeId b = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, n, "y");
        for (int i = 0; i < n; ++i) z[n + i] = y[i];
        out = g.apply(op, a, b);
    }
    g.set_output("lp", g.apply(Op::Sum, out));
    Program p = test::gradient_program(g, {}, static_cast<int>(z.size()));
    Eigen::VectorXd grad(z.size());
    p.run(z, grad);
    return grad;
}

}  // namespace

TEST_CASE("elementary ops match their definitions", "[graph][op][math]") {
    const Vec x{-30.0, -2.5, -0.3, 0.0, 1e-8, 0.7, 4.0, 27.0};
    const Vec step = eval(Op::Step, x), fabs = eval(Op::Fabs, x), sin = eval(Op::Sin, x),
              cos = eval(Op::Cos, x), tanh = eval(Op::Tanh, x), cbrt = eval(Op::Cbrt, x),
              erf = eval(Op::Erf, x), erfc = eval(Op::Erfc, x);
    for (std::size_t i = 0; i < x.size(); ++i) {
        INFO("x = " << x[i]);
        CHECK(step[i] == (x[i] < 0 ? 0.0 : 1.0));  // Stan: step(0) = 1
        CHECK(fabs[i] == (x[i] < 0 ? -x[i] : x[i]));
        CHECK(sin[i] == Approx(std::sin(x[i])).epsilon(1e-15).margin(1e-300));
        CHECK(cos[i] == Approx(std::cos(x[i])).epsilon(1e-15));
        // tanh from its definition through expm1: (e^2x - 1) / (e^2x + 1)
        const double e = std::expm1(2 * x[i]);
        CHECK(tanh[i] == Approx(e / (e + 2)).epsilon(1e-14).margin(1e-300));
        CHECK(cbrt[i] == Approx(bm::cbrt(x[i])).epsilon(1e-15).margin(1e-300));
        CHECK(cbrt[i] * cbrt[i] * cbrt[i] == Approx(x[i]).epsilon(1e-14).margin(1e-300));
        CHECK(erf[i] == Approx(bm::erf(x[i])).epsilon(1e-14).margin(1e-300));
        CHECK(erfc[i] == Approx(bm::erfc(x[i])).epsilon(1e-13).margin(1e-300));
    }
    const Vec a{-1.0, 2.0, 0.0, 0.0, 3.0}, b{0.5, -2.0, 0.0, 5.0, 3.0};
    const Vec mn = eval(Op::Fmin, a, b), mx = eval(Op::Fmax, a, b), lm = eval(Op::Lmultiply, a, b);
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(mn[i] == (a[i] < b[i] ? a[i] : b[i]));
        CHECK(mx[i] == (a[i] > b[i] ? a[i] : b[i]));
    }
    CHECK(lm[0] == Approx(-std::log(0.5)).epsilon(1e-15));
    CHECK(std::isnan(lm[1]));  // 2 log(-2)
    CHECK(lm[2] == 0.0);       // 0 log 0 = 0 (Stan)
    CHECK(lm[3] == 0.0);
    CHECK(lm[4] == Approx(3 * std::log(3.0)).epsilon(1e-15));
}

TEST_CASE("Phi and log_Phi keep relative accuracy deep in the lower tail", "[graph][op][math]") {
    const bm::normal n01;
    // Phi: Boost's normal cdf (and its complement for the upper tail).
    const Vec x{-37.0, -20.0, -8.0, -1.0, 0.0, 0.5, 3.0, 9.0};
    const Vec phi = eval(Op::Phi, x);
    for (std::size_t i = 0; i < x.size(); ++i) {
        INFO("Phi(" << x[i] << ")");
        CHECK(phi[i] == Approx(bm::cdf(n01, x[i])).epsilon(1e-13));
    }
    // log_Phi against long double erfc (finite there down to x = -150), through every
    // branch: the upper half, erfc down to -20, and the asymptotic series below.
    const Vec lx{-140.0, -60.0, -38.5, -25.0, -20.000001, -19.999999,
                 -5.0,   -0.1,  0.0,   3.0,   9.0,        30.0};
    const Vec lphi = eval(Op::LogPhi, lx);
    for (std::size_t i = 0; i < lx.size(); ++i) {
        INFO("log_Phi(" << lx[i] << ")");
        if (lx[i] > 0) {
            // log(1 - Q) with Q from Boost's complement: no cancellation in the reference.
            const double q = bm::cdf(bm::complement(n01, lx[i]));
            CHECK(lphi[i] == Approx(std::log1p(-q)).epsilon(1e-13).margin(1e-300));
        } else {
            const long double ref =
                std::log(0.5L * std::erfc(-static_cast<long double>(lx[i]) / std::sqrt(2.0L)));
            CHECK(lphi[i] == Approx(static_cast<double>(ref)).epsilon(1e-13));
        }
    }
    // Far below long double's range: the leading terms -x^2/2 - log(-x) - log(2 pi)/2 of
    // Mills' ratio, whose next term 1/x^2 is below double precision here.
    const Vec far = eval(Op::LogPhi, {-1e8, -1e100});
    for (double t : {1e8, 1e100}) {
        const double expected = -0.5 * t * t - std::log(t) - 0.5 * std::log(2 * M_PI);
        CHECK(far[t == 1e8 ? 0 : 1] == Approx(expected).epsilon(1e-15));
    }
}

TEST_CASE("log1m_exp is accurate near 0 and far below", "[graph][op][math]") {
    const Vec x{-1e-12, -1e-6, -1e-3, -0.5, -0.6931, -0.6932, -1.0, -10.0, -40.0, -700.0};
    const Vec v = eval(Op::Log1mExp, x);
    for (std::size_t i = 0; i < x.size(); ++i) {
        INFO("log1m_exp(" << x[i] << ")");
        // long double, by whichever form is exact there: -x (1 + x/2 + x^2/6 + ...) = 1 - e^x
        // by its series near 0, else log1p(-e^x).
        const long double xl = x[i];
        const long double ref =
            std::fabs(x[i]) < 1e-3
                ? std::log(-xl) + std::log1p(xl / 2 + xl * xl / 6 + xl * xl * xl / 24)
                : std::log1p(-std::exp(xl));
        CHECK(v[i] == Approx(static_cast<double>(ref)).epsilon(1e-14).margin(1e-300));
    }
    const Vec edge = eval(Op::Log1mExp, {0.0, 0.5});
    CHECK(edge[0] == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(edge[1]));  // outside the domain, as Stan
}

TEST_CASE("log I0 and I1/I0 match Boost beyond the overflow of I0", "[graph][op][math]") {
    const Vec x{0.0, 1e-3, 0.5, 3.0, 50.0, 499.0, 501.0, 800.0, 5000.0, -3.0, -900.0};
    const Vec li0 = eval(Op::LogBesselI0, x), r = eval(Op::BesselI1OverI0, x);
    for (std::size_t i = 0; i < x.size(); ++i) {
        INFO("x = " << x[i]);
        // long double reaches e^11356: I0(5000) ~ e^5000 is finite there.
        const long double xl = std::fabs(x[i]);
        const long double i0 = bm::cyl_bessel_i(0, xl), i1 = bm::cyl_bessel_i(1, xl);
        CHECK(li0[i] == Approx(static_cast<double>(std::log(i0))).epsilon(1e-14).margin(1e-15));
        const double ratio = static_cast<double>(i1 / i0) * (x[i] < 0 ? -1 : 1);
        CHECK(r[i] == Approx(ratio).epsilon(1e-14).margin(1e-300));
    }
}

TEST_CASE("gradients where the op-table loop does not reach", "[graph][op][math]") {
    check_op_gradient(Op::Cbrt, {-2.0, -0.5, -30.0});
    check_op_gradient(Op::LogPhi, {-30.0, -100.0, -21.0});  // the asymptotic branch
    check_op_gradient(Op::LogPhi, {-19.9, 6.0, 12.0});      // erfc and upper branches
    check_op_gradient(Op::Phi, {-36.0, -9.0, 8.0});
    check_op_gradient(Op::LogBesselI0, {400.0, 600.0, 900.0});  // both sides of 500
    check_op_gradient(Op::BesselI1OverI0, {-0.8, 450.0, 700.0});
    check_op_gradient(Op::LogBesselI0, {-0.4, -3.0, -70.0});  // even: an odd derivative
    check_op_gradient(Op::Fabs, {-3.0, -1e-3, 2.0});
    check_op_gradient(Op::Lmultiply, {0.0, 2.0, -1.5}, {0.3, 1e-3, 40.0});
}

TEST_CASE("kinks take one-sided derivatives", "[graph][op][math]") {
    // fabs at 0: the right derivative +1; step: 0 everywhere.
    const Eigen::VectorXd g_abs = symbolic_gradient(Op::Fabs, {0.0, -2.0, 2.0});
    CHECK(g_abs[0] == 1.0);
    CHECK(g_abs[1] == -1.0);
    CHECK(g_abs[2] == 1.0);
    const Eigen::VectorXd g_step = symbolic_gradient(Op::Step, {0.0, -2.0, 2.0});
    CHECK(g_step.isZero());
    // fmin/fmax: on a tie all of the gradient goes to the first argument; else to the
    // argument that is selected.
    const Eigen::VectorXd g_min = symbolic_gradient(Op::Fmin, {1.0, 1.0, 3.0}, {1.0, 2.0, 2.0});
    const Eigen::VectorXd g_max = symbolic_gradient(Op::Fmax, {1.0, 1.0, 3.0}, {1.0, 2.0, 2.0});
    CHECK(g_min.transpose() ==
          Eigen::RowVectorXd::Map(std::vector<double>{1, 1, 0, 0, 0, 1}.data(), 6));
    CHECK(g_max.transpose() ==
          Eigen::RowVectorXd::Map(std::vector<double>{1, 0, 1, 0, 1, 0}.data(), 6));
}

TEST_CASE("scalar functions name themselves in shape errors", "[graph][op][math]") {
    Graph g;
    const NodeId a = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "a");
    const NodeId b = g.leaf(Op::Zeta, Shape::vector(2), DType::Real, 3, "b");
    for (Op op : {Op::Fmin, Op::Fmax, Op::Lmultiply}) {
        CHECK_THROWS_AS(g.apply(op, a, b), ShapeError);
        CHECK_THROWS_WITH(g.apply(op, a, b), Catch::Contains(std::string(op_name(op))) &&
                                                 Catch::Contains("vec[3]") &&
                                                 Catch::Contains("vec[2]"));
    }
    const NodeId n = g.leaf(Op::Data, Shape::vector(3), DType::Int, 0, "n");
    CHECK_THROWS_WITH(g.apply(Op::Phi, n),
                      Catch::Contains("Phi") && Catch::Contains("integer data `n`"));
}

}  // namespace advi

namespace advi {

TEST_CASE("Bessel functions of integer order against Boost, and their derivatives' recurrences",
          "[graph][math]") {
    // values: A&S 9.1 and 9.6 at x = 2.5 (Boost's own reference values agree to 1e-15)
    CHECK(math::bessel_j(0, 2.5) == Approx(-0.048383776468197996).epsilon(1e-13));
    CHECK(math::bessel_y(1, 2.5) == Approx(0.14591813796678577).epsilon(1e-13));
    CHECK(math::bessel_i(2, 2.5) == Approx(1.2764661478191644).epsilon(1e-13));
    CHECK(math::bessel_k(0, 2.5) == Approx(0.062347553200366172).epsilon(1e-12));
    // negative orders: J_{-1} = -J_1, I_{-1} = I_1, K_{-1} = K_1
    CHECK(math::bessel_j(-1, 1.3) == Approx(-math::bessel_j(1, 1.3)).epsilon(1e-14));
    CHECK(math::bessel_i(-1, 1.3) == Approx(math::bessel_i(1, 1.3)).epsilon(1e-14));
    CHECK(math::bessel_k(-1, 1.3) == Approx(math::bessel_k(1, 1.3)).epsilon(1e-14));
    // outside the domain
    CHECK(std::isnan(math::bessel_j(0.5, 1.0)));
    CHECK(std::isnan(math::bessel_y(0, -1.0)));
    CHECK(std::isnan(math::bessel_k(1, 0.0)));
}

}  // namespace advi
