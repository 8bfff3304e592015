// The row-wise supports: simplex, ordered, positive_ordered and unit_vector over mat[U,K], every
// row one vector (Stan's array[U] simplex[K]). The matrix transform against the vector one row
// by row (values and log|J|), its numeric T and T^-1, finite-difference gradients of the
// constrained values and log|J| through the compiled program, a graph whose size does not grow
// with U, membership, and shape errors naming the latent.
#include <cmath>
#include <random>
#include <string>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/transform/transform.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

const Support kSupports[] = {Support::simplex(), Support::ordered(), Support::positive_ordered(),
                             Support::unit_vector()};

// A graph on one zeta leaf with outputs "lp" = log|J| (+ sum(w .* theta) with weights, data
// slot 0) and, without weights, "theta".
Graph fragment(const Support& s, Shape shape, bool weights) {
    Graph g;
    const Transform& t = transform_for(s, PositiveTransform::Log);
    const NodeId z = g.leaf(Op::Zeta, t.unconstrained_shape(shape, s), DType::Real, 0, "z");
    const NodeId theta = t.constrain(g, z, shape, s);
    NodeId lp = t.log_abs_det_jacobian(g, z, theta, s);
    if (weights) {
        const NodeId w = g.leaf(Op::Data, shape, DType::Real, 0, "w");
        lp = g.apply(Op::Add, lp, g.apply(Op::Sum, g.apply(Op::Mul, w, theta)));
    }
    g.set_output("lp", lp);
    if (!weights)
        g.set_output("theta", theta, 0);
    return g;
}

}  // namespace

TEST_CASE("row-wise supports: a mat[U,K] is U vectors, value and log|J| row by row",
          "[transform]") {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> normal;
    const int U = 5, K = 4;
    for (const Support& s : kSupports) {
        INFO(s.str());
        const Transform& t = transform_for(s, PositiveTransform::Log);
        const Shape ms = Shape::matrix(U, K), vs = Shape::vector(K);
        REQUIRE(t.fits(ms, s));
        const Shape mz = t.unconstrained_shape(ms, s), vz = t.unconstrained_shape(vs, s);
        REQUIRE(mz == Shape::matrix(U, vz.rows));
        Program pm = Program::compile(simplify(fragment(s, ms, false)), {}, mz.size(), ms.size());
        Program pv = Program::compile(simplify(fragment(s, vs, false)), {}, vz.size(), vs.size());
        for (double scale : {0.3, 1.5, 4.0}) {
            Eigen::MatrixXd Z(U, vz.rows);
            for (auto& x : Z.reshaped()) x = scale * normal(rng);
            Eigen::VectorXd z = Z.reshaped();
            Eigen::VectorXd theta(ms.size());
            const double logdet = pm.run(z, theta);
            const Eigen::Map<const Eigen::MatrixXd> Th(theta.data(), U, K);
            double sum = 0;
            for (int u = 0; u < U; ++u) {
                Eigen::VectorXd zu = Z.row(u).transpose(), tu(K);
                sum += pv.run(zu, tu);
                // the fused kernels do the same arithmetic on each element: equal to the last
                // bit; unit_vector's row norms sum the squares in another order
                for (int k = 0; k < K; ++k) {
                    if (s.kind == Support::Kind::UnitVector) {
                        CHECK(Th(u, k) == Approx(tu[k]).epsilon(1e-15).margin(1e-15));
                    } else {
                        CHECK(Th(u, k) == tu[k]);
                    }
                }
            }
            CHECK(logdet == Approx(sum).epsilon(1e-13).margin(1e-13));
            CHECK(s.contains(theta, ms));
            // the numeric T^-1 and T (unit_vector: T gives the point on the sphere)
            const Eigen::VectorXd numeric = t.constrain_value(z, ms, s);
            CHECK((numeric - theta).cwiseAbs().maxCoeff() <=
                  1e-15 * (1 + theta.cwiseAbs().maxCoeff()));
            if (scale < 2) {
                const Eigen::VectorXd back = t.unconstrain(theta, ms, s);
                REQUIRE(back.size() == z.size());
                Eigen::MatrixXd want = Z;
                if (s.kind == Support::Kind::UnitVector)
                    want = Z.rowwise().normalized();
                const Eigen::VectorXd w = want.reshaped();
                for (int i = 0; i < z.size(); ++i)
                    CHECK(back[i] == Approx(w[i]).margin(1e-9).epsilon(1e-9));
            }
        }
    }
}

TEST_CASE("row-wise supports: gradients of the values and log|J| by finite differences",
          "[transform]") {
    const int U = 3, K = 4;
    for (const Support& s : kSupports) {
        INFO(s.str());
        const Shape ms = Shape::matrix(U, K);
        const int n = transform_for(s, PositiveTransform::Log).unconstrained_shape(ms, s).size();
        const Graph g = fragment(s, ms, true);
        Eigen::VectorXd w(ms.size());
        for (int i = 0; i < w.size(); ++i) w[i] = 0.3 - 0.45 * i + 0.07 * i * i;
        const std::vector<DataSlot> data{
            {"w", ms, DType::Real, w.data(), nullptr}
        };
        for (double scale : {0.4, 1.2, 3.0}) {
            Eigen::VectorXd z(n);
            for (int i = 0; i < n; ++i)
                z[i] = scale * (i % 2 == 0 ? 1 : -1) * (0.6 + 0.3 * std::sin(i + 1.0));
            INFO("zeta " << z.transpose());
            test::check_gradient(g, data, z);
        }
    }
}

// No per-row unrolling: the fragment of 2000 rows is the fragment of one matrix row, and its
// differentiated, compiled log density as many instructions.
TEST_CASE("row-wise supports: the graph does not grow with U", "[transform]") {
    for (const Support& s : kSupports) {
        INFO(s.str());
        const Graph one = simplify(fragment(s, Shape::matrix(1, 10), true));
        const Graph many = simplify(fragment(s, Shape::matrix(2000, 10), true));
        CHECK(one.size() == many.size());
        CHECK(many.size() < 40);
    }
}

TEST_CASE("row-wise supports: membership per row", "[transform]") {
    const Shape s = Shape::matrix(2, 3);
    Eigen::MatrixXd M(2, 3);
    M << 0.2, 0.3, 0.5, 0.1, 0.1, 0.8;
    CHECK(Support::simplex().contains(Eigen::VectorXd(M.reshaped()), s));
    M(1, 2) = 0.7;  // the second row sums to 0.9
    CHECK_FALSE(Support::simplex().contains(Eigen::VectorXd(M.reshaped()), s));
    M << 0.5, 1.0, 2.0, 0.1, 0.3, 0.2;  // the second row is not increasing
    CHECK_FALSE(Support::positive_ordered().contains(Eigen::VectorXd(M.reshaped()), s));
    M(1, 2) = 0.4;
    CHECK(Support::positive_ordered().contains(Eigen::VectorXd(M.reshaped()), s));
    // column-wise increasing is not row-wise: rows (1, 0), (2, 3)
    const Shape s2 = Shape::matrix(2, 2);
    Eigen::MatrixXd A(2, 2);
    A << 1, 0, 2, 3;
    CHECK_FALSE(Support::ordered().contains(Eigen::VectorXd(A.reshaped()), s2));
    CHECK(Support::ordered().contains(Eigen::VectorXd(A.reshaped()), Shape::vector(4)) == false);
}

TEST_CASE(
    "row-wise supports through the DSL: dirichlet and positive_ordered rows, errors name "
    "the latent",
    "[transform]") {
    Model m;
    const Eigen::VectorXd alpha = Eigen::VectorXd::Constant(3, 2.0);
    auto a = m.data("alpha", alpha);
    m.param("theta", dirichlet(a), 4, 3);
    m.param("phi", gamma(1, 1), 4, 3, {.support = Support::positive_ordered()});
    const ModelSpec spec = m.spec();
    REQUIRE(spec.latents.size() == 2);
    CHECK(spec.latents[0].support == Support::simplex());
    CHECK(spec.zeta_offsets().back() == 4 * 2);
    CHECK(compile(spec).dim() == 4 * 2 + 4 * 3);
    Model bad;
    CHECK_THROWS_WITH(
        bad.param("theta", normal(0, 1), 4, 1, {.support = Support::simplex()}),
        Catch::Contains("param `theta`: support simplex needs") && Catch::Contains("got mat[4,1]"));
}

}  // namespace advi
