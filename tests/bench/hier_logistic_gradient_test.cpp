// The hierarchical logistic regression benchmark compares equal work: the compiled gradient
// equals the hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/hier_logistic_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("hierarchical logistic regression: compiled gradient equals the hand-written one",
          "[bench]") {
    const bench::ElectionData d(1500);
    Model m;
    bench::build_hier_logistic(m, d);
    Program p = compile(m);
    bench::HierLogisticHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.4, -1.1});
}

}  // namespace advi
