// The benchmark models' curvature programs (what bench/gradient_bench times as
// BM_<model>_hessian_vector): H v against central differences of the compiled gradient along
// random directions, and the symmetry of the dense Hessian, at small sizes.
#include <catch2/catch.hpp>

#include "../../bench/gamma_poisson_model.hpp"
#include "../../bench/gmm_model.hpp"
#include "../../bench/hier_logistic_model.hpp"
#include "../../bench/linear_regression_model.hpp"
#include "../../bench/linreg_ard_model.hpp"
#include "../../bench/ppca_ard_model.hpp"
#include "../../bench/stochvol_model.hpp"
#include "support/hessian_check.hpp"

namespace advi {
namespace {

template <class Data>
void check_model(const Data& d, void (*build)(Model&, const Data&)) {
    Model m;
    build(m, d);
    HessianVectorProgram p;
    if (!test::compiled_or_warned(p, [&] { return compile_hessian_vector(m.spec()); }))
        return;
    for (double scale : {0.0, 0.3, -0.7}) {
        INFO("zeta = " << scale << " * linspace(-1, 1)");
        test::check_hessian_vector(p, scale * Eigen::VectorXd::LinSpaced(p.dim(), -1, 1));
    }
}

}  // namespace

TEST_CASE("linear regression: H v matches finite differences", "[bench][hessian]") {
    check_model(bench::LinearRegressionData(200, 10), bench::build_linear_regression);
}
TEST_CASE("linear regression with ARD: H v matches finite differences", "[bench][hessian]") {
    check_model(bench::LinearRegressionData(200, 10), bench::build_linreg_ard);
}
TEST_CASE("hierarchical logistic regression: H v matches finite differences", "[bench][hessian]") {
    check_model(bench::ElectionData(300), bench::build_hier_logistic);
}
TEST_CASE("Gamma-Poisson factorisation: H v matches finite differences", "[bench][hessian]") {
    check_model(bench::GammaPoissonData(12, 9, 3), bench::build_gamma_poisson);
}
TEST_CASE("Gaussian mixture: H v matches finite differences", "[bench][hessian]") {
    check_model(bench::GmmData(60, 3, 3), bench::build_gmm);
}
TEST_CASE("stochastic volatility: H v matches finite differences", "[bench][hessian]") {
    check_model(bench::StochVolData(40), bench::build_stochvol);
}
TEST_CASE("PPCA with ARD: H v matches finite differences", "[bench][hessian]") {
    check_model(bench::PpcaArdData(20, 6, 2), bench::build_ppca_ard);
}

}  // namespace advi
