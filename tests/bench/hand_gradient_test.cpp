// The benchmark's hand-written gradients equal the compiled programs' (so the benchmark
// compares equal work).
#include <catch2/catch.hpp>

#include "../../bench/linear_regression_model.hpp"

namespace advi {

TEST_CASE("linear regression: compiled gradient equals the hand-written one", "[bench]") {
    const bench::LinearRegressionData d(2000, 40);
    Model m;
    bench::build_linear_regression(m, d);
    Program p = compile(m);
    bench::LinearRegressionHand h(d);
    REQUIRE(p.dim() == h.dim());
    for (double scale : {0.0, 0.3, -1.0}) {
        Eigen::VectorXd zeta = scale * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
        Eigen::VectorXd g1(p.dim()), g2(p.dim());
        const double lp1 = p.run(zeta, g1);
        const double lp2 = h.log_density_gradient(zeta, g2);
        CHECK(lp1 == Approx(lp2).epsilon(1e-12));
        CHECK((g1 - g2).cwiseAbs().maxCoeff() <= 1e-10 * std::max(1.0, g2.cwiseAbs().maxCoeff()));
    }
}

}  // namespace advi
