// The value program (compile_value) gives the gradient program's log density, from the forward
// graph alone: on every bench model at many points, to rounding (the two graphs are simplified
// apart), in fewer instructions (no reverse sweep).
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/engine/rng.hpp>

#include "../../bench/gamma_poisson_model.hpp"
#include "../../bench/gmm_model.hpp"
#include "../../bench/hier_logistic_model.hpp"
#include "../../bench/linear_regression_model.hpp"
#include "../../bench/linreg_ard_model.hpp"
#include "../../bench/ppca_ard_model.hpp"
#include "../../bench/stochvol_model.hpp"

namespace advi {
namespace {

// 20 points at several scales (0: the origin; 1.5: far in the tails, where exp() transforms
// and log-sum-exps are least forgiving).
void check_same_lp(const Model& model, bool jacobian = true) {
    const ModelSpec m = model.spec();
    Program gradient = compile(m, jacobian);
    Program value = compile_value(m, jacobian);
    REQUIRE(value.dim() == gradient.dim());
    CHECK(value.output_dim() == 0);
    CHECK(value.instruction_count() < gradient.instruction_count());  // no reverse sweep
    Rng rng(7);
    Eigen::VectorXd zeta(m.zeta_dim()), grad, none;
    for (int k = 0; k < 20; ++k) {
        const double scale = 0.075 * k;
        rng.fill_normal(zeta);
        zeta *= scale;
        const double expected = gradient.run(zeta, grad);
        const double got = value.run(zeta, none);
        INFO("point " << k << ": value " << got << ", gradient program " << expected);
        REQUIRE(std::isfinite(expected));
        CHECK(std::abs(got - expected) <= 1e-12 * std::max(1.0, std::abs(expected)));
        CHECK(none.size() == 0);
    }
}

TEST_CASE("the value program gives the gradient program's log density", "[compile]") {
    SECTION("linear regression") {
        const bench::LinearRegressionData d(1003, 7);
        Model m;
        bench::build_linear_regression(m, d);
        check_same_lp(m);
        check_same_lp(m, false);
    }
    SECTION("linear regression with ARD") {
        const bench::LinearRegressionData d(1003, 12);
        Model m;
        bench::build_linreg_ard(m, d);
        check_same_lp(m);
    }
    SECTION("hierarchical logistic regression (gathers)") {
        const bench::ElectionData d(2001);
        Model m;
        bench::build_hier_logistic(m, d);
        check_same_lp(m);
    }
    SECTION("Gaussian mixture (simplex, log-sum-exp over components)") {
        const bench::GmmData d(1001, 4, 5);
        Model m;
        bench::build_gmm(m, d);
        check_same_lp(m);
    }
    SECTION("PPCA with ARD (matrix products)") {
        const bench::PpcaArdData d(203, 30, 4);
        Model m;
        bench::build_ppca_ard(m, d);
        check_same_lp(m);
    }
    SECTION("Gamma-Poisson factorisation (positive parameters)") {
        const bench::GammaPoissonData d(41, 23, 3);
        Model m;
        bench::build_gamma_poisson(m, d);
        check_same_lp(m);
        check_same_lp(m, false);
    }
    SECTION("stochastic volatility (a time series)") {
        const bench::StochVolData d(300);
        Model m;
        bench::build_stochvol(m, d);
        check_same_lp(m);
    }
}

}  // namespace
}  // namespace advi
