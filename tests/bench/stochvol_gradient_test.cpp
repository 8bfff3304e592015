// The stochastic volatility benchmark compares equal work: the compiled gradient equals the
// hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/stochvol_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("stochastic volatility: compiled gradient equals the hand-written one", "[bench]") {
    const bench::StochVolData d(200);
    Model m;
    bench::build_stochvol(m, d);
    Program p = compile(m);
    bench::StochVolHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.3, -0.7});
}

}  // namespace advi
