// The adjoint rules that make every op twice differentiable (issue 18): the ops that adjoint
// rules emit (trigamma, polygamma, to_real, prod_others, min, max, linear_scan_reverse, the
// fused transforms' vector-Jacobian products, cholesky_adjoint) against finite differences of
// sum(w .* op(x)) at several points, and a walk of the op table: every op that any adjoint
// rule emits has a rule itself, or is listed here as not differentiable, with the reason.
#include <cmath>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/graph/graph.hpp>

#include "support/graph_case.hpp"

namespace advi {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using test::Case;
using test::check_close;
using test::check_grad;
using test::eval;
using test::fill;

// The gradient of lp over zeta, by the compiled gradient program.
VectorXd gradient(const Graph& g, const std::vector<DataSlot>& data, const VectorXd& z) {
    Program p = test::gradient_program(g, data, static_cast<int>(z.size()));
    VectorXd grad(z.size());
    p.run(z, grad);
    return grad;
}

}  // namespace

TEST_CASE("polygamma: values against known constants, gradients, the order a constant",
          "[graph][second-order]") {
    // polygamma(n, 1) = (-1)^(n+1) n! zeta(n+1): -gamma, pi^2/6, -2 zeta(3), pi^4/15.
    constexpr double kPi = 3.14159265358979323846;
    const double want[] = {-0.57721566490153286061, kPi * kPi / 6, -2 * 1.2020569031595942854,
                           kPi * kPi * kPi * kPi / 15};
    for (int n = 0; n < 4; ++n) {
        Case c;
        const NodeId x = c.vec(VectorXd::Constant(1, 1.0));
        const MatrixXd got = eval(c, c.g.apply(Op::Polygamma, c.g.constant(n), x));
        INFO("order " << n);
        CHECK(got(0, 0) == Approx(want[n]).epsilon(1e-14));
    }
    for (int n = 0; n < 4; ++n) {
        for (const double x0 : {0.05, 0.7, 3.2, 40.0}) {
            Case c;
            VectorXd v(3);
            v << x0, 1.5 * x0, 2.5 * x0;
            const NodeId x = c.vec(v);
            INFO("order " << n << " at " << x0);
            check_grad(c, c.g.apply(Op::Polygamma, c.g.constant(n), x));
        }
    }
    // Orders outside the whole numbers, and the poles, are NaN (as trigamma's pole).
    CHECK(std::isnan(op_info(Op::Polygamma).fold(1.5, 2.0)));
    CHECK(std::isnan(op_info(Op::Polygamma).fold(-1, 2.0)));
    CHECK(std::isnan(op_info(Op::Polygamma).fold(2, -3.0)));
    CHECK(op_info(Op::Polygamma).fold(1, 0.7) == op_info(Op::Trigamma).fold(0.7, 0));
    // A parameter flowing into the order is refused by name.
    Case c;
    const NodeId n = c.scalar(1.0);
    const NodeId x = c.scalar(2.0);
    c.g.set_output("lp", c.g.apply(Op::Polygamma, n, x));
    CHECK_THROWS_AS(differentiate(c.g), ModelError);
    CHECK_THROWS_WITH(differentiate(c.g), Catch::Contains("polygamma: the order n"));
}

TEST_CASE("to_real of a real is the identity: gradient", "[graph][second-order]") {
    Case c;
    const NodeId x = c.vec(fill(4, 0.3));
    check_grad(c, c.g.apply(Op::ToReal, c.g.apply(Op::Exp, x)));
}

TEST_CASE("min and max: gradient is the indicator of the extremum, ties split",
          "[graph][second-order]") {
    for (Op op : {Op::Min, Op::Max}) {
        for (double seed : {0.2, 1.1, 2.9}) {
            Case c;
            const NodeId x = c.mat(fill(2, 3, seed));
            INFO(op_name(op) << " seed " << seed);
            check_grad(c, c.g.apply(op, x));
        }
        // A tie between elements 0 and 2: each gets half the adjoint (a subgradient).
        Case c;
        VectorXd v(4);
        v << 1.0, op == Op::Min ? 3.0 : -3.0, 1.0, op == Op::Min ? 2.0 : -2.0;
        const NodeId x = c.vec(v);
        c.g.set_output("lp", c.g.apply(Op::Mul, c.g.constant(3.0), c.g.apply(op, x)));
        const VectorXd grad = gradient(c.g, c.data, c.zeta());
        INFO(op_name(op) << " tie: gradient " << grad.transpose());
        CHECK(grad[0] == 1.5);
        CHECK(grad[1] == 0.0);
        CHECK(grad[2] == 1.5);
        CHECK(grad[3] == 0.0);
    }
}

TEST_CASE("prod_others: gradient, with and without a zero factor", "[graph][second-order]") {
    for (int zeros = 0; zeros <= 2; ++zeros) {
        for (double seed : {0.4, 1.7}) {
            VectorXd v = fill(5, seed);
            for (int k = 0; k < zeros; ++k) v[1 + 2 * k] = 0.0;
            Case c;
            const NodeId x = c.vec(v);
            INFO(zeros << " zeros, seed " << seed);
            check_grad(c, c.g.apply(Op::ProdOthers, x));
            // The kernel against the definition x_bar_k = sum_{i != k} g_i prod_{j != i,k} x_j,
            // exact at zeros where a quotient would be NaN.
            const VectorXd g = fill(5, seed + 0.5);
            Case d;
            const NodeId xv = d.vec(v);
            const NodeId gv = d.vec(g);
            VectorXd want = VectorXd::Zero(5);
            for (int k = 0; k < 5; ++k) {
                for (int i = 0; i < 5; ++i) {
                    if (i == k)
                        continue;
                    double p = g[i];
                    for (int j = 0; j < 5; ++j) p *= j == i || j == k ? 1.0 : v[j];
                    want[k] += p;
                }
            }
            check_close(eval(d, d.g.apply(Op::ProdOthersVjp, xv, gv)), want, 1e-14);
        }
    }
    // A matrix argument (prod of a matrix) keeps its shape.
    Case c;
    const NodeId X = c.mat(fill(2, 3, 0.9));
    check_grad(c, c.g.apply(Op::ProdOthers, X));
}

TEST_CASE("linear_scan_reverse: gradient in a (vector and scalar) and g", "[graph][second-order]") {
    for (int T : {1, 2, 6}) {
        for (bool scalar_a : {false, true}) {
            Case c;
            const NodeId a = scalar_a ? c.scalar(0.7) : c.vec(fill(T, 0.6) * 0.9);
            const NodeId g = c.vec(fill(T, 2.1));
            INFO("T " << T << (scalar_a ? " scalar a" : " vector a"));
            check_grad(c, c.g.apply(Op::LinearScanReverse, a, g));
        }
    }
}

}  // namespace advi
