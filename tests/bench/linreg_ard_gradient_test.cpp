// The linear regression with ARD benchmark compares equal work: the compiled gradient
// equals the hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/linreg_ard_model.hpp"

namespace advi {

TEST_CASE("linear regression with ARD: compiled gradient equals the hand-written one", "[bench]") {
    const bench::LinearRegressionData d(1000, 30);
    Model m;
    bench::build_linreg_ard(m, d);
    Program p = compile(m);
    bench::LinregArdHand h(d);
    REQUIRE(p.dim() == h.dim());
    for (double scale : {0.0, 0.3, -0.8}) {
        Eigen::VectorXd zeta = scale * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1);
        Eigen::VectorXd g1(p.dim()), g2(p.dim());
        const double lp1 = p.run(zeta, g1);
        const double lp2 = h.log_density_gradient(zeta, g2);
        CHECK(lp1 == Approx(lp2).epsilon(1e-12));
        for (int i = 0; i < p.dim(); ++i) {
            INFO("coordinate " << i);
            CHECK(std::abs(g1[i] - g2[i]) <= 1e-10 * std::max(1.0, std::abs(g2[i])));
        }
    }
}

}  // namespace advi
