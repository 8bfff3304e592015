// Symbolic reverse mode: the gradient graph, fan-out accumulation, broadcast reduction,
// and a clear error for an op without a derivative rule.
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/diff/reverse.hpp>

#include "support/gradient_check.hpp"

namespace advi {

TEST_CASE("gradient of a shared subexpression accumulates every use", "[diff]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(2), DType::Real, 0, "x");
    const NodeId s = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 2, "s");
    const NodeId e = g.apply(Op::Exp, x);
    // lp = sum(e * e * s + e) + s^2 : e used three times, s broadcast over x
    NodeId lp = g.apply(Op::Sum, g.apply(Op::Add, g.apply(Op::Mul, g.apply(Op::Mul, e, e), s), e));
    lp = g.apply(Op::Add, lp, g.apply(Op::Square, s));
    g.set_output("lp", lp);
    Eigen::VectorXd z(3);
    z << 0.2, -0.7, 1.3;
    Program p = test::gradient_program(g, {}, 3);
    Eigen::VectorXd grad(3);
    p.run(z, grad);
    for (int i = 0; i < 2; ++i) {
        CHECK(grad[i] == Approx(2 * std::exp(2 * z[i]) * z[2] + std::exp(z[i])));
    }
    CHECK(grad[2] == Approx(std::exp(2 * z[0]) + std::exp(2 * z[1]) + 2 * z[2]));
    test::check_gradient(g, {}, z);
}

TEST_CASE("gradient outputs are placed at each zeta slice's offset", "[diff]") {
    Graph g;
    const NodeId a = g.leaf(Op::Zeta, Shape::vector(2), DType::Real, 0, "a");
    const NodeId b = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 2, "b");
    g.set_output("lp", g.apply(Op::Add, g.apply(Op::Sum, a), b));
    Graph d = differentiate(g);
    REQUIRE(d.outputs().size() == 3);
    CHECK(d.outputs()[1].name == "grad a");
    CHECK(d.outputs()[1].offset == 0);
    CHECK(d.outputs()[2].name == "grad b");
    CHECK(d.outputs()[2].offset == 2);
}

TEST_CASE("an op without a derivative rule on a parameter's path is named", "[diff]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "x");
    // prod_others_vjp (the third derivative of prod) is never differentiated by design.
    g.set_output("lp", g.apply(Op::ProdOthersVjp, x, x));
    CHECK_THROWS_AS(differentiate(g), ModelError);
    CHECK_THROWS_WITH(differentiate(g), Catch::Contains("`prod_others_vjp`"));
}

}  // namespace advi
