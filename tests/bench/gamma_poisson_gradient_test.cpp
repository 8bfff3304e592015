// The Gamma-Poisson factorisation benchmark compares equal work: the compiled gradient equals
// the hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/gamma_poisson_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("Gamma-Poisson factorisation: compiled gradient equals the hand-written one", "[bench]") {
    const bench::GammaPoissonData d(60, 35, 4);
    REQUIRE(d.y.minCoeff() >= 0);
    CHECK(d.y.cast<double>().mean() == Approx(4.0).epsilon(0.5));  // rate averages K
    Model m;
    bench::build_gamma_poisson(m, d);
    Program p = compile(m);
    bench::GammaPoissonHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.2, -0.5, 1.0});
}

}  // namespace advi
