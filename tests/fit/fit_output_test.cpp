// The log densities a fit keeps per output draw (CmdStan's log_p__ and log_g__), against
// mathematics: log_p by Boost.Math densities with the log-Jacobian, log_g by Boost.Math normal
// densities (mean-field) and an Eigen multivariate normal (full-rank), and the mean of
// log_p - log_g against the engine's ELBO and the model's analytic log evidence.
#include <cmath>
#include <numbers>

#include <Eigen/Dense>
#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>

namespace advi {
namespace {

double log_normal_pdf(double x, double mu, double sigma) {
    return std::log(boost::math::pdf(boost::math::normal(mu, sigma), x));
}

// Mean-field log q by Boost.Math: a product of normals N(mu_d, exp(omega_d)).
double log_q_mean_field(const Approximation& q, const Eigen::VectorXd& zeta) {
    double s = 0;
    for (int d = 0; d < q.dim(); ++d)
        s += log_normal_pdf(zeta[d], q.mu()[d], std::exp(q.omega()[d]));
    return s;
}

// Full-rank log q as a multivariate normal with covariance Sigma = L L', through Sigma's own
// Cholesky factor (not L): -1/2 r' Sigma^-1 r - 1/2 log det(2 pi Sigma).
double log_q_full_rank(const Approximation& q, const Eigen::VectorXd& zeta) {
    const Eigen::MatrixXd Sigma = q.L() * q.L().transpose();
    const Eigen::LLT<Eigen::MatrixXd> llt(Sigma);
    const Eigen::VectorXd r = zeta - q.mu();
    const double quad = r.dot(llt.solve(r));
    const double log_det = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    return -0.5 * quad - 0.5 * (q.dim() * std::log(2.0 * std::numbers::pi) + log_det);
}

double log_q_direct(const Approximation& q, const Eigen::VectorXd& zeta) {
    return q.family() == Family::MeanField ? log_q_mean_field(q, zeta) : log_q_full_rank(q, zeta);
}

double mean(const Eigen::VectorXd& v) {
    return v.mean();
}

double sample_sd(const Eigen::VectorXd& v) {
    return std::sqrt((v.array() - v.mean()).square().sum() / static_cast<double>(v.size() - 1));
}

}  // namespace

TEST_CASE("log_p and log_g of a normal-mean posterior: Boost densities, ELBO, log evidence",
          "[advi][fit][output]") {
    // y_i ~ N(mu, 2^2), mu ~ N(1, 10^2). The posterior is normal, so a fitted q is close to it
    // and log p(y, zeta) - log q(zeta) is close to the constant log p(y).
    const int N = 40;
    const double m0 = 1.0, s0 = 10.0, s = 2.0;
    const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(N, -1.0, 4.0);
    // log p(y): y ~ N(m0 1, s^2 I + s0^2 1 1').
    const Eigen::MatrixXd C =
        s * s * Eigen::MatrixXd::Identity(N, N) + s0 * s0 * Eigen::MatrixXd::Ones(N, N);
    const Eigen::LLT<Eigen::MatrixXd> llt(C);
    const Eigen::VectorXd r = y.array() - m0;
    const double log_evidence =
        -0.5 * r.dot(llt.solve(r)) -
        0.5 * (N * std::log(2.0 * std::numbers::pi) +
               2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum());
    auto direct_log_p = [&](double mu) {
        double lp = log_normal_pdf(mu, m0, s0);
        for (int i = 0; i < N; ++i) lp += log_normal_pdf(y[i], mu, s);
        return lp;
    };

    Model m;
    auto yd = m.data("y", y);
    auto mu = m.param("mu", normal(m0, s0));
    m.observe(yd, normal(mu, s));
    for (auto family : {Family::MeanField, Family::FullRank}) {
        Fit f = fit(m, {.family = family, .seed = 11, .grad_samples = 10, .tol_rel_obj = 0.001});
        INFO(f.summary());
        REQUIRE(f.result().converged);
        const Approximation& q = f.result().q;
        const Eigen::MatrixXd& zeta = f.zeta_draws();
        REQUIRE(zeta.rows() == 1000);
        REQUIRE(zeta.cols() == 1);
        REQUIRE(f.log_p().size() == 1000);
        REQUIRE(f.log_g().size() == 1000);
        CHECK(f.nonfinite_log_p() == 0);
        // mu is unconstrained: the draws of theta are the draws of zeta
        CHECK((f.draws("mu").col(0).array() == zeta.col(0).array()).all());
        for (Eigen::Index i = 0; i < zeta.rows(); ++i) {
            CHECK(f.log_p()[i] == Approx(direct_log_p(zeta(i, 0))).epsilon(1e-11));
            CHECK(f.log_g()[i] == Approx(log_q_direct(q, zeta.row(i).transpose())).epsilon(1e-11));
        }
        CHECK(f.log_p_at_mu() == Approx(direct_log_p(q.mu()[0])).epsilon(1e-11));
        CHECK(f.log_g_at_mu() == Approx(log_q_direct(q, q.mu())).epsilon(1e-11));

        // mean(log_p - log_g) over the draws estimates the ELBO; the engine's last estimate
        // has its own Monte Carlo error from elbo_samples draws.
        const Eigen::VectorXd w = f.log_p() - f.log_g();
        const double sd = sample_sd(w);
        const double elbo = f.result().elbo_trace.back();
        const double tol = 4.0 * sd * std::sqrt(1.0 / 1000 + 1.0 / 100) + 1e-9;
        INFO("mean(log_p - log_g) " << mean(w) << ", sd " << sd << ", ELBO " << elbo
                                    << ", log p(y) " << log_evidence);
        CHECK(std::abs(mean(w) - elbo) < tol);
        // ELBO = log p(y) - KL(q || posterior), and KL is small for a fitted normal q
        CHECK(mean(w) < log_evidence + 4.0 * sd / std::sqrt(1000.0));
        CHECK(mean(w) > log_evidence - 0.05);
        // q close to the posterior makes the weights nearly constant
        CHECK(sd < 0.3);
    }
}

TEST_CASE("log_p includes the log-Jacobian; log_g of a full-rank q is a multivariate normal",
          "[advi][fit][output]") {
    // a, b ~ N(0, 1) with the coupling term -2 (a - b)^2, s ~ lognormal(0.5, 0.3): on zeta =
    // (a, b, log s) the density with its Jacobian e^zeta is N(a) N(b) e^{-2 (a - b)^2}
    // N(zeta_s | 0.5, 0.3): log_p is a sum of normal log pdfs and the coupling term.
    Model m;
    auto a = m.param("a", normal(0, 1));
    auto b = m.param("b", normal(0, 1));
    auto sg = m.param("s", lognormal(0.5, 0.3));
    (void)sg;
    m.target_add(-2.0 * square(a - b));
    for (auto family : {Family::MeanField, Family::FullRank}) {
        Fit f = fit(m, {.family = family, .seed = 3, .output_samples = 300});
        INFO(f.summary());
        const Approximation& q = f.result().q;
        const Eigen::MatrixXd& zeta = f.zeta_draws();
        REQUIRE(zeta.cols() == 3);
        for (Eigen::Index i = 0; i < zeta.rows(); ++i) {
            const double d = zeta(i, 0) - zeta(i, 1);
            const double direct = log_normal_pdf(zeta(i, 0), 0, 1) +
                                  log_normal_pdf(zeta(i, 1), 0, 1) - 2.0 * d * d +
                                  log_normal_pdf(zeta(i, 2), 0.5, 0.3);
            CHECK(f.log_p()[i] == Approx(direct).epsilon(1e-11));
            CHECK(f.log_g()[i] == Approx(log_q_direct(q, zeta.row(i).transpose())).epsilon(1e-11));
            CHECK(f.draws("s")(i, 0) == Approx(std::exp(zeta(i, 2))).epsilon(1e-14));
        }
        if (family == Family::FullRank) {
            // q found the positive correlation of a and b (0.8 in the posterior), so the
            // check above went through a covariance with off-diagonal terms
            const Eigen::MatrixXd S = q.covariance();
            CHECK(S(0, 1) / std::sqrt(S(0, 0) * S(1, 1)) > 0.5);
        }
    }
}

TEST_CASE("draws whose log_p is not finite are dropped, counted and replaced",
          "[advi][fit][output]") {
    // x ~ N(1, 1) on the real line with the term log(x): NaN wherever x <= 0. The fitted q
    // keeps some mass there, so some draws from it have a log density that is not finite.
    Model m;
    auto x = m.param("x", normal(1, 1));
    m.target_add(log(x));
    Fit f = fit(m, {.seed = 5, .output_samples = 2000});
    INFO(f.summary());
    const Eigen::MatrixXd& zeta = f.zeta_draws();
    REQUIRE(zeta.rows() == 2000);  // replaced: as many as asked for
    for (Eigen::Index i = 0; i < zeta.rows(); ++i) {
        CHECK(zeta(i, 0) > 0.0);
        CHECK(std::isfinite(f.log_p()[i]));
        CHECK(std::isfinite(f.log_g()[i]));
    }
    CHECK(f.draws("x").allFinite());
    // q's mass below 0, estimated from its own mean and sd: the share of draws dropped.
    const double q_mu = f.result().q.mu()[0], q_sd = f.result().q.sd()[0];
    const double p_bad = 0.5 * std::erfc(q_mu / q_sd / std::sqrt(2.0));
    REQUIRE(p_bad > 0.01);
    const double expected = 2000 * p_bad / (1 - p_bad);  // draws tried beyond 2000 good ones
    CHECK(f.nonfinite_log_p() > 0);
    CHECK(std::abs(f.nonfinite_log_p() - expected) < 5 * std::sqrt(expected) + 1);
    CHECK(f.summary().find(std::to_string(f.nonfinite_log_p()) +
                           " output draws had a non-finite log density and were replaced") !=
          std::string::npos);
}

TEST_CASE("no output draws: empty log_p and log_g, values at the mean", "[advi][fit][output]") {
    Model m;
    auto s = m.param("s", lognormal(0.5, 0.3));
    (void)s;
    Fit f = fit(m, {.seed = 2, .output_samples = 0});
    CHECK(f.zeta_draws().rows() == 0);
    CHECK(f.log_p().size() == 0);
    CHECK(f.log_g().size() == 0);
    const double z = f.result().q.mu()[0];
    const double sd = std::exp(f.result().q.omega()[0]);
    CHECK(f.log_p_at_mu() == Approx(log_normal_pdf(z, 0.5, 0.3)).epsilon(1e-12));
    CHECK(f.log_g_at_mu() == Approx(log_normal_pdf(z, z, sd)).epsilon(1e-12));
}

}  // namespace advi
