// Issue 19's mixture written with loops (Stan): the benchmark compares equal work, the compiled
// gradient equals the hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/mixture_loops_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("mixture written with loops: compiled gradient equals the hand-written one", "[bench]") {
    const bench::MixtureLoopsData d(300, 6, 4);
    auto lowered = bench::lower_mixture_loops(d);
    Program p = compile(lowered->model().spec());
    bench::MixtureLoopsHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.2, -0.5});
}

}  // namespace advi
