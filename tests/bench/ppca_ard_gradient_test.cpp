// The PPCA-with-ARD benchmark compares equal work: the compiled gradient equals the
// hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/ppca_ard_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("PPCA with ARD: compiled gradient equals the hand-written one", "[bench]") {
    const bench::PpcaArdData d(150, 12, 4);
    Model m;
    bench::build_ppca_ard(m, d);
    Program p = compile(m);
    bench::PpcaArdHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.2, -0.5, 1.0});
}

}  // namespace advi
