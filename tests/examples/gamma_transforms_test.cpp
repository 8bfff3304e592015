// examples/gamma_transforms.cpp and .stan (paper section 3.3, table 2): the same experiment as
// tests/advi/gamma_test.cpp, through the model builder instead of a hand-written target: a
// Gamma prior on one latent under ParamOptions::transform Log (T1) and Softplus (T2), fitted
// with advi::fit. The hand-written GammaTarget (tests/advi/targets.hpp) is the reference: the
// compiled model must be that density on zeta, and its quadrature KL scores the fit.
#include <cmath>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>

#include "engine/targets.hpp"
#include "support/same_model.hpp"

namespace advi::test {
namespace {

struct GammaCase {
    double a, b;                // shape, rate
    double paper_t1, paper_t2;  // KL(q || p) in the paper's table 2
    double best_t1, best_t2;    // KL of the best Gaussian q (tests/advi/gamma_test.cpp's Newton)
};
// Measured (seed 3, this test's options), KL of the fit, [paper], (best Gaussian):
//   Gamma(1, 2):     T1 0.0816  [0.081]   (0.0811)     T2 0.0173   [0.016]   (0.0160)
//   Gamma(2.5, 4.2): T1 0.0332  [0.033]   (0.0332)     T2 0.00364  [0.0036]  (0.00345)
//   Gamma(10, 10):   T1 0.00906 [0.0085]  (0.00833)    T2 0.000659 [0.00077] (0.000559)
// The ordering T2 < T1 is the paper's for all three, and so are the values to 15%. Where ours
// differ (Gamma(10, 10): T1 above the paper's, T2 below it) both fits are within 0.0008 nats
// of the best Gaussian; a stochastic fit stops near, not at, the optimum, and the paper's
// two-digit values are one such fit too (its T2 value for Gamma(10, 10) is 0.0002 nats above
// the optimum). How near depends on the seed: over seeds 1-20 the excess over the optimum
// reached 0.006 nats (T1, Gamma(1, 2)) and 0.0026 (T2, Gamma(10, 10): KL 0.0032, four times
// the paper's), and T1 / T2 fell to 2.9 (Gamma(10, 10)); the paper's ratios are 5, 9 and 11.
// So the checks are bounds that held for every one of those seeds, not the paper's digits.
constexpr GammaCase kCases[] = {
    {1.0,  2.0,  8.1e-2, 1.6e-2, 0.0811,  0.0160  },
    {2.5,  4.2,  3.3e-2, 3.6e-3, 0.0332,  0.00345 },
    {10.0, 10.0, 8.5e-3, 7.7e-4, 0.00833, 0.000559},
};

PositiveTransform transform_of(PositiveMap map) {
    return map == PositiveMap::T1Log ? PositiveTransform::Log : PositiveTransform::Softplus;
}

// As examples/gamma_transforms.cpp builds it.
void build(Model& m, const GammaCase& c, PositiveMap map) {
    [[maybe_unused]] auto theta =
        m.param("theta", advi::gamma(c.a, c.b), {.transform = transform_of(map)});
}

DataTable stan_data(const GammaCase& c, PositiveMap map) {
    DataTable t;
    for (const auto& [name, v] : {
             std::pair{"alpha", c.a},
             std::pair{"beta",  c.b}
    }) {
        DataValue d;
        d.name = name;
        d.type = DType::Real;
        d.reals = {v};
        t.add(std::move(d));
    }
    DataValue d;
    d.name = "transform";
    d.type = DType::Int;
    d.ints = {map == PositiveMap::T1Log ? 1 : 2};
    t.add(std::move(d));
    return t;
}

std::vector<Eigen::VectorXd> points() {
    std::vector<Eigen::VectorXd> z;
    for (double v : {-6.0, -2.0, -0.3, 0.0, 0.7, 2.5}) z.push_back(Eigen::VectorXd::Constant(1, v));
    return z;
}

}  // namespace

TEST_CASE("gamma_transforms: the model under T1 and T2 is the Gamma density on zeta",
          "[examples]") {
    for (const GammaCase& c : kCases) {
        for (const PositiveMap map : {PositiveMap::T1Log, PositiveMap::T2Softplus}) {
            Model m;
            build(m, c, map);
            Program p = compile(m);
            GammaTarget ref(c.a, c.b, map);
            for (const Eigen::VectorXd& zeta : points()) {
                Eigen::VectorXd g(1), g_ref(1);
                const double lp = p.run(zeta, g), lp_ref = ref.log_density_gradient(zeta, g_ref);
                INFO("Gamma(" << c.a << ", " << c.b << ") T" << (map == PositiveMap::T1Log ? 1 : 2)
                              << " at zeta = " << zeta[0]);
                CHECK(lp == Approx(lp_ref).epsilon(1e-12).margin(1e-12));
                CHECK(g[0] == Approx(g_ref[0]).epsilon(1e-10).margin(1e-12));
            }
        }
    }
}

TEST_CASE("gamma_transforms: KL(q || p) is small and lower under T2, as the paper's table 2",
          "[examples]") {
    const Options options{.seed = 3,
                          .grad_samples = 10,
                          .tol_rel_obj = 0.001,
                          .max_iterations = 20000,
                          .output_samples = 0};
    for (const GammaCase& c : kCases) {
        double kl[2];
        for (const PositiveMap map : {PositiveMap::T1Log, PositiveMap::T2Softplus}) {
            const int k = map == PositiveMap::T1Log ? 0 : 1;
            Model m;
            build(m, c, map);
            const Fit f = fit(m, options);
            kl[k] = kl_by_quadrature(f.result().q, GammaTarget(c.a, c.b, map));
            const double paper = k == 0 ? c.paper_t1 : c.paper_t2;
            INFO("Gamma(" << c.a << ", " << c.b << ") T" << k + 1 << ": KL " << kl[k] << " (paper "
                          << paper << "), " << f.result().iterations << " iterations, "
                          << f.result().stop_reason);
            // Not below the best Gaussian (the optimum's three digits allow 2%), and within
            // 0.01 nats of it.
            const double best = k == 0 ? c.best_t1 : c.best_t2;
            CHECK(kl[k] > 0.98 * best);
            CHECK(kl[k] - best < 0.01);
        }
        INFO("Gamma(" << c.a << ", " << c.b << "): KL T1 " << kl[0] << ", T2 " << kl[1]);
        // T2 is the better map: by a factor above 2 (the paper's: 5, 9 and 11).
        CHECK(kl[1] < kl[0] / 2);
    }
}

TEST_CASE("gamma_transforms: the Stan program is the same density as the C++ model",
          "[examples][stan]") {
    for (const GammaCase& c : kCases) {
        for (const PositiveMap map : {PositiveMap::T1Log, PositiveMap::T2Softplus}) {
            Model m;
            build(m, c, map);
            const auto low = lower_example("gamma_transforms", stan_data(c, map));
            INFO("Gamma(" << c.a << ", " << c.b << ") T" << (map == PositiveMap::T1Log ? 1 : 2));
            check_same_log_density(low->model().spec(), m.spec(), points());
        }
    }
}

}  // namespace advi::test
