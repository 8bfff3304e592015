// Test support: a graph whose inputs are zeta slices (with their values) and integer data,
// the compiled value of one of its nodes, and the gradient check of sum(w .* node) against
// finite differences (tests/graph: linalg_test, second_order_test).
#pragma once

#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

#include <Eigen/Dense>

#include <advi/graph/graph.hpp>

#include "support/gradient_check.hpp"

namespace advi::test {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Deterministic, irregular test values.
inline MatrixXd fill(int r, int c, double seed) {
    MatrixXd m(r, c);
    for (int j = 0; j < c; ++j) {
        for (int i = 0; i < r; ++i) m(i, j) = std::sin(seed + 1.3 * i + 0.7 * j + 0.31 * i * j);
    }
    return m;
}
inline VectorXd fill(int n, double seed) {
    return fill(n, 1, seed).col(0);
}

// A graph whose inputs are zeta slices (with their values) and integer data.
struct Case {
    Graph g;
    std::vector<DataSlot> data;
    std::deque<VectorXd> reals;  // data memory (stable addresses)
    std::deque<Eigen::VectorXi> ints;
    std::vector<double> z;

    NodeId input(const double* v, Shape s) {
        const NodeId id = g.leaf(Op::Zeta, s, DType::Real, static_cast<int>(z.size()), "");
        z.insert(z.end(), v, v + s.size());
        return id;
    }
    NodeId mat(const MatrixXd& m) {
        return input(m.data(),
                     Shape::matrix(static_cast<int>(m.rows()), static_cast<int>(m.cols())));
    }
    NodeId vec(const VectorXd& v) {
        return input(v.data(), Shape::vector(static_cast<int>(v.size())));
    }
    NodeId scalar(double v) { return input(&v, Shape::scalar()); }
    NodeId index(const Eigen::VectorXi& v) {
        ints.push_back(v);
        const Shape s = Shape::vector(static_cast<int>(v.size()));
        data.push_back({"idx", s, DType::Int, nullptr, ints.back().data()});
        return g.leaf(Op::Data, s, DType::Int, static_cast<int>(data.size()) - 1, "idx");
    }
    [[nodiscard]] VectorXd zeta() const {
        return Eigen::Map<const VectorXd>(z.data(), static_cast<Eigen::Index>(z.size()));
    }
    NodeId make(Op op, Shape s, NodeId a, NodeId b = kNoNode, int index = 0, int aux = 0) {
        Node n;
        n.op = op;
        n.shape = s;
        n.in = {a, b, kNoNode};
        n.index = index;
        n.aux = aux;
        return g.intern(n);
    }
};

// The value of node `out`, evaluated by the compiled program, in its shape.
inline MatrixXd eval(const Case& c, NodeId out) {
    Graph g = c.g;
    const Shape s = g[out].shape;
    g.set_output("out", out, 0);
    Program p = Program::compile(g, c.data, static_cast<int>(c.z.size()), s.size());
    VectorXd v(s.size());
    p.run(c.zeta(), v);
    return Eigen::Map<const MatrixXd>(v.data(), s.rows, s.cols);
}

// Gradient check of lp = sum(w .* out) with irregular weights w, so that every output
// element reaches the gradient differently.
inline void check_grad(const Case& c, NodeId out, double tol = 1e-6) {
    Graph g = c.g;
    std::vector<DataSlot> data = c.data;
    const Shape s = g[out].shape;
    const VectorXd w = fill(s.size(), 0.4).array() + 0.3;
    data.push_back({"w", s, DType::Real, w.data(), nullptr});
    const NodeId wd = g.leaf(Op::Data, s, DType::Real, static_cast<int>(data.size()) - 1, "w");
    g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Mul, wd, out)));
    test::check_gradient(g, data, c.zeta(), tol);
}

inline void check_close(const MatrixXd& got, const MatrixXd& want, double tol = 1e-12) {
    REQUIRE(got.rows() == want.rows());
    REQUIRE(got.cols() == want.cols());
    INFO("got\n" << got << "\nwant\n" << want);
    CHECK((got - want).cwiseAbs().maxCoeff() <= tol * std::max(1.0, want.cwiseAbs().maxCoeff()));
}

}  // namespace advi::test
