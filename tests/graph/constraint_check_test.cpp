// The predicates of Stan's declared constraints (graph/constraint_check) at values inside, at
// Stan's tolerance 1e-8 and outside, and the check_constraint op: 0 or -inf through a compiled
// program, per row for arrays of vectors, with no gradient.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include <advi/compile/program.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/graph/constraint_check.hpp>
#include <advi/graph/graph.hpp>

namespace advi {
namespace {

using Catch::Matchers::Contains;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::optional<std::string> vec(Constraint c, std::vector<double> x) {
    return structured_violation(c, x.data(), static_cast<int>(x.size()), 1, 1, nullptr);
}
std::optional<std::string> mat(Constraint c, std::vector<double> m, int n) {
    std::vector<double> scratch(static_cast<std::size_t>(n) * n);
    return structured_violation(c, m.data(), n, static_cast<int>(m.size()) / n, 1, scratch.data());
}

TEST_CASE("structured constraints: inside, within Stan's tolerance, outside", "[graph]") {
    CHECK(!vec(Constraint::Simplex, {0.2, 0.3, 0.5}));
    CHECK(!vec(Constraint::Simplex, {0.2, 0.3, 0.5 + 5e-9}));
    CHECK_THAT(*vec(Constraint::Simplex, {0.2, 0.3, 0.5 + 2e-8}), Contains("sums to"));
    CHECK_THAT(*vec(Constraint::Simplex, {1.2, -0.2}),
               Contains("is not a simplex: element 2 is -0.2"));
    CHECK(!vec(Constraint::UnitVector, {0.6, 0.8}));
    CHECK_THAT(*vec(Constraint::UnitVector, {0.6, 0.9}), Contains("squared length is 1.17"));
    CHECK(!vec(Constraint::Ordered, {-1, 0, 2}));
    CHECK_THAT(*vec(Constraint::Ordered, {-1, 2, 2}),
               Contains("element 3 (2) is not greater than element 2 (2)"));
    CHECK(!vec(Constraint::PositiveOrdered, {0.1, 2}));
    CHECK_THAT(*vec(Constraint::PositiveOrdered, {-0.1, 2}), Contains("element 1 is -0.1"));
    CHECK_THAT(*vec(Constraint::Simplex, {std::nan(""), 1}), Contains("element 1 is nan"));
    // matrices, column-major
    CHECK(!mat(Constraint::CovMatrix, {2, 0.5, 0.5, 1}, 2));
    CHECK_THAT(*mat(Constraint::CovMatrix, {1, 2, 2, 1}, 2), Contains("not positive definite"));
    CHECK_THAT(*mat(Constraint::CovMatrix, {1, 0.5, 0.4, 1}, 2), Contains("not symmetric"));
    CHECK(!mat(Constraint::CorrMatrix, {1, 0.5, 0.5, 1}, 2));
    CHECK_THAT(*mat(Constraint::CorrMatrix, {1.1, 0.5, 0.5, 1}, 2),
               Contains("diagonal element [1, 1] is 1.1"));
    CHECK(!mat(Constraint::CholeskyFactorCov, {2, 0.5, 0, 1}, 2));
    CHECK_THAT(*mat(Constraint::CholeskyFactorCov, {2, 0.5, 0.1, 1}, 2),
               Contains("element [1, 2] above the diagonal is 0.1"));
    CHECK_THAT(*mat(Constraint::CholeskyFactorCov, {2, 0.5, 0, -1}, 2),
               Contains("diagonal element [2, 2] is -1"));
    CHECK(!mat(Constraint::CholeskyFactorCorr, {1, 0.6, 0, 0.8}, 2));
    CHECK_THAT(*mat(Constraint::CholeskyFactorCorr, {1, 0.6, 0, 0.9}, 2),
               Contains("row 2 has squared length 1.17"));
    // bounds: one value or one per element; NaN is outside
    const double x[3] = {0.5, -1, 2};
    const double lo = 0, hi = 1;
    const double his[3] = {1, 1, 3};
    CHECK_THAT(*bounds_violation(x, 3, &lo, 1, his, 3),
               Contains("element 2 is -1, below the lower bound 0"));
    CHECK(!bounds_violation(x, 1, &lo, 1, &hi, 1));
    CHECK_THAT(*bounds_violation(x + 2, 1, &lo, 1, &hi, 1),
               Contains("is 2, above the upper bound 1"));
    const double nan = std::nan("");
    CHECK_THAT(*bounds_violation(&nan, 1, &lo, 1, &hi, 1), Contains("is nan"));
}

TEST_CASE("check_constraint: 0 inside, -inf outside, per row of an array of vectors, no gradient",
          "[graph]") {
    // x: mat[2, 3] from zeta, each row checked as a simplex
    Graph g;
    const NodeId z = g.leaf(Op::Zeta, Shape::vector(6), DType::Real, 0, "z");
    const NodeId x = g.apply(Op::Exp, z);
    Node reshape;
    reshape.op = Op::Reshape;
    reshape.in = {x, kNoNode, kNoNode};
    reshape.shape = Shape::matrix(2, 3);
    const NodeId m = g.intern(reshape);
    Node check;
    check.op = Op::CheckConstraint;
    check.in = {m, g.constant(-kInf), g.constant(kInf)};
    check.index = static_cast<std::int64_t>(Constraint::Simplex);
    check.aux = 1;
    const NodeId c = g.intern(check);
    REQUIRE(g[c].shape.is_scalar());
    const NodeId lp = g.apply(Op::Add, c, g.apply(Op::Sum, z));
    g.set_output("lp", lp);
    const Graph grad = differentiate(g);
    Program p = Program::compile(grad, {}, 6, 6);
    Eigen::VectorXd out;
    // rows (0.2, 0.3, 0.5) and (0.1, 0.1, 0.8), column-major
    Eigen::VectorXd theta(6);
    theta << 0.2, 0.1, 0.3, 0.1, 0.5, 0.8;
    const Eigen::VectorXd zeta = theta.array().log();
    CHECK(p.run(zeta, out) == Approx(zeta.sum()));
    CHECK((out.array() == 1.0).all());  // d/dz of sum(z) only
    theta[5] = 0.9;                     // row 2 sums to 1.1
    CHECK(p.run(theta.array().log().matrix(), out) == -kInf);
}

}  // namespace
}  // namespace advi
