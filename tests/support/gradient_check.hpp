// Test support: evaluate a graph on zeta through the real pipeline (differentiate,
// simplify, compile) and compare its gradient with central finite differences.
#pragma once

#include <cmath>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/compile/program.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/diff/simplify.hpp>

#include "support/hessian_check.hpp"

namespace advi::test {

// lp-only program of g (output "lp").
inline Program value_program(const Graph& g, const std::vector<DataSlot>& data, int dim) {
    Graph v = g;
    return Program::compile(simplify(v), data, dim, 0);
}

inline Program gradient_program(const Graph& g, const std::vector<DataSlot>& data, int dim) {
    return Program::compile(simplify(differentiate(g)), data, dim, dim);
}

inline double value_at(Program& p, const Eigen::VectorXd& z) {
    Eigen::VectorXd none;
    return p.run(z, none);
}

inline double step(double z) {
    return 1e-6 * std::max(std::abs(z), 1e-2);
}

// Central differences, step scaled to each coordinate: error O(h^2) + O(eps/h).
inline Eigen::VectorXd numeric_gradient(Program& value, const Eigen::VectorXd& z) {
    Eigen::VectorXd g(z.size());
    for (Eigen::Index i = 0; i < z.size(); ++i) {
        const double h = step(z[i]);
        Eigen::VectorXd zp = z, zm = z;
        zp[i] += h;
        zm[i] -= h;
        g[i] = (value_at(value, zp) - value_at(value, zm)) / (2 * h);
    }
    return g;
}

// Asserts that the symbolic gradient of g's "lp" matches finite differences at z:
// |ad - fd| <= tol * max(1, |fd|) per coordinate, and that lp values agree. Then the same of
// the Hessian, through the H v program (check_curvature, hessian_check.hpp).
inline void check_gradient(const Graph& g, const std::vector<DataSlot>& data,
                           const Eigen::VectorXd& z, double tol = 1e-6) {
    const int dim = static_cast<int>(z.size());
    Program value = value_program(g, data, dim);
    Program grad = gradient_program(g, data, dim);
    Eigen::VectorXd ad(dim);
    const double lp = grad.run(z, ad);
    REQUIRE(std::isfinite(lp));
    CHECK(lp == Approx(value_at(value, z)).epsilon(1e-12).margin(1e-12));
    const Eigen::VectorXd fd = numeric_gradient(value, z);
    for (int i = 0; i < dim; ++i) {
        // Round-off of the difference quotient: a few ulps of lp over the step.
        const double roundoff = 8 * 2.2e-16 * std::abs(lp) / step(z[i]);
        INFO("coordinate " << i << " at zeta " << z[i] << ": symbolic " << ad[i]
                           << ", finite difference " << fd[i]);
        CHECK(std::abs(ad[i] - fd[i]) <= tol * std::max(1.0, std::abs(fd[i])) + roundoff);
    }
    check_curvature(g, data, z, tol);
}

}  // namespace advi::test
