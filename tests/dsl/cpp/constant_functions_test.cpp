// One-argument functions of a constant (issue 17, class 11): `advi::exp(v)` with an
// Eigen::VectorXd v, `sum(v)`, `softmax(v)`, `inverse(M)`, `exp(2.0)` compile and give the
// constant the expression would have, of the natural type (a number for a reduction, the
// argument's own type elementwise); each family checked against Eigen and the standard library.
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>

namespace advi {
namespace {

const Eigen::VectorXd v = (Eigen::VectorXd(4) << 0.3, -1.2, 2.5, 0.7).finished();
const Eigen::MatrixXd M = (Eigen::MatrixXd(2, 3) << 1.0, -2.0, 0.5, 3.0, 0.25, -1.5).finished();
// symmetric positive definite
const Eigen::MatrixXd S =
    (Eigen::MatrixXd(3, 3) << 4.0, 1.0, 0.5, 1.0, 3.0, -0.2, 0.5, -0.2, 2.0).finished();

void same(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tol = 1e-13) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    INFO("got\n" << a << "\nexpected\n" << b);
    CHECK((a - b).cwiseAbs().maxCoeff() <= tol * std::max(1.0, b.cwiseAbs().maxCoeff()));
}

}  // namespace

TEST_CASE("elementwise functions of a constant keep its type and match the library",
          "[dsl][constant_functions]") {
    static_assert(std::is_same_v<decltype(advi::exp(v)), Eigen::VectorXd>);
    static_assert(std::is_same_v<decltype(advi::exp(M)), Eigen::MatrixXd>);
    static_assert(std::is_same_v<decltype(advi::exp(2.0)), double>);
    static_assert(std::is_same_v<decltype(advi::log(v.head(2))), Eigen::VectorXd>);
    static_assert(std::is_same_v<decltype(advi::sqrt(Eigen::RowVectorXd(v.transpose()))),
                                 Eigen::RowVectorXd>);
    same(advi::exp(v), v.array().exp().matrix());
    same(advi::exp(M), M.array().exp().matrix());
    CHECK(advi::exp(2.0) == Approx(std::exp(2.0)).epsilon(1e-15));
    CHECK(advi::log(3) == Approx(std::log(3.0)).epsilon(1e-15));  // an int is a number too
    same(advi::log(v.head(2).cwiseAbs()), v.head(2).cwiseAbs().array().log().matrix());
    same(advi::square(v), v.array().square().matrix());
    same(advi::fabs(v), v.cwiseAbs());
    same(advi::inv_logit(v), (1.0 / (1.0 + (-v.array()).exp())).matrix());
    same(advi::log1m(v.cwiseAbs() / 4.0), (1.0 - v.cwiseAbs().array() / 4.0).log().matrix());
    Eigen::VectorXd phi(v.size());
    for (Eigen::Index k = 0; k < v.size(); ++k) phi[k] = 0.5 * std::erfc(-v[k] / std::sqrt(2.0));
    same(advi::Phi(v), phi);
    Eigen::VectorXd lg(v.size());
    for (Eigen::Index k = 0; k < v.size(); ++k) lg[k] = std::lgamma(std::fabs(v[k]));
    same(advi::lgamma(v.cwiseAbs()), lg);
    // an integer vector reads as reals
    const Eigen::VectorXi ints = (Eigen::VectorXi(3) << 1, 2, 3).finished();
    same(advi::sqrt(ints), ints.cast<double>().array().sqrt().matrix());
    // compositions: a function of a constant's result
    same(advi::exp(advi::log(v.cwiseAbs())), v.cwiseAbs());
}

TEST_CASE("reductions of a constant are numbers", "[dsl][constant_functions]") {
    static_assert(std::is_same_v<decltype(advi::sum(v)), double>);
    static_assert(std::is_same_v<decltype(advi::log_determinant(S)), double>);
    CHECK(advi::sum(v) == Approx(v.sum()).epsilon(1e-15));
    CHECK(advi::sum(M) == Approx(M.sum()).epsilon(1e-15));
    CHECK(advi::mean(v) == Approx(v.mean()).epsilon(1e-15));
    const double var = (v.array() - v.mean()).square().sum() / (v.size() - 1);
    CHECK(advi::variance(v) == Approx(var).epsilon(1e-14));
    CHECK(advi::sd(v) == Approx(std::sqrt(var)).epsilon(1e-14));
    CHECK(advi::prod(v) == Approx(v.prod()).epsilon(1e-15));
    CHECK(advi::min(v) == v.minCoeff());
    CHECK(advi::max(v) == v.maxCoeff());
    CHECK(advi::dot_self(v) == Approx(v.squaredNorm()).epsilon(1e-15));
    CHECK(advi::log_sum_exp(v) == Approx(std::log(v.array().exp().sum())).epsilon(1e-15));
    CHECK(advi::trace(S) == Approx(S.trace()).epsilon(1e-15));
    CHECK(advi::log_determinant(S) == Approx(std::log(S.determinant())).epsilon(1e-14));
    CHECK(advi::log_determinant_spd(S) == Approx(std::log(S.determinant())).epsilon(1e-14));
}

TEST_CASE("vector- and matrix-valued functions of a constant", "[dsl][constant_functions]") {
    static_assert(std::is_same_v<decltype(advi::softmax(v)), Eigen::VectorXd>);
    static_assert(std::is_same_v<decltype(advi::inverse(S)), Eigen::MatrixXd>);
    const Eigen::VectorXd e = v.array().exp().matrix();
    same(advi::softmax(v), e / e.sum());
    same(advi::log_softmax(v), (e / e.sum()).array().log().matrix());
    Eigen::VectorXd cs(v.size());
    std::partial_sum(v.begin(), v.end(), cs.begin());
    same(advi::cumulative_sum(v), cs);
    same(advi::to_vector(M), M.reshaped());
    same(advi::row_sums(M), M.rowwise().sum());
    same(advi::col_sums(M), M.colwise().sum().transpose());
    same(advi::diagonal(S), S.diagonal());
    same(advi::rows_dot_self(M), M.rowwise().squaredNorm());
    same(advi::diag_matrix(v), Eigen::MatrixXd(v.asDiagonal()));
    same(advi::transpose(M), M.transpose());
    same(advi::crossprod(M), M.transpose() * M);
    same(advi::tcrossprod(M), M * M.transpose());
    same(advi::cholesky_decompose(S), Eigen::MatrixXd(S.llt().matrixL()));
    same(advi::inverse(S), S.inverse(), 1e-12);
    same(advi::inverse_spd(S), S.inverse(), 1e-12);
}

TEST_CASE("a function of a constant is a constant wherever an argument is taken",
          "[dsl][constant_functions]") {
    Model m;
    const Eigen::VectorXd w = (Eigen::VectorXd(4) << 1.0, 2.0, 3.0, 4.0).finished();
    const Expr d = m.data("w", w);
    // an operand of an operator and of a two-argument function, and a distribution's argument
    const std::vector<double> r = m.evaluate(d + advi::exp(v));
    for (Eigen::Index k = 0; k < v.size(); ++k)
        CHECK(r[k] == Approx(w[k] + std::exp(v[k])).epsilon(1e-15));
    const std::vector<double> f = m.evaluate(fmax(d, advi::square(v)));
    for (Eigen::Index k = 0; k < v.size(); ++k) CHECK(f[k] == std::max(w[k], v[k] * v[k]));
    const Expr x = m.param("x", normal(advi::mean(v), advi::sd(v)));
    m.observe(d, normal(x, advi::exp(0.0)));
    CHECK(m.spec().zeta_dim() == 1);
}

}  // namespace advi
