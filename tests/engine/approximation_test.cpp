// Gaussian variational families: entropy against the closed form, moments from L, the flat
// parameter layout, draws, printing.
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <string>

#include <Eigen/LU>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/engine/approximation.hpp>

using advi::Approximation;
using advi::Family;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;

namespace {

const double kLog2PiE = 1.0 + std::log(2.0 * std::numbers::pi);

Eigen::MatrixXd example_L() {
    Eigen::MatrixXd L(3, 3);
    L << 1.5, 0, 0,      //
        -0.4, 0.7, 0,    //
        0.3, 2.0, -0.5;  // a negative diagonal entry: q is the same, |L_ii| counts
    return L;
}

}  // namespace

TEST_CASE("approximation: entropy matches the Gaussian closed form", "[advi]") {
    const Eigen::Vector3d mu(0.1, -2.0, 3.0);
    const Eigen::Vector3d omega(0.3, -1.2, 0.0);
    const auto mf = Approximation::mean_field(mu, omega);
    // H = 1/2 log det(2 pi e Sigma) with Sigma = diag(exp(2 omega)).
    CHECK_THAT(mf.entropy(), WithinAbs(1.5 * kLog2PiE + 0.3 - 1.2, 1e-12));

    const auto fr = Approximation::full_rank(mu, example_L());
    const double logdet_sigma = std::log(fr.covariance().determinant());
    CHECK_THAT(fr.entropy(), WithinAbs(0.5 * (3.0 * kLog2PiE + logdet_sigma), 1e-12));
    // The paper's initial q (omega = 0, L = I) is N(0, I) in both families.
    CHECK_THAT(Approximation::initial(Family::MeanField, mu).entropy(),
               WithinAbs(1.5 * kLog2PiE, 1e-12));
    CHECK_THAT(Approximation::initial(Family::FullRank, mu).entropy(),
               WithinAbs(1.5 * kLog2PiE, 1e-12));
}

TEST_CASE("approximation: full-rank sd and covariance come from L L^T", "[advi]") {
    const auto q = Approximation::full_rank(Eigen::Vector3d::Zero(), example_L());
    Eigen::MatrixXd expect(3, 3);
    // Rows of L dotted with each other, by hand.
    expect << 2.25, -0.6, 0.45,  //
        -0.6, 0.65, 1.28,        //
        0.45, 1.28, 4.34;
    CHECK((q.covariance() - expect).cwiseAbs().maxCoeff() < 1e-12);
    CHECK_THAT(q.sd()[0], WithinAbs(1.5, 1e-12));
    CHECK_THAT(q.sd()[1], WithinAbs(std::sqrt(0.65), 1e-12));
    CHECK_THAT(q.sd()[2], WithinAbs(std::sqrt(4.34), 1e-12));
    const auto mf = Approximation::mean_field(Eigen::Vector2d(1, 2), Eigen::Vector2d(0.5, -1.0));
    CHECK_THAT(mf.sd()[0], WithinAbs(std::exp(0.5), 1e-12));
    CHECK_THAT(mf.covariance()(1, 1), WithinAbs(std::exp(-2.0), 1e-12));
    CHECK(mf.covariance()(0, 1) == 0.0);
}

TEST_CASE("approximation: flat parameter layout round-trips", "[advi]") {
    auto q = Approximation::full_rank(Eigen::Vector3d(1, 2, 3), example_L());
    REQUIRE(q.num_params() == 3 + 6);
    const Eigen::VectorXd p = q.params();
    // mu, then L's lower triangle column by column.
    CHECK(p[3] == 1.5);
    CHECK(p[4] == -0.4);
    CHECK(p[5] == 0.3);
    CHECK(p[6] == 0.7);
    CHECK(p[8] == -0.5);
    auto copy = Approximation::initial(Family::FullRank, Eigen::Vector3d::Zero());
    copy.set_params(p);
    CHECK(copy.L() == q.L());
    CHECK(copy.mu() == q.mu());
    auto mf = Approximation::initial(Family::MeanField, Eigen::Vector2d::Zero());
    REQUIRE(mf.num_params() == 4);
    mf.set_params(Eigen::Vector4d(1, 2, 3, 4));
    CHECK(mf.omega() == Eigen::Vector2d(3, 4));
    CHECK_THROWS_AS(mf.set_params(Eigen::Vector3d(1, 2, 3)), advi::ShapeError);
    CHECK_THROWS_AS(mf.L(), advi::ModelError);
}

TEST_CASE("approximation: the in-place step equals params() + rho .* grad", "[advi]") {
    // Both families: step() changes q as set_params(params() + rho .* grad) does, bit for bit;
    // add_params_to() adds params(); pack_full_rank() lays out mu and L's lower triangle as
    // params() does; a step to a non-finite value says so.
    for (const bool full : {true, false}) {
        auto q = full ? Approximation::full_rank(Eigen::Vector3d(1, 2, 3), example_L())
                      : Approximation::mean_field(Eigen::Vector3d(1, 2, 3),
                                                  Eigen::Vector3d(0.3, -1.2, 0.0));
        const int n = q.num_params();
        const Eigen::VectorXd rho = Eigen::VectorXd::LinSpaced(n, 0.1, 0.9);
        const Eigen::VectorXd grad = Eigen::VectorXd::LinSpaced(n, -2.0, 1.7);
        auto want = q;
        want.set_params((q.params().array() + rho.array() * grad.array()).matrix());
        Eigen::VectorXd sum = Eigen::VectorXd::Constant(n, 0.25);
        q.add_params_to(sum);
        CHECK(sum == (q.params().array() + 0.25).matrix());
        REQUIRE(q.step(rho, grad));
        CHECK(q.params() == want.params());
        if (full) {
            CHECK(q.L() == want.L());  // the strict upper triangle stays zero
            Eigen::VectorXd packed;
            Approximation::pack_full_rank(q.mu(), q.L(), packed);
            CHECK(packed == q.params());
        }
        Eigen::VectorXd huge = Eigen::VectorXd::Zero(n);
        huge[n - 1] = std::numeric_limits<double>::infinity();
        CHECK_FALSE(q.step(rho, huge));
        CHECK_THROWS_AS(q.step(rho.head(n - 1), grad.head(n - 1)), advi::ShapeError);
        CHECK_THROWS_WITH(
            q.step(rho.head(n - 1), grad.head(n - 1)),
            Contains("approximation step: expected vectors(" + std::to_string(n) + ")"));
        Eigen::VectorXd short_sum = Eigen::VectorXd::Zero(n - 1);
        CHECK_THROWS_WITH(
            q.add_params_to(short_sum),
            Contains("approximation parameters: expected vector(" + std::to_string(n) +
                     "), got vector(" + std::to_string(n - 1) + ")"));
    }
}

TEST_CASE("approximation: draws have q's moments", "[advi]") {
    const auto q = Approximation::full_rank(Eigen::Vector3d(1, -1, 0.5), example_L());
    advi::Rng rng(7);
    const Eigen::MatrixXd d = q.draw(rng, 200000);
    const Eigen::RowVectorXd mean = d.colwise().mean();
    const Eigen::MatrixXd centered = d.rowwise() - mean;
    const Eigen::MatrixXd cov =
        centered.transpose() * centered / (static_cast<double>(d.rows()) - 1.0);
    // Standard errors: sd/sqrt(n) <= 2.1/450 for the means, ~4.34*sqrt(2/n) for variances.
    CHECK((mean.transpose() - q.mu()).cwiseAbs().maxCoeff() < 0.025);
    CHECK((cov - q.covariance()).cwiseAbs().maxCoeff() < 0.06);
}

TEST_CASE("approximation: str prints the family and parameters", "[advi]") {
    const auto q = Approximation::mean_field(Eigen::Vector2d(1, 2.5), Eigen::Vector2d(0, 0));
    const std::string s = q.str();
    CHECK_THAT(s, Contains("mean-field q, dim 2"));
    CHECK_THAT(s, Contains("mu    = [1, 2.5]"));
    CHECK_THAT(s, Contains("sd    = [1, 1]"));
    std::ostringstream os;
    os << Approximation::full_rank(Eigen::Vector2d(0, 0), Eigen::Matrix2d::Identity());
    CHECK_THAT(os.str(), Contains("full-rank q, dim 2"));
    CHECK_THAT(os.str(), Contains("L     = [1]"));
}
