// Where q starts (engine/start.hpp): from the mode and the Hessian there, checked against a
// Gaussian target whose answer is known in closed form (mean-field's optimum sd_d =
// 1/sqrt(P_dd), full-rank's covariance P^-1); a density without a mode falls back to the init
// point and says why; the start and the whitened fit do not depend on the scale of the
// coordinates (raw dollars against scaled predictors) nor on an additive constant.
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include <catch2/catch.hpp>

#include <Eigen/Cholesky>

#include <advi/engine/engine.hpp>
#include <advi/engine/start.hpp>
#include <advi/engine/whitened_target.hpp>

#include "engine/targets.hpp"

using advi::Approximation;
using advi::Family;
using advi::Options;
using advi::Start;

namespace {

// -(zeta - m)' P (zeta - m) / 2 + offset (unnormalised) with its exact Hessian-vector
// product -P v.
advi::test::GaussianCurvatureTarget gaussian_curvature(Eigen::VectorXd m, const Eigen::MatrixXd& P,
                                                       double offset = 0.0) {
    return advi::test::GaussianCurvatureTarget(
        advi::test::GaussianTarget::unnormalised(std::move(m), P, offset));
}

// A precision with correlations and scales from 0.01 to 100.
Eigen::MatrixXd test_precision() {
    Eigen::MatrixXd A(3, 3);
    A << 10.0, 0.0, 0.0, 3.0, 0.5, 0.0, -40.0, 0.2, 100.0;
    return A * A.transpose() + 0.01 * Eigen::MatrixXd::Identity(3, 3);
}

// Logistic regression y_i ~ Bernoulli(logit^-1(a + b x_i / scale)), a ~ N(0, 2^2), b / scale ~
// N(0, 1): coordinates (a, b). With scale = 1e4 and x in dollars this is the same model as
// scale = 1 on x in ten-thousands of dollars, b carrying the factor: p_raw(a, b) =
// p_std(a, b / 1e4) / 1e4. Non-Gaussian, so that only the whitening makes the paths agree.
class Logistic final : public advi::CurvatureTarget {
public:
    Logistic(double scale, double offset = 0.0) : scale_(scale), offset_(offset) {
        advi::Rng rng(7);
        const Eigen::MatrixXd x = rng.normal_matrix(60, 1);
        x_ = x.col(0);
        y_.resize(60);
        for (int i = 0; i < 60; ++i) y_[i] = 0.5 + 1.5 * x_[i] + 1.6 * rng.normal() > 0 ? 1.0 : 0.0;
    }
    int dim() const override { return 2; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        const double a = z[0], b = z[1] / scale_;
        double lp = offset_ - a * a / 8.0 - b * b / 2.0 - std::log(scale_);
        double ga = -a / 4.0, gb = -b;
        for (Eigen::Index i = 0; i < x_.size(); ++i) {
            const double eta = a + b * x_[i];
            const double p = advi::test::inv_logit(eta);
            lp += y_[i] * eta - advi::test::softplus(eta);
            ga += y_[i] - p;
            gb += (y_[i] - p) * x_[i];
        }
        g.resize(2);
        g << ga, gb / scale_;
        return lp;
    }
    double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& v, Eigen::VectorXd& g,
                          Eigen::VectorXd& hv) override {
        const double a = z[0], b = z[1] / scale_;
        Eigen::Matrix2d H;
        H << -0.25, 0.0, 0.0, -1.0;
        for (Eigen::Index i = 0; i < x_.size(); ++i) {
            const double p = advi::test::inv_logit(a + b * x_[i]);
            const double w = p * (1.0 - p);
            H(0, 0) -= w;
            H(0, 1) -= w * x_[i];
            H(1, 1) -= w * x_[i] * x_[i];
        }
        H(1, 0) = H(0, 1);
        H.row(1) /= scale_;
        H.col(1) /= scale_;
        hv = H * v;
        return log_density_gradient(z, g);
    }

private:
    double scale_, offset_;
    Eigen::VectorXd x_, y_;
};

// The centred eight schools (no mode), shared with the DADVI tests.
using Funnel = advi::test::CentredEightSchools;

// Two unit-covariance Gaussian bumps in two dimensions, weights w_a, w_b:
// log(w_a exp(-|z - a|^2 / 2) + w_b exp(-|z - b|^2 / 2)), with its exact Hessian
// sum_k r_k d_k d_k' - (sum_k r_k d_k)(sum_k r_k d_k)' - I (r_k: the responsibilities,
// d_k = z - m_k). Far-apart bumps peak at log w_k (up to e^-|a-b|^2/2), so that the gap
// between the modes is log(w_a / w_b).
class TwoBumps final : public advi::CurvatureTarget {
public:
    TwoBumps(Eigen::Vector2d a, double w_a, Eigen::Vector2d b, double w_b)
        : m_{std::move(a), std::move(b)}, log_w_{std::log(w_a), std::log(w_b)} {}
    int dim() const override { return 2; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        Eigen::Vector2d mean_d;
        const double lp = parts(z, mean_d, nullptr);
        g = -mean_d;
        return lp;
    }
    double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& v, Eigen::VectorXd& g,
                          Eigen::VectorXd& hv) override {
        Eigen::Vector2d mean_d;
        Eigen::Matrix2d H;
        const double lp = parts(z, mean_d, &H);
        g = -mean_d;
        hv = H * v;
        return lp;
    }

private:
    double parts(const Eigen::VectorXd& z, Eigen::Vector2d& mean_d, Eigen::Matrix2d* H) const {
        double l[2];
        for (int k = 0; k < 2; ++k) l[k] = log_w_[k] - 0.5 * (z - m_[k]).squaredNorm();
        const double top = std::max(l[0], l[1]);
        const double lse = top + std::log(std::exp(l[0] - top) + std::exp(l[1] - top));
        mean_d.setZero();
        Eigen::Matrix2d second = Eigen::Matrix2d::Zero();
        for (int k = 0; k < 2; ++k) {
            const double r = std::exp(l[k] - lse);
            const Eigen::Vector2d d = z - m_[k];
            mean_d += r * d;
            second += r * d * d.transpose();
        }
        if (H != nullptr)
            *H = second - mean_d * mean_d.transpose() - Eigen::Matrix2d::Identity();
        return lse;
    }
    Eigen::Vector2d m_[2];
    double log_w_[2];
};

}  // namespace

TEST_CASE("start: on a Gaussian target, the exact mean and each family's optimal scale", "[advi]") {
    const Eigen::Vector3d m(3.0, -200.0, 0.05);
    const Eigen::MatrixXd P = test_precision();
    const Eigen::MatrixXd cov = P.inverse();
    auto target = gaussian_curvature(m, P, -1234.5);

    const Start mf = advi::find_start(target, Options{.family = Family::MeanField});
    INFO(mf.description);
    REQUIRE(mf.from_mode);
    REQUIRE(mf.curvature);
    CHECK(mf.description.rfind("the mode and Hessian (L-BFGS", 0) == 0);
    CHECK((mf.mean - m).cwiseQuotient(cov.diagonal().cwiseSqrt()).cwiseAbs().maxCoeff() < 1e-8);
    const Eigen::Vector3d sd_opt = P.diagonal().cwiseSqrt().cwiseInverse();
    CHECK((mf.scale.array() / sd_opt.array() - 1.0).abs().maxCoeff() < 1e-10);
    CHECK(mf.hessian_vector_products >= 3);

    const Start fr = advi::find_start(target, Options{.family = Family::FullRank});
    REQUIRE(fr.curvature);
    CHECK((fr.mean - m).cwiseQuotient(cov.diagonal().cwiseSqrt()).cwiseAbs().maxCoeff() < 1e-8);
    const Eigen::MatrixXd got = fr.factor * fr.factor.transpose();
    // Relative to each entry's scale sqrt(cov_ii cov_jj).
    const Eigen::VectorXd s = cov.diagonal().cwiseSqrt();
    CHECK(((got - cov).array() / (s * s.transpose()).array()).abs().maxCoeff() < 1e-9);
    CHECK(fr.factor.isLowerTriangular());
}

TEST_CASE("start: Init, Stan's rule and a plain Target keep the init point", "[advi]") {
    auto target = gaussian_curvature(Eigen::Vector3d(1, 2, 3), test_precision());
    const Eigen::Vector3d init(0.5, -0.5, 1.0);
    const Start a = advi::find_start(target, Options{.init = init, .start = advi::StartFrom::Init});
    CHECK_FALSE(a.from_mode);
    CHECK(a.description == "the init point (given)");
    CHECK(a.mean == init);
    CHECK(a.scale == Eigen::VectorXd::Ones(3));
    const Start b = advi::find_start(target, Options{.convergence = advi::ConvergenceRule::Stan});
    CHECK(b.description == "the init point (zero): Stan's rule keeps Stan's start");
    advi::test::GaussianTarget plain(Eigen::Vector2d(1, 2), Eigen::Matrix2d::Identity());
    const Start c = advi::find_start(plain, Options{});
    CHECK(c.description == "the init point (zero): the target gives no curvature");
    CHECK(c.gradient_evaluations == 0);
}

TEST_CASE("start: a funnel without a mode falls back to the init point, saying why", "[advi]") {
    Funnel funnel;
    const Start s = advi::find_start(funnel, Options{});
    INFO(s.description);
    CHECK_FALSE(s.from_mode);
    CHECK(s.description.rfind("the init point (zero): no mode (L-BFGS: ", 0) == 0);
    CHECK(s.mean == Eigen::VectorXd::Zero(10));
    CHECK(s.gradient_evaluations > 0);
    // And the fit says so too (it then starts from a first mean-field fit, and Newton steps).
    const advi::AdviResult r = advi::run_advi(funnel, Options{.seed = 1, .max_iterations = 200});
    CHECK(r.start.find("from " + s.description) != std::string::npos);
}

TEST_CASE("start: full-rank on a funnel takes Newton steps on its ELBO from the mean-field fit",
          "[advi]") {
    // No mode: full-rank starts from the mean-field fit, then the Newton steps of
    // gaussian_newton.hpp move its factor from mean-field's sds to the correlations of the
    // funnel; the fit ends above mean-field's ELBO (on the centred eight schools the patient
    // runs differ by 0.8 nats, report/README.md) and says how it started.
    Funnel funnel;
    const advi::AdviResult mf =
        advi::run_advi(funnel, Options{.family = Family::MeanField, .seed = 1});
    const advi::AdviResult fr =
        advi::run_advi(funnel, Options{.family = Family::FullRank, .seed = 1});
    INFO(fr.start << "\n" << fr.stop_reason);
    CHECK(fr.start.rfind("the mean-field fit (", 0) == 0);
    CHECK(fr.start.find("Newton steps on full-rank's ELBO, from ") != std::string::npos);
    CHECK(fr.elbo > mf.elbo + 0.3);
    // Correlated: the factor is not diagonal.
    CHECK(fr.q.L().triangularView<Eigen::StrictlyLower>().toDenseMatrix().cwiseAbs().maxCoeff() >
          0.05);
}

TEST_CASE("start: an additive constant of 1e9 changes neither the start nor the fit", "[advi]") {
    const Eigen::Vector3d m(3.0, -200.0, 0.05);
    auto base = gaussian_curvature(m, test_precision());
    auto shifted = gaussian_curvature(m, test_precision(), 1e9);
    for (const Family family : {Family::MeanField, Family::FullRank}) {
        const Options opts{.family = family, .seed = 3, .max_iterations = 300};
        const Start a = advi::find_start(base, opts);
        const Start b = advi::find_start(shifted, opts);
        REQUIRE(b.curvature);
        CHECK((a.mean - b.mean).cwiseAbs().maxCoeff() < 1e-9 * 200);
        if (family == Family::MeanField)
            CHECK((a.scale - b.scale).cwiseAbs().maxCoeff() < 1e-12);
        else
            CHECK((a.factor - b.factor).cwiseAbs().maxCoeff() < 1e-12);
        const advi::AdviResult ra = advi::run_advi(base, opts);
        const advi::AdviResult rb = advi::run_advi(shifted, opts);
        CHECK(ra.eta == rb.eta);
        CHECK(ra.iterations == rb.iterations);
        CHECK((ra.q.params() - rb.q.params()).cwiseAbs().maxCoeff() < 1e-6);
    }
}

TEST_CASE("start: raw dollars and scaled predictors take the same path", "[advi]") {
    // Coordinates (a, b_raw) with b_raw = 1e4 b_std: q must map by the same factor.
    Logistic standard(1.0);
    Logistic dollars(1e4);
    for (const Family family : {Family::MeanField, Family::FullRank}) {
        INFO((family == Family::MeanField ? "mean-field" : "full-rank"));
        const Options opts{.family = family, .seed = 11};
        const advi::AdviResult s = advi::run_advi(standard, opts);
        const advi::AdviResult d = advi::run_advi(dollars, opts);
        INFO(s.start << " / " << d.start);
        REQUIRE(s.start.rfind("the mode and Hessian", 0) == 0);
        CHECK(s.iterations == d.iterations);
        CHECK(s.eta == d.eta);
        const Eigen::Vector2d unit(1.0, 1e4);
        CHECK((d.q.mu().cwiseQuotient(unit) - s.q.mu()).cwiseAbs().maxCoeff() < 1e-6);
        const Eigen::MatrixXd cs = s.q.covariance();
        const Eigen::MatrixXd cd =
            unit.cwiseInverse().asDiagonal() * d.q.covariance() * unit.cwiseInverse().asDiagonal();
        CHECK((cd - cs).cwiseAbs().maxCoeff() < 1e-6 * cs.cwiseAbs().maxCoeff());
        // The densities are one density in two coordinate systems (p_raw carries the
        // Jacobian 1/1e4), so the ELBOs agree.
        CHECK(std::fabs(d.elbo - s.elbo) < 1e-6);
    }
}

TEST_CASE("start: the default fit of a Gaussian ends near the family's optimum", "[advi]") {
    const Eigen::Vector3d m(3.0, -200.0, 0.05);
    const Eigen::MatrixXd P = test_precision();
    auto target = gaussian_curvature(m, P);
    const advi::AdviResult r = advi::run_advi(target, Options{.seed = 5});
    INFO(r.start << "; " << r.stop_reason);
    CHECK(r.start.rfind("the mode and Hessian", 0) == 0);
    const Eigen::VectorXd sd_opt = P.diagonal().cwiseSqrt().cwiseInverse();
    // Started at the optimum, the stochastic steps keep q within a fraction of an sd of it.
    CHECK(((r.q.mu() - m).array() / sd_opt.array()).abs().maxCoeff() < 0.3);
    CHECK((r.q.sd().array() / sd_opt.array() - 1.0).abs().maxCoeff() < 0.3);
}

TEST_CASE("start: a second search from a random point finds the higher mode, or the other one",
          "[advi]") {
    // Bumps at (1, 0) and (-6, 0): every point of CmdStan's box (-2, 2)^2 lies in the basin
    // of (1, 0), so that the second search ends there whatever the seed.
    const Eigen::Vector2d near(1.0, 0.0), far(-6.0, 0.0);
    const double gap = std::log(4.0);
    SECTION("from the init point at the lower mode: q starts at the higher one") {
        TwoBumps target(near, 0.8, far, 0.2);
        for (const std::uint64_t seed : {1u, 2u, 3u}) {
            const Start s =
                advi::find_start(target, Options{.seed = seed, .init = Eigen::Vector2d(-5.5, 0.3)});
            INFO(s.description);
            REQUIRE(s.curvature);
            CHECK((s.mean - near).norm() < 1e-6);
            const advi::OtherMode& o = s.other_mode;
            CHECK(o.searched);
            CHECK(o.found);
            CHECK(o.switched);
            CHECK_FALSE(o.copy);
            CHECK(o.gap == Approx(gap).epsilon(1e-6));
            // Unit covariance: 7 posterior sds between the modes.
            CHECK(o.in_sds);
            CHECK(o.distance == Approx(7.0).epsilon(1e-4));
            CHECK(o.comparable());
            CHECK(s.description.find("rose 1.39 nats above the first search's end") !=
                  std::string::npos);
        }
    }
    SECTION("from the init point at the higher mode: the other one is found and measured") {
        TwoBumps target(near, 0.2, far, 0.8);
        const Start s =
            advi::find_start(target, Options{.seed = 5, .init = Eigen::Vector2d(-6.5, -0.2)});
        INFO(s.description);
        CHECK((s.mean - far).norm() < 1e-6);
        CHECK_FALSE(s.other_mode.switched);
        CHECK(s.other_mode.gap == Approx(gap).epsilon(1e-6));
        CHECK(s.other_mode.comparable());
        CHECK(s.description.find("ended 1.39 nats lower, at another mode (7 posterior sds away)") !=
              std::string::npos);
        // A mode 12 nats lower is not comparable: q covers all but e^-12 of the mass.
        TwoBumps steep(near, std::exp(-12.0), far, 1.0);
        const Start t =
            advi::find_start(steep, Options{.seed = 5, .init = Eigen::Vector2d(-6.5, -0.2)});
        CHECK(t.other_mode.found);
        CHECK(t.other_mode.gap == Approx(12.0).epsilon(1e-6));
        CHECK_FALSE(t.other_mode.comparable());
    }
    SECTION("one mode: the second search finds it again") {
        auto target = gaussian_curvature(Eigen::Vector3d(3.0, -200.0, 0.05), test_precision());
        const Start s = advi::find_start(target, Options{.seed = 1});
        INFO(s.description);
        CHECK(s.other_mode.found);
        CHECK(s.other_mode.copy);
        CHECK(s.other_mode.distance < 1e-3);
        CHECK_FALSE(s.other_mode.comparable());
        CHECK(s.description.find("reached the same mode") != std::string::npos);
    }
    SECTION("a saddle at zero, where the first search stops at once: q starts at a mode") {
        // Equal bumps at (+-3, 0): the gradient is 0 at zero by symmetry (PPCA's W = 0).
        TwoBumps target(Eigen::Vector2d(3.0, 0.0), 0.5, Eigen::Vector2d(-3.0, 0.0), 0.5);
        const Start s = advi::find_start(target, Options{.seed = 1});
        INFO(s.description);
        REQUIRE(s.curvature);
        CHECK(std::abs(std::abs(s.mean[0]) - 3.0) < 1e-6);
        CHECK(std::abs(s.mean[1]) < 1e-6);
        CHECK(s.other_mode.switched);
        // lp = log(e^-4.5) at the saddle, log(1/2) at a mode (up to e^-18).
        CHECK(s.other_mode.gap == Approx(4.5 - std::log(2.0)).epsilon(1e-6));
        // The other end is the saddle, not a mode: nothing for the verdict.
        CHECK_FALSE(s.other_mode.found);
        CHECK_FALSE(s.other_mode.comparable());
        CHECK(s.description.find("the first search's end is no mode") != std::string::npos);
        const advi::AdviResult r =
            advi::run_advi(target, Options{.seed = 1, .max_iterations = 300});
        CHECK(r.other_mode.switched);
        CHECK(r.start == s.description);
    }
}

TEST_CASE("start: full-rank without a mode to start from starts from the mean-field fit",
          "[advi]") {
    // A plain Target (no curvature: no mode is sought), correlated: full-rank's optimum is the
    // exact covariance, above mean-field's optimum by -KL = 0.5 log det(R) for the correlation R.
    const Eigen::Vector3d m(1.0, -2.0, 0.5);
    Eigen::Matrix3d S;
    S << 1.0, 0.8, 0.3, 0.8, 1.0, 0.5, 0.3, 0.5, 2.0;
    advi::test::GaussianTarget target(m, S);
    const advi::AdviResult mf =
        advi::run_advi(target, Options{.family = Family::MeanField, .seed = 2});
    const advi::AdviResult fr =
        advi::run_advi(target, Options{.family = Family::FullRank, .seed = 2});
    INFO(fr.start << "\n" << fr.stop_reason << "\n" << fr.q);
    CHECK(fr.start.rfind("the mean-field fit (", 0) == 0);
    CHECK(fr.start.find("from the init point (zero): the target gives no curvature") !=
          std::string::npos);
    REQUIRE(fr.converged);
    // The ELBOs against the analytic ones: mean-field's optimum is 0.5 log(prod P_dd^-1 /
    // det S) below 0 (the target is normalised), full-rank's is 0.
    const Eigen::Matrix3d P = S.inverse();
    const double mf_optimum = 0.5 * (-P.diagonal().array().log().sum() - std::log(S.determinant()));
    // (Within the Auto rule's plateau tolerance, 0.05 nats.)
    CHECK(target.analytic_elbo(mf.q) == Approx(mf_optimum).margin(0.05));
    CHECK(target.analytic_elbo(fr.q) == Approx(0.0).margin(0.05));
    CHECK(target.analytic_elbo(fr.q) > target.analytic_elbo(mf.q) + 0.5 * std::abs(mf_optimum));
    const Eigen::MatrixXd cov = fr.q.covariance();
    CHECK(((cov - S).array() /
           (S.diagonal().cwiseSqrt() * S.diagonal().cwiseSqrt().transpose()).array())
              .abs()
              .maxCoeff() < 0.1);
}

TEST_CASE("start: from Pathfinder's point, then as Auto", "[advi]") {
    // With a mode: Pathfinder's point, then L-BFGS on to the mode and the Hessian there: the
    // same start as Auto's, to the mode's tolerance, and the fit says where it came from.
    const Eigen::Vector3d m(3.0, -200.0, 0.05);
    const Eigen::MatrixXd P = test_precision();
    auto target = gaussian_curvature(m, P);
    const Eigen::VectorXd sd = P.inverse().diagonal().cwiseSqrt();
    const advi::AdviResult r = advi::run_advi(
        target,
        Options{.family = Family::FullRank, .seed = 3, .start = advi::StartFrom::Pathfinder});
    INFO(r.start << "\n" << r.stop_reason);
    CHECK(r.start.rfind("Pathfinder's point (iterate ", 0) == 0);
    CHECK(r.start.find("then the mode and Hessian (L-BFGS") != std::string::npos);
    CHECK(((r.q.mu() - m).array() / sd.array()).abs().maxCoeff() < 0.1);
    // The path's evaluations are counted: more than Auto's start alone.
    const advi::AdviResult a =
        advi::run_advi(target, Options{.family = Family::FullRank, .seed = 3});
    CHECK(r.gradient_evaluations > a.gradient_evaluations);

    // Without a mode (the funnel): the mean-field fit starts from Pathfinder's point.
    Funnel funnel;
    const advi::AdviResult f = advi::run_advi(
        funnel, Options{.seed = 1, .max_iterations = 200, .start = advi::StartFrom::Pathfinder});
    INFO(f.start);
    CHECK(f.start.rfind("Pathfinder's point (iterate ", 0) == 0);
    CHECK(f.start.find("no mode (L-BFGS: ") != std::string::npos);

    // Pathfinder's L-BFGS needs the whole log density, and it is not Stan's start.
    const Eigen::VectorXd rows = Eigen::VectorXd::LinSpaced(10, 0.0, 1.0);
    Options on_batches{.start = advi::StartFrom::Pathfinder};
    on_batches.minibatch.emplace_back("y", rows);
    CHECK_THROWS_WITH(advi::validate_options(on_batches, 3),
                      Catch::Contains("option `start` = pathfinder needs the full data"));
    CHECK_THROWS_WITH(advi::run_advi(target, Options{.convergence = advi::ConvergenceRule::Stan,
                                                     .start = advi::StartFrom::Pathfinder}),
                      Catch::Contains("not Stan's start"));
}

namespace {

// N(m, I) in 50 coordinates, m = (3, ..., 3), whose density cannot be evaluated inside the ball
// |z|^2 < 80 around zero (as an ODE solution that dips below a declared bound at the default
// init): every draw of the initial approximation N(0, I) falls in it (|z|^2 ~ chi-square(50),
// above 80 with probability 0.004), a point uniform on (-2, 2)^50 often does not (|z|^2 ~ 67
// +- 8), and the posterior lies far outside it.
class HoleAtZero final : public advi::Target {
public:
    int dim() const override { return 50; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        if (z.squaredNorm() < 80)
            return std::numeric_limits<double>::quiet_NaN();
        const Eigen::VectorXd d = z.array() - 3.0;
        g = -d;
        return -0.5 * d.squaredNorm();
    }
};

}  // namespace

TEST_CASE(
    "where the fit cannot start from the default init, it starts from Stan's random "
    "initial values and says so",
    "[engine][start]") {
    HoleAtZero target;
    Options o;
    o.seed = 4;
    const advi::AdviResult r = advi::run_advi(target, o);
    // Stan's test of an initial point: the density at zeros is not finite
    CHECK_THAT(r.start, Catch::Contains("random initial values") &&
                            Catch::Contains("the log density is nan at zero"));
    CHECK((r.q.mean().array() - 3.0).abs().maxCoeff() < 0.3);
    // a chosen init is the user's: its failure is the error
    o.init = Eigen::VectorXd::Zero(50);
    CHECK_THROWS_WITH(advi::run_advi(target, o), Catch::Contains("initial approximation"));
}

TEST_CASE("start: Options::init_radius tries random initial values until finite, or says why",
          "[advi]") {
    // Nowhere finite: each of the 100 tries fails, and the error says how many and where.
    advi::test::BrokenTarget broken(2, -std::numeric_limits<double>::infinity());
    Options o;
    o.init_radius = 2.0;
    o.max_iterations = 200;
    try {
        (void)advi::run_advi(broken, o);
        FAIL("expected a FitError");
    } catch (const advi::FitError& e) {
        CHECK_THAT(e.what(), Catch::Contains("not finite at any of the 100 random initial points "
                                             "tried (uniform on (-2, 2)"));
    }
    // A radius that is not a radius is refused by name.
    o.init_radius = -1.0;
    auto target = gaussian_curvature(Eigen::Vector3d(1, 2, 3), test_precision());
    CHECK_THROWS_WITH(advi::run_advi(target, o),
                      Catch::Contains("option `init_radius` must be finite and >= 0, got -1"));
    // Where the first point is finite it stands: the fit ends at the same optimum as from zeros.
    o.init_radius = 2.0;
    const advi::AdviResult r = advi::run_advi(target, o);
    CHECK(r.start.find("random initial values of try") == std::string::npos);
    CHECK((r.q.mu() - Eigen::Vector3d(1, 2, 3)).cwiseAbs().maxCoeff() < 0.05);
}
