// The linear regression with ARD benchmark compares equal work: the compiled gradient
// equals the hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/linreg_ard_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("linear regression with ARD: compiled gradient equals the hand-written one", "[bench]") {
    const bench::LinearRegressionData d(1000, 30);
    Model m;
    bench::build_linreg_ard(m, d);
    Program p = compile(m);
    bench::LinregArdHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.3, -0.8});
}

}  // namespace advi
