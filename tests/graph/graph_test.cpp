// The graph: interning merges equal nodes, shapes broadcast, printing is stable.
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi {

TEST_CASE("intern returns the existing node for an equal node", "[graph]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "x");
    const NodeId a = g.apply(Op::Exp, x);
    const NodeId b = g.apply(Op::Exp, x);
    CHECK(a == b);
    CHECK(g.constant(2.0) == g.constant(2.0));
    CHECK(g.constant(2.0) != g.constant(2.0, Shape::vector(3)));
    CHECK(g.apply(Op::Add, a, g.constant(1.0)) == g.apply(Op::Add, b, g.constant(1.0)));
    CHECK(g.size() == 6);  // x, exp, 2, 2 filled, 1, add
    CHECK(g.is_variable(a));
    CHECK_FALSE(g.is_variable(g.constant(2.0)));
}

TEST_CASE("scalars broadcast against vectors and matrices", "[graph]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "x");
    const NodeId A = g.leaf(Op::Zeta, Shape::matrix(2, 3), DType::Real, 3, "A");
    const NodeId s = g.constant(2.0);
    CHECK(g[g.apply(Op::Mul, s, x)].shape == Shape::vector(3));
    CHECK(g[g.apply(Op::Mul, A, s)].shape == Shape::matrix(2, 3));
    CHECK(g[g.apply(Op::MatVec, A, x)].shape == Shape::vector(2));
    CHECK(g[g.apply(Op::Sum, A)].shape == Shape::scalar());
    CHECK_THROWS_AS(g.apply(Op::Add, A, x), ShapeError);
}

TEST_CASE("integer data must be converted before arithmetic", "[graph]") {
    Graph g;
    const NodeId y = g.leaf(Op::Data, Shape::vector(3), DType::Int, 0, "y");
    CHECK_THROWS_WITH(g.apply(Op::Exp, y), Catch::Contains("integer data `y`"));
    CHECK(g[g.apply(Op::ToReal, y)].dtype == DType::Real);
}

TEST_CASE("the text listing and Graphviz output", "[graph]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "beta");
    const NodeId X = g.leaf(Op::Data, Shape::matrix(4, 3), DType::Real, 0, "X");
    const NodeId mu = g.apply(Op::MatVec, X, x);
    g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Mul, g.constant(0.5), mu)));
    CHECK(g.str() ==
          "%0 vec[3] = zeta[0:3] beta\n"
          "%1 mat[4,3] = data X\n"
          "%2 vec[4] = matvec %1 %0\n"
          "%3 real = const 0.5\n"
          "%4 vec[4] = mul %3 %2\n"
          "%5 real = sum %4\n"
          "out lp = %5\n");
    const std::string dot = g.dot();
    CHECK(dot.rfind("digraph advi {", 0) == 0);
    CHECK(dot.find("n1 -> n2;") != std::string::npos);
    CHECK(dot.find("n0 -> n2;") != std::string::npos);
    CHECK(dot.find("label=\"lp\"") != std::string::npos);
}

TEST_CASE("rebuild keeps live nodes only, with labels and outputs", "[graph]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "x");
    g.apply(Op::Exp, x);  // dead
    g.set_output("lp", g.apply(Op::Log1p, x));
    Graph r = rebuild(g);
    CHECK(r.size() == 2);
    CHECK(r.str() == "%0 real = zeta[0:1] x\n%1 real = log1p %0\nout lp = %1\n");
}

}  // namespace advi
