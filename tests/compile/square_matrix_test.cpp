// A square data matrix larger than one loop block: the adjoint X' r is accumulated over the
// loop's row blocks, so a tree that reads it must run after that loop, not inside it. With
// X 200 x 200 (blocks of 160 rows) the gradient of a linear regression was read from partial
// sums before this was fixed (compile/schedule.cpp). Checked against the closed form.
#include <random>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>

namespace advi {

TEST_CASE("the gradient through X' r of a square X larger than a loop block is complete",
          "[compile]") {
    const int n = GENERATE(200, 333, 517);
    std::mt19937 rng(7);
    std::normal_distribution<double> z;
    Eigen::MatrixXd X(n, n);
    Eigen::VectorXd y(n), zeta(n);
    for (Eigen::Index k = 0; k < X.size(); ++k) X.data()[k] = z(rng);
    for (int k = 0; k < n; ++k) {
        y[k] = z(rng);
        zeta[k] = 0.1 * z(rng);
    }
    Model m;
    auto yd = m.data("y", y);
    auto Xd = m.data("X", X);
    auto beta = m.param("beta", normal(0, 10), n);
    m.observe(yd, normal(Xd * beta, 1.0));
    for (int threads : {1, 2}) {
        Program p = compile(m);
        p.set_threads(threads);
        Eigen::VectorXd grad(n);
        p.run(zeta, grad);
        // d/dbeta [sum_i log N(y_i | x_i' beta, 1) + sum_d log N(beta_d | 0, 10)]
        const Eigen::VectorXd expected = X.transpose() * (y - X * zeta) - zeta / 100.0;
        INFO("n = " << n << ", threads = " << threads);
        CHECK((grad - expected).cwiseAbs().maxCoeff() <= 1e-9 * expected.cwiseAbs().maxCoeff());
    }
}

}  // namespace advi
