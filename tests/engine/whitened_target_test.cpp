// The whitened target zeta = m + S u: its density (with log|det S|) and gradient S' grad
// against the original target and finite differences, and q mapped back exactly.
#include <cmath>

#include <catch2/catch.hpp>

#include <advi/engine/whitened_target.hpp>

#include "engine/targets.hpp"

using advi::Approximation;
using advi::WhitenedTarget;

namespace {

// A non-quadratic density, so that the gradient check means something.
class Quartic final : public advi::Target {
public:
    int dim() const override { return 3; }
    double log_density_gradient(const Eigen::VectorXd& z, Eigen::VectorXd& g) override {
        g.resize(3);
        g << -z[0] * z[0] * z[0] + z[1], z[0] - 2.0 * z[1] + std::cos(z[2]),
            z[1] * -std::sin(z[2]) - z[2];
        return -0.25 * std::pow(z[0], 4) + z[0] * z[1] - z[1] * z[1] + z[1] * std::cos(z[2]) -
               0.5 * z[2] * z[2];
    }
};

void check_gradient(WhitenedTarget& w, const Eigen::VectorXd& u) {
    Eigen::VectorXd g(w.dim()), tmp(w.dim());
    w.log_density_gradient(u, g);
    for (int j = 0; j < w.dim(); ++j) {
        const double h = 1e-6;
        Eigen::VectorXd up = u, dn = u;
        up[j] += h;
        dn[j] -= h;
        const double fd =
            (w.log_density_gradient(up, tmp) - w.log_density_gradient(dn, tmp)) / (2 * h);
        INFO("coordinate " << j);
        CHECK(std::fabs(fd - g[j]) < 1e-6 * std::max(1.0, std::fabs(g[j])));
    }
}

}  // namespace

TEST_CASE("whitened target: density, gradient by finite differences, both families", "[advi]") {
    Quartic q;
    const Eigen::Vector3d m(0.3, -0.2, 0.7);
    const Eigen::Vector3d s(0.5, 2.0, 0.1);
    Eigen::Matrix3d L;
    L << 0.5, 0, 0, -0.3, 2.0, 0, 0.2, 0.05, 0.1;
    const Eigen::Vector3d u(0.4, -1.1, 2.0);
    WhitenedTarget mf(q, m, Eigen::VectorXd(s));
    WhitenedTarget fr(q, m, Eigen::MatrixXd(L));
    Eigen::VectorXd g(3), gz(3);
    const double lp_z = q.log_density_gradient(m + s.cwiseProduct(u), gz);
    CHECK(mf.log_density_gradient(u, g) == Approx(lp_z + std::log(0.5 * 2.0 * 0.1)).epsilon(1e-14));
    CHECK((g - s.cwiseProduct(gz)).norm() < 1e-14);
    CHECK(mf.log_density(u) == Approx(lp_z + std::log(0.1)).epsilon(1e-14));
    const double lp_fr = q.log_density_gradient(m + L * u, gz);
    CHECK(fr.log_density_gradient(u, g) == Approx(lp_fr + std::log(0.1)).epsilon(1e-14));
    CHECK((g - L.transpose() * gz).norm() < 1e-13);
    check_gradient(mf, u);
    check_gradient(fr, u);
}

TEST_CASE("whitened target: q and draws map back to the original coordinates", "[advi]") {
    Quartic q;
    const Eigen::Vector3d m(0.3, -0.2, 0.7);
    const Eigen::Vector3d s(0.5, 2.0, 0.1);
    Eigen::Matrix3d L;
    L << 0.5, 0, 0, -0.3, 2.0, 0, 0.2, 0.05, 0.1;
    WhitenedTarget mf(q, m, Eigen::VectorXd(s));
    WhitenedTarget fr(q, m, Eigen::MatrixXd(L));
    const Approximation qu =
        Approximation::mean_field(Eigen::Vector3d(0.1, 0.2, -0.3), Eigen::Vector3d(0.2, -0.1, 0.0));
    const Approximation qz = mf.to_original(qu);
    CHECK((qz.mu() - (m + s.cwiseProduct(qu.mu()))).norm() < 1e-15);
    CHECK((qz.sd() - s.cwiseProduct(qu.sd())).norm() < 1e-14);
    // Full-rank: covariance L0 C_u L0', entropy shifted by log|det L0|.
    Eigen::Matrix3d Lu;
    Lu << 1.1, 0, 0, 0.3, 0.9, 0, -0.2, 0.4, 1.2;
    const Approximation fu = Approximation::full_rank(Eigen::Vector3d(0.1, 0.2, -0.3), Lu);
    const Approximation fz = fr.to_original(fu);
    CHECK((fz.covariance() - L * fu.covariance() * L.transpose()).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(fz.entropy() == Approx(fu.entropy() + std::log(0.1)).epsilon(1e-14));
    // Draws: a draw of q(u) mapped is the draw of q(zeta) from the same eta.
    advi::Rng r1(3), r2(3);
    const Eigen::MatrixXd du = fu.draw(r1, 5);
    const Eigen::MatrixXd dz = fz.draw(r2, 5);
    CHECK((fr.to_original_rows(du) - dz).cwiseAbs().maxCoeff() < 1e-13);
    // Runaway limits: u_j may move until a zeta_k it drives reaches its limit.
    const Eigen::VectorXd lim = mf.limits_in_u(Eigen::Vector3d(700, 700, 700));
    CHECK(lim[1] == Approx((700 - 0.2) / 2.0));
    const Eigen::VectorXd limf = fr.limits_in_u(Eigen::Vector3d(700, 700, 700));
    CHECK(limf[0] == Approx((700 - 0.3) / 0.5));  // column 0: 0.5, -0.3, 0.2: the largest wins
    CHECK(limf[2] == Approx((700 - 0.7) / 0.1));
}
