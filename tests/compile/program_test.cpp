// The program: arena slots reused by liveness, data read in place (and data-only nodes
// computed once), clear errors on a wrong input (no allocation in run():
// no_allocation_test.cpp).
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/compile/program.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

// lp = sum(log1p(exp(A x) ^ 2)) - sum(y * x') ... a chain long enough to reuse slots.
struct Chain {
    Eigen::MatrixXd A = Eigen::MatrixXd::Random(5000, 4) * 0.1;
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(4, -1, 1);
    Graph g;
    std::vector<DataSlot> data{
        {"A", Shape::matrix(5000, 4), DType::Real,                 A.data(),   nullptr},
        {"y",   Shape::vector(4),                   DType::Real,   y.data(), nullptr}
    };
    Chain() {
        const NodeId x = g.leaf(Op::Zeta, Shape::vector(4), DType::Real, 0, "x");
        const NodeId Ad = g.leaf(Op::Data, Shape::matrix(5000, 4), DType::Real, 0, "A");
        const NodeId yd = g.leaf(Op::Data, Shape::vector(4), DType::Real, 1, "y");
        NodeId e = g.apply(Op::MatVec, Ad, x);
        for (Op op : {Op::Exp, Op::Square, Op::Log1p, Op::Sqrt, Op::Log1pExp}) e = g.apply(op, e);
        const NodeId ysq = g.apply(Op::Exp, yd);  // depends on data only
        g.set_output("lp", g.apply(Op::Sub, g.apply(Op::Sum, e), g.apply(Op::Dot, ysq, x)));
    }
};

}  // namespace

TEST_CASE("dead buffers' slots are reused", "[compile]") {
    Chain c;
    Program p = test::gradient_program(c.g, c.data, 4);
    INFO(p.str());
    CHECK(p.arena_bytes() < p.node_bytes() / 2);
    CHECK(p.prologue_count() >= 1);  // exp(y) runs once per data
}

TEST_CASE("data is read in place; reload_data refreshes data-only nodes", "[compile]") {
    Chain c;
    Program p = test::gradient_program(c.g, c.data, 4);
    Eigen::VectorXd z = Eigen::VectorXd::Constant(4, 0.1), grad(4);
    const double before = p.run(z, grad);
    c.y[0] += 1.0;  // exp(y) is a data-only node: stale until reload_data()
    CHECK(p.run(z, grad) == before);
    p.reload_data();
    const double after = p.run(z, grad);
    CHECK(after == Approx(before - (std::exp(c.y[0]) - std::exp(c.y[0] - 1.0)) * 0.1));
    c.A(0, 0) += 1.0;  // read in place: seen at once
    CHECK(p.run(z, grad) != after);
}

TEST_CASE("a wrong input size is a clear error", "[compile]") {
    Chain c;
    Program p = test::gradient_program(c.g, c.data, 4);
    Eigen::VectorXd z(3), grad(4);
    CHECK_THROWS_AS(p.run(z, grad), DataError);
    CHECK_THROWS_WITH(p.run(z, grad), Catch::Contains("expected 4 unconstrained values, got 3"));
}

TEST_CASE("the program listing shows slots and outputs", "[compile]") {
    Chain c;
    Program p = test::gradient_program(c.g, c.data, 4);
    const std::string s = p.str();
    CHECK(s.find("instructions per run") != std::string::npos);
    CHECK(s.find("matvec %1(A) %0(x)") != std::string::npos);
    CHECK(s.find("out[0:4] <-") != std::string::npos);
}

}  // namespace advi

namespace advi {

TEST_CASE("fused elementwise groups run in blocks, with a ragged last block", "[compile]") {
    // lp = sum(log1p_exp(a x + b) * w) over n = 1237 values: one fused, summed group of
    // several blocks; its gradient is another fused group.
    const int n = 1237;
    Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, -3, 4);
    Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(n, 1, 2);
    Graph g;
    const NodeId ab = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "a");
    const NodeId bb = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 1, "b");
    const NodeId xd = g.leaf(Op::Data, Shape::vector(n), DType::Real, 0, "x");
    const NodeId wd = g.leaf(Op::Data, Shape::vector(n), DType::Real, 1, "w");
    const NodeId e = g.apply(Op::Add, g.apply(Op::Mul, ab, xd), bb);
    g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Mul, g.apply(Op::Log1pExp, e), wd)));
    std::vector<DataSlot> data{
        {"x", Shape::vector(n), DType::Real, x.data(), nullptr},
        {"w", Shape::vector(n), DType::Real, w.data(), nullptr}
    };
    Program p = test::gradient_program(g, data, 2);
    CHECK(p.str().find("loop over 1237 values in blocks of 512") != std::string::npos);
    Eigen::VectorXd z(2), grad(2);
    z << 0.7, -0.4;
    const double lp = p.run(z, grad);
    double expected = 0, ga = 0, gb = 0;
    for (int i = 0; i < n; ++i) {
        const double t = z[0] * x[i] + z[1];
        const double s = 1 / (1 + std::exp(-t));
        expected += std::log1p(std::exp(t)) * w[i];
        ga += s * w[i] * x[i];
        gb += s * w[i];
    }
    CHECK(lp == Approx(expected).epsilon(1e-12));
    CHECK(grad[0] == Approx(ga).epsilon(1e-12));
    CHECK(grad[1] == Approx(gb).epsilon(1e-12));
}

}  // namespace advi

namespace advi {

// A group's members and its root can read one input whose last use is the group: its slot
// must be freed once, or two later values share it (found by a constrained LKJ model).
TEST_CASE("a slot read by several members of a fused group is freed once", "[compile]") {
    Graph g;
    const NodeId z = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "z");
    const NodeId a = g.apply(Op::Mul, g.constant(2.0), z);
    const NodeId c = g.apply(Op::Sub, a, g.apply(Op::Log1pExp, a));  // a read by member and root
    const NodeId p1 = g.apply(Op::Dot, c, c);
    const NodeId p2 = g.apply(Op::Sum, z);
    const NodeId p3 = g.apply(Op::Sum, c);
    const NodeId p4 = g.apply(Op::Dot, z, z);
    g.set_output("lp", g.apply(Op::Add, g.apply(Op::Add, g.apply(Op::Add, p1, p2), p3), p4));
    Program p = Program::compile(g, {}, 3, 0);
    Eigen::VectorXd zeta(3), none;
    zeta << 0.3, -0.2, 0.5;
    const Eigen::ArrayXd av = 2 * zeta.array();
    const Eigen::ArrayXd cv = av - (1 + av.exp()).log();
    const double want = cv.square().sum() + zeta.sum() + cv.sum() + zeta.squaredNorm();
    CHECK(p.run(zeta, none) == Approx(want).epsilon(1e-14));
}

}  // namespace advi
