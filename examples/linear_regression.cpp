// The flagship example: Bayesian linear regression written as C++ expressions, printed at
// every stage (model graph, graph on zeta, gradient program) and fitted with ADVI.
#include <cmath>
#include <iostream>

#include <Eigen/Dense>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include <advi/advi.hpp>

int main() {
    // Simulated data with known truth: y = X beta + sigma * noise.
    const int N = 1000, D = 5;
    const Eigen::VectorXd beta_true = (Eigen::VectorXd(D) << 1.5, -0.8, 0.0, 2.2, 0.3).finished();
    const double sigma_true = 0.7;
    boost::random::mt19937_64 rng(20261122);
    boost::random::normal_distribution<double> normal;
    Eigen::MatrixXd X(N, D);
    for (int i = 0; i < N; ++i)
        for (int d = 0; d < D; ++d) X(i, d) = normal(rng);
    Eigen::VectorXd y = X * beta_true;
    for (int i = 0; i < N; ++i) y[i] += sigma_true * normal(rng);

    advi::Model m;
    auto yd = m.data("y", y);
    auto Xd = m.data("X", X);
    auto beta = m.param("beta", advi::normal(0, 10), X.cols());
    auto sigma = m.param("sigma", advi::lognormal(0, 1));  // support inferred: positive
    m.observe(yd, advi::normal(Xd * beta, sigma));

    const advi::Stages s = advi::stages(m.spec());
    std::cout << "== model graph (log p(y, beta, sigma)) ==\n" << s.model;
    std::cout << "\n== constrained graph (on zeta: sigma = exp(zeta), + log|det J|) ==\n"
              << s.constrained;
    advi::Program p = advi::compile(m);
    std::cout << "\n== gradient program ==\n"
              << p.instruction_count() << " instructions per gradient, " << p.prologue_count()
              << " once per data; arena " << p.arena_bytes() << " bytes for " << p.node_bytes()
              << " bytes of node values\n";

    // tol_rel_obj 0.001 rather than Stan's 0.01: with |ELBO| ~ 1000, a 1% relative change
    // stops the fit before q's variances have settled (its means settle much sooner).
    auto fit = advi::fit(m, {.family = advi::Family::MeanField, .seed = 1, .tol_rel_obj = 0.001});
    std::cout << "\n== ADVI fit (mean-field) ==\n" << fit.summary();
    std::cout << "\ntruth: beta = " << beta_true.transpose() << ", sigma = " << sigma_true << "\n";
    std::cout << "fit:   beta = " << fit.mean("beta").transpose()
              << ", sigma = " << fit.mean("sigma")[0] << "\n";
    // The exact posterior of beta given sigma (at the fitted sigma) for comparison: normal with
    // precision X'X / sigma^2 + I / 100.
    const double s2 = std::pow(fit.mean("sigma")[0], 2);
    const Eigen::MatrixXd precision =
        X.transpose() * X / s2 + Eigen::MatrixXd::Identity(D, D) / 100;
    const Eigen::MatrixXd cov = precision.inverse();
    std::cout << "exact posterior of beta given sigma: mean "
              << (cov * X.transpose() * y / s2).transpose()
              << "\n                                    sd   "
              << cov.diagonal().cwiseSqrt().transpose()
              << "\nADVI mean-field sd of beta:                " << fit.sd("beta").transpose()
              << "\n";
    return 0;
}
