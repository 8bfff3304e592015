// Test support: a compiled program and a hand-written gradient of the same log density
// agree in value (1e-12) and gradient (1e-10, relative) at several points.
#pragma once

#include <algorithm>
#include <cmath>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/compile/program.hpp>

namespace advi::test {

template <class Hand>
void check_same_gradient(Program& p, Hand& h, std::initializer_list<double> scales) {
    REQUIRE(p.dim() == h.dim());
    for (double scale : scales) {
        const Eigen::VectorXd zeta = scale * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
        Eigen::VectorXd g1(p.dim()), g2(p.dim());
        const double lp1 = p.run(zeta, g1);
        const double lp2 = h.log_density_gradient(zeta, g2);
        INFO("zeta = " << scale << " * linspace(-1, 1)");
        CHECK(lp1 == Approx(lp2).epsilon(1e-12));
        for (int i = 0; i < p.dim(); ++i) {
            INFO("coordinate " << i << ": compiled " << g1[i] << ", hand-written " << g2[i]);
            CHECK(std::abs(g1[i] - g2[i]) <= 1e-10 * std::max(1.0, std::abs(g2[i])));
        }
    }
}

}  // namespace advi::test
