// The multivariate distributions: log densities against explicit computations here (Eigen
// inverses and determinants, lgamma) and against Boost.Math where a row reduces to a
// univariate law, normalisation by quadrature where it is cheap, gradients against finite
// differences in every real argument and the variate, and errors naming the argument.
#include <cmath>
#include <deque>
#include <map>
#include <numbers>
#include <set>

#include <Eigen/Dense>
#include <boost/math/distributions.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/base/error.hpp>
#include <advi/compile/constrain.hpp>
#include <advi/dist/distribution.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

namespace bm = boost::math;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using Eigen::VectorXi;

constexpr double kLog2Pi = 1.8378770664093453;

MatrixXd fill(int r, int c, double seed) {
    MatrixXd m(r, c);
    for (int j = 0; j < c; ++j) {
        for (int i = 0; i < r; ++i) m(i, j) = std::sin(seed + 1.3 * i + 0.7 * j + 0.31 * i * j);
    }
    return m;
}
VectorXd fill(int n, double seed) {
    return fill(n, 1, seed).col(0);
}
MatrixXd spd_of(const MatrixXd& A) {
    return A * A.transpose() + A.rows() * MatrixXd::Identity(A.rows(), A.rows());
}
double logdet(const MatrixXd& S) {
    return std::log(Eigen::FullPivLU<MatrixXd>(S).determinant());
}

// A graph with zeta inputs (with their values), real data and integer data.
struct Built {
    Graph g;
    std::vector<DataSlot> data;
    std::deque<MatrixXd> reals;
    std::deque<VectorXi> ints;
    std::vector<double> z;

    static Shape shape_of(const MatrixXd& v, char kind) {
        const int r = static_cast<int>(v.rows()), c = static_cast<int>(v.cols());
        return kind == 's' ? Shape::scalar() : kind == 'v' ? Shape::vector(r) : Shape::matrix(r, c);
    }
    NodeId zeta(const MatrixXd& v, char kind) {
        const Shape s = shape_of(v, kind);
        const NodeId id = g.leaf(Op::Zeta, s, DType::Real, static_cast<int>(z.size()), "");
        z.insert(z.end(), v.data(), v.data() + v.size());
        return id;
    }
    NodeId real(const MatrixXd& v, char kind) {
        reals.push_back(v);
        const Shape s = shape_of(v, kind);
        data.push_back({"d", s, DType::Real, reals.back().data(), nullptr});
        return g.leaf(Op::Data, s, DType::Real, static_cast<int>(data.size()) - 1, "d");
    }
    NodeId ints_(const VectorXi& v) {
        ints.push_back(v);
        const Shape s = Shape::vector(static_cast<int>(v.size()));
        data.push_back({"y", s, DType::Int, nullptr, ints.back().data()});
        return g.leaf(Op::Data, s, DType::Int, static_cast<int>(data.size()) - 1, "y");
    }
    // An input: a zeta slice when `free` (differentiated), else data.
    NodeId in(const MatrixXd& v, char kind, bool free) {
        return free ? zeta(v, kind) : real(v, kind);
    }
    // S = A A' + n I from free A (positive definite whatever A).
    NodeId spd(const MatrixXd& A) {
        const NodeId a = zeta(A, 'm');
        const int n = static_cast<int>(A.rows());
        const NodeId I = g.apply(Op::DiagMatrix, g.constant(1.0, Shape::vector(n)));
        return g.apply(Op::Add, g.apply(Op::MatMulT, a, a), g.apply(Op::Mul, g.constant(n), I));
    }
    [[nodiscard]] VectorXd zeta_values() const {
        return Eigen::Map<const VectorXd>(z.data(), static_cast<Eigen::Index>(z.size()));
    }
    void density(std::string_view name, NodeId x, std::vector<NodeId> args) {
        g.set_output("lp", log_density(g, distribution(name), x, args));
    }
    double value() {
        Program p = test::value_program(g, data, static_cast<int>(z.size()));
        return test::value_at(p, zeta_values());
    }
    void gradient(double tol = 1e-6) { test::check_gradient(g, data, zeta_values(), tol); }
};

// multi_normal by hand: sum_n -K/2 log 2pi - log|Sigma|/2 - r_n' Sigma^-1 r_n / 2.
double mvn_ref(const MatrixXd& Y, const MatrixXd& Mu, const MatrixXd& Sigma) {
    const MatrixXd P = Eigen::FullPivLU<MatrixXd>(Sigma).inverse();
    double lp = 0;
    for (int n = 0; n < Y.rows(); ++n) {
        const VectorXd r = (Y.row(n) - Mu.row(Mu.rows() == 1 ? 0 : n)).transpose();
        lp += -0.5 * Y.cols() * kLog2Pi - 0.5 * logdet(Sigma) - 0.5 * r.dot(P * r);
    }
    return lp;
}

// The LKJ normalising constant as Stan computes it for eta = 1 (its closed form, from
// Lewandowski, Kurowicka and Joe 2009): an independent check of the general formula.
double lkj_constant_eta1(int K) {
    const double log_pi = std::log(std::numbers::pi), log2 = std::log(2.0);
    double constant = 0;
    for (int k = 1; k <= (K - 1) / 2; ++k) constant -= std::lgamma(2.0 * k);
    const int Km1 = K - 1;
    if (K % 2 == 1) {
        constant -= 0.25 * (K * K - 1) * log_pi - 0.25 * (Km1 * Km1) * log2 -
                    Km1 * std::lgamma(0.5 * (K + 1));
    } else {
        constant -= 0.25 * K * (K - 2) * log_pi + 0.25 * (3 * K * K - 4 * K) * log2 +
                    K * std::lgamma(0.5 * K) - Km1 * std::lgamma(static_cast<double>(K));
    }
    return constant;
}

// A Cholesky factor of a correlation matrix from free values (rows of unit length).
MatrixXd corr_cholesky(int K, double seed) {
    MatrixXd L = MatrixXd::Zero(K, K);
    const MatrixXd raw = fill(K, K, seed);
    for (int i = 0; i < K; ++i) {
        VectorXd r = raw.row(i).head(i + 1).transpose();
        r[i] = 1.5 + 0.2 * i;
        L.row(i).head(i + 1) = r.transpose() / r.norm();
    }
    return L;
}

double lmgamma(int K, double x) {
    double s = K * (K - 1) / 4.0 * std::log(std::numbers::pi);
    for (int j = 1; j <= K; ++j) s += std::lgamma(x + (1.0 - j) / 2);
    return s;
}

}  // namespace

TEST_CASE("every multivariate row has a test here", "[dist][multivariate]") {
    const std::set<std::string_view> tested = {
        "multi_normal", "multi_normal_cholesky", "dirichlet", "categorical", "categorical_logit",
        "ordered_logistic", "lkj_corr_cholesky", "lkj_corr", "wishart", "inv_wishart",
        // tests/dist/wishart_cholesky_test.cpp
        "wishart_cholesky", "inv_wishart_cholesky"};
    for (const DistInfo& d : distributions()) {
        if (!d.multivariate)
            continue;
        INFO(d.name);
        CHECK(tested.count(d.name) == 1);
    }
}

TEST_CASE("multi_normal and multi_normal_cholesky", "[dist][multivariate]") {
    const int N = 4, K = 3;
    const MatrixXd Y = 2 * fill(N, K, 0.3), A = fill(K, K, 1.1), Sigma = spd_of(A);
    const VectorXd mu = fill(K, 2.0);
    const MatrixXd L = Eigen::LLT<MatrixXd>(Sigma).matrixL();
    SECTION("values: one draw per row, a shared or a per-draw mean, one draw") {
        for (const char* name : {"multi_normal", "multi_normal_cholesky"}) {
            const MatrixXd& S = std::string_view(name) == "multi_normal" ? Sigma : L;
            INFO(name);
            Built b;
            b.density(name, b.real(Y, 'm'), {b.real(mu, 'v'), b.real(S, 'm')});
            CHECK(b.value() == Approx(mvn_ref(Y, mu.transpose(), Sigma)).epsilon(1e-12));
            const MatrixXd Mu = fill(N, K, 0.9);
            Built per;
            per.density(name, per.real(Y, 'm'), {per.real(Mu, 'm'), per.real(S, 'm')});
            CHECK(per.value() == Approx(mvn_ref(Y, Mu, Sigma)).epsilon(1e-12));
            Built one;
            const VectorXd y = Y.row(1).transpose();
            one.density(name, one.real(y, 'v'), {one.real(mu, 'v'), one.real(S, 'm')});
            CHECK(one.value() ==
                  Approx(mvn_ref(y.transpose(), mu.transpose(), Sigma)).epsilon(1e-12));
        }
    }
    SECTION("K = 1 is the normal distribution") {
        Built b;
        const MatrixXd y = fill(5, 1, 0.2), s2 = MatrixXd::Constant(1, 1, 2.3);
        b.density("multi_normal", b.real(y, 'm'),
                  {b.real(VectorXd::Constant(1, 0.4), 'v'), b.real(s2, 'm')});
        double want = 0;
        for (int i = 0; i < 5; ++i)
            want += std::log(bm::pdf(bm::normal(0.4, std::sqrt(2.3)), y(i, 0)));
        CHECK(b.value() == Approx(want).epsilon(1e-12));
    }
    SECTION("gradients in y, mu, Sigma (through A A' + n I, and free) and L") {
        for (bool per_draw : {false, true}) {
            Built b;
            const NodeId y = b.zeta(Y, 'm');
            const NodeId m = per_draw ? b.zeta(fill(N, K, 0.9), 'm') : b.zeta(mu, 'v');
            b.density("multi_normal", y, {m, b.spd(A)});
            b.gradient();
        }
        Built free;  // Sigma itself free: only its lower triangle is read
        free.density("multi_normal", free.zeta(Y, 'm'),
                     {free.zeta(mu, 'v'), free.zeta(Sigma, 'm')});
        free.gradient();
        Built chol;
        chol.density("multi_normal_cholesky", chol.zeta(Y.row(0).transpose(), 'v'),
                     {chol.zeta(mu, 'v'), chol.zeta(L, 'm')});
        chol.gradient();
    }
    SECTION("shape errors name the distribution, the argument and both shapes") {
        Built b;
        const NodeId y = b.real(Y, 'm');
        CHECK_THROWS_AS(
            b.density("multi_normal", y, {b.real(fill(4, 0.1), 'v'), b.real(Sigma, 'm')}),
            ShapeError);
        CHECK_THROWS_WITH(
            b.density("multi_normal", y, {b.real(fill(4, 0.1), 'v'), b.real(Sigma, 'm')}),
            Catch::Contains("multi_normal: argument `mu` is vec[4] but the variate is mat[4,3]"));
        CHECK_THROWS_WITH(
            b.density("multi_normal", y, {b.real(mu, 'v'), b.real(fill(2, 2, 0.1), 'm')}),
            Catch::Contains("multi_normal: argument `Sigma` is mat[2,2] but the variate "
                            "is mat[4,3] (expected mat[3,3])"));
        CHECK_THROWS_WITH(
            b.density("multi_normal_cholesky", b.real(Y, 's'), {b.real(mu, 'v'), b.real(L, 'm')}),
            Catch::Contains("multi_normal_cholesky: the variate is real"));
    }
}

TEST_CASE("dirichlet", "[dist][multivariate]") {
    const VectorXd alpha = (VectorXd(3) << 0.7, 2.0, 4.5).finished();
    auto ref = [&](const VectorXd& theta) {
        double lp = std::lgamma(alpha.sum());
        for (int k = 0; k < 3; ++k)
            lp += (alpha[k] - 1) * std::log(theta[k]) - std::lgamma(alpha[k]);
        return lp;
    };
    MatrixXd Theta(2, 3);
    Theta << 0.2, 0.3, 0.5, 1e-3, 0.9, 0.099;
    SECTION("values: one simplex, and one per row") {
        Built one;
        one.density("dirichlet", one.real(Theta.row(0).transpose(), 'v'), {one.real(alpha, 'v')});
        CHECK(one.value() == Approx(ref(Theta.row(0).transpose())).epsilon(1e-12));
        Built rows;
        rows.density("dirichlet", rows.real(Theta, 'm'), {rows.real(alpha, 'v')});
        CHECK(rows.value() ==
              Approx(ref(Theta.row(0).transpose()) + ref(Theta.row(1).transpose())).epsilon(1e-12));
    }
    SECTION("K = 2 is the beta distribution of the first component") {
        Built b;
        const VectorXd theta = (VectorXd(2) << 0.3, 0.7).finished(),
                       a = (VectorXd(2) << 2.5, 0.8).finished();
        b.density("dirichlet", b.real(theta, 'v'), {b.real(a, 'v')});
        CHECK(b.value() ==
              Approx(std::log(bm::pdf(bm::beta_distribution<>(2.5, 0.8), 0.3))).epsilon(1e-12));
    }
    SECTION("gradients in theta (near the edge too) and alpha") {
        Built b;
        b.density("dirichlet", b.zeta(Theta, 'm'), {b.zeta(alpha, 'v')});
        b.gradient();
    }
    SECTION("shape errors") {
        Built b;
        CHECK_THROWS_WITH(
            b.density("dirichlet", b.real(Theta, 'm'), {b.real(fill(2, 0.1), 'v')}),
            Catch::Contains("dirichlet: argument `alpha` is vec[2] but the variate is "
                            "mat[2,3] (expected vec[3])"));
    }
}

TEST_CASE("categorical and categorical_logit: 0-based categories", "[dist][multivariate]") {
    const VectorXd theta = (VectorXd(3) << 0.2, 0.5, 0.3).finished();
    const VectorXi y = (VectorXi(5) << 0, 2, 2, 1, 0).finished();
    SECTION("values") {
        Built b;
        b.density("categorical", b.ints_(y), {b.real(theta, 'v')});
        double want = 0;
        for (int k : y) want += std::log(theta[k]);
        CHECK(b.value() == Approx(want).epsilon(1e-12));
        const VectorXd beta = (VectorXd(3) << 800.0, 799.0, -3.0).finished();  // no overflow
        Built l;
        l.density("categorical_logit", l.ints_(y), {l.real(beta, 'v')});
        const double lse = 800 + std::log1p(std::exp(-1.0) + std::exp(-803.0));
        double wl = 0;
        for (int k : y) wl += beta[k] - lse;
        CHECK(l.value() == Approx(wl).epsilon(1e-12));
    }
    SECTION("K = 2 is the Bernoulli distribution") {
        const VectorXi y2 = (VectorXi(4) << 1, 0, 1, 1).finished();
        Built b;
        b.density("categorical", b.ints_(y2),
                  {b.real((VectorXd(2) << 0.35, 0.65).finished(), 'v')});
        double want = 0;
        for (int k : y2) want += std::log(bm::pdf(bm::bernoulli(0.65), k));
        CHECK(b.value() == Approx(want).epsilon(1e-12));
    }
    SECTION("gradients") {
        Built b;
        b.density("categorical", b.ints_(y), {b.zeta(theta, 'v')});
        b.gradient();
        Built l;
        l.density("categorical_logit", l.ints_(y), {l.zeta(fill(3, 0.4) * 5, 'v')});
        l.gradient();
    }
    SECTION("errors: a category out of range, a real variate, a matrix argument") {
        Built b;
        VectorXi bad = y;
        bad[3] = 3;
        b.density("categorical", b.ints_(bad), {b.real(theta, 'v')});
        CHECK_THROWS_AS(b.value(), DataError);
        CHECK_THROWS_WITH(b.value(), Catch::Contains("index 3 at position 3 is outside 0..2"));
        Built r;
        CHECK_THROWS_WITH(r.density("categorical", r.real(theta, 'v'), {r.real(theta, 'v')}),
                          Catch::Contains("categorical: the variate must be integer data"));
        CHECK_THROWS_WITH(
            r.density("categorical_logit", r.ints_(y), {r.real(fill(3, 3, 0.1), 'm')}),
            Catch::Contains(
                "categorical_logit: argument `beta` is mat[3,3] but the variate is vec[5]"));
        Model m;
        const VectorXi negative = (VectorXi(2) << 1, -1).finished();
        auto yd = m.data("y", negative);
        CHECK_THROWS_WITH(
            m.observe(yd, dist("categorical", {m.data("theta", theta)})),
            Catch::Contains("value -1 at index 1 is outside the support of categorical"));
    }
}

TEST_CASE("ordered_logistic", "[dist][multivariate]") {
    const VectorXd c = (VectorXd(3) << -1.0, 0.5, 2.0).finished();
    const VectorXi y = (VectorXi(6) << 0, 1, 2, 3, 3, 0).finished();
    const VectorXd eta = (VectorXd(6) << 0.3, -2.0, 1.0, 4.0, -30.0, 30.0).finished();
    auto inv_logit = [](double x) { return 1 / (1 + std::exp(-x)); };
    // Stan's definition, by differences of probabilities (fine away from the far tails)
    auto p = [&](int k, double e) {
        if (k == 0)
            return 1 - inv_logit(e - c[0]);
        if (k == 3)
            return inv_logit(e - c[2]);
        return inv_logit(e - c[k - 1]) - inv_logit(e - c[k]);
    };
    SECTION("values, including far tails") {
        Built b;
        b.density("ordered_logistic", b.ints_(y.head(4)),
                  {b.real(eta.head(4), 'v'), b.real(c, 'v')});
        double want = 0;
        for (int n = 0; n < 4; ++n) want += std::log(p(y[n], eta[n]));
        CHECK(b.value() == Approx(want).epsilon(1e-12));
        // y = 3 at eta = -30: log logit^-1(-30 - c_2) = -32 - log1p(e^-32); y = 0 at eta = 30:
        // log(1 - logit^-1(30 - c_0)) = log logit^-1(-31), where 1 - p would keep 2 digits
        Built t;
        t.density("ordered_logistic", t.ints_(y.tail(2)),
                  {t.real(eta.tail(2), 'v'), t.real(c, 'v')});
        const double tails = -32 - std::log1p(std::exp(-32.0)) - 31 - std::log1p(std::exp(-31.0));
        CHECK(t.value() == Approx(tails).epsilon(1e-12));
    }
    SECTION("one cut point is bernoulli_logit(eta - c); a scalar eta broadcasts") {
        const VectorXi y2 = (VectorXi(3) << 1, 0, 1).finished();
        Built b;
        b.density(
            "ordered_logistic", b.ints_(y2),
            {b.real(MatrixXd::Constant(1, 1, 0.4), 's'), b.real(VectorXd::Constant(1, -0.6), 'v')});
        double want = 0;
        for (int k : y2) want += std::log(bm::pdf(bm::bernoulli(inv_logit(0.4 + 0.6)), k));
        CHECK(b.value() == Approx(want).epsilon(1e-12));
    }
    SECTION("gradients in eta and c, near the tails too") {
        Built b;
        b.density("ordered_logistic", b.ints_(y), {b.zeta(eta, 'v'), b.zeta(c, 'v')});
        b.gradient();
        Built s;
        s.density("ordered_logistic", s.ints_(y),
                  {s.zeta(MatrixXd::Constant(1, 1, 0.7), 's'), s.zeta(c, 'v')});
        s.gradient();
    }
    SECTION("shape errors") {
        Built b;
        CHECK_THROWS_WITH(
            b.density("ordered_logistic", b.ints_(y), {b.real(fill(4, 0.1), 'v'), b.real(c, 'v')}),
            Catch::Contains(
                "ordered_logistic: argument `eta` is vec[4] but the variate is vec[6]"));
        CHECK_THROWS_WITH(
            b.density("ordered_logistic", b.ints_(y),
                      {b.real(eta, 'v'), b.real(fill(2, 2, 0.1), 'm')}),
            Catch::Contains(
                "ordered_logistic: argument `c` is mat[2,2] but the variate is vec[6]"));
    }
}

TEST_CASE("lkj_corr_cholesky and lkj_corr", "[dist][multivariate]") {
    SECTION("K = 2: the density of the correlation integrates to 1") {
        for (double eta : {0.7, 1.0, 2.5}) {
            auto density = [&](const char* name, double r) {
                Built b;
                MatrixXd X(2, 2);
                if (std::string_view(name) == "lkj_corr") {
                    X << 1, r, r, 1;
                } else {
                    X << 1, 0, r, std::sqrt(1 - r * r);  // L21 = Omega21 = r: no Jacobian at K = 2
                }
                b.density(name, b.real(X, 'm'), {b.real(MatrixXd::Constant(1, 1, eta), 's')});
                return std::exp(b.value());
            };
            bm::quadrature::tanh_sinh<double> integrator;
            for (const char* name : {"lkj_corr", "lkj_corr_cholesky"}) {
                INFO(name << " eta " << eta);
                const double total =
                    integrator.integrate([&](double r) { return density(name, r); }, -1.0, 1.0);
                CHECK(total == Approx(1.0).epsilon(1e-8));
            }
        }
    }
    SECTION("the constant at eta = 1 against Stan's closed form, K = 2..7") {
        for (int K = 2; K <= 7; ++K) {
            Built b;  // at L = I every log-diagonal term is 0: the value is the constant
            b.density("lkj_corr_cholesky", b.real(MatrixXd::Identity(K, K), 'm'),
                      {b.real(MatrixXd::Constant(1, 1, 1.0), 's')});
            INFO("K = " << K);
            CHECK(b.value() == Approx(lkj_constant_eta1(K)).epsilon(1e-12));
        }
    }
    SECTION("values: log det and the Jacobian of L -> L L'") {
        const int K = 4;
        const double eta = 1.7;
        const MatrixXd L = corr_cholesky(K, 0.5);
        const MatrixXd Omega = L * L.transpose();
        Built one;  // the constant at eta, from the eta = 1 density at L = I and the ratio
        one.density("lkj_corr", one.real(Omega, 'm'),
                    {one.real(MatrixXd::Constant(1, 1, eta), 's')});
        Built id;
        id.density("lkj_corr", id.real(MatrixXd::Identity(K, K), 'm'),
                   {id.real(MatrixXd::Constant(1, 1, eta), 's')});
        // lkj_corr(Omega) - lkj_corr(I) = (eta - 1) log det Omega
        CHECK(one.value() - id.value() == Approx((eta - 1) * logdet(Omega)).epsilon(1e-12));
        Built chol;
        chol.density("lkj_corr_cholesky", chol.real(L, 'm'),
                     {chol.real(MatrixXd::Constant(1, 1, eta), 's')});
        double jacobian = 0;
        for (int k = 1; k < K; ++k) jacobian += (K - k - 1) * std::log(L(k, k));
        CHECK(chol.value() == Approx(one.value() + jacobian).epsilon(1e-12));
    }
    SECTION("gradients in the variate and eta") {
        for (double eta : {0.3, 1.0, 4.0}) {
            Built b;
            b.density("lkj_corr_cholesky", b.zeta(corr_cholesky(4, 0.2), 'm'),
                      {b.zeta(MatrixXd::Constant(1, 1, eta), 's')});
            b.gradient();
            const MatrixXd L = corr_cholesky(3, 0.9);
            Built c;
            c.density("lkj_corr", c.zeta(L * L.transpose(), 'm'),
                      {c.zeta(MatrixXd::Constant(1, 1, eta), 's')});
            c.gradient();
        }
    }
    SECTION("errors") {
        Built b;
        CHECK_THROWS_WITH(
            b.density("lkj_corr_cholesky", b.real(fill(2, 3, 0.1), 'm'),
                      {b.real(MatrixXd::Constant(1, 1, 2), 's')}),
            Catch::Contains(
                "lkj_corr_cholesky: the variate is mat[2,3] (expected a square matrix"));
        CHECK_THROWS_WITH(
            b.density("lkj_corr", b.real(MatrixXd::Identity(3, 3), 'm'),
                      {b.real(fill(3, 0.1), 'v')}),
            Catch::Contains(
                "lkj_corr: argument `eta` is vec[3] but the variate is mat[3,3] (expected real)"));
        CHECK_THROWS_WITH(
            b.density("lkj_corr", b.real(MatrixXd::Identity(3, 3), 'm'), {b.g.constant(-1.0)}),
            Catch::Contains("lkj_corr: argument `eta` must be positive, got -1"));
    }
}

TEST_CASE("wishart and inv_wishart", "[dist][multivariate]") {
    const int K = 3;
    const MatrixXd W = spd_of(fill(K, K, 0.4)), S = spd_of(fill(K, K, 1.3)) / 2;
    const double nu = 5.5;
    SECTION("values against the explicit formulas") {
        const MatrixXd Sinv = Eigen::FullPivLU<MatrixXd>(S).inverse();
        const MatrixXd Winv = Eigen::FullPivLU<MatrixXd>(W).inverse();
        const double w = (nu - K - 1) / 2 * logdet(W) - (Sinv * W).trace() / 2 -
                         nu * K / 2 * std::log(2.0) - nu / 2 * logdet(S) - lmgamma(K, nu / 2);
        const double iw = nu / 2 * logdet(S) - (nu + K + 1) / 2 * logdet(W) -
                          (S * Winv).trace() / 2 - nu * K / 2 * std::log(2.0) - lmgamma(K, nu / 2);
        Built b;
        b.density("wishart", b.real(W, 'm'), {b.g.constant(nu), b.real(S, 'm')});
        CHECK(b.value() == Approx(w).epsilon(1e-12));
        Built ib;
        ib.density("inv_wishart", ib.real(W, 'm'), {ib.g.constant(nu), ib.real(S, 'm')});
        CHECK(ib.value() == Approx(iw).epsilon(1e-12));
    }
    SECTION("K = 1: gamma(nu/2, scale 2S) and inv_gamma(nu/2, S/2)") {
        const MatrixXd w1 = MatrixXd::Constant(1, 1, 1.7), s1 = MatrixXd::Constant(1, 1, 0.6);
        Built b;
        b.density("wishart", b.real(w1, 'm'), {b.g.constant(nu), b.real(s1, 'm')});
        CHECK(b.value() == Approx(std::log(bm::pdf(bm::gamma_distribution<>(nu / 2, 2 * 0.6), 1.7)))
                               .epsilon(1e-12));
        Built ib;
        ib.density("inv_wishart", ib.real(w1, 'm'), {ib.g.constant(nu), ib.real(s1, 'm')});
        CHECK(ib.value() ==
              Approx(std::log(bm::pdf(bm::inverse_gamma(nu / 2, 0.6 / 2), 1.7))).epsilon(1e-12));
    }
    SECTION("gradients in W, nu and S (near nu = K - 1 too)") {
        for (const char* name : {"wishart", "inv_wishart"}) {
            for (double n : {nu, K - 1 + 0.05}) {
                INFO(name << " nu " << n);
                Built b;
                b.density(name, b.spd(fill(K, K, 0.4)),
                          {b.zeta(MatrixXd::Constant(1, 1, n), 's'), b.spd(fill(K, K, 1.3))});
                b.gradient(1e-5);
            }
        }
    }
    SECTION("errors") {
        Built b;
        CHECK_THROWS_WITH(
            b.density("wishart", b.real(W, 'm'), {b.g.constant(nu), b.real(fill(2, 2, 0.1), 'm')}),
            Catch::Contains("wishart: argument `S` is mat[2,2] but the variate is mat[3,3] "
                            "(expected mat[3,3])"));
        CHECK_THROWS_AS(
            b.density("inv_wishart", b.real(W, 'm'), {b.g.constant(1.5), b.real(S, 'm')}),
            ModelError);
        CHECK_THROWS_WITH(
            b.density("inv_wishart", b.real(W, 'm'), {b.g.constant(1.5), b.real(S, 'm')}),
            Catch::Contains("inv_wishart: argument `nu` must be greater than K - 1 = 2"));
    }
}

TEST_CASE("multivariate priors and likelihoods in a model, through the whole pipeline",
          "[dist][multivariate]") {
    const int K = 3, N = 6;
    const MatrixXd Y = fill(N, K, 0.8);
    const VectorXi cats = (VectorXi(N) << 0, 1, 2, 2, 1, 0).finished();
    const VectorXd alpha = VectorXd::Constant(K, 1.5);
    Model m;
    auto y = m.data("y", Y);
    auto z = m.data("z", cats);
    auto a = m.data("alpha", alpha);
    auto L = m.param("L", dist("lkj_corr_cholesky", {2.0}), K, K);
    auto tau = m.param("tau", lognormal(0, 1), K);
    const VectorXd zero = VectorXd::Zero(K);
    auto mu = m.param(
        "mu", dist("multi_normal_cholesky", {m.data("zero", zero), diag_pre_multiply(tau, L)}), K);
    m.observe(y, dist("multi_normal_cholesky", {mu, diag_pre_multiply(tau, L)}));
    auto theta = m.param("theta", dist("dirichlet", {a}), K);
    m.observe(z, dist("categorical", {theta}));
    const ModelSpec spec = m.spec();
    CHECK(spec.latent("L").support == Support::cholesky_factor_corr());
    CHECK(spec.latent("theta").support == Support::simplex());
    VectorXd zeta(spec.zeta_dim());
    for (int i = 0; i < zeta.size(); ++i) zeta[i] = 0.3 * std::sin(1.0 + 2.1 * i);
    test::check_gradient(constrain(spec), spec.data, zeta, 1e-5);
}

}  // namespace advi

namespace advi {

TEST_CASE("observed data are checked draw by draw against a structured support",
          "[dist][multivariate]") {
    Model m;
    MatrixXd Theta(2, 3);
    Theta << 0.2, 0.3, 0.5, 0.1, 0.6, 0.2;  // the second row sums to 0.9
    const Eigen::VectorXd alpha = Eigen::VectorXd::Constant(3, 2.0);
    auto a = m.data("alpha", alpha);
    auto t = m.data("Theta", Theta);
    CHECK_THROWS_AS(m.observe(t, dist("dirichlet", {a})), DataError);
    CHECK_THROWS_WITH(
        m.observe(t, dist("dirichlet", {a})),
        Catch::Contains("observe `Theta`: row 1 is outside the support simplex of dirichlet"));
    MatrixXd W = MatrixXd::Identity(2, 2);
    W(0, 1) = 0.5;  // not symmetric
    const MatrixXd S = MatrixXd::Identity(2, 2);
    auto w = m.data("W", W);
    CHECK_THROWS_WITH(m.observe(w, dist("wishart", {4.0, m.data("S", S)})),
                      Catch::Contains("observe `W`: the value is outside the support") &&
                          Catch::Contains("of wishart"));
    Theta(1, 2) = 0.3;  // now both rows are simplexes
    CHECK_NOTHROW(m.observe(t, dist("dirichlet", {a})));
}

}  // namespace advi
