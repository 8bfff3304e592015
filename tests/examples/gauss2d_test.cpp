// examples/gauss2d.cpp and .stan (paper section 3.1): full-rank ADVI recovers the exact
// Gaussian posterior of a 2-D mean; mean-field ADVI finds its KL(q || p) optimum, whose
// variances are 1 / diag(posterior precision), far below the marginal variances (rho = 0.95).
#include <cmath>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/io/read_data.hpp>

#include "../../examples/example_data.hpp"
#include "support/same_model.hpp"

namespace advi::test {

TEST_CASE("gauss2d: full-rank recovers the posterior, mean-field underestimates variances",
          "[examples]") {
    const auto dir = shared_sim_dir("gauss2d");
    if (dir.empty())
        return;
    const DataTable data = read_data(dir / "small.data.json");
    const DataTable truth = examples::read_truth(dir / "small.truth.json");
    // A reduced size: the first 200 of the 1000 observations (posterior sds about 0.07).
    const Eigen::MatrixXd y = data.at("y").as_matrix().topRows(200);
    const Eigen::MatrixXd Sigma = data.at("Sigma").as_matrix();
    const Eigen::VectorXd mu0 = data.at("mu0").as_vector();
    const Eigen::MatrixXd Sigma0 = data.at("Sigma0").as_matrix();

    Model m;  // as in examples/gauss2d.cpp
    auto yd = m.data("y", y);
    auto Sigma_d = m.data("Sigma", Sigma);
    auto mu0_d = m.data("mu0", mu0);
    auto Sigma0_d = m.data("Sigma0", Sigma0);
    auto mu = m.param("mu", advi::multi_normal(mu0_d, Sigma0_d), 2);
    m.observe(yd, advi::multi_normal(mu, Sigma_d));

    auto exact = [&](const Eigen::MatrixXd& obs, Eigen::VectorXd& mean, Eigen::MatrixXd& cov) {
        const Eigen::MatrixXd precision =
            Sigma0.inverse() + static_cast<double>(obs.rows()) * Sigma.inverse();
        cov = precision.inverse();
        mean = cov * (Sigma0.inverse() * mu0 + Sigma.inverse() * obs.colwise().sum().transpose());
    };
    Eigen::VectorXd post_mean;
    Eigen::MatrixXd post_cov;
    {  // our closed form is the truth file's on all 1000 rows
        exact(data.at("y").as_matrix(), post_mean, post_cov);
        // the truth file has 10 significant digits
        CHECK((post_mean - truth.at("posterior_mean").as_vector()).cwiseAbs().maxCoeff() < 1e-8);
        CHECK((post_cov - truth.at("posterior_cov").as_matrix()).cwiseAbs().maxCoeff() < 1e-11);
        CHECK((post_cov.inverse().diagonal().cwiseInverse() -
               truth.at("meanfield_optimum_var").as_vector())
                  .cwiseAbs()
                  .maxCoeff() < 1e-12);
    }
    exact(y, post_mean, post_cov);
    const Eigen::VectorXd mf_optimum_var = post_cov.inverse().diagonal().cwiseInverse();
    const Eigen::VectorXd post_sd = post_cov.diagonal().cwiseSqrt();

    // 50 gradient draws and a tight tolerance: the checks below are about the optimum q, so
    // the fit's own noise has to be small next to them. Over seeds 1-20 the largest errors were
    // 0.10 posterior sd in a mean, 14% in a full-rank variance, 0.011 in the correlation and 5%
    // in a mean-field variance; the bounds below leave room for that and no more.
    const Options base{.seed = 5, .grad_samples = 50, .tol_rel_obj = 0.0001};
    Options fr_options = base;
    fr_options.family = Family::FullRank;
    const Fit fr = fit(m, fr_options);
    const Fit mf = fit(m, base);
    const Eigen::MatrixXd fr_cov = fr.result().q.covariance();
    const Eigen::MatrixXd mf_cov = mf.result().q.covariance();
    INFO("exact mean " << post_mean.transpose() << ", cov\n"
                       << post_cov << "\nfull-rank mean " << fr.result().q.mu().transpose()
                       << ", cov\n"
                       << fr_cov << "\nmean-field mean " << mf.result().q.mu().transpose()
                       << ", var " << mf_cov.diagonal().transpose() << " (optimum "
                       << mf_optimum_var.transpose() << ")");

    // Both find the posterior mean (to a fifth of a posterior sd).
    CHECK(((fr.result().q.mu() - post_mean).array() / post_sd.array()).abs().maxCoeff() < 0.2);
    CHECK(((mf.result().q.mu() - post_mean).array() / post_sd.array()).abs().maxCoeff() < 0.2);
    // Full-rank: marginal variances within 25%, the correlation (0.95) within 0.025.
    for (int i = 0; i < 2; ++i) CHECK(fr_cov(i, i) == Approx(post_cov(i, i)).epsilon(0.25));
    const double rho = post_cov(0, 1) / std::sqrt(post_cov(0, 0) * post_cov(1, 1));
    CHECK(fr_cov(0, 1) / std::sqrt(fr_cov(0, 0) * fr_cov(1, 1)) == Approx(rho).margin(0.025));
    // Mean-field: the variances are the optimum's 1 / diag(precision) (within 15%), which is
    // (1 - rho^2) ~ 0.1 of the marginal variances: a factor 10 too small.
    for (int i = 0; i < 2; ++i) {
        CHECK(mf_cov(i, i) == Approx(mf_optimum_var[i]).epsilon(0.15));
        CHECK(mf_cov(i, i) < 0.2 * post_cov(i, i));
    }
}

TEST_CASE("gauss2d: the Stan program is the same model as the C++ one", "[examples][stan]") {
    const auto dir = shared_sim_dir("gauss2d");
    if (dir.empty())
        return;
    const DataTable data = read_data(dir / "small.data.json");
    const Eigen::MatrixXd y = data.at("y").as_matrix();
    const Eigen::MatrixXd Sigma = data.at("Sigma").as_matrix();
    const Eigen::VectorXd mu0 = data.at("mu0").as_vector();
    const Eigen::MatrixXd Sigma0 = data.at("Sigma0").as_matrix();
    Model m;
    auto yd = m.data("y", y);
    auto Sigma_d = m.data("Sigma", Sigma);
    auto mu0_d = m.data("mu0", mu0);
    auto Sigma0_d = m.data("Sigma0", Sigma0);
    auto mu = m.param("mu", advi::multi_normal(mu0_d, Sigma0_d), 2);
    m.observe(yd, advi::multi_normal(mu, Sigma_d));

    const auto low = lower_example("gauss2d", data);
    CHECK(log_density_expression(low->model().graph()) == log_density_expression(m.graph()));
    check_same_log_density(
        low->model().spec(), m.spec(),
        {Eigen::Vector2d(0, 0), Eigen::Vector2d(1.0, -0.5), Eigen::Vector2d(-2.0, 3.0)});
}

}  // namespace advi::test
