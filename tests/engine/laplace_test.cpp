// The dense Hessian (from H e_i) and the Laplace Gaussian on hand-written curvature targets:
// a Gaussian whose covariance the Laplace covariance must equal, a non-quadratic density
// against finite differences of its gradient, a saddle whose direction must be named, a
// wrong H v that must be refused as asymmetric, and a K that does not fit the memory budget.
#include <cmath>
#include <numbers>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/engine/hessian.hpp>
#include <advi/engine/laplace.hpp>
#include <advi/engine/rng.hpp>

#include "engine/targets.hpp"

using Catch::Matchers::Contains;

namespace {

// f(x, y, w) = -exp(x) + 2 x - x^2 y^2 / 2 - cosh(w) + a x y w: every second derivative
// differs from the others, so a transposed or misplaced column shows.
class Curved final : public advi::CurvatureTarget {
public:
    explicit Curved(double a = 0.3, bool wrong = false) : a_(a), wrong_(wrong) {}
    int dim() const override { return 3; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        const double x = z[0], y = z[1], w = z[2];
        g.resize(3);
        g << -std::exp(x) + 2 - x * y * y + a_ * y * w, -x * x * y + a_ * x * w,
            -std::sinh(w) + a_ * x * y;
        return -std::exp(x) + 2 * x - 0.5 * x * x * y * y - std::cosh(w) + a_ * x * y * w;
    }
    Eigen::Matrix3d hessian(const Eigen::VectorXd& z) const {
        const double x = z[0], y = z[1], w = z[2];
        Eigen::Matrix3d H;
        H << -std::exp(x) - y * y, -2 * x * y + a_ * w, a_ * y,  //
            -2 * x * y + a_ * w, -x * x, a_ * x,                 //
            a_ * y, a_ * x, -std::cosh(w);
        return H;
    }
    double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& v, Eigen::VectorXd& g,
                          Eigen::VectorXd& hv) override {
        Eigen::Matrix3d H = hessian(z);
        if (wrong_)
            H(0, 2) += 1e-3;  // a bug in one adjoint rule: only one of the pair is off
        hv = H * v;
        return log_density_gradient(z, g);
    }

private:
    double a_;
    bool wrong_;
};

Eigen::MatrixXd covariance_3() {
    Eigen::MatrixXd S(3, 3);
    S << 4.0, 1.2, -0.3, 1.2, 1.0, 0.1, -0.3, 0.1, 0.25;
    return S;
}

}  // namespace

TEST_CASE("dense_hessian of a Gaussian is minus its precision, exactly", "[engine][laplace]") {
    const Eigen::MatrixXd S = covariance_3();
    advi::test::GaussianCurvatureTarget t(Eigen::Vector3d(1, -2, 0.5), S);
    const advi::DenseHessian h = advi::dense_hessian(t, Eigen::Vector3d(0.3, 0.1, -1));
    CHECK((h.H + S.inverse()).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(h.asymmetry < 1e-14);
}

TEST_CASE("dense_hessian agrees with finite differences of the gradient", "[engine][laplace]") {
    Curved t;
    for (const Eigen::Vector3d z : {Eigen::Vector3d(0.2, -0.7, 0.4), Eigen::Vector3d(-1, 1.5, 2)}) {
        const advi::DenseHessian h = advi::dense_hessian(t, z);
        CHECK((h.H - t.hessian(z)).cwiseAbs().maxCoeff() < 1e-14);
        // and the analytic H itself against central differences of the gradient
        Eigen::Matrix3d fd;
        Eigen::VectorXd gp(3), gm(3);
        for (int i = 0; i < 3; ++i) {
            const double eps = 1e-5;
            Eigen::VectorXd zp = z, zm = z;
            zp[i] += eps;
            zm[i] -= eps;
            t.log_density_gradient(zp, gp);
            t.log_density_gradient(zm, gm);
            fd.col(i) = (gp - gm) / (2 * eps);
        }
        CHECK((h.H - fd).cwiseAbs().maxCoeff() < 1e-8);
    }
}

TEST_CASE("dense_hessian refuses an asymmetric H v, naming the pair", "[engine][laplace]") {
    Curved t(0.3, true);
    CHECK_THROWS_WITH(advi::dense_hessian(t, Eigen::Vector3d(0.2, -0.7, 0.4),
                                          [](int k) { return "`v" + std::to_string(k) + "`"; }),
                      Contains("not symmetric") && Contains("`v2`") && Contains("`v0`"));
}

TEST_CASE("the Laplace covariance of a Gaussian equals its covariance", "[engine][laplace]") {
    const Eigen::MatrixXd S = covariance_3();
    const Eigen::Vector3d m(1, -2, 0.5);
    advi::test::GaussianCurvatureTarget t(m, S);
    const advi::LaplaceGaussian g = advi::laplace_gaussian(t, m);
    CHECK((g.covariance() - S).cwiseAbs().maxCoeff() < 1e-10);
    CHECK(g.regularization() == 0.0);

    // Its log density is the target's (both normalised) at any point.
    Eigen::MatrixXd pts(3, 3);
    pts << 1, -2, 0.5, 0, 0, 0, 3, -1, 2;
    const Eigen::VectorXd lg = g.log_density(pts);
    Eigen::VectorXd grad(3);
    for (int i = 0; i < 3; ++i)
        CHECK(lg[i] == Approx(t.log_density_gradient(pts.row(i).transpose(), grad)).epsilon(1e-12));

    // Draws: mean and covariance within Monte Carlo error of (m, S).
    advi::Rng rng(7);
    const Eigen::MatrixXd d = g.draw(rng, 40000);
    const Eigen::RowVectorXd mean = d.colwise().mean();
    const Eigen::MatrixXd c = d.rowwise() - mean;
    const Eigen::MatrixXd cov = c.transpose() * c / (d.rows() - 1);
    for (int i = 0; i < 3; ++i) {
        // 5 Monte Carlo standard errors of the mean, and about 5 of the variance
        CHECK(std::abs(mean[i] - m[i]) < 5 * std::sqrt(S(i, i) / d.rows()));
        CHECK(std::abs(cov(i, i) / S(i, i) - 1) < 5 * std::sqrt(2.0 / d.rows()));
    }
    CHECK(cov(0, 1) == Approx(S(0, 1)).epsilon(0.05));
}

TEST_CASE("Laplace at a saddle names the direction that is not curved down", "[engine][laplace]") {
    // log p = x y: a saddle whose upward direction is (1, 1) / sqrt 2.
    struct Saddle final : advi::CurvatureTarget {
        int dim() const override { return 2; }
        double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
            g = Eigen::Vector2d(z[1], z[0]);
            return z[0] * z[1];  // H = [[0, 1], [1, 0]]: -H has eigenvalue -1 along (1, 1)
        }
        double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& v,
                              Eigen::VectorXd& g, Eigen::VectorXd& hv) override {
            hv = Eigen::Vector2d(v[1], v[0]);
            return log_density_gradient(z, g);
        }
    } saddle;
    const advi::LaplaceSettings named{
        .describe_coordinate = [](int k) { return k == 0 ? "`mu`" : "`tau`"; }};
    CHECK_THROWS_AS(advi::laplace_gaussian(saddle, Eigen::Vector2d(0, 0), named), advi::FitError);
    CHECK_THROWS_WITH(advi::laplace_gaussian(saddle, Eigen::Vector2d(0, 0), named),
                      Contains("not positive definite") && Contains("1 direction ") &&
                          Contains("eigenvalue -1 along 0.707 `mu` + 0.707 `tau`") &&
                          Contains("regularization above 1"));
    // Asked for, lambda = 2 makes -H + 2 I = [[2, -1], [-1, 2]] positive definite: the
    // covariance is its inverse, and the regularization is reported.
    advi::LaplaceSettings reg = named;
    reg.regularization = 2.0;
    const advi::LaplaceGaussian g = advi::laplace_gaussian(saddle, Eigen::Vector2d(0, 0), reg);
    Eigen::Matrix2d P;
    P << 2, -1, -1, 2;
    CHECK((g.covariance() - Eigen::Matrix2d(P.inverse())).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(g.regularization() == 2.0);
    reg.regularization = -1;
    CHECK_THROWS_WITH(advi::laplace_gaussian(saddle, Eigen::Vector2d(0, 0), reg),
                      Contains("regularization must be finite and >= 0, got -1"));
}

TEST_CASE("a dense Hessian that does not fit the memory budget is refused before allocating",
          "[engine][laplace]") {
    // A target of K = 100000 that would fail if it were ever evaluated: the refusal must come
    // first, from the sizes alone (3 x 1e10 doubles = 240 GB > a 1 GB budget).
    struct Huge final : advi::CurvatureTarget {
        int dim() const override { return 100000; }
        double log_density_gradient(const Eigen::VectorXd&, Eigen::VectorXd&) override {
            throw std::logic_error("evaluated");
        }
        double hessian_vector(const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd&,
                              Eigen::VectorXd&) override {
            throw std::logic_error("evaluated");
        }
    } huge;
    advi::set_memory_budget_bytes(1'000'000'000);
    const Eigen::VectorXd mode = Eigen::VectorXd::Zero(100000);
    CHECK_THROWS_AS(advi::laplace_gaussian(huge, mode), advi::SizeError);
    CHECK_THROWS_WITH(advi::laplace_gaussian(huge, mode),
                      Contains("100000 x 100000 unconstrained dimensions, 3 matrices") &&
                          Contains("needs 240 GB (30000000000 elements of 8 bytes)") &&
                          Contains("the budget of 1 GB"));
    CHECK_THROWS_WITH(advi::dense_hessian(huge, mode),
                      Contains("the dense Hessian (100000 x 100000") && Contains("80 GB"));
    advi::set_memory_budget_bytes(0);
}

TEST_CASE("Laplace from a point off the mode: Newton steps on the exact Hessian reach it",
          "[engine][laplace]") {
    const Eigen::MatrixXd S = covariance_3();
    const Eigen::Vector3d m(1, -2, 0.5);
    advi::test::GaussianCurvatureTarget t(m, S);
    const Eigen::Vector3d offset(0.5, -0.2, 0.1);
    // A quadratic log density: one full step lands on the mode; the decrement before it is
    // the offset's Mahalanobis length.
    const advi::LaplaceGaussian g = advi::laplace_gaussian(t, m + offset);
    CHECK((g.mode() - m).cwiseAbs().maxCoeff() < 1e-13);
    CHECK(g.newton_steps() == 1);
    CHECK(g.initial_decrement() ==
          Approx(std::sqrt(offset.dot(S.inverse() * offset))).epsilon(1e-12));
    CHECK(g.decrement() < 1e-12);

    // Not quadratic: f = -exp(x) + 2x - cosh(w) - x^2 y^2 / 2 (a = 0) has its maximum at
    // x = log 2, y = 0, w = 0.
    Curved c(0.0);
    const advi::LaplaceGaussian h = advi::laplace_gaussian(c, Eigen::Vector3d(1.0, 0.4, -0.5));
    // Within the tolerance, 1e-6 posterior sds (the sds here are 0.7 to 1.5).
    CHECK(std::abs(h.mode()[0] - std::log(2.0)) < 2e-6);
    CHECK(std::abs(h.mode()[1]) < 2e-6);
    CHECK(std::abs(h.mode()[2]) < 2e-6);
    CHECK(h.newton_steps() > 2);
    CHECK(h.decrement() <= 1e-6);

    // Not allowed to move: the point is refused with its distance.
    CHECK_THROWS_WITH(advi::laplace_gaussian(t, m + offset, {.max_newton_steps = 0}),
                      Contains("the point is not a mode") && Contains("still 0.771 posterior sds"));
}

TEST_CASE(
    "Laplace with the first point's Hessian reused: one dense Hessian, chord steps to the mode",
    "[engine][laplace]") {
    // Counts the Hessian-vector products and gradients the chord steps take.
    class Counting final : public advi::CurvatureTarget {
    public:
        int dim() const override { return 3; }
        double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
            ++gradients;
            return c.log_density_gradient(z, g);
        }
        double hessian_vector(const Eigen::VectorXd& z, const Eigen::VectorXd& v,
                              Eigen::VectorXd& g, Eigen::VectorXd& hv) override {
            ++products;
            return c.hessian_vector(z, v, g, hv);
        }
        Curved c{0.0};
        int products = 0;
        int gradients = 0;
    } t;
    // f = -exp(x) + 2x - cosh(w) - x^2 y^2 / 2: maximum at (log 2, 0, 0), where -H = diag(2,
    // (log 2)^2, 1). From 0.3 off in x the Hessian differs from the mode's by a third in x, so
    // each chord step shrinks the distance by about that: many steps, one Hessian.
    const Eigen::Vector3d from(std::log(2.0) + 0.3, 0.05, -0.1);
    advi::LaplaceSettings s;
    s.reuse_hessian = true;
    s.max_newton_steps = 50;
    const advi::LaplaceGaussian g = advi::laplace_gaussian(t, from, s);
    CHECK(t.products == 3);  // the one dense Hessian, at `from`
    CHECK(g.newton_steps() > 3);
    CHECK(t.gradients >= g.newton_steps());
    CHECK(std::abs(g.mode()[0] - std::log(2.0)) < 2e-6);
    CHECK(std::abs(g.mode()[1]) < 2e-6);
    CHECK(std::abs(g.mode()[2]) < 2e-6);
    // The factor is the first point's: L L' = -H(from), not -H at the mode.
    const Eigen::MatrixXd& L = g.precision_cholesky();
    const Eigen::Matrix3d P = L * L.transpose();
    CHECK((P + t.c.hessian(from)).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(std::abs(P(0, 0) - 2.0) > 0.5);

    // Too few steps for the tolerance: refused, naming the Hessian used; accepted within a
    // looser accept_tolerance.
    s.max_newton_steps = 1;
    CHECK_THROWS_WITH(advi::laplace_gaussian(t, from, s),
                      Contains("after 1 Newton steps on the first point's Hessian"));
    s.accept_tolerance = 0.1;
    CHECK(advi::laplace_gaussian(t, from, s).decrement() < 0.1);
}
