// The adaptive step-size sequence (paper Eqs. 8-9) against values computed by hand.
#include <cmath>

#include <catch2/catch.hpp>

#include <advi/engine/step_size.hpp>

using advi::StepSize;
using Catch::Matchers::WithinRel;

namespace {
Eigen::VectorXd vec(double a, double b) {
    return (Eigen::VectorXd(2) << a, b).finished();
}
}  // namespace

TEST_CASE("step size: first values by hand", "[advi]") {
    StepSize steps(0.5);
    // i = 1: s = g^2 = (4, 1); rho = 0.5 * 1 / (1 + sqrt(s)) = (0.5/3, 0.5/2).
    Eigen::VectorXd rho = steps.next(vec(2.0, -1.0));
    CHECK(steps.iteration() == 1);
    CHECK_THAT(steps.s()[0], WithinRel(4.0, 1e-15));
    CHECK_THAT(rho[0], WithinRel(0.5 / 3.0, 1e-14));
    CHECK_THAT(rho[1], WithinRel(0.5 / 2.0, 1e-14));
    // i = 2: s = 0.1 (1, 9) + 0.9 (4, 1) = (3.7, 1.8); rho = 0.5 * 2^-1/2 / (1 + sqrt(s)).
    rho = steps.next(vec(1.0, 3.0));
    CHECK_THAT(steps.s()[0], WithinRel(3.7, 1e-14));
    CHECK_THAT(steps.s()[1], WithinRel(1.8, 1e-14));
    CHECK_THAT(rho[0], WithinRel(0.5 / std::sqrt(2.0) / (1.0 + std::sqrt(3.7)), 1e-14));
    CHECK_THAT(rho[1], WithinRel(0.5 / std::sqrt(2.0) / (1.0 + std::sqrt(1.8)), 1e-14));
    // i = 3 with a zero gradient: s decays by 0.9, rho by 3^-1/2.
    rho = steps.next(vec(0.0, 0.0));
    CHECK_THAT(steps.s()[0], WithinRel(0.9 * 3.7, 1e-14));
    CHECK_THAT(rho[1], WithinRel(0.5 / std::sqrt(3.0) / (1.0 + std::sqrt(0.9 * 1.8)), 1e-14));
}

TEST_CASE("step size: reset forgets the gradient history", "[advi]") {
    StepSize steps(1.0);
    const Eigen::VectorXd first = steps.next(vec(2.0, -1.0));
    (void)steps.next(vec(10.0, 10.0));
    steps.reset();
    CHECK(steps.iteration() == 0);
    const Eigen::VectorXd again = steps.next(vec(2.0, -1.0));
    CHECK(again == first);
    steps.reset(0.01);
    CHECK_THAT(steps.next(vec(2.0, -1.0))[0], WithinRel(0.01 / 3.0, 1e-14));
}
