// The curvature program (compile_hessian_vector): H v of whole models against their analytic
// Hessians, and against finite differences of the gradient; the CurvatureTarget adaptor; the
// layout of the H v graph.
#include <cmath>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/diff/hessian_vector.hpp>
#include <advi/engine/target.hpp>

#include "support/hessian_check.hpp"

namespace advi {
namespace {

void check_matrix(const Eigen::MatrixXd& got, const Eigen::MatrixXd& want, double tol = 1e-10) {
    REQUIRE(got.rows() == want.rows());
    REQUIRE(got.cols() == want.cols());
    for (Eigen::Index i = 0; i < got.rows(); ++i) {
        for (Eigen::Index j = 0; j < got.cols(); ++j) {
            INFO("(" << i << "," << j << "): got " << got(i, j) << ", want " << want(i, j));
            CHECK(std::abs(got(i, j) - want(i, j)) <= tol * std::max(1.0, std::abs(want(i, j))));
        }
    }
}

}  // namespace

// y ~ normal(X beta, sigma), beta ~ normal(0, 10), sigma ~ lognormal(0, 1), s = log sigma:
// lp = -|beta|^2/200 - s^2/2 - N s - e^{-2s} |r|^2 / 2 + c with r = y - X beta (the Jacobian's
// +s cancels the lognormal's -s). So H_bb = -I/100 - e^{-2s} X'X, H_bs = -2 e^{-2s} X'r,
// H_ss = -1 - 2 e^{-2s} |r|^2.
TEST_CASE("linear regression: H v equals the analytic Hessian times v", "[compile][hessian]") {
    const int n = 20, k = 3;
    Eigen::MatrixXd X(n, k);
    Eigen::VectorXd y(n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < k; ++j) X(i, j) = std::sin(1.0 + 0.7 * i + 1.9 * j);
        y[i] = 0.5 + std::cos(0.3 * i);
    }
    Model m;
    auto yd = m.data("y", y);
    auto Xd = m.data("X", X);
    auto beta = m.param("beta", normal(0, 10), k);
    auto sigma = m.param("sigma", lognormal(0, 1));
    m.observe(yd, normal(Xd * beta, sigma));
    const ModelSpec spec = m.spec();
    REQUIRE(spec.zeta_dim() == k + 1);
    REQUIRE(spec.zeta_offsets() == std::vector<int>{0, k});
    HessianVectorProgram p = compile_hessian_vector(spec);

    for (const Eigen::VectorXd& z :
         {Eigen::VectorXd{{0.3, -0.2, 0.9, 0.1}}, Eigen::VectorXd{{-1.0, 2.0, 0.0, -0.7}}}) {
        const Eigen::VectorXd b = z.head(k);
        const double s = z[k], w = std::exp(-2 * s);
        const Eigen::VectorXd r = y - X * b;
        Eigen::MatrixXd H(k + 1, k + 1);
        H.topLeftCorner(k, k) = -Eigen::MatrixXd::Identity(k, k) / 100 - w * X.transpose() * X;
        H.col(k).head(k) = -2 * w * X.transpose() * r;
        H.row(k).head(k) = H.col(k).head(k).transpose();
        H(k, k) = -1 - 2 * w * r.squaredNorm();
        INFO("zeta " << z.transpose());
        check_matrix(test::dense_hessian(p, z), H);
        Eigen::VectorXd v{
            {0.4, -1.1, 2.0, 0.6}
        },
            grad(k + 1), hv(k + 1);
        p.hessian_vector(z, v, grad, hv);
        check_matrix(hv, H * v);
        // The gradient it writes beside H v is the model's.
        Eigen::VectorXd want(k + 1);
        want.head(k) = -b / 100 + w * X.transpose() * r;
        want[k] = -s - n + w * r.squaredNorm();
        check_matrix(grad, want);
        test::check_hessian_vector(p, z);
    }
}

// mu ~ normal(0, 5), tau ~ lognormal(0, 1), theta ~ normal(mu, tau), y_j ~ normal(theta_j,
// sigma_j), s = log tau, d = theta - mu, w = e^{-2s}:
// lp = -mu^2/50 - s^2/2 - J s - w |d|^2 / 2 - sum (y - theta)^2 / (2 sigma^2) + c.
TEST_CASE("hierarchical model: H v equals the analytic Hessian times v", "[compile][hessian]") {
    const int J = 4;
    const Eigen::VectorXd y{
        {2.0, -1.0, 0.5, 3.0}
    };
    const Eigen::VectorXd sd{
        {1.0, 2.0, 0.5, 1.5}
    };
    Model m;
    auto yd = m.data("y", y);
    auto sdd = m.data("sigma", sd);
    auto mu = m.param("mu", normal(0, 5));
    auto tau = m.param("tau", lognormal(0, 1));
    auto theta = m.param("theta", normal(mu, tau), J);
    m.observe(yd, normal(theta, sdd));
    const ModelSpec spec = m.spec();
    REQUIRE(spec.zeta_offsets() == std::vector<int>{0, 1, 2});
    HessianVectorProgram p = compile_hessian_vector(spec);
    for (const Eigen::VectorXd& z : {Eigen::VectorXd{{0.5, -0.3, 1.0, -0.5, 0.2, 2.0}},
                                     Eigen::VectorXd{{-1.5, 1.2, 0.0, 0.3, -2.0, 0.7}}}) {
        const double mu0 = z[0], s = z[1], w = std::exp(-2 * s);
        const Eigen::VectorXd th = z.tail(J), d = th.array() - mu0;
        Eigen::MatrixXd H = Eigen::MatrixXd::Zero(J + 2, J + 2);
        H(0, 0) = -1.0 / 25 - J * w;
        H(0, 1) = H(1, 0) = -2 * w * d.sum();
        H(1, 1) = -1 - 2 * w * d.squaredNorm();
        for (int j = 0; j < J; ++j) {
            H(2 + j, 2 + j) = -w - 1 / (sd[j] * sd[j]);
            H(0, 2 + j) = H(2 + j, 0) = w;
            H(1, 2 + j) = H(2 + j, 1) = 2 * w * d[j];
        }
        INFO("zeta " << z.transpose());
        check_matrix(test::dense_hessian(p, z), H);
        test::check_hessian_vector(p, z);
    }
}

// x ~ uniform(0, 1) on zeta = logit(x): the density is flat in x, so without the Jacobian
// H = 0; with it, lp = log x + log(1 - x) and H = -2 x (1 - x).
TEST_CASE("H v with and without the log-Jacobian", "[compile][hessian]") {
    Model m;
    auto x = m.param("x", uniform(0, 1));
    (void)x;
    HessianVectorProgram with = compile_hessian_vector(m.spec());
    HessianVectorProgram without = compile_hessian_vector(m.spec(), false);
    for (double z : {-2.0, 0.0, 0.7, 3.0}) {
        const double xv = 1 / (1 + std::exp(-z));
        const Eigen::VectorXd zeta{{z}}, v{{1.5}};
        Eigen::VectorXd grad(1), hv(1);
        with.hessian_vector(zeta, v, grad, hv);
        CHECK(hv[0] == Approx(-2 * xv * (1 - xv) * 1.5).epsilon(1e-13));
        CHECK(grad[0] == Approx(1 - 2 * xv).epsilon(1e-13).margin(1e-15));
        without.hessian_vector(zeta, v, grad, hv);
        CHECK(hv[0] == 0.0);
        CHECK(grad[0] == 0.0);
    }
}

TEST_CASE("the curvature program is a CurvatureTarget and refuses vectors of the wrong size",
          "[compile][hessian]") {
    Model m;
    auto x = m.param("x", normal(1, 2), 2);
    (void)x;
    HessianVectorProgram p = compile_hessian_vector(m.spec());
    CurvatureTargetRef<HessianVectorProgram> t(p);
    CurvatureTarget& target = t;
    REQUIRE(target.dim() == 2);
    const Eigen::VectorXd z{
        {0.5, -1.0}
    },
        v{{3.0, 1.0}};
    Eigen::VectorXd grad(2), hv(2);
    const double lp = target.hessian_vector(z, v, grad, hv);
    // log normal(x | 1, 2) = -(x - 1)^2 / 8 + c: H = -I/4.
    CHECK(hv[0] == Approx(-0.75).epsilon(1e-14));
    CHECK(hv[1] == Approx(-0.25).epsilon(1e-14));
    CHECK(grad[0] == Approx(0.125).epsilon(1e-14));
    CHECK(grad[1] == Approx(0.5).epsilon(1e-14));
    Eigen::VectorXd g2(2);
    CHECK(target.log_density_gradient(z, g2) == Approx(lp).epsilon(1e-14));
    const Eigen::VectorXd short_v{{1.0}};
    CHECK_THROWS_WITH(
        target.hessian_vector(z, short_v, grad, hv),
        Catch::Contains("expected zeta and v of 2") && Catch::Contains("got 2 and 1"));
}

TEST_CASE("the H v graph: v enters as zeta leaves after zeta, H v is written after the gradient",
          "[compile][hessian]") {
    Model m;
    auto a = m.param("a", normal(0, 1));
    auto b = m.param("b", normal(a, 1), 2);
    (void)b;
    const CurvatureStages s = curvature_stages(m.spec());
    const Graph& g = s.simplified;
    std::map<std::string, int> offset;
    for (const Graph::Output& o : g.outputs()) offset[o.name] = o.offset;
    CHECK(offset.at("lp") == -1);
    CHECK(offset.at("grad a") == 0);
    CHECK(offset.at("grad b") == 1);
    CHECK(offset.at("hv a") == 3);
    CHECK(offset.at("hv b") == 4);
    int v_leaves = 0;
    for (NodeId id = 0; id < g.size(); ++id) {
        if (g[id].op == Op::Zeta && g.label(id).rfind("v ", 0) == 0) {
            ++v_leaves;
            CHECK(g[id].index >= 3);
        }
    }
    CHECK(v_leaves == 2);
}

// The two stages (point once per zeta, direction once per v) against one program of the whole
// H v graph, at new and repeated points (tau down to e^-20, where lp runs off): the same lp,
// gradient and H v to rounding, and the point stage runs once per distinct zeta.
TEST_CASE("the point and direction stages give the whole graph's H v", "[compile][hessian]") {
    const Eigen::VectorXd y = (Eigen::VectorXd(8) << 28, 8, -3, 7, -1, 1, 18, 12).finished();
    const Eigen::VectorXd sigma = (Eigen::VectorXd(8) << 15, 10, 16, 11, 9, 11, 10, 18).finished();
    Model m;
    auto yd = m.data("y", y);
    auto sd = m.data("sigma", sigma);
    auto mu = m.param("mu", normal(0, 5));
    auto tau = m.param("tau", cauchy(0, 5), {.lower = 0.0});
    auto theta = m.param("theta", normal(mu, tau), 8);
    m.observe(yd, normal(theta, sd));
    const ModelSpec spec = m.spec();
    const int k = spec.zeta_dim();
    const CurvatureStages s = curvature_stages(spec);
    Program whole = Program::compile(s.simplified, spec.data, 2 * k, 2 * k);
    HessianVectorProgram p = compile_hessian_vector(spec);
    const HessianVectorStages split = split_hessian_vector(s.simplified, k, 2);
    CHECK(split.boundary.size() == split.names.size());
    CHECK(split.boundary_size > 0);
    CHECK(split.direction.output("hv theta").has_value());
    CHECK_FALSE(split.point.output("hv theta").has_value());
    CHECK(split.point.output("grad theta").has_value());
    Eigen::VectorXd grad(k), hv(k), both(2 * k), out(2 * k);
    long runs = 0;
    for (int point = 0; point < 3; ++point) {
        Eigen::VectorXd z(k);
        for (int i = 0; i < k; ++i) z[i] = std::sin(1.3 * i + 2.1 * point) * (point + 0.5);
        z[1] =
            -10.0 * point;  // log tau; the thetas close to mu, as on the way to the funnel's neck
        for (int i = 2; i < k; ++i) z[i] = z[0] + 1e-3 * i * (point == 0 ? 1000 : 1);
        for (int dir = 0; dir < 3; ++dir) {
            Eigen::VectorXd v(k);
            for (int i = 0; i < k; ++i) v[i] = std::cos(0.7 * i * (dir + 1) + point);
            both << z, v;
            const double lp_whole = whole.run(both, out);
            const double lp = p.hessian_vector(z, v, grad, hv);
            INFO("point " << point << ", direction " << dir);
            CHECK(lp == Approx(lp_whole).epsilon(1e-14));
            for (int i = 0; i < k; ++i) {
                CHECK(grad[i] == Approx(out[i]).epsilon(1e-13).margin(1e-13));
                CHECK(hv[i] == Approx(out[k + i]).epsilon(1e-12).margin(1e-12));
            }
        }
        CHECK(p.point_runs() == ++runs);
    }
    // set_threads reallocates the point program's arena: the point stage runs again at the
    // same zeta and the direction stage reads the new buffers.
    Eigen::VectorXd z = Eigen::VectorXd::Constant(k, 0.2), v = Eigen::VectorXd::LinSpaced(k, -1, 1);
    both << z, v;
    whole.run(both, out);
    p.hessian_vector(z, v, grad, hv);
    p.set_threads(2);
    const Eigen::VectorXd before = hv;
    p.hessian_vector(z, v, grad, hv);
    CHECK(p.point_runs() == runs + 2);
    CHECK((hv.array() == before.array()).all());
    for (int i = 0; i < k; ++i) CHECK(hv[i] == Approx(out[k + i]).epsilon(1e-12).margin(1e-12));
}

}  // namespace advi
