// The Gaussian mixture benchmark compares equal work: the compiled gradient equals the
// hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/gmm_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("Gaussian mixture: compiled gradient equals the hand-written one", "[bench]") {
    const bench::GmmData d(300, 6, 4);
    Model m;
    bench::build_gmm(m, d);
    Program p = compile(m);
    bench::GmmHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.2, -0.5});
}

}  // namespace advi
