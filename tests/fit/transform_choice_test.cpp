// The automatic choice of T1 (log) or T2 (softplus inverse) per positive variable (the paper's
// section 3.3): on Gamma "posteriors", the best mean-field ELBO under each transform computed
// here independently (Gauss-Hermite quadrature of E_q[log p + log|J|] + H on a fine grid of
// (mu, log sigma)), against the fits' ELBOs and the choice.
#include <cmath>
#include <numbers>

#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/fit/transform_choice.hpp>

namespace advi {
namespace {

// Nodes and weights of n-point Gauss-Hermite quadrature for E[f(u)], u ~ N(0, 1)
// (Golub-Welsch on the probabilists' Hermite recurrence).
std::pair<Eigen::VectorXd, Eigen::VectorXd> gauss_hermite(int n) {
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, n);
    for (int i = 1; i < n; ++i) J(i, i - 1) = J(i - 1, i) = std::sqrt(static_cast<double>(i));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(J);
    return {es.eigenvalues(), es.eigenvectors().row(0).array().square().transpose()};
}

// The largest ELBO of N(mu, sigma^2) on zeta for Gamma(alpha, beta) under T1 or T2.
double best_elbo(double alpha, double beta, bool softplus) {
    // (Named, not a structured binding: C++20's clang cannot capture one in a lambda.)
    const std::pair<Eigen::VectorXd, Eigen::VectorXd> rule = gauss_hermite(60);
    const Eigen::VectorXd& u = rule.first;
    const Eigen::VectorXd& w = rule.second;
    const auto log_p = [&](double z) {
        const double theta = softplus ? std::log1p(std::exp(z)) : std::exp(z);
        const double log_jac = softplus ? -std::log1p(std::exp(-z)) : z;
        return alpha * std::log(beta) - std::lgamma(alpha) + (alpha - 1) * std::log(theta) -
               beta * theta + log_jac;
    };
    const auto elbo = [&](double mu, double log_sigma) {
        double e = 0.0;
        for (Eigen::Index i = 0; i < u.size(); ++i)
            e += w[i] * log_p(mu + std::exp(log_sigma) * u[i]);
        return e + log_sigma + 0.5 * (1.0 + std::log(2.0 * std::numbers::pi));
    };
    // A coarse grid, then two finer ones around its best point.
    double best = -1e300, bm = 0.0, bs = 0.0, step_m = 0.2, step_s = 0.1;
    for (double mu = -6.0; mu <= 6.0; mu += step_m)
        for (double ls = -4.0; ls <= 2.0; ls += step_s)
            if (const double e = elbo(mu, ls); e > best)
                best = e, bm = mu, bs = ls;
    for (int round = 0; round < 2; ++round) {
        const double cm = bm, cs = bs;
        step_m /= 20.0;
        step_s /= 20.0;
        for (int i = -20; i <= 20; ++i)
            for (int j = -20; j <= 20; ++j)
                if (const double e = elbo(cm + i * step_m, cs + j * step_s); e > best)
                    best = e, bm = cm + i * step_m, bs = cs + j * step_s;
    }
    return best;
}

}  // namespace

TEST_CASE("transform choice: the transform of the higher ELBO, with the ELBOs of each",
          "[fit][transform]") {
    for (const auto [alpha, beta] : {
             std::pair{1.0,  2.0 },
             std::pair{2.5,  4.2 },
             std::pair{10.0, 10.0}
    }) {
        CAPTURE(alpha, beta);
        Model m;
        auto theta = m.param("theta", gamma(alpha, beta));
        (void)theta;
        const AutoTransformFit a = fit_auto_transform(m.spec(), {.seed = 3, .threads = 1});
        REQUIRE(a.choices.size() == 1);
        const TransformChoice& c = a.choices[0];
        const double t1 = best_elbo(alpha, beta, false), t2 = best_elbo(alpha, beta, true);
        INFO(a.summary() << "quadrature: log " << t1 << ", softplus " << t2);
        // The gamma density is normalised: every ELBO is below 0, the fits' within their
        // Monte Carlo error and a hundredth of the optimum (measured: within 0.005). The
        // optima differ by 0.065, 0.030 and 0.008 nats here (softplus higher each time).
        CHECK(c.elbo_log == Approx(t1).margin(0.01 + 3 * c.elbo_log_se));
        CHECK(c.elbo_softplus == Approx(t2).margin(0.01 + 3 * c.elbo_softplus_se));
        if (std::abs(t1 - t2) > 0.02) {
            CHECK(c.chosen == (t2 > t1 ? PositiveTransform::Softplus : PositiveTransform::Log));
        }
        CHECK(a.spec.latents[0].positive == c.chosen);
        CHECK(a.fit.model().latents[0].positive == c.chosen);
    }
}

TEST_CASE("transform choice: nothing to choose without a one-sided bound", "[fit][transform]") {
    Model m;
    auto mu = m.param("mu", normal(0, 1));
    (void)mu;
    const AutoTransformFit a = fit_auto_transform(m.spec(), {.seed = 1, .threads = 1});
    CHECK(a.choices.empty());
    CHECK_THAT(a.summary(), Catch::Matchers::Contains("nothing to choose"));
}

}  // namespace advi
