// Test support: the Hessian-vector program (reverse over reverse) against central finite
// differences of the compiled gradient, along random directions, and the symmetry of the dense
// Hessian it gives column by column.
#pragma once

#include <cmath>
#include <random>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/compile/hessian_vector_program.hpp>
#include <advi/compile/pipeline.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/diff/simplify.hpp>

namespace advi::test {

// The curvature program of a graph over zeta of size dim with output "lp", through the same
// passes as compile_hessian_vector().
inline HessianVectorProgram hessian_vector_program(const Graph& g,
                                                   const std::vector<DataSlot>& data, int dim) {
    const Graph gradient = simplify(differentiate(simplify(g)));
    return compile_hessian_vector_graph(gradient, data, dim);
}

// Whether compile() (a callable returning a HessianVectorProgram) stopped because the gradient
// reads an op with no adjoint rule of its own: then H v cannot be checked yet, and that is
// reported (WARN, naming the op), never passed silently. Other errors propagate.
template <class Compile>
bool compiled_or_warned(HessianVectorProgram& p, Compile compile) {
    try {
        p = compile();
        return true;
    } catch (const ModelError& e) {
        if (std::string_view(e.what()).find("no derivative rule") == std::string_view::npos)
            throw;
        WARN("H v not checked: " << e.what());
        return false;
    }
}

// H e_0 .. H e_{K-1} as columns.
inline Eigen::MatrixXd dense_hessian(HessianVectorProgram& p, const Eigen::VectorXd& z) {
    const int k = p.dim();
    Eigen::MatrixXd h(k, k);
    Eigen::VectorXd e = Eigen::VectorXd::Zero(k), grad(k), hv(k);
    for (int i = 0; i < k; ++i) {
        e.setZero();
        e[i] = 1.0;
        p.hessian_vector(z, e, grad, hv);
        h.col(i) = hv;
    }
    return h;
}

// At z, for `directions` random v (normal, fixed seed): the curvature program's lp and
// gradient equal the gradient program's, and H v matches the central difference
// (grad(z + h v) - grad(z - h v)) / 2h of the compiled gradient: |hv - fd| <= tol max(1, |fd|)
// + round-off, per coordinate. Then the dense Hessian is symmetric.
inline void check_hessian_vector(HessianVectorProgram& p, const Eigen::VectorXd& z,
                                 int directions = 3, double tol = 1e-6) {
    const int k = p.dim();
    REQUIRE(z.size() == k);
    Eigen::VectorXd g0(k), g(k), hv(k), gp(k), gm(k);
    const double lp0 = p.log_density_gradient(z, g0);
    REQUIRE(std::isfinite(lp0));
    std::mt19937 rng(17 + k);
    std::normal_distribution<double> normal;
    for (int d = 0; d < directions; ++d) {
        Eigen::VectorXd v(k);
        for (int i = 0; i < k; ++i) v[i] = normal(rng);
        const double lp = p.hessian_vector(z, v, g, hv);
        CHECK(lp == Approx(lp0).epsilon(1e-12).margin(1e-12));
        for (int i = 0; i < k; ++i) {
            INFO("gradient coordinate " << i);
            CHECK(g[i] == Approx(g0[i]).epsilon(1e-12).margin(1e-12));
        }
        // A step relative to z's scale along v: truncation O(h^2), round-off O(eps |g| / h).
        const double h = 1e-5 * std::max(1.0, z.lpNorm<Eigen::Infinity>()) /
                         std::max(1.0, v.lpNorm<Eigen::Infinity>());
        p.log_density_gradient(z + h * v, gp);
        p.log_density_gradient(z - h * v, gm);
        const Eigen::VectorXd fd = (gp - gm) / (2 * h);
        const double scale =
            std::max({1.0, g0.lpNorm<Eigen::Infinity>(), gp.lpNorm<Eigen::Infinity>()});
        for (int i = 0; i < k; ++i) {
            const double roundoff = 64 * 2.2e-16 * scale / h;
            INFO("direction " << d << ", coordinate " << i << " at zeta " << z.transpose()
                              << ": H v " << hv[i] << ", finite difference " << fd[i]);
            CHECK(std::abs(hv[i] - fd[i]) <= tol * std::max(1.0, std::abs(fd[i])) + roundoff);
        }
    }
    const Eigen::MatrixXd H = dense_hessian(p, z);
    const double hmax = std::max(1.0, H.lpNorm<Eigen::Infinity>());
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < i; ++j) {
            INFO("H(" << i << "," << j << ") = " << H(i, j) << ", H(" << j << "," << i
                      << ") = " << H(j, i));
            CHECK(std::abs(H(i, j) - H(j, i)) <= 1e-9 * hmax);
        }
    }
}

// The curvature check of check_gradient() (gradient_check.hpp), for any graph over zeta with
// output "lp": the dense Hessian from the H v program (H e_i) against central differences of
// the compiled gradient, coordinate by coordinate with steps scaled to each coordinate; H v for
// random v against H v from those columns; the gradient beside H v against the gradient
// program's; symmetry. A graph whose gradient reads an op with no adjoint rule of its own
// cannot give H v yet: that is reported (WARN, naming the op), not passed.
inline void check_curvature(const Graph& g, const std::vector<DataSlot>& data,
                            const Eigen::VectorXd& z, double tol = 1e-6) {
    const int k = static_cast<int>(z.size());
    HessianVectorProgram p;
    if (!compiled_or_warned(p, [&] { return hessian_vector_program(g, data, k); }))
        return;
    Eigen::VectorXd g0(k), gp(k), gm(k), grad(k), hv(k);
    const double lp0 = p.log_density_gradient(z, g0);
    REQUIRE(std::isfinite(lp0));
    const Eigen::MatrixXd H = dense_hessian(p, z);
    for (int i = 0; i < k; ++i) {
        // Central differences of the gradient: truncation O(h^2), round-off O(eps |grad| / h).
        const double h = 1e-6 * std::max(std::abs(z[i]), 1e-2);
        Eigen::VectorXd zp = z, zm = z;
        zp[i] += h;
        zm[i] -= h;
        p.log_density_gradient(zp, gp);
        p.log_density_gradient(zm, gm);
        const double roundoff =
            64 * 2.2e-16 *
            std::max({1.0, g0.lpNorm<Eigen::Infinity>(), gp.lpNorm<Eigen::Infinity>()}) / h;
        for (int j = 0; j < k; ++j) {
            const double fd = (gp[j] - gm[j]) / (2 * h);
            INFO("H(" << j << "," << i << ") at zeta " << z.transpose() << ": H v " << H(j, i)
                      << ", finite difference " << fd);
            CHECK(std::abs(H(j, i) - fd) <= tol * std::max(1.0, std::abs(fd)) + roundoff);
        }
    }
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < i; ++j) {
            INFO("H(" << i << "," << j << ") = " << H(i, j) << ", H(" << j << "," << i
                      << ") = " << H(j, i));
            CHECK(std::abs(H(i, j) - H(j, i)) <=
                  1e-9 * std::max({1.0, std::abs(H(i, j)), std::abs(H(j, i))}));
        }
    }
    std::mt19937 rng(29 + k);
    std::normal_distribution<double> normal;
    for (int d = 0; d < 2; ++d) {
        Eigen::VectorXd v(k);
        for (int i = 0; i < k; ++i) v[i] = normal(rng);
        const double lp = p.hessian_vector(z, v, grad, hv);
        CHECK(lp == Approx(lp0).epsilon(1e-12).margin(1e-12));
        const Eigen::VectorXd want = H * v;
        const double scale = (H.cwiseAbs() * v.cwiseAbs()).maxCoeff();
        for (int i = 0; i < k; ++i) {
            INFO("direction " << d << ", coordinate " << i << ": H v " << hv[i]
                              << ", sum of H e_j v_j " << want[i] << ", gradient " << grad[i]
                              << " vs " << g0[i]);
            CHECK(std::abs(hv[i] - want[i]) <= 1e-12 * std::max(1.0, scale));
            CHECK(grad[i] == Approx(g0[i]).epsilon(1e-12).margin(1e-12));
        }
    }
}

}  // namespace advi::test
