// Issue 17, class 5: an exception from the mathematics library while the log density or its
// gradient is evaluated is a failed evaluation (a non-finite value that the engine drops and
// counts), never the end of the fit. Kernels at extreme arguments give inf or NaN; a kernel
// that throws gives NaN; a target that throws is a dropped draw; our own errors pass on.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/compile/kernel_guard.hpp>
#include <advi/engine/engine.hpp>
#include <advi/fit/diagnose.hpp>
#include <advi/graph/graph.hpp>

namespace advi {
namespace {

using Catch::Matchers::Contains;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void overflowing_kernel(const KernelArgs& a) {
    a.out[0] = 1;  // partly written, then Boost's default policy gives up
    throw std::overflow_error("Error in function boost::math::digamma<double>(double)");
}
void index_error_kernel(const KernelArgs&) {
    throw DataError("index 7 at position 3 is outside 0..6");
}

TEST_CASE("a kernel that throws a library exception gives NaN; our own errors pass on",
          "[fit][failed_evaluation]") {
    double out[3] = {0, 0, 0};
    KernelArgs a;
    a.out = out;
    a.out_rows = 3;
    REQUIRE_NOTHROW(run_kernel(&overflowing_kernel, a));
    for (const double v : out) CHECK(std::isnan(v));
    CHECK_THROWS_AS(run_kernel(&index_error_kernel, a), DataError);
}

TEST_CASE("special-function kernels at extreme arguments give inf or NaN, never throw",
          "[fit][failed_evaluation]") {
    // Every elementwise op of the table, through its scalar function and through a compiled
    // kernel, at the arguments where Boost's default policy throws (poles, overflow).
    const std::vector<double> xs = {0.0,  -0.0,  1e-320, -1e-320, 1e308, -1e308,
                                    kInf, -kInf, kNaN,   -3.0,    745.0, -745.0};
    for (int k = 0; k < kOpCount; ++k) {
        const OpInfo& info = op_info(static_cast<Op>(k));
        if (!info.elementwise || info.fold == nullptr)
            continue;
        for (const double x : xs) {
            for (const double y : {1.0, x}) {
                INFO(info.name << "(" << x << ", " << y << ")");
                CHECK_NOTHROW(info.fold(x, y));
            }
        }
    }
    const int n = static_cast<int>(xs.size());
    for (const Op op :
         {Op::Digamma, Op::Trigamma, Op::Lgamma, Op::LogBesselI0, Op::BesselI1OverI0}) {
        Graph g;
        const NodeId x = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "x");
        g.set_output("out", g.apply(op, x), 0);
        Program p = Program::compile(g, {}, n, n);
        Eigen::VectorXd out;
        INFO(op_name(op));
        REQUIRE_NOTHROW(p.run(Eigen::Map<const Eigen::VectorXd>(xs.data(), n), out));
    }
    // The values Boost's default policy threw at: overflow is inf, a pole NaN.
    CHECK(op_info(Op::Digamma).fold(kInf, 0) == kInf);
    CHECK(op_info(Op::Digamma).fold(1e-320, 0) == -kInf);
    CHECK(op_info(Op::Trigamma).fold(1e-320, 0) == kInf);
    CHECK(std::isnan(op_info(Op::Digamma).fold(-3.0, 0)));
    CHECK(op_info(Op::LogBesselI0).fold(1e308, 0) > 7e307);
}

// A standard normal whose evaluation throws a library exception above zeta = 1.5 (as a special
// function overflowing there would): the fit goes on, those draws are dropped and counted.
struct ThrowingNormal {
    int throws = 0;
    int dim() const { return 1; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) {
        if (z[0] > 1.5) {
            ++throws;
            throw std::overflow_error("numeric overflow");
        }
        g[0] = -z[0];
        return -0.5 * z[0] * z[0];
    }
};

TEST_CASE("a target that throws a library exception: the draw is dropped and counted",
          "[fit][failed_evaluation]") {
    ThrowingNormal f;
    TargetRef<ThrowingNormal> target(f);
    AdviResult r;
    REQUIRE_NOTHROW(r = run_advi(target, {.seed = 3}));
    CHECK(f.throws > 0);
    CHECK(r.dropped_draws == f.throws);
    CHECK(std::isfinite(r.q.mu()[0]));
    CHECK(std::abs(r.q.mu()[0]) < 0.5);
}

struct ErrorTarget {
    int dim() const { return 1; }
    double log_density_gradient(const Eigen::VectorXd&, Eigen::VectorXd&) {
        throw DataError("index 7 at position 3 is outside 0..6");
    }
};

TEST_CASE("a target that throws an advi::Error ends the fit with that error",
          "[fit][failed_evaluation]") {
    ErrorTarget e;
    TargetRef<ErrorTarget> target(e);
    CHECK_THROWS_WITH(run_advi(target, {.seed = 1}), Contains("index 7 at position 3"));
}

// An overdispersed count regression: neg_binomial_2_log with counts up to about 1e5.
struct CountData {
    Eigen::VectorXd x;
    Eigen::VectorXi y;
};
CountData counts(int n) {
    CountData d{Eigen::VectorXd(n), Eigen::VectorXi(n)};
    Rng rng(11);
    Eigen::VectorXd z(2);
    for (int i = 0; i < n; ++i) {
        rng.fill_normal(z);
        d.x[i] = z[0];
        // log mean 8 + 1.5 x, overdispersed by a lognormal factor
        d.y[i] = static_cast<int>(std::round(std::exp(8 + 1.5 * z[0] + 1.2 * z[1])));
    }
    return d;
}

TEST_CASE("neg_binomial_2_log where digamma overflows: the gradient is not finite, no throw",
          "[fit][failed_evaluation]") {
    const CountData d = counts(50);
    Model m;
    auto x = m.data("x", d.x);
    auto y = m.data("y", d.y);
    auto alpha = m.param("alpha", normal(0, 10));
    auto beta = m.param("beta", normal(0, 10));
    auto phi = m.param("phi", exponential(1));
    m.observe(y, neg_binomial_2_log(alpha + beta * x, phi));
    Program p = compile(m);
    Eigen::VectorXd grad;
    // phi = exp(800) = inf: Boost's digamma(inf) threw "numeric overflow" here before.
    const Eigen::VectorXd zeta = (Eigen::VectorXd(3) << 8.0, 1.5, 800.0).finished();
    double lp = 0;
    REQUIRE_NOTHROW(lp = p.run(zeta, grad));
    CHECK(!(std::isfinite(lp) && grad.allFinite()));
    // At an ordinary point the program is unchanged: finite.
    const Eigen::VectorXd ok = (Eigen::VectorXd(3) << 8.0, 1.5, 0.0).finished();
    CHECK(std::isfinite(p.run(ok, grad)));
    CHECK(grad.allFinite());

    // The fit from seeds whose eta search tries huge scales completes.
    for (const std::uint64_t seed : {1u, 2u, 3u, 4u}) {
        INFO("seed " << seed);
        Fit f = fit(m, {.seed = seed, .output_samples = 100});
        CHECK(std::isfinite(f.mean("phi")[0]));
        CHECK(f.mean("beta")[0] > 1.0);
        CHECK(f.mean("beta")[0] < 2.0);
    }
}

TEST_CASE("a gradient that is never finite while the log density is: the error names the op",
          "[fit][failed_evaluation]") {
    // sqrt(mu * z) with z = 0 is 0, finite; its derivative, simplified to (0.5 z) / sqrt(mu z),
    // is 0 / 0.
    const Eigen::VectorXd z = Eigen::VectorXd::Zero(3);
    Model m;
    auto zz = m.data("z", z);
    auto mu = m.param("mu", normal(0, 1));
    m.target_add(sum(sqrt(mu * zz)));
    const ModelSpec spec = m.spec();
    const Eigen::VectorXd at = Eigen::VectorXd::Constant(1, 0.3);
    CHECK_THAT(explain_nonfinite(spec, at),
               Contains("the gradient is not finite: op `div` gives nan") &&
                   Contains("latent `mu`") && Contains("data `z`"));
    CHECK_THROWS_WITH(fit(spec, {.seed = 1}),
                      Contains("gradient") && Contains("the gradient is not finite: op `"));
}

}  // namespace
}  // namespace advi
