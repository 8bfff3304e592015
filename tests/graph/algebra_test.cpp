// The algebraic solve op (graph/ops_algebra.hpp): roots of hand-written systems, the implicit
// function theorem's vector-Jacobian product against central differences of the root, and a
// system without a root failing.
#include <cmath>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/graph/ops_algebra.hpp>

namespace advi {
namespace {

// f(x, p) = (x0^3 + x0 - p0, exp(x1) - p1 x0, ...) with an optional shift that leaves no root.
class Cubic final : public OdeRhs {
public:
    explicit Cubic(double shift = 0) : shift_(shift) {}
    [[nodiscard]] int states() const override { return 2; }
    [[nodiscard]] int parameters() const override { return 2; }
    [[nodiscard]] std::shared_ptr<OdeRhsInstance> instance() const override {
        struct Instance final : OdeRhsInstance {
            double shift;
            explicit Instance(double s) : shift(s) {}
            void value(double, const double* x, const double* p, double* f) override {
                f[0] = x[0] * x[0] * x[0] + x[0] - p[0];
                f[1] = std::exp(x[1]) - p[1] * x[0] + shift;
            }
            void jacobian(double t, const double* x, const double* p, double* f,
                          double* j) override {
                value(t, x, p, f);
                const double rows[2][4] = {
                    {3 * x[0] * x[0] + 1, 0,              -1, 0    },
                    {-p[1],               std::exp(x[1]), 0,  -x[0]}
                };
                for (int r = 0; r < 2; ++r)
                    for (int k = 0; k < 4; ++k) j[r * 4 + k] = rows[r][k];
            }
        };
        return std::make_shared<Instance>(shift_);
    }

private:
    double shift_;
};

AlgebraSystem system(double shift = 0) {
    AlgebraSystem s;
    s.f = std::make_shared<Cubic>(shift);
    s.name = "cubic";
    return s;
}

}  // namespace

TEST_CASE("algebra_solve: the root, from guesses near and far", "[graph][algebra]") {
    const AlgebraSystem s = system();
    for (const double guess : {0.5, 3.0, -1.0, 10.0}) {
        // p0 = 10: x0^3 + x0 = 10 has the root 2; exp(x1) = p1 x0 = 3 * 2
        const std::vector<double> z{guess, guess, 10.0, 3.0};
        std::vector<double> x(2);
        REQUIRE(algebra_ops::solve(s, z.data(), x.data()));
        CHECK(x[0] == Approx(2.0).epsilon(1e-12));
        CHECK(x[1] == Approx(std::log(6.0)).epsilon(1e-12));
    }
}

TEST_CASE("algebra_solve: the vector-Jacobian product is the root's derivative",
          "[graph][algebra]") {
    const AlgebraSystem s = system();
    const std::vector<double> z{1.0, 0.0, 7.3, 2.2};
    const std::vector<double> g{0.7, -1.3};
    std::vector<double> x(2), vjp(4);
    REQUIRE(algebra_ops::solve(s, z.data(), x.data(), g.data(), vjp.data()));
    CHECK(vjp[0] == 0.0);  // the guess does not move the root
    CHECK(vjp[1] == 0.0);
    for (int k = 2; k < 4; ++k) {
        const double h = 1e-6;
        std::vector<double> up = z, down = z, xu(2), xd(2);
        up[static_cast<std::size_t>(k)] += h;
        down[static_cast<std::size_t>(k)] -= h;
        REQUIRE(algebra_ops::solve(s, up.data(), xu.data()));
        REQUIRE(algebra_ops::solve(s, down.data(), xd.data()));
        const double numeric = (g[0] * (xu[0] - xd[0]) + g[1] * (xu[1] - xd[1])) / (2 * h);
        CHECK(vjp[static_cast<std::size_t>(k)] == Approx(numeric).epsilon(1e-7));
    }
}

TEST_CASE("algebra_solve: no root is a failure, bad settings are named", "[graph][algebra]") {
    // exp(x1) - p1 x0 + 100 = 0 has no root where p1 x0 < 100
    const AlgebraSystem s = system(100.0);
    const std::vector<double> z{1.0, 0.0, 10.0, 3.0};
    std::vector<double> x(2);
    CHECK_FALSE(algebra_ops::solve(s, z.data(), x.data()));
    AlgebraSystem bad = system();
    bad.function_tolerance = 0;
    CHECK_THROWS_WITH(register_algebra_system(bad),
                      "cubic: function_tolerance must be positive and finite, got 0");
    bad = system();
    bad.max_num_steps = 0;
    CHECK_THROWS_WITH(register_algebra_system(bad), "cubic: max_num_steps must be positive, got 0");
}

}  // namespace advi
