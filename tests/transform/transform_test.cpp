// Every support's transform: the graph fragment against an independent formula and the
// numeric T^-1, round trips through T, draws inside the support, log|det J| against a
// numeric Jacobian over the free coordinates, and gradients by finite differences.
#include <cmath>
#include <random>
#include <string>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/compile/constrain.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/transform/cholesky.hpp>
#include <advi/transform/transform.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

using K = Support::Kind;

struct Case {
    Support support;
    PositiveTransform choice;
    Shape shape;
};

Eigen::VectorXd vec(std::initializer_list<double> v) {
    Eigen::VectorXd x(static_cast<Eigen::Index>(v.size()));
    int i = 0;
    for (double d : v) x[i++] = d;
    return x;
}

std::vector<Case> cases() {
    std::vector<Case> c;
    const Shape v4 = Shape::vector(4);
    const Eigen::VectorXd lo = vec({-1.0, 0.0, 2.0, 5.0});
    const Eigen::VectorXd hi = vec({-0.5, 3.0, 2.25, 40.0});
    for (PositiveTransform t : {PositiveTransform::Log, PositiveTransform::Softplus}) {
        c.push_back({Support::real(), t, v4});
        c.push_back({Support::positive(), t, v4});
        c.push_back({Support::lower_bound(-2.5), t, v4});
        c.push_back({Support::upper_bound(3.0), t, v4});
        c.push_back({Support::interval(-1.0, 4.0), t, v4});
        c.push_back({Support::interval(0.0, 1.0), t, v4});
        c.push_back({Support::lower_bound(lo), t, v4});
        c.push_back({Support::upper_bound(hi), t, v4});
        c.push_back({Support::interval(lo, hi), t, v4});
        c.push_back({Support::lower_bound(lo), t, Shape::matrix(2, 2)});
        c.push_back({Support::interval(-3.0, hi), t, Shape::matrix(2, 2)});
    }
    const PositiveTransform T1 = PositiveTransform::Log;
    c.push_back({Support::affine(1.5, 2.0), T1, v4});
    c.push_back({Support::affine(lo, vec({0.5, 1.0, 3.0, 0.1})), T1, v4});
    c.push_back({Support::simplex(), T1, Shape::vector(2)});
    c.push_back({Support::simplex(), T1, Shape::vector(5)});
    c.push_back({Support::ordered(), T1, Shape::vector(1)});
    c.push_back({Support::ordered(), T1, Shape::vector(4)});
    c.push_back({Support::positive_ordered(), T1, Shape::vector(4)});
    c.push_back({Support::unit_vector(), T1, Shape::vector(3)});
    c.push_back({Support::cholesky_factor_corr(), T1, Shape::matrix(2, 2)});
    c.push_back({Support::cholesky_factor_corr(), T1, Shape::matrix(4, 4)});
    c.push_back({Support::cholesky_factor_cov(), T1, Shape::matrix(3, 3)});
    c.push_back({Support::cholesky_factor_cov(), T1, Shape::matrix(4, 2)});
    c.push_back({Support::corr_matrix(), T1, Shape::matrix(2, 2)});
    c.push_back({Support::corr_matrix(), T1, Shape::matrix(4, 4)});
    c.push_back({Support::cov_matrix(), T1, Shape::matrix(1, 1)});
    c.push_back({Support::cov_matrix(), T1, Shape::matrix(3, 3)});
    c.push_back({Support::sum_to_zero(), T1, Shape::vector(2)});
    c.push_back({Support::sum_to_zero(), T1, Shape::vector(5)});
    c.push_back({Support::sum_to_zero(), T1, Shape::matrix(3, 4)});
    c.push_back({Support::sum_to_zero_matrix(), T1, Shape::matrix(2, 2)});
    c.push_back({Support::sum_to_zero_matrix(), T1, Shape::matrix(3, 4)});
    c.push_back({Support::stochastic_columns(), T1, Shape::matrix(2, 3)});
    c.push_back({Support::stochastic_columns(), T1, Shape::matrix(4, 3)});
    // arrays of matrix supports: one element per row
    c.push_back(
        {Support::array_of(Support::cholesky_factor_corr(), 3, 3), T1, Shape::matrix(4, 9)});
    c.push_back({Support::array_of(Support::cov_matrix(), 2, 2), T1, Shape::matrix(3, 4)});
    c.push_back({Support::array_of(Support::sum_to_zero_matrix(), 2, 3), T1, Shape::matrix(2, 6)});
    c.push_back({Support::array_of(Support::stochastic_columns(), 3, 2), T1, Shape::matrix(2, 6)});
    c.push_back({Support::array_of(Support::simplex(), 2, 3), T1, Shape::matrix(1, 6)});
    return c;
}

// ---- independent formulas (Stan's reference manual, written out again here)

double inv_logit(double x) {
    return 1 / (1 + std::exp(-x));
}

// Stan's loop form: stick_len -= x_k.
Eigen::VectorXd simplex_ref(const Eigen::VectorXd& z) {
    const int K = static_cast<int>(z.size()) + 1;
    Eigen::VectorXd x(K);
    double stick = 1;
    for (int k = 0; k < K - 1; ++k) {
        x[k] = stick * inv_logit(z[k] + std::log(1.0 / (K - k - 1)));
        stick -= x[k];
    }
    x[K - 1] = stick;
    return x;
}

// Stan's cholesky_corr_constrain: sums of squares so far.
Eigen::MatrixXd cholesky_corr_ref(const Eigen::VectorXd& z, int K) {
    Eigen::MatrixXd L = Eigen::MatrixXd::Zero(K, K);
    L(0, 0) = 1;
    int k = 0;
    for (int i = 1; i < K; ++i) {
        double sum_sqs = 0;
        for (int j = 0; j < i; ++j) {
            L(i, j) = std::tanh(z[k++]) * std::sqrt(1 - sum_sqs);
            sum_sqs += L(i, j) * L(i, j);
        }
        L(i, i) = std::sqrt(1 - sum_sqs);
    }
    return L;
}

Eigen::MatrixXd cholesky_cov_ref(const Eigen::VectorXd& z, int M, int N) {
    Eigen::MatrixXd L = Eigen::MatrixXd::Zero(M, N);
    int k = 0;
    for (int m = 0; m < N; ++m) {
        for (int n = 0; n < m; ++n) L(m, n) = z[k++];
        L(m, m) = std::exp(z[k++]);
    }
    for (int m = N; m < M; ++m) {
        for (int n = 0; n < N; ++n) L(m, n) = z[k++];
    }
    return L;
}

Eigen::VectorXd flat(const Eigen::MatrixXd& m) {
    return Eigen::Map<const Eigen::VectorXd>(m.data(), m.size());
}

// The zero-sum basis written out: column j is j + 1 ones, then -(j + 1), then zeros, over
// sqrt((j + 1)(j + 2)); its columns are orthonormal and each sums to zero.
Eigen::MatrixXd zero_sum_basis_ref(int n) {
    Eigen::MatrixXd H(n, n - 1);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n - 1; ++j) {
            const double norm = std::sqrt((j + 1.0) * (j + 2.0));
            H(i, j) = i <= j ? 1 / norm : i == j + 1 ? -(j + 1) / norm : 0.0;
        }
    }
    return H;
}

// For an array support: f on each element (a Case of the element's support and shape), from
// row e of x (E rows of `in` values), the results (of `out` values) the rows of the result.
template <class F>
Eigen::VectorXd per_element(const Case& c, const Eigen::VectorXd& x, int in, int out, F f) {
    const Case element{c.support.element(), c.choice,
                       Shape::matrix(c.support.element_rows, c.support.element_cols)};
    const Eigen::Map<const Eigen::MatrixXd> X(x.data(), c.shape.rows, in);
    Eigen::MatrixXd Y(c.shape.rows, out);
    for (int e = 0; e < c.shape.rows; ++e)
        Y.row(e) = f(element, Eigen::VectorXd(X.row(e).transpose())).transpose();
    return Eigen::Map<const Eigen::VectorXd>(Y.data(), Y.size());
}
int element_free_size(const Case& c) {
    const Support e = c.support.element();
    return transform_for(e, c.choice)
        .unconstrained_shape(Shape::matrix(c.support.element_rows, c.support.element_cols), e)
        .size();
}

Eigen::VectorXd reference(const Case& c, const Eigen::VectorXd& z) {
    const Support& s = c.support;
    if (s.is_array()) {
        return per_element(c, z, element_free_size(c), c.shape.cols,
                           [](const Case& e, const Eigen::VectorXd& v) { return reference(e, v); });
    }
    const bool sp = c.choice == PositiveTransform::Softplus;
    auto f = [&](double x) { return sp ? std::log1p(std::exp(x)) : std::exp(x); };
    Eigen::VectorXd x(c.shape.size());
    switch (s.kind) {
        case K::Real: return z;
        case K::Lower:
            for (int i = 0; i < z.size(); ++i) x[i] = s.lower.at(i) + f(z[i]);
            return x;
        case K::Upper:
            for (int i = 0; i < z.size(); ++i) x[i] = s.upper.at(i) - f(z[i]);
            return x;
        case K::Interval:
            for (int i = 0; i < z.size(); ++i) {
                x[i] = s.lower.at(i) + (s.upper.at(i) - s.lower.at(i)) * inv_logit(z[i]);
            }
            return x;
        case K::Affine:
            for (int i = 0; i < z.size(); ++i) x[i] = s.offset.at(i) + s.multiplier.at(i) * z[i];
            return x;
        case K::Simplex: {
            if (!c.shape.is_matrix())
                return simplex_ref(z);
            // every row one (a row-stochastic matrix)
            const Eigen::Map<const Eigen::MatrixXd> Z(z.data(), c.shape.rows, c.shape.cols - 1);
            Eigen::MatrixXd X(c.shape.rows, c.shape.cols);
            for (int i = 0; i < c.shape.rows; ++i)
                X.row(i) = simplex_ref(Z.row(i).transpose()).transpose();
            return flat(X);
        }
        case K::Ordered:
        case K::PositiveOrdered:
            for (int i = 0; i < z.size(); ++i) {
                const double step = i == 0 && s.kind == K::Ordered ? z[0] : std::exp(z[i]);
                x[i] = (i == 0 ? 0.0 : x[i - 1]) + step;
            }
            return x;
        case K::UnitVector: return z / z.norm();
        case K::CholeskyFactorCorr: return flat(cholesky_corr_ref(z, c.shape.rows));
        case K::CorrMatrix: {
            const Eigen::MatrixXd L = cholesky_corr_ref(z, c.shape.rows);
            return flat(L * L.transpose());
        }
        case K::CholeskyFactorCov: return flat(cholesky_cov_ref(z, c.shape.rows, c.shape.cols));
        case K::CovMatrix: {
            const Eigen::MatrixXd L = cholesky_cov_ref(z, c.shape.rows, c.shape.cols);
            return flat(L * L.transpose());
        }
        case K::SumToZero: {
            if (!c.shape.is_matrix())
                return zero_sum_basis_ref(c.shape.rows) * z;
            const Eigen::Map<const Eigen::MatrixXd> Z(z.data(), c.shape.rows, c.shape.cols - 1);
            return flat(Z * zero_sum_basis_ref(c.shape.cols).transpose());
        }
        case K::SumToZeroMatrix: {
            const Eigen::Map<const Eigen::MatrixXd> Z(z.data(), c.shape.rows - 1, c.shape.cols - 1);
            return flat(zero_sum_basis_ref(c.shape.rows) * Z *
                        zero_sum_basis_ref(c.shape.cols).transpose());
        }
        case K::StochasticColumns: {
            Eigen::MatrixXd X(c.shape.rows, c.shape.cols);
            const Eigen::Map<const Eigen::MatrixXd> Z(z.data(), c.shape.rows - 1, c.shape.cols);
            for (int j = 0; j < c.shape.cols; ++j) X.col(j) = simplex_ref(Z.col(j));
            return flat(X);
        }
    }
    return x;
}

// The coordinates of theta that determine it (the rest follow): over these the transform
// is a bijection, and its Jacobian square.
Eigen::VectorXd free_coordinates(const Case& c, const Eigen::VectorXd& theta) {
    if (c.support.is_array()) {
        return per_element(
            c, theta, c.shape.cols, element_free_size(c),
            [](const Case& e, const Eigen::VectorXd& v) { return free_coordinates(e, v); });
    }
    const Eigen::Map<const Eigen::MatrixXd> M(theta.data(), c.shape.rows, c.shape.cols);
    std::vector<double> out;
    auto lower = [&](bool strict) {
        for (int i = 0; i < M.rows(); ++i) {
            for (int j = 0; j < M.cols() && (strict ? j < i : j <= i); ++j) out.push_back(M(i, j));
        }
    };
    switch (c.support.kind) {
        case K::Simplex:
            if (c.shape.is_matrix())
                return flat(M.leftCols(M.cols() - 1));
            return theta.head(theta.size() - 1);
        // the coordinates in an orthonormal basis of the zero-sum subspace: the density is
        // against that subspace's own (Lebesgue) measure, as Stan's log|J| = 0 says
        case K::SumToZero:
            if (!c.shape.is_matrix())
                return zero_sum_basis_ref(c.shape.rows).transpose() * theta;
            return flat(M * zero_sum_basis_ref(c.shape.cols));
        case K::SumToZeroMatrix:
            return flat(zero_sum_basis_ref(c.shape.rows).transpose() * M *
                        zero_sum_basis_ref(c.shape.cols));
        case K::StochasticColumns: return flat(M.topRows(M.rows() - 1));
        case K::CholeskyFactorCorr:
        case K::CorrMatrix: lower(true); break;
        case K::CholeskyFactorCov:
        case K::CovMatrix: lower(false); break;
        default: return theta;
    }
    return Eigen::Map<const Eigen::VectorXd>(out.data(), static_cast<Eigen::Index>(out.size()));
}

// Membership, checked here from the definitions.
void check_inside(const Case& c, const Eigen::VectorXd& theta) {
    const Support& s = c.support;
    if (s.is_array()) {
        (void)per_element(c, theta, c.shape.cols, 1, [](const Case& e, const Eigen::VectorXd& v) {
            check_inside(e, v);
            return Eigen::VectorXd::Zero(1).eval();
        });
        CHECK(s.contains(theta, c.shape));
        return;
    }
    const Eigen::Map<const Eigen::MatrixXd> M(theta.data(), c.shape.rows, c.shape.cols);
    REQUIRE(theta.allFinite());
    auto lower_triangular = [&] {
        for (int i = 0; i < M.rows(); ++i) {
            for (int j = i + 1; j < M.cols(); ++j) CHECK(M(i, j) == 0.0);
            if (i < M.cols())
                CHECK(M(i, i) > 0);
        }
    };
    auto spd = [&] {
        CHECK((M - M.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * (1 + M.cwiseAbs().maxCoeff()));
        CHECK(Eigen::LLT<Eigen::MatrixXd>(M).info() == Eigen::Success);
    };
    for (int i = 0; i < theta.size(); ++i) {
        if (s.kind == K::Lower || s.kind == K::Interval)
            CHECK(theta[i] > s.lower.at(i));
        if (s.kind == K::Upper || s.kind == K::Interval)
            CHECK(theta[i] < s.upper.at(i));
    }
    switch (s.kind) {
        case K::Simplex:
            CHECK(theta.minCoeff() > 0);
            if (c.shape.is_matrix())
                CHECK((M.rowwise().sum().array() - 1).abs().maxCoeff() <= 1e-12);
            else
                CHECK(std::abs(theta.sum() - 1) <= 1e-12);
            break;
        case K::PositiveOrdered: CHECK(theta[0] > 0); [[fallthrough]];
        case K::Ordered:
            for (int i = 1; i < theta.size(); ++i) CHECK(theta[i] > theta[i - 1]);
            break;
        case K::UnitVector: CHECK(std::abs(theta.norm() - 1) <= 1e-12); break;
        case K::CholeskyFactorCorr:
            lower_triangular();
            for (int i = 0; i < M.rows(); ++i) CHECK(std::abs(M.row(i).norm() - 1) <= 1e-12);
            break;
        case K::CholeskyFactorCov: lower_triangular(); break;
        case K::CorrMatrix:
            spd();
            for (int i = 0; i < M.rows(); ++i) CHECK(std::abs(M(i, i) - 1) <= 1e-12);
            break;
        case K::CovMatrix: spd(); break;
        case K::SumToZero:
            if (!c.shape.is_matrix())
                CHECK(std::abs(theta.sum()) <= 1e-12 * (1 + theta.cwiseAbs().sum()));
            else
                CHECK(M.rowwise().sum().cwiseAbs().maxCoeff() <= 1e-12 * (1 + M.cwiseAbs().sum()));
            break;
        case K::SumToZeroMatrix:
            CHECK(M.rowwise().sum().cwiseAbs().maxCoeff() <= 1e-12 * (1 + M.cwiseAbs().sum()));
            CHECK(M.colwise().sum().cwiseAbs().maxCoeff() <= 1e-12 * (1 + M.cwiseAbs().sum()));
            break;
        case K::StochasticColumns:
            CHECK(M.minCoeff() > 0);
            CHECK((M.colwise().sum().array() - 1).abs().maxCoeff() <= 1e-12);
            break;
        default: break;
    }
    CHECK(s.contains(theta, c.shape));
}

// A graph on one zeta leaf: outputs theta (offset 0) and "lp" = log|J| + sum(w .* theta)
// with weights w (data slot 0) when `weights` is set.
struct Fragment {
    Graph g;
    NodeId theta;
};
Fragment fragment(const Case& c, bool weights) {
    Fragment f;
    Graph& g = f.g;
    const Transform& t = transform_for(c.support, c.choice);
    const NodeId z =
        g.leaf(Op::Zeta, t.unconstrained_shape(c.shape, c.support), DType::Real, 0, "z");
    f.theta = t.constrain(g, z, c.shape, c.support);
    NodeId lp = t.log_abs_det_jacobian(g, z, f.theta, c.support);
    if (weights) {
        const NodeId w = g.leaf(Op::Data, c.shape, DType::Real, 0, "w");
        lp = g.apply(Op::Add, lp, g.apply(Op::Sum, g.apply(Op::Mul, w, f.theta)));
    }
    g.set_output("lp", lp);
    if (!weights)
        g.set_output("theta", f.theta, 0);
    return f;
}

std::string describe(const Case& c) {
    return c.support.str() + " " + c.shape.str() + " with " +
           std::string(transform_for(c.support, c.choice).name);
}

}  // namespace

TEST_CASE("transforms: fragment, round trip, support, log-Jacobian, gradient", "[transform]") {
    std::mt19937_64 rng(42);
    std::normal_distribution<double> normal;
    for (const Case& c : cases()) {
        const Transform& t = transform_for(c.support, c.choice);
        INFO(describe(c));
        REQUIRE(t.fits(c.shape, c.support));
        const int n = t.unconstrained_shape(c.shape, c.support).size();
        const int m = c.shape.size();
        Fragment f = fragment(c, false);
        Program p = Program::compile(simplify(f.g), {}, n, m);
        for (double scale : {0.3, 1.5, 3.0}) {
            for (int draw = 0; draw < 4; ++draw) {
                Eigen::VectorXd z(n);
                for (int i = 0; i < n; ++i) z[i] = scale * normal(rng);
                INFO("zeta " << z.transpose());
                Eigen::VectorXd theta(m);
                const double logdet = p.run(z, theta);
                // the fragment against the formula and the numeric T^-1
                const Eigen::VectorXd ref = reference(c, z);
                for (int i = 0; i < m; ++i) {
                    // Stan's sqrt(1 - sum of squares) loses digits where the row is nearly spent
                    CHECK(theta[i] == Approx(ref[i]).epsilon(1e-12).margin(1e-12));
                }
                const Eigen::VectorXd numeric = t.constrain_value(z, c.shape, c.support);
                CHECK((numeric - theta).cwiseAbs().maxCoeff() <=
                      1e-14 * (1 + theta.cwiseAbs().maxCoeff()));
                check_inside(c, theta);
                // T inverts T^-1 (unit_vector: up to the radius)
                if (scale < 2) {
                    const Eigen::VectorXd back = t.unconstrain(theta, c.shape, c.support);
                    const Eigen::VectorXd want =
                        c.support.kind == K::UnitVector ? Eigen::VectorXd(z / z.norm()) : z;
                    REQUIRE(back.size() == n);
                    for (int i = 0; i < n; ++i)
                        CHECK(back[i] == Approx(want[i]).margin(1e-9).epsilon(1e-9));
                }
                // log|det J| against a central-difference Jacobian over the free coordinates
                if (c.support.kind == K::UnitVector) {
                    CHECK(logdet == Approx(-0.5 * z.squaredNorm()).epsilon(1e-13));
                } else if (scale < 2) {
                    Eigen::MatrixXd J(n, n);
                    Eigen::VectorXd tp(m), tm(m);
                    for (int j = 0; j < n; ++j) {
                        const double h = 1e-6 * std::max(1.0, std::abs(z[j]));
                        Eigen::VectorXd zp = z, zm = z;
                        zp[j] += h;
                        zm[j] -= h;
                        p.run(zp, tp);
                        p.run(zm, tm);
                        J.col(j) = (free_coordinates(c, tp) - free_coordinates(c, tm)) / (2 * h);
                    }
                    REQUIRE(free_coordinates(c, theta).size() == n);
                    const double numeric_logdet = std::log(std::abs(J.determinant()));
                    CHECK(logdet == Approx(numeric_logdet).epsilon(1e-6).margin(1e-6));
                }
            }
        }
        // gradient of log|J| + sum(w .* theta) at points inside and near the edges
        Fragment fw = fragment(c, true);
        Eigen::VectorXd w(m);
        for (int i = 0; i < m; ++i) w[i] = 0.3 - 0.45 * i + 0.07 * i * i;
        const std::vector<DataSlot> data{
            {"w", c.shape, DType::Real, w.data(), nullptr}
        };
        for (double scale : {0.4, 1.2, 4.0}) {
            Eigen::VectorXd z(n);
            for (int i = 0; i < n; ++i)
                z[i] = scale * (i % 2 == 0 ? 1 : -1) * (0.6 + 0.3 * std::sin(i + 1.0));
            INFO("gradient at zeta " << z.transpose());
            test::check_gradient(fw.g, data, z);
        }
    }
}

TEST_CASE("positive T1 is log and T2 is the softplus inverse", "[transform]") {
    const Support pos = Support::positive();
    const Transform& t1 = transform_for(pos, PositiveTransform::Log);
    const Transform& t2 = transform_for(pos, PositiveTransform::Softplus);
    const Shape s = Shape::vector(2);
    const Eigen::VectorXd x = vec({2.0, 40.0});
    CHECK(t1.unconstrain(x, s, pos)[0] == Approx(std::log(2.0)));
    CHECK(t2.unconstrain(x, s, pos)[0] == Approx(std::log(std::exp(2.0) - 1)));
    // T2 is nearly the identity for large theta, where T1 flattens (paper section 3.3)
    CHECK(t2.unconstrain(x, s, pos)[1] == Approx(40.0));
    CHECK(t2.constrain_value(vec({-40.0, 0.0}), s, pos)[0] > 0);
    // per-element bounds keep both choices
    const Support lb = Support::lower_bound(vec({1.0, -2.0}));
    CHECK(transform_for(lb, PositiveTransform::Softplus).unconstrain(vec({3.0, 0.0}), s, lb)[1] ==
          Approx(std::log(std::exp(2.0) - 1)));
}

TEST_CASE("lower_tri_self_transpose: value and gradient, upper entries ignored", "[transform]") {
    for (int K : {1, 3}) {
        Graph g;
        const NodeId L = g.leaf(Op::Zeta, Shape::matrix(K, K), DType::Real, 0, "L");
        const NodeId out = g.apply(Op::LowerTriSelfTranspose, L);
        Eigen::MatrixXd W(K, K);
        for (int i = 0; i < K * K; ++i) W.data()[i] = 0.2 + 0.31 * i - 0.05 * i * i;
        const NodeId w = g.leaf(Op::Data, Shape::matrix(K, K), DType::Real, 0, "w");
        g.set_output("lp", g.apply(Op::Sum, g.apply(Op::Mul, w, out)));
        g.set_output("omega", out, 0);
        const std::vector<DataSlot> data{
            {"w", Shape::matrix(K, K), DType::Real, W.data(), nullptr}
        };
        Eigen::VectorXd z(K * K);
        for (int i = 0; i < K * K; ++i) z[i] = std::sin(1.0 + 1.7 * i) * 2;
        Program p = Program::compile(simplify(g), data, K * K, K * K);
        Eigen::VectorXd omega(K * K);
        p.run(z, omega);
        const Eigen::MatrixXd Lm =
            Eigen::Map<Eigen::MatrixXd>(z.data(), K, K).triangularView<Eigen::Lower>();
        const Eigen::MatrixXd want = Lm * Lm.transpose();
        for (int i = 0; i < K * K; ++i) CHECK(omega[i] == Approx(want.data()[i]).epsilon(1e-13));
        Graph only_lp = g;
        only_lp.clear_outputs();
        only_lp.set_output("lp", *g.output("lp"));
        test::check_gradient(only_lp, data, z);
    }
}

TEST_CASE("constant vectors: interned, and a Const when all values are equal", "[transform]") {
    Graph g;
    const std::vector<double> v{1.0, -2.0, 3.5};
    const NodeId a = constant_vector(g, v, Shape::vector(3));
    const NodeId b = constant_vector(g, std::vector<double>{1.0, -2.0, 3.5}, Shape::vector(3));
    CHECK(a == b);
    CHECK(g[a].op == Op::ConstVector);
    const NodeId c = constant_vector(g, std::vector<double>{2.0, 2.0}, Shape::vector(2));
    CHECK(g.is_const(c, 2.0));
    g.set_output("v", a, 0);
    Program p = Program::compile(g, {}, 0, 3);
    Eigen::VectorXd none, out(3);
    p.run(none, out);
    CHECK(out[0] == 1.0);
    CHECK(out[1] == -2.0);
    CHECK(out[2] == 3.5);
    CHECK_THROWS_AS(constant_vector(g, v, Shape::vector(2)), InternalError);
}

TEST_CASE("supports: shapes they fit, with errors naming support and shape", "[transform]") {
    auto message = [](const Support& s, Shape shape) {
        try {
            check_support_shape(s, shape);
        } catch (const ShapeError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message(Support::simplex(), Shape::matrix(2, 1)) ==
          "support simplex needs vec[K] or mat[U,K] (U simplexes as rows), K >= 2, got mat[2,1]");
    CHECK(message(Support::simplex(), Shape::vector(1)) ==
          "support simplex needs vec[K] or mat[U,K] (U simplexes as rows), K >= 2, got vec[1]");
    CHECK(message(Support::ordered(), Shape::scalar()) ==
          "support ordered needs vec[K] or mat[U,K] (U vectors as rows), K >= 1, got real");
    CHECK(message(Support::unit_vector(), Shape::vector(1)) ==
          "support unit_vector needs vec[K] or mat[U,K] (U unit vectors as rows), K >= 2, got "
          "vec[1]");
    CHECK(message(Support::simplex(), Shape::matrix(2, 2)) == "no error");
    CHECK(message(Support::cholesky_factor_corr(), Shape::matrix(2, 3)) ==
          "support cholesky_factor_corr needs mat[K,K] with K >= 2, got mat[2,3]");
    CHECK(message(Support::corr_matrix(), Shape::vector(4)) ==
          "support corr_matrix needs mat[K,K] with K >= 2, got vec[4]");
    CHECK(message(Support::cholesky_factor_cov(), Shape::matrix(2, 3)) ==
          "support cholesky_factor_cov needs mat[M,N] with M >= N >= 1, got mat[2,3]");
    CHECK(message(Support::cov_matrix(), Shape::matrix(3, 2)) ==
          "support cov_matrix needs mat[K,K] with K >= 1, got mat[3,2]");
    CHECK(message(Support::lower_bound(vec({1, 2, 3})), Shape::vector(4)) ==
          "support lower([1, 2, 3]): the lower bound has 3 values but the variable is vec[4] (4 "
          "elements)");
    CHECK(message(Support::affine(0.0, vec({1, 2})), Shape::matrix(2, 2)) ==
          "support affine(offset 0, multiplier [1, 2]): the multiplier has 2 values but the "
          "variable is mat[2,2] (4 elements)");
    CHECK(message(Support::cholesky_factor_cov(), Shape::matrix(4, 2)) == "no error");
    CHECK(message(Support::lower_bound(vec({1, 2, 3, 4})), Shape::matrix(2, 2)) == "no error");
}

TEST_CASE("support arguments are checked when the support is made", "[transform]") {
    CHECK_THROWS_AS(Support::interval(2, 1), ModelError);
    CHECK_THROWS_WITH(Support::interval(2, 1), Catch::Contains("interval(2, 1)"));
    CHECK_THROWS_WITH(Support::interval(vec({0, 1}), vec({1, 1})),
                      "interval([0, 1], [1, 1]): the lower bound must be below the upper "
                      "(element 1: 1 >= 1)");
    CHECK_THROWS_WITH(Support::interval(vec({0, 1}), vec({1, 2, 3})),
                      Catch::Contains("the bounds have 2 and 3 elements"));
    CHECK_THROWS_WITH(
        Support::affine(0.0, -1.0),
        "affine(offset 0, multiplier -1): the multiplier must be positive and finite");
    CHECK_THROWS_WITH(Support::affine(0.0, vec({1, 0})),
                      Catch::Contains("multiplier must be positive and finite (element 1 is 0)"));
    CHECK_THROWS_WITH(Support::lower_bound(vec({0, std::nan("")})),
                      "lower bound: element 1 is nan, not a finite number");
    // numeric transforms need constants
    const Support e = Support::affine(SupportArg::expression(3), 1.0);
    CHECK_THROWS_WITH(
        transform_for(e, PositiveTransform::Log).unconstrain(vec({1}), Shape::vector(1), e),
        Catch::Contains("support affine(offset %3, multiplier 1): the numeric "
                        "transform needs constant arguments"));
}

TEST_CASE("fused ops check their shapes", "[transform]") {
    Graph g;
    const NodeId z2 = g.leaf(Op::Zeta, Shape::vector(2), DType::Real, 0, "z");
    Node n;
    n.op = Op::SimplexConstrain;
    n.shape = Shape::vector(4);
    n.in = {z2, kNoNode, kNoNode};
    CHECK_THROWS_WITH(g.intern(n),
                      "simplex_constrain: an output vec[4] needs an input vec[3], got vec[2]");
    n.op = Op::CholeskyCorrConstrain;
    n.shape = Shape::matrix(2, 3);
    CHECK_THROWS_WITH(
        g.intern(n),
        "cholesky_corr_constrain: the output must be mat[K,K] with K >= 2, got mat[2,3]");
    const NodeId adj = g.leaf(Op::Zeta, Shape::vector(5), DType::Real, 2, "g");
    CHECK_THROWS_WITH(g.apply(Op::OrderedConstrainVjp, z2, adj),
                      Catch::Contains("ordered_constrain vector-Jacobian product: input vec[2] and "
                                      "adjoint vec[5] do not match"));
}

TEST_CASE("supports: coverage, membership, printing", "[transform]") {
    CHECK(Support::real().covers(Support::cov_matrix()));
    CHECK(Support::interval(0, 1).covers(Support::simplex()));
    CHECK(Support::interval(-1, 1).covers(Support::cholesky_factor_corr()));
    CHECK(Support::positive().covers(Support::simplex()));
    CHECK(Support::positive().covers(Support::positive_ordered()));
    CHECK_FALSE(Support::positive().covers(Support::ordered()));
    CHECK_FALSE(Support::positive().covers(Support::cov_matrix()));
    CHECK(Support::cov_matrix().covers(Support::corr_matrix()));
    CHECK_FALSE(Support::corr_matrix().covers(Support::cov_matrix()));
    CHECK(Support::ordered().covers(Support::positive_ordered()));
    CHECK(Support::lower_bound(vec({0, 1})).covers(Support::lower_bound(vec({0.5, 1}))));
    CHECK_FALSE(Support::lower_bound(vec({0, 1})).covers(Support::lower_bound(0.5)));
    CHECK(Support::interval(0, 4).covers(Support::interval(vec({0, 1}), vec({2, 4}))));
    CHECK_FALSE(Support::positive().covers(Support::lower_bound(SupportArg::expression(2))));
    CHECK(Support::real().covers(Support::affine(SupportArg::expression(2), 1.0)));

    CHECK(Support::simplex().contains(vec({0.25, 0.75}), Shape::vector(2)));
    CHECK_FALSE(Support::simplex().contains(vec({0.25, 0.8}), Shape::vector(2)));
    CHECK_FALSE(Support::ordered().contains(vec({1, 1}), Shape::vector(2)));
    CHECK(Support::corr_matrix().contains(vec({1, 0.5, 0.5, 1}), Shape::matrix(2, 2)));
    CHECK_FALSE(Support::corr_matrix().contains(vec({1, 1.5, 1.5, 1}), Shape::matrix(2, 2)));
    CHECK_FALSE(
        Support::cholesky_factor_cov().contains(vec({1, 0.5, 0.5, 1}), Shape::matrix(2, 2)));
    CHECK(Support::simplex().contains(0.0));
    CHECK_FALSE(Support::simplex().contains(1.5));

    CHECK(Support::positive().str() == "positive");
    CHECK(Support::lower_bound(vec({0, 1.5})).str() == "lower([0, 1.5])");
    CHECK(Support::affine(1.0, 2.0).str() == "affine(offset 1, multiplier 2)");
    CHECK(Support::cholesky_factor_cov().str() == "cholesky_factor_cov");
    CHECK(Support::lower_bound(0) == Support::positive());
}

}  // namespace advi
