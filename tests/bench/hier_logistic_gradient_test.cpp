// The hierarchical logistic regression benchmark compares equal work: the compiled gradient
// equals the hand-written one.
#include <catch2/catch.hpp>

#include "../../bench/hier_logistic_model.hpp"

namespace advi {

TEST_CASE("hierarchical logistic regression: compiled gradient equals the hand-written one",
          "[bench]") {
    const bench::ElectionData d(1500);
    Model m;
    bench::build_hier_logistic(m, d);
    Program p = compile(m);
    bench::HierLogisticHand h(d);
    REQUIRE(p.dim() == h.dim());
    for (double scale : {0.0, 0.4, -1.1}) {
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
