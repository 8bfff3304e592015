// The paper's study of transformations (section 3.3, table 2): a Gamma "posterior" of one
// positive latent under T1 (log) or T2 (softplus), the three cases with the paper's KLs, the
// fit's settings, and KL(q || p) by quadrature. Shared by examples/gamma_transforms.cpp and
// report/make_report.cpp.
#pragma once

#include <cmath>
#include <numbers>

#include <Eigen/Core>

#include <advi/advi.hpp>

namespace advi::examples {

struct GammaCase {
    double a, b;                // shape, rate
    double paper_t1, paper_t2;  // the paper's table 2
};

inline constexpr GammaCase kGammaCases[] = {
    {1.0,  2.0,  8.1e-2, 1.6e-2},
    {2.5,  4.2,  3.3e-2, 3.6e-3},
    {10.0, 10.0, 8.5e-3, 7.7e-4},
};

// theta ~ Gamma(a, b) as the model's only term; T1 (t = Log) or T2 (t = Softplus).
inline void build_gamma_transform(Model& m, const GammaCase& c, PositiveTransform t) {
    m.param("theta", gamma(c.a, c.b), {.transform = t});
}

// Ten gradient draws and a tight tolerance: the KLs are small (down to 1e-3 nats), so the fit's
// own noise has to be smaller still (as tests/advi/gamma_test.cpp).
inline Options gamma_transform_options() {
    return {.seed = 3,
            .grad_samples = 10,
            .tol_rel_obj = 0.001,
            .max_iterations = 20000,
            .output_samples = 1000};
}

// KL(q || p) = E_q[log q(zeta) - log p(zeta)] by the trapezoid rule on mu +- 12 sd, with
// log p(zeta) the model's compiled log density on zeta: Gamma's with its normalising constant
// plus log|d theta / d zeta|, so a normalised density of zeta.
inline double kl_by_quadrature(Program& p, double mu, double sd, int n = 20001) {
    const double lo = mu - 12.0 * sd, h = 24.0 * sd / (n - 1);
    Eigen::VectorXd zeta(1), grad(1);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        zeta[0] = lo + i * h;
        const double u = (zeta[0] - mu) / sd;
        const double log_q = -0.5 * u * u - std::log(sd) - 0.5 * std::log(2.0 * std::numbers::pi);
        const double w = (i == 0 || i == n - 1) ? 0.5 : 1.0;
        sum += w * std::exp(log_q) * (log_q - p.run(zeta, grad));
    }
    return sum * h;
}

}  // namespace advi::examples
