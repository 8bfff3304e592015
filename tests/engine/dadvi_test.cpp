// DADVI (engine/dadvi.hpp) on a correlated Gaussian: Newton-CG reaches the fixed-draw ELBO's
// optimum (its gradient, computed here independently, is 0 there), the linear-response sds
// are the inverse of that objective's Hessian (here by finite differences of the gradient),
// and they recover the posterior's sds where mean-field's own are too small.
#include <cmath>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/dadvi.hpp>
#include <advi/engine/rng.hpp>

#include "targets.hpp"

namespace {

// The fixed-draw ELBO's gradient for log p = -(z - m)' P (z - m) / 2, written out: the
// draws are Rng(seed)'s, as run_dadvi draws them.
Eigen::VectorXd fixed_draw_gradient(const Eigen::VectorXd& eta, const Eigen::VectorXd& m,
                                    const Eigen::MatrixXd& P, const Eigen::MatrixXd& eps) {
    const int D = static_cast<int>(m.size());
    const Eigen::VectorXd s = eta.tail(D).array().exp().matrix();
    Eigen::VectorXd grad = Eigen::VectorXd::Zero(2 * D);
    for (Eigen::Index n = 0; n < eps.cols(); ++n) {
        const Eigen::VectorXd z = eta.head(D) + s.cwiseProduct(eps.col(n));
        const Eigen::VectorXd g = -P * (z - m);
        grad.head(D) += g;
        grad.tail(D) += g.cwiseProduct(s).cwiseProduct(eps.col(n));
    }
    grad /= static_cast<double>(eps.cols());
    grad.tail(D).array() += 1.0;
    return grad;
}

// Neal's funnel in n + 1 coordinates, log p = -v^2 / 18 - n v / 2 - |x|^2 e^-v / 2, with its
// exact Hessian-vector product.
class NealsFunnel final : public advi::CurvatureTarget {
public:
    explicit NealsFunnel(int n) : n_(n) {}
    int dim() const override { return n_ + 1; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        const double v = z[0], e = std::exp(-v);
        g.resize(n_ + 1);
        double lp = -v * v / 18.0 - 0.5 * n_ * v;
        g[0] = -v / 9.0 - 0.5 * n_;
        for (int i = 1; i <= n_; ++i) {
            lp -= 0.5 * z[i] * z[i] * e;
            g[0] += 0.5 * z[i] * z[i] * e;
            g[i] = -z[i] * e;
        }
        return lp;
    }
    double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& u, Eigen::VectorXd& g,
                          Eigen::VectorXd& hv) override {
        const double e = std::exp(-z[0]);
        const double lp = log_density_gradient(z, g);
        const double xx = z.tail(n_).squaredNorm();
        hv.resize(n_ + 1);
        hv[0] = (-1.0 / 9.0 - 0.5 * xx * e) * u[0];
        for (int i = 1; i <= n_; ++i) {
            hv[0] += z[i] * e * u[i];
            hv[i] = z[i] * e * u[0] - e * u[i];
        }
        return lp;
    }

private:
    int n_;
};

}  // namespace

TEST_CASE("dadvi: the fixed-draw optimum, its linear response and Monte Carlo error", "[advi]") {
    const int D = 4;
    Eigen::MatrixXd S(D, D);
    S << 1.0, 0.8, 0.2, 0.0, 0.8, 1.0, 0.3, 0.1, 0.2, 0.3, 2.0, -0.5, 0.0, 0.1, -0.5, 0.5;
    const Eigen::MatrixXd P = S.inverse();
    Eigen::VectorXd m(D);
    m << 1.0, -2.0, 0.5, 3.0;
    advi::test::GaussianCurvatureTarget target(m, S);
    advi::Options opts;
    opts.seed = 5;
    advi::DadviSettings settings;
    settings.draws = 30;
    const advi::DadviResult r = advi::run_dadvi(target, opts, settings);
    INFO(r.fit.stop_reason << "\n" << r.notes);
    REQUIRE(r.fit.converged);
    CHECK(r.fit.q.family() == advi::Family::MeanField);

    advi::Rng rng(opts.seed);
    const Eigen::MatrixXd eps = rng.normal_matrix(settings.draws, D).transpose();
    Eigen::VectorXd eta(2 * D);
    eta << r.fit.q.mu(), r.fit.q.omega();
    CHECK(fixed_draw_gradient(eta, m, P, eps).cwiseAbs().maxCoeff() < 1e-6);

    // The linear response: (-H_F^-1)_{mu mu}, H_F by central differences of the gradient.
    Eigen::MatrixXd H(2 * D, 2 * D);
    const double h = 1e-5;
    for (int k = 0; k < 2 * D; ++k) {
        Eigen::VectorXd up = eta, down = eta;
        up[k] += h;
        down[k] -= h;
        H.col(k) =
            (fixed_draw_gradient(up, m, P, eps) - fixed_draw_gradient(down, m, P, eps)) / (2 * h);
    }
    const Eigen::MatrixXd inv = (-H).inverse();
    REQUIRE(r.linear_response_sd.size() == D);
    CHECK((r.linear_response_sd - inv.topLeftCorner(D, D).diagonal().cwiseSqrt())
              .cwiseAbs()
              .maxCoeff() < 1e-5);
    // Near the posterior's sds (exact as N grows), where mean-field's are 1/sqrt(P_dd): 0.6 of
    // them on the first two, correlated at 0.8.
    const Eigen::VectorXd exact = S.diagonal().cwiseSqrt();
    CHECK((r.linear_response_sd.cwiseQuotient(exact).array() - 1.0).abs().maxCoeff() < 0.25);
    CHECK(r.q_sd[0] < 0.75 * exact[0]);
    // The Monte Carlo error of the means covers their distance from the exact means.
    REQUIRE(r.mean_mc_se.size() == D);
    CHECK(((r.fit.q.mu() - m).cwiseAbs().array() < 4.0 * r.mean_mc_se.array()).all());
    CHECK(r.mean_mc_se.minCoeff() > 0.0);
    // The ELBO on fresh draws, below the log evidence 0 (the target is normalised) by about
    // mean-field's KL.
    CHECK(r.fit.elbo < 0.1);
    CHECK(r.fit.elbo > -2.0);
    CHECK(r.fit.draws.rows() == opts.output_samples);

    // With the linear-response covariance q is full-rank with those sds.
    settings.linear_response = true;
    const advi::DadviResult lr = advi::run_dadvi(target, opts, settings);
    CHECK(lr.fit.q.family() == advi::Family::FullRank);
    CHECK((lr.fit.q.sd() - r.linear_response_sd).cwiseAbs().maxCoeff() < 1e-9);
    CHECK(lr.fit.elbo > r.fit.elbo);
}

TEST_CASE("dadvi: full-rank reaches its fixed-draw optimum", "[advi]") {
    // F(mu, L) = mean_n log p(mu + L eps_n) + sum log L_ii: its gradient in L is
    // mean_n lower(g_n eps_n') + diag(1 / L_ii), here written out and 0 at the fit's q.
    const int D = 3;
    Eigen::MatrixXd S(D, D);
    S << 1.0, 0.8, 0.2, 0.8, 1.0, 0.3, 0.2, 0.3, 2.0;
    const Eigen::MatrixXd P = S.inverse();
    const Eigen::VectorXd m = Eigen::Vector3d(1.0, -2.0, 0.5);
    advi::test::GaussianCurvatureTarget target(m, S);
    advi::Options opts;
    opts.family = advi::Family::FullRank;
    opts.seed = 4;
    advi::DadviSettings settings;
    settings.draws = 20;
    const advi::DadviResult r = advi::run_dadvi(target, opts, settings);
    INFO(r.fit.stop_reason << "\n" << r.notes);
    REQUIRE(r.fit.converged);
    REQUIRE(r.fit.q.family() == advi::Family::FullRank);
    advi::Rng rng(opts.seed);
    const Eigen::MatrixXd eps = rng.normal_matrix(settings.draws, D).transpose();
    const Eigen::MatrixXd L = r.fit.q.L();
    Eigen::VectorXd g_mu = Eigen::VectorXd::Zero(D);
    Eigen::MatrixXd g_L = Eigen::MatrixXd::Zero(D, D);
    for (Eigen::Index n = 0; n < eps.cols(); ++n) {
        const Eigen::VectorXd g = -P * (r.fit.q.mu() + L * eps.col(n) - m);
        g_mu += g;
        g_L += g * eps.col(n).transpose();
    }
    g_mu /= settings.draws;
    g_L /= settings.draws;
    g_L.diagonal() += L.diagonal().cwiseInverse();
    CHECK(g_mu.cwiseAbs().maxCoeff() < 1e-6);
    CHECK(g_L.triangularView<Eigen::Lower>().toDenseMatrix().cwiseAbs().maxCoeff() < 1e-6);
    // Near the posterior's covariance (exact as N grows); full-rank's own covariance is
    // P^-1 scaled by the draws' sample covariance: within 40% at 20 draws.
    const Eigen::VectorXd exact = S.diagonal().cwiseSqrt();
    CHECK((r.q_sd.cwiseQuotient(exact).array() - 1.0).abs().maxCoeff() < 0.4);
    REQUIRE(r.mean_mc_se.size() == D);
    CHECK(((r.fit.q.mu() - m).cwiseAbs().array() < 4.0 * r.mean_mc_se.array()).all());
}

TEST_CASE("dadvi: refuses what it does not do", "[advi]") {
    advi::test::GaussianCurvatureTarget target(Eigen::VectorXd::Zero(4),
                                               Eigen::MatrixXd::Identity(4, 4));
    advi::Options fr;
    fr.family = advi::Family::FullRank;
    advi::DadviSettings four;
    four.draws = 4;
    CHECK_THROWS_WITH(advi::run_dadvi(target, fr, four),
                      Catch::Contains("full-rank DADVI needs more fixed draws than unconstrained "
                                      "coordinates (4 draws, 4 coordinates)"));
    // No optimum: log p = +|z|^2 / 2 rises as q spreads. Not converged, and it says why: no
    // optimum was reached, so there is no linear response either.
    advi::test::GaussianCurvatureTarget rising(advi::test::GaussianTarget::unnormalised(
        Eigen::VectorXd::Zero(2), -Eigen::MatrixXd::Identity(2, 2)));
    const advi::DadviResult r = advi::run_dadvi(rising, advi::Options{});
    INFO(r.fit.stop_reason);
    CHECK_FALSE(r.fit.converged);
    CHECK(r.fit.stop_reason.rfind("Newton-CG on the ELBO of 30 fixed draws: ", 0) == 0);
    CHECK(r.fit.stop_reason.find("at Newton-CG's end (no optimum was reached)") !=
          std::string::npos);
    CHECK(r.linear_response_sd.size() == 0);
    advi::DadviSettings one;
    one.draws = 1;
    CHECK_THROWS_WITH(advi::run_dadvi(target, advi::Options{}, one),
                      Catch::Contains("at least 2 fixed draws"));
}

TEST_CASE("dadvi: the number of draws is chosen by the Monte Carlo error of the means", "[advi]") {
    // A correlated Gaussian: mean-field's optimum has the exact means, so every error of DADVI's
    // means is the fixed draws' Monte Carlo error, which the chosen N brings under the target.
    const int D = 4;
    Eigen::MatrixXd S(D, D);
    S << 1.0, 0.8, 0.2, 0.0, 0.8, 1.0, 0.3, 0.1, 0.2, 0.3, 2.0, -0.5, 0.0, 0.1, -0.5, 0.5;
    Eigen::VectorXd m(D);
    m << 1.0, -2.0, 0.5, 3.0;
    advi::test::GaussianCurvatureTarget target(m, S);
    for (const bool lr : {false, true}) {
        advi::Options opts;
        opts.seed = 5;
        const advi::DadviResult r =
            advi::run_dadvi(target, opts, {.linear_response = lr, .mc_error_target = 0.05});
        INFO(r.fit.stop_reason);
        REQUIRE(r.fit.converged);
        CHECK(r.fit.stop_reason.find("fixed draws chosen: 30 -> ") != std::string::npos);
        CHECK(r.fit.stop_reason.find("until every mean's Monte Carlo error was at most 0.05 sds") !=
              std::string::npos);
        const Eigen::VectorXd sd = lr ? r.linear_response_sd : r.q_sd;
        CHECK(r.mean_mc_se.cwiseQuotient(sd).maxCoeff() <= 0.05);
        // Four standard errors of 0.05 sds.
        CHECK(((r.fit.q.mu() - m).array() / sd.array()).abs().maxCoeff() < 0.2);
    }
    // A target it cannot meet within the cap: it stops there and says so.
    const advi::DadviResult capped =
        advi::run_dadvi(target, advi::Options{}, {.mc_error_target = 1e-4, .max_draws = 45});
    INFO(capped.fit.stop_reason);
    CHECK(capped.fit.stop_reason.find("Newton-CG on the ELBO of 45 fixed draws") == 0);
    CHECK(capped.fit.stop_reason.find("fixed draws chosen: 30 -> 45 (stopped at the cap of 45 "
                                      "draws") != std::string::npos);
    // A choice of draws with nothing to aim at is refused, naming the settings.
    CHECK_THROWS_WITH(advi::run_dadvi(target, advi::Options{}, {.mc_error_target = 0.0}),
                      Catch::Contains("needs mc_error_target > 0 and max_draws >= 2"));
    // A fixed N is kept as given.
    const advi::DadviResult fixed = advi::run_dadvi(target, advi::Options{}, {.draws = 12});
    CHECK(fixed.fit.stop_reason.find("Newton-CG on the ELBO of 12 fixed draws") == 0);
    CHECK(fixed.fit.stop_reason.find("fixed draws chosen") == std::string::npos);
}

TEST_CASE("dadvi: a linear response that fits worse than mean-field is doubted", "[advi]") {
    // On a Gaussian the linear response is the exact covariance: no doubt. On Neal's funnel
    // (v ~ N(0, 3^2), x_i ~ N(0, e^v)) its q fits tens of nats worse than the mean-field q it
    // corrects, with a standard error larger still (heavy-tailed log ratios), and the result
    // says so (the verdict then says not reliable).
    const int D = 4;
    Eigen::MatrixXd S(D, D);
    S << 1.0, 0.8, 0.2, 0.0, 0.8, 1.0, 0.3, 0.1, 0.2, 0.3, 2.0, -0.5, 0.0, 0.1, -0.5, 0.5;
    advi::test::GaussianCurvatureTarget gaussian(Eigen::VectorXd::Zero(D), S);
    const advi::DadviResult g =
        advi::run_dadvi(gaussian, advi::Options{.seed = 1}, {.linear_response = true});
    INFO(g.fit.stop_reason);
    CHECK(g.fit.doubts.empty());

    NealsFunnel funnel(4);
    for (const std::uint64_t seed : {1, 2}) {
        const advi::DadviResult f =
            advi::run_dadvi(funnel, advi::Options{.seed = seed}, {.linear_response = true});
        INFO(f.fit.stop_reason);
        REQUIRE(f.fit.doubts.size() == 1);
        CHECK(f.fit.doubts[0].find("the linear-response q's ELBO is ") == 0);
        CHECK(f.fit.doubts[0].find("nats below the mean-field q's it corrects") !=
              std::string::npos);
        // Without the linear response the mean-field q is not doubted for it.
        const advi::DadviResult m = advi::run_dadvi(funnel, advi::Options{.seed = seed});
        CHECK(m.fit.doubts.empty());
    }
}
