// Every transform of the table: round trips, draws inside the support, the graph fragment
// against the numeric T^-1, log|det J| against a numeric Jacobian, and gradients.
#include <cmath>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/graph/error.hpp>
#include <advi/transform/constrain.hpp>
#include <advi/transform/transform.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

struct Case {
    Support support;
    PositiveTransform choice;
};

std::vector<Case> cases() {
    std::vector<Case> c;
    for (PositiveTransform t : {PositiveTransform::Log, PositiveTransform::Softplus}) {
        c.push_back({Support::real(), t});
        c.push_back({Support::positive(), t});
        c.push_back({Support::lower_bound(-2.5), t});
        c.push_back({Support::upper_bound(3.0), t});
        c.push_back({Support::interval(-1.0, 4.0), t});
        c.push_back({Support::interval(0.0, 1.0), t});
    }
    return c;
}

// A graph with one vector zeta leaf of size n: outputs theta (offset 0) and "lp" = log|J|.
Graph fragment(const Case& c, int n, NodeId* theta_out = nullptr) {
    Graph g;
    const Transform& t = transform_for(c.support, c.choice);
    const NodeId z = g.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "z");
    const NodeId theta = t.constrain(g, z, c.support);
    g.set_output("lp", t.log_abs_det_jacobian(g, z, theta, c.support));
    g.set_output("theta", theta, 0);
    if (theta_out) *theta_out = theta;
    return g;
}

}  // namespace

TEST_CASE("transforms: round trip, support, fragment, log-Jacobian, gradient", "[transform]") {
    const std::vector<double> zetas{-7.5, -1.2, -1e-4, 0.0, 0.3, 2.2, 9.0};
    const int n = static_cast<int>(zetas.size());
    const Eigen::VectorXd z = Eigen::Map<const Eigen::VectorXd>(zetas.data(), n);
    for (const Case& c : cases()) {
        const Transform& t = transform_for(c.support, c.choice);
        INFO(c.support.str() << " with " << t.name);
        Graph g = fragment(c, n);
        Program p = Program::compile(simplify(g), {}, n, n);
        Eigen::VectorXd theta(n);
        const double logdet = p.run(z, theta);
        for (int i = 0; i < n; ++i) {
            // the fragment computes the numeric T^-1; T inverts it
            CHECK(theta[i] == Approx(t.constrain_value(z[i], c.support)).epsilon(1e-13));
            CHECK(c.support.contains(theta[i]));
            CHECK(t.unconstrain(theta[i], c.support) == Approx(z[i]).margin(1e-9).epsilon(1e-9));
        }
        // log|det J| against the log-determinant of a central-difference Jacobian.
        Eigen::MatrixXd J(n, n);
        Eigen::VectorXd tp(n), tm(n);
        for (int j = 0; j < n; ++j) {
            const double h = 1e-6 * std::max(1.0, std::abs(z[j]));
            Eigen::VectorXd zp = z, zm = z;
            zp[j] += h;
            zm[j] -= h;
            p.run(zp, tp);
            p.run(zm, tm);
            J.col(j) = (tp - tm) / (2 * h);
        }
        const double numeric = std::log(std::abs(J.determinant()));
        CHECK(logdet == Approx(numeric).epsilon(1e-6).margin(1e-6));
        // Gradient of log|J| + a weighted sum of theta (the chain rule through T^-1).
        Graph gg;
        const NodeId zz = gg.leaf(Op::Zeta, Shape::vector(n), DType::Real, 0, "z");
        const NodeId th = t.constrain(gg, zz, c.support);
        Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(n, 0.3, -0.9);
        const NodeId wd = gg.leaf(Op::Data, Shape::vector(n), DType::Real, 0, "w");
        gg.set_output("lp", gg.apply(Op::Add, t.log_abs_det_jacobian(gg, zz, th, c.support),
                                     gg.apply(Op::Dot, wd, th)));
        test::check_gradient(gg, {{"w", Shape::vector(n), DType::Real, w.data(), nullptr}}, z);
    }
}

TEST_CASE("transforms: positive T1 is log and T2 is the softplus inverse", "[transform]") {
    const Transform& t1 = transform_for(Support::positive(), PositiveTransform::Log);
    const Transform& t2 = transform_for(Support::positive(), PositiveTransform::Softplus);
    CHECK(t1.unconstrain(2.0, Support::positive()) == Approx(std::log(2.0)));
    CHECK(t2.unconstrain(2.0, Support::positive()) == Approx(std::log(std::exp(2.0) - 1)));
    // T2 is nearly the identity for large theta, where T1 flattens (paper section 3.3)
    CHECK(t2.unconstrain(40.0, Support::positive()) == Approx(40.0));
    CHECK(t2.constrain_value(-40.0, Support::positive()) > 0);
}

TEST_CASE("an interval with lower >= upper is rejected with both bounds named", "[transform]") {
    CHECK_THROWS_AS(Support::interval(2, 1), ModelError);
    CHECK_THROWS_WITH(Support::interval(2, 1), Catch::Contains("interval(2, 1)"));
}

}  // namespace advi
