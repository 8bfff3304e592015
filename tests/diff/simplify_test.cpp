// Simplification rules: each keeps the value and the shape, and makes the graph smaller.
#include <catch2/catch.hpp>

#include <advi/diff/simplify.hpp>
#include <advi/graph/ops_linalg.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

// The simplified root of `make(g, x)` over a vec[3] zeta x, printed.
std::string simplified(NodeId (*make)(Graph&, NodeId)) {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "x");
    g.set_output("out", make(g, x), 0);
    return simplify(g).str();
}

}  // namespace

TEST_CASE("algebraic identities", "[diff][simplify]") {
    CHECK(simplified([](Graph& g, NodeId x) { return g.apply(Op::Add, x, g.constant(0)); }) ==
          "%0 vec[3] = zeta[0:3] x\nout out[0:3] = %0\n");
    CHECK(simplified([](Graph& g, NodeId x) { return g.apply(Op::Mul, g.constant(1), x); }) ==
          "%0 vec[3] = zeta[0:3] x\nout out[0:3] = %0\n");
    CHECK(simplified([](Graph& g, NodeId x) { return g.apply(Op::Mul, x, g.constant(0)); }) ==
          "%0 vec[3] = const 0\nout out[0:3] = %0\n");
    CHECK(simplified([](Graph& g, NodeId x) { return g.apply(Op::Neg, g.apply(Op::Neg, x)); }) ==
          "%0 vec[3] = zeta[0:3] x\nout out[0:3] = %0\n");
    CHECK(simplified([](Graph& g, NodeId x) { return g.apply(Op::Log, g.apply(Op::Exp, x)); }) ==
          "%0 vec[3] = zeta[0:3] x\nout out[0:3] = %0\n");
    CHECK(simplified([](Graph& g, NodeId x) { return g.apply(Op::Pow, x, g.constant(2)); }) ==
          "%0 vec[3] = zeta[0:3] x\n%1 vec[3] = square %0\nout out[0:3] = %1\n");
    // c1 * (c2 * x) = (c1 c2) * x, and constants fold
    CHECK(simplified([](Graph& g, NodeId x) {
              return g.apply(Op::Mul, g.constant(3), g.apply(Op::Mul, g.constant(2), x));
          }) ==
          "%0 vec[3] = zeta[0:3] x\n%1 real = const 6\n%2 vec[3] = mul %1 %0\nout out[0:3] = %2\n");
    CHECK(simplified([](Graph& g, NodeId x) {
              return g.apply(Op::Add, x, g.apply(Op::Exp, g.constant(0)));
          }) ==
          "%0 vec[3] = zeta[0:3] x\n%1 real = const 1\n%2 vec[3] = add %0 %1\nout out[0:3] = %2\n");
}

TEST_CASE("sums of broadcasts and scaled vectors", "[diff][simplify]") {
    Graph g;
    const NodeId s = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "s");
    const NodeId v = g.leaf(Op::Zeta, Shape::vector(4), DType::Real, 1, "v");
    g.set_output("a", g.apply(Op::Sum, g.broadcast(s, Shape::vector(4))), 0);
    g.set_output("b", g.apply(Op::Sum, g.apply(Op::Mul, s, v)), 1);
    CHECK(simplify(g).str() ==
          "%0 real = zeta[0:1] s\n"
          "%1 vec[4] = zeta[1:5] v\n"
          "%2 real = const 4\n"
          "%3 real = mul %2 %0\n"
          "%4 real = sum %1\n"
          "%5 real = mul %0 %4\n"
          "out a[0:1] = %3\n"
          "out b[1:2] = %5\n");
}

// Found by the sanitizer build (ADVI_SANITIZE): the rule for sums of matrix products read the
// second operand of a unary op (kNoNode, index -1) and kept a reference into the node list
// across apply(); sum(exp(v)) must stay a sum of the exp.
TEST_CASE("sums of unary ops are left as they are", "[diff][simplify]") {
    CHECK(simplified([](Graph& g, NodeId x) { return g.apply(Op::Sum, g.apply(Op::Exp, x)); }) ==
          "%0 vec[3] = zeta[0:3] x\n%1 vec[3] = exp %0\n%2 real = sum %1\nout out[0:1] = %2\n");
}

TEST_CASE("simplification keeps the value", "[diff][simplify]") {
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "x");
    NodeId e = g.apply(Op::Mul, g.apply(Op::Neg, x), g.apply(Op::Neg, g.apply(Op::Exp, x)));
    e = g.apply(Op::Div, g.apply(Op::Neg, e), g.constant(4));
    e = g.apply(Op::Add, e, g.apply(Op::Mul, x, x));
    g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Sub, g.constant(0), e)));
    Eigen::VectorXd z(3);
    z << 0.3, -1.2, 2.0;
    Program raw = Program::compile(g, {}, 3, 0);
    Program simple = Program::compile(simplify(g), {}, 3, 0);
    CHECK(test::value_at(simple, z) == Approx(test::value_at(raw, z)).epsilon(1e-14));
    CHECK(simplify(g).size() < g.size());
}

TEST_CASE("a per-value op of a widening gather runs on the gathered vector", "[diff][simplify]") {
    // log(x[idx]) = log(x)[idx] when idx is longer than x: one log per value of x; through a
    // reshape (the lowering's loops), and with a scalar operand (1 / x[idx]).
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::vector(3), DType::Real, 0, "x");
    const NodeId wide = g.leaf(Op::Data, Shape::vector(6), DType::Int, 0, "wide");
    const NodeId narrow = g.leaf(Op::Data, Shape::vector(2), DType::Int, 1, "narrow");
    g.set_output("a", g.apply(Op::Log, g.apply(Op::Gather, x, wide)), 0);
    g.set_output("b",
                 g.apply(Op::Div, g.constant(1),
                         linalg::reshape(g, g.apply(Op::Gather, x, wide), Shape::matrix(3, 2))),
                 6);
    g.set_output("c", g.apply(Op::Log, g.apply(Op::Gather, x, narrow)), 12);
    CHECK(simplify(g).str() ==
          "%0 vec[3] = zeta[0:3] x\n"
          "%1 vec[6] = data wide int\n"
          "%2 vec[2] = data narrow int\n"
          "%3 vec[3] = log %0\n"
          "%4 vec[6] = gather %3 %1\n"
          "%5 real = const 1\n"
          "%6 vec[3] = div %5 %0\n"
          "%7 vec[6] = gather %6 %1\n"
          "%8 mat[3,2] = reshape %7\n"
          "%9 vec[2] = gather %0 %2\n"
          "%10 vec[2] = log %9\n"
          "out a[0:6] = %4\n"
          "out b[6:12] = %8\n"
          "out c[12:14] = %10\n");
}

TEST_CASE("scalars move out of sums by rows and columns", "[diff][simplify]") {
    // row_sums(s X) = s row_sums(X), col_sums(X + c) = col_sums(X) + rows c, row_sums(c - X),
    // col_sums(-X), and reshape(s X) = s reshape(X) on the way: the scalar meets the sums
    // (one pass over them) instead of the matrix. Values against the unsimplified program.
    Graph g;
    const NodeId x = g.leaf(Op::Zeta, Shape::matrix(4, 3), DType::Real, 0, "X");
    const NodeId s = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 12, "s");
    const NodeId c = g.constant(0.75);
    g.set_output("a", g.apply(Op::RowSums, g.apply(Op::Mul, s, x)), 0);
    g.set_output("b", g.apply(Op::ColSums, g.apply(Op::Add, x, c)), 4);
    g.set_output("c", g.apply(Op::RowSums, g.apply(Op::Sub, c, x)), 7);
    g.set_output("d", g.apply(Op::ColSums, g.apply(Op::Neg, x)), 11);
    g.set_output(
        "e", g.apply(Op::ColSums, linalg::reshape(g, g.apply(Op::Mul, s, x), Shape::matrix(6, 2))),
        14);
    const Graph simple = simplify(g);
    const std::string listing = simple.str();
    INFO(listing);
    // No op of the simplified graph reads X with a scalar: only the sums and reshapes read it.
    CHECK(listing.find("mat[4,3] = mul") == std::string::npos);
    CHECK(listing.find("mat[4,3] = add") == std::string::npos);
    CHECK(listing.find("mat[4,3] = sub") == std::string::npos);
    CHECK(listing.find("mat[4,3] = neg") == std::string::npos);
    CHECK(listing.find("mat[6,2] = mul") == std::string::npos);
    const Eigen::VectorXd zeta = Eigen::VectorXd::LinSpaced(13, -1.1, 1.7);
    Program raw = Program::compile(g, {}, 13, 16);
    Program simplified = Program::compile(simple, {}, 13, 16);
    Eigen::VectorXd want, got;
    raw.run(zeta, want);
    simplified.run(zeta, got);
    for (int k = 0; k < 16; ++k) CHECK(got[k] == Approx(want[k]).epsilon(1e-14).margin(1e-14));
}

}  // namespace advi

namespace advi {

TEST_CASE("a scalar latent times a filled constant vector ends (no swap loop)",
          "[diff][simplify]") {
    // "constants first" and "scalars first" once swapped such a product back and forth until
    // the stack overflowed (a skew_double_exponential density with a constant vector tau).
    for (const bool scalar_first : {true, false}) {
        Graph g;
        const NodeId s = g.leaf(Op::Zeta, Shape::scalar(), DType::Real, 0, "s");
        const NodeId c = g.constant(2.5, Shape::vector(3));
        g.set_output("out", scalar_first ? g.apply(Op::Mul, s, c) : g.apply(Op::Mul, c, s), 0);
        const Graph simple = simplify(g);
        CHECK(simple.str().find("mul") != std::string::npos);
    }
}

}  // namespace advi
