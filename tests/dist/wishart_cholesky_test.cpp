// wishart_cholesky and inv_wishart_cholesky (densities over the Cholesky factor L_W): values
// against an explicit Eigen computation, K = 1 against the densities of the square root of a
// gamma (Nakagami) and of an inverse gamma variate, the Jacobian of L_W -> L_W L_W' computed
// numerically, normalisation over the free coordinates at K = 2 by quadrature, gradients
// against finite differences in every real argument, and errors naming the argument.
#include <cmath>
#include <deque>
#include <numbers>
#include <string>
#include <string_view>

#include <Eigen/Dense>
#include <boost/math/distributions.hpp>
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

MatrixXd fill(int r, int c, double seed) {
    MatrixXd m(r, c);
    for (int j = 0; j < c; ++j) {
        for (int i = 0; i < r; ++i) m(i, j) = std::sin(seed + 1.3 * i + 0.7 * j + 0.31 * i * j);
    }
    return m;
}
MatrixXd spd_of(const MatrixXd& A) {
    return A * A.transpose() + A.rows() * MatrixXd::Identity(A.rows(), A.rows());
}
MatrixXd chol(const MatrixXd& S) {
    return Eigen::LLT<MatrixXd>(S).matrixL();
}
double logdet(const MatrixXd& S) {
    return std::log(Eigen::FullPivLU<MatrixXd>(S).determinant());
}
double lmgamma(int K, double x) {
    double s = K * (K - 1) / 4.0 * std::log(std::numbers::pi);
    for (int j = 1; j <= K; ++j) s += std::lgamma(x + (1.0 - j) / 2);
    return s;
}
MatrixXd scalar(double v) {
    return MatrixXd::Constant(1, 1, v);
}

// Wishart and inverse Wishart of W by their textbook formulas (inverses and determinants).
double wishart_ref(const MatrixXd& W, double nu, const MatrixXd& S) {
    const double K = static_cast<double>(W.rows());
    const MatrixXd Sinv = Eigen::FullPivLU<MatrixXd>(S).inverse();
    return (nu - K - 1) / 2 * logdet(W) - (Sinv * W).trace() / 2 - nu * K / 2 * std::log(2.0) -
           nu / 2 * logdet(S) - lmgamma(static_cast<int>(K), nu / 2);
}
double inv_wishart_ref(const MatrixXd& W, double nu, const MatrixXd& S) {
    const double K = static_cast<double>(W.rows());
    const MatrixXd Winv = Eigen::FullPivLU<MatrixXd>(W).inverse();
    return nu / 2 * logdet(S) - (nu + K + 1) / 2 * logdet(W) - (S * Winv).trace() / 2 -
           nu * K / 2 * std::log(2.0) - lmgamma(static_cast<int>(K), nu / 2);
}
// log |dW/dL| = K log 2 + sum_k (K - k + 1) log L_kk (1-based k), the formula under test.
double log_jacobian_formula(const MatrixXd& L) {
    const int K = static_cast<int>(L.rows());
    double s = K * std::log(2.0);
    for (int k = 0; k < K; ++k) s += (K - k) * std::log(L(k, k));
    return s;
}
// log |dW/dL| by central differences: the map from the K(K+1)/2 lower-triangular entries of
// L to those of W = L L', and the log of its |determinant|.
double log_jacobian_numeric(const MatrixXd& L) {
    const int K = static_cast<int>(L.rows()), n = K * (K + 1) / 2;
    auto vech = [K, n](const MatrixXd& M) {
        VectorXd v(n);
        int p = 0;
        for (int i = 0; i < K; ++i) {
            for (int j = 0; j <= i; ++j) v[p++] = M(i, j);
        }
        return v;
    };
    MatrixXd J(n, n);
    int p = 0;
    for (int i = 0; i < K; ++i) {
        for (int j = 0; j <= i; ++j, ++p) {
            const double h = 1e-6;
            MatrixXd Lp = L, Lm = L;
            Lp(i, j) += h;
            Lm(i, j) -= h;
            J.col(p) = (vech(Lp * Lp.transpose()) - vech(Lm * Lm.transpose())) / (2 * h);
        }
    }
    return std::log(std::abs(Eigen::FullPivLU<MatrixXd>(J).determinant()));
}

// A graph with zeta inputs (with their values) and real data.
struct Built {
    Graph g;
    std::vector<DataSlot> data;
    std::deque<MatrixXd> reals;
    std::vector<double> z;

    static Shape shape_of(const MatrixXd& v, char kind) {
        const int r = static_cast<int>(v.rows()), c = static_cast<int>(v.cols());
        return kind == 's' ? Shape::scalar() : kind == 'v' ? Shape::vector(r) : Shape::matrix(r, c);
    }
    NodeId zeta(const MatrixXd& v, char kind) {
        const NodeId id =
            g.leaf(Op::Zeta, shape_of(v, kind), DType::Real, static_cast<int>(z.size()), "");
        z.insert(z.end(), v.data(), v.data() + v.size());
        return id;
    }
    NodeId real(const MatrixXd& v, char kind) {
        reals.push_back(v);
        const Shape s = shape_of(v, kind);
        data.push_back({"d", s, DType::Real, reals.back().data(), nullptr});
        return g.leaf(Op::Data, s, DType::Real, static_cast<int>(data.size()) - 1, "d");
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

// log p(L_W | nu, L_S) of the row `name`, all arguments data.
double row_value(const char* name, const MatrixXd& L_W, double nu, const MatrixXd& L_S) {
    Built b;
    b.density(name, b.real(L_W, 'm'), {b.g.constant(nu), b.real(L_S, 'm')});
    return b.value();
}

constexpr const char* kRows[] = {"wishart_cholesky", "inv_wishart_cholesky"};

}  // namespace

TEST_CASE("wishart_cholesky and inv_wishart_cholesky: values", "[dist][multivariate]") {
    const int K = 3;
    const MatrixXd L_W = chol(spd_of(fill(K, K, 0.4))), L_S = chol(spd_of(fill(K, K, 1.3)) / 2);
    const MatrixXd W = L_W * L_W.transpose(), S = L_S * L_S.transpose();
    const double nu = 5.5;
    SECTION("the density of W = L_W L_W' plus K log 2 + sum_k (K - k + 1) log L_W[k,k]") {
        const double jac = log_jacobian_formula(L_W);
        CHECK(row_value("wishart_cholesky", L_W, nu, L_S) ==
              Approx(wishart_ref(W, nu, S) + jac).epsilon(1e-12));
        CHECK(row_value("inv_wishart_cholesky", L_W, nu, L_S) ==
              Approx(inv_wishart_ref(W, nu, S) + jac).epsilon(1e-12));
    }
    SECTION("minus the wishart / inv_wishart rows of W is the numeric log-Jacobian of L -> L L'") {
        for (int k : {2, 3, 4}) {
            const MatrixXd L = chol(spd_of(fill(k, k, 0.2 * k))),
                           LS = chol(spd_of(fill(k, k, 0.9)));
            const MatrixXd Wk = L * L.transpose(), Sk = LS * LS.transpose();
            const double numeric = log_jacobian_numeric(L), n = k + 0.7;
            INFO("K = " << k);
            CHECK(log_jacobian_formula(L) == Approx(numeric).epsilon(1e-8));
            Built w;
            w.density("wishart", w.real(Wk, 'm'), {w.g.constant(n), w.real(Sk, 'm')});
            CHECK(row_value("wishart_cholesky", L, n, LS) - w.value() ==
                  Approx(numeric).epsilon(1e-8));
            Built iw;
            iw.density("inv_wishart", iw.real(Wk, 'm'), {iw.g.constant(n), iw.real(Sk, 'm')});
            CHECK(row_value("inv_wishart_cholesky", L, n, LS) - iw.value() ==
                  Approx(numeric).epsilon(1e-8));
        }
    }
    SECTION("only the lower triangles of L_W and L_S are read") {
        MatrixXd UW = L_W, US = L_S;
        UW.triangularView<Eigen::StrictlyUpper>() = fill(K, K, 2.0);
        US.triangularView<Eigen::StrictlyUpper>() = fill(K, K, 3.0);
        for (const char* name : kRows) {
            INFO(name);
            CHECK(row_value(name, UW, nu, US) ==
                  Approx(row_value(name, L_W, nu, L_S)).epsilon(1e-13));
        }
    }
}

TEST_CASE("wishart_cholesky and inv_wishart_cholesky: K = 1", "[dist][multivariate]") {
    // W = l^2 ~ gamma(nu/2, scale 2 s^2): l is Nakagami(m = nu/2, Omega = E[W] = nu s^2),
    //   p(l) = 2 m^m / (Gamma(m) Omega^m) l^(2m - 1) exp(-m l^2 / Omega).
    // W = l^2 ~ inv_gamma(nu/2, scale s^2/2): p(l) = inv_gamma_pdf(l^2) 2 l.
    for (double nu : {0.4, 1.0, 3.7}) {
        for (double s : {0.5, 1.8}) {
            for (double l : {0.3, 1.0, 2.6}) {
                INFO("nu " << nu << " s " << s << " l " << l);
                const double m = nu / 2, omega = nu * s * s;
                const double nakagami = std::log(2.0) + m * std::log(m) - std::lgamma(m) -
                                        m * std::log(omega) + (2 * m - 1) * std::log(l) -
                                        m * l * l / omega;
                CHECK(row_value("wishart_cholesky", scalar(l), nu, scalar(s)) ==
                      Approx(nakagami).epsilon(1e-12));
                const double via_gamma =
                    std::log(bm::pdf(bm::gamma_distribution<>(m, 2 * s * s), l * l) * 2 * l);
                CHECK(nakagami == Approx(via_gamma).epsilon(1e-12));
                const double inv =
                    std::log(bm::pdf(bm::inverse_gamma(m, s * s / 2), l * l) * 2 * l);
                CHECK(row_value("inv_wishart_cholesky", scalar(l), nu, scalar(s)) ==
                      Approx(inv).epsilon(1e-12));
            }
        }
    }
}

TEST_CASE("wishart_cholesky and inv_wishart_cholesky: K = 2 integrates to 1 over L11, L21, L22",
          "[dist][multivariate]") {
    MatrixXd L_S(2, 2);
    L_S << 0.8, 0, 0.3, 0.6;
    for (const char* name : kRows) {
        for (double nu : {2.2, 4.5}) {
            // One compiled program, L_W a zeta input (column-major: L11, L21, L12 = 0, L22).
            Built b;
            b.density(name, b.zeta(MatrixXd::Identity(2, 2), 'm'),
                      {b.g.constant(nu), b.real(L_S, 'm')});
            Program p = test::value_program(b.g, b.data, 4);
            VectorXd z = VectorXd::Zero(4);  // one input vector for the 1.1 million points
            auto density = [&p, &z](double l11, double l21, double l22) {
                z[0] = l11;
                z[1] = l21;
                z[3] = l22;
                return std::exp(test::value_at(p, z));
            };
            // The trapezoidal rule in l11 = e^u, l22 = e^v, l21 = c sinh(w) (Jacobian
            // e^u e^v c cosh w): the integrand is smooth and decays exponentially or faster in
            // every direction, where the rule converges geometrically in 1/h. Given l11 and l22,
            // l21 is normal with a spread of order 1 (wishart) or l11 l22 (inverse: the
            // quadratic form is |L_W^-1 L_S|^2, and (L_W^-1)_21 = -l21 / (l11 l22)); c scales w.
            // The ranges: toward small l (wishart) or large l (inverse) the integrand decays
            // only like l^nu, so u and v reach 20 that way (at 14 the truncation error is 6e-8
            // for nu = 2.2); the other way it decays like exp(-l^2) or exp(-1/l^2), below 1e-300
            // from u = 4 (wishart: l11^2 = 3000) or u = -4 (inverse) on, as it is beyond w = 7
            // (sinh 7 = 548). The sums agree with those over [-20, 20]^2 x [-10, 10] (4.1 million
            // points each, 3.6 times as many) to 2e-15.
            const bool inverse = std::string_view(name) == "inv_wishart_cholesky";
            const double lo = inverse ? -4 : -20, hi = inverse ? 20 : 4;
            const int steps = 5;  // per unit: h = 0.2
            const double h = 1.0 / steps;
            double total = 0;
            for (int iu = static_cast<int>(lo) * steps; iu <= static_cast<int>(hi) * steps; ++iu) {
                const double u = iu * h;
                for (int iv = static_cast<int>(lo) * steps; iv <= static_cast<int>(hi) * steps;
                     ++iv) {
                    const double v = iv * h;
                    const double c = inverse ? std::exp(u + v) : 1.0;
                    for (int iw = -7 * steps; iw <= 7 * steps; ++iw) {
                        const double w = iw * h;
                        total += density(std::exp(u), c * std::sinh(w), std::exp(v)) *
                                 std::exp(u + v) * c * std::cosh(w);
                    }
                }
            }
            total *= h * h * h;
            INFO(name << " nu " << nu);
            CHECK(total == Approx(1.0).epsilon(1e-7));
        }
    }
}

TEST_CASE("wishart_cholesky and inv_wishart_cholesky: gradients in L_W, nu and L_S",
          "[dist][multivariate]") {
    const int K = 3;
    const MatrixXd L_W = chol(spd_of(fill(K, K, 0.4))), L_S = chol(spd_of(fill(K, K, 1.3)) / 2);
    for (const char* name : kRows) {
        for (double nu : {5.5, K - 1 + 0.05}) {
            INFO(name << " nu " << nu);
            Built b;
            b.density(name, b.zeta(L_W, 'm'), {b.zeta(scalar(nu), 's'), b.zeta(L_S, 'm')});
            b.gradient(1e-5);
        }
        // K = 1, and L_W free with data arguments
        INFO(name);
        Built one;
        one.density(name, one.zeta(scalar(0.7), 'm'),
                    {one.zeta(scalar(2.3), 's'), one.zeta(scalar(1.4), 'm')});
        one.gradient();
        Built d;
        d.density(name, d.zeta(L_W, 'm'), {d.g.constant(4.0), d.real(L_S, 'm')});
        d.gradient();
    }
}

TEST_CASE(
    "wishart_cholesky and inv_wishart_cholesky: errors name the distribution and the argument",
    "[dist][multivariate]") {
    const MatrixXd L = chol(spd_of(fill(3, 3, 0.4)));
    for (const char* name : kRows) {
        const std::string n = name;
        INFO(name);
        Built b;
        const NodeId y = b.real(L, 'm');
        CHECK_THROWS_AS(b.density(name, y, {b.g.constant(4.0), b.real(fill(2, 2, 0.1), 'm')}),
                        ShapeError);
        CHECK_THROWS_WITH(
            b.density(name, y, {b.g.constant(4.0), b.real(fill(2, 2, 0.1), 'm')}),
            Catch::Contains(n + ": argument `L_S` is mat[2,2] but the variate is mat[3,3] "
                                "(expected mat[3,3])"));
        CHECK_THROWS_WITH(
            b.density(name, y, {b.real(fill(3, 1, 0.1), 'v'), b.real(L, 'm')}),
            Catch::Contains(n + ": argument `nu` is vec[3] but the variate is mat[3,3] "
                                "(expected real)"));
        CHECK_THROWS_WITH(
            b.density(name, b.real(fill(2, 3, 0.1), 'm'), {b.g.constant(4.0), b.real(L, 'm')}),
            Catch::Contains(n + ": the variate is mat[2,3] (expected a square matrix"));
        CHECK_THROWS_AS(b.density(name, y, {b.g.constant(1.5), b.real(L, 'm')}), ModelError);
        CHECK_THROWS_WITH(b.density(name, y, {b.g.constant(1.5), b.real(L, 'm')}),
                          Catch::Contains(n + ": argument `nu` must be greater than K - 1 = 2"));
        CHECK_THROWS_WITH(b.density(name, y, {b.g.constant(-1.0), b.real(L, 'm')}),
                          Catch::Contains(n + ": argument `nu` must be positive, got -1"));
    }
}

TEST_CASE(
    "wishart_cholesky and inv_wishart_cholesky in a model: the support is cholesky_factor_cov",
    "[dist][multivariate]") {
    const int K = 3;
    const MatrixXd L_S = chol(spd_of(fill(K, K, 1.3)) / 2);
    const MatrixXd Y = fill(5, K, 0.8);
    Model m;
    auto ls = m.data("L_S", L_S);
    auto y = m.data("y", Y);
    auto L = m.param("L", wishart_cholesky(K + 1.5, ls), K, K);
    auto Li = m.param("Li", inv_wishart_cholesky(K + 0.5, L), K, K);
    const VectorXd zero = VectorXd::Zero(K);
    m.observe(y, multi_normal_cholesky(m.data("zero", zero), Li));
    const ModelSpec spec = m.spec();
    CHECK(spec.latent("L").support == Support::cholesky_factor_cov());
    CHECK(spec.latent("Li").support == Support::cholesky_factor_cov());
    VectorXd zeta(spec.zeta_dim());
    for (int i = 0; i < zeta.size(); ++i) zeta[i] = 0.3 * std::sin(1.0 + 2.1 * i);
    test::check_gradient(constrain(spec), spec.data, zeta, 1e-5);

    SECTION("observed data outside the support are refused") {
        MatrixXd bad = chol(spd_of(fill(K, K, 0.4)));
        bad(0, 2) = 0.5;  // not lower-triangular
        Model o;
        auto b = o.data("B", bad);
        CHECK_THROWS_WITH(o.observe(b, wishart_cholesky(4.0, o.data("L_S", L_S))),
                          Catch::Contains("observe `B`: the value is outside the support") &&
                              Catch::Contains("of wishart_cholesky"));
    }
}

}  // namespace advi
