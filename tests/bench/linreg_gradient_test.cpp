// The linear regression benchmark compares equal work: the compiled gradient equals the
// hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/linear_regression_model.hpp"
#include "support/same_gradient.hpp"

namespace advi {

TEST_CASE("linear regression: compiled gradient equals the hand-written one", "[bench]") {
    const bench::LinearRegressionData d(2000, 40);
    Model m;
    bench::build_linear_regression(m, d);
    Program p = compile(m);
    bench::LinearRegressionHand h(d);
    test::check_same_gradient(p, h, {0.0, 0.3, -1.0});
}

}  // namespace advi
