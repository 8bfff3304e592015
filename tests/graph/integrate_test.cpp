// The integrate_1d op (graph/ops_integrate.hpp): integrals of hand-written integrands with closed
// forms over finite, half-infinite and infinite ranges, by both rules; the gradient in the
// parameters and the limits against central differences; a divergent integral failing.
#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/graph/ops_integrate.hpp>

namespace advi {
namespace {

// f(x, xc, p) = p1 exp(-p0 x^2) + xc_term, the Jacobian [df/dxc | df/dp0 | df/dp1]; with `pole`,
// 1 / |x| (no finite integral over a range holding 0).
class Gaussian final : public OdeRhs {
public:
    explicit Gaussian(bool pole = false) : pole_(pole) {}
    [[nodiscard]] int states() const override { return 1; }
    [[nodiscard]] int parameters() const override { return 2; }
    [[nodiscard]] std::shared_ptr<OdeRhsInstance> instance() const override {
        struct Instance final : OdeRhsInstance {
            bool pole;
            explicit Instance(bool p) : pole(p) {}
            void value(double x, const double*, const double* p, double* f) override {
                f[0] = pole ? 1 / std::abs(x) : p[1] * std::exp(-p[0] * x * x);
            }
            void jacobian(double x, const double* xc, const double* p, double* f,
                          double* j) override {
                value(x, xc, p, f);
                const double e = std::exp(-p[0] * x * x);
                j[0] = 0;
                j[1] = -p[1] * x * x * e;
                j[2] = e;
            }
        };
        return std::make_shared<Instance>(pole_);
    }

private:
    bool pole_;
};

IntegralSystem system(QuadratureMethod m, bool pole = false) {
    IntegralSystem s;
    s.f = std::make_shared<Gaussian>(pole);
    s.method = m;
    s.relative_tolerance = 1e-10;
    s.name = "gaussian";
    return s;
}

}  // namespace

TEST_CASE("integrate_1d: closed forms over finite and infinite ranges", "[graph][integrate]") {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> z{0.0, 1.7, 0.6};  // [0; p0; p1]
    const double full = 0.6 * std::sqrt(std::numbers::pi / 1.7);
    for (const auto m : {QuadratureMethod::DoubleExponential, QuadratureMethod::GaussKronrod}) {
        INFO(static_cast<int>(m));
        const IntegralSystem s = system(m);
        double v = 0;
        REQUIRE(integrate_ops::integrate(s, z.data(), -inf, inf, &v));
        CHECK(v == Approx(full).epsilon(1e-9));
        REQUIRE(integrate_ops::integrate(s, z.data(), 0, inf, &v));
        CHECK(v == Approx(full / 2).epsilon(1e-9));
        REQUIRE(integrate_ops::integrate(s, z.data(), -inf, 0.4, &v));
        CHECK(v == Approx(full / 2 * (1 + std::erf(0.4 * std::sqrt(1.7)))).epsilon(1e-9));
        REQUIRE(integrate_ops::integrate(s, z.data(), -0.5, 1.2, &v));
        CHECK(v ==
              Approx(full / 2 * (std::erf(1.2 * std::sqrt(1.7)) + std::erf(0.5 * std::sqrt(1.7))))
                  .epsilon(1e-9));
        REQUIRE(integrate_ops::integrate(s, z.data(), 0.3, 0.3, &v));
        CHECK(v == 0.0);
    }
}

TEST_CASE("integrate_1d: the gradient in the parameters and the limits", "[graph][integrate]") {
    const double inf = std::numeric_limits<double>::infinity();
    for (const auto m : {QuadratureMethod::DoubleExponential, QuadratureMethod::GaussKronrod}) {
        const IntegralSystem s = system(m);
        for (const auto& [a, b] : {
                 std::pair{-0.5, 1.2},
                 std::pair{0.2,  inf}
        }) {
            INFO(static_cast<int>(m) << " [" << a << ", " << b << "]");
            const std::vector<double> z{0.0, 1.7, 0.6};
            std::vector<double> grad(5);
            double v = 0;
            REQUIRE(integrate_ops::integrate(s, z.data(), a, b, &v, grad.data()));
            const double h = 1e-5;
            for (int k = 1; k < 3; ++k) {
                std::vector<double> up = z, down = z;
                up[static_cast<std::size_t>(k)] += h;
                down[static_cast<std::size_t>(k)] -= h;
                double vu = 0, vd = 0;
                REQUIRE(integrate_ops::integrate(s, up.data(), a, b, &vu));
                REQUIRE(integrate_ops::integrate(s, down.data(), a, b, &vd));
                CHECK(grad[static_cast<std::size_t>(k)] ==
                      Approx((vu - vd) / (2 * h)).epsilon(1e-6));
            }
            // -f(a), f(b) (0 for an infinite limit)
            CHECK(grad[3] == Approx(-0.6 * std::exp(-1.7 * a * a)).epsilon(1e-12));
            CHECK(grad[4] == (std::isinf(b) ? 0.0 : 0.6 * std::exp(-1.7 * b * b)));
        }
    }
}

TEST_CASE("integrate_1d: a divergent integral fails; bad settings are named",
          "[graph][integrate]") {
    const std::vector<double> z{0.0, 1.0, 1.0};
    double v = 0;
    CHECK_FALSE(integrate_ops::integrate(system(QuadratureMethod::GaussKronrod, true), z.data(),
                                         -1.0, 1.0, &v));
    CHECK_FALSE(integrate_ops::integrate(system(QuadratureMethod::DoubleExponential), z.data(), 1.0,
                                         -1.0, &v));  // the lower limit above the upper
    IntegralSystem bad = system(QuadratureMethod::DoubleExponential);
    bad.relative_tolerance = -1;
    CHECK_THROWS_WITH(register_integral(bad),
                      "gaussian: relative_tolerance must be positive and finite, got -1");
}

}  // namespace advi
