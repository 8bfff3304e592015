// The DSL's linear algebra, reductions and slicing: each function's value against Eigen (or a
// formula) computed here, its gradient through the whole pipeline (constrain, differentiate,
// simplify, compile) against finite differences, and errors naming function, argument, shapes.
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/advi.hpp>
#include <advi/compile/constrain.hpp>

#include "support/gradient_check.hpp"

namespace advi {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

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

// An input of a function under test: a latent variable (real support, so zeta = theta).
struct In {
    MatrixXd value;
    char kind;  // 's'calar, 'v'ector, 'm'atrix
};
In S(double x) {
    return {MatrixXd::Constant(1, 1, x), 's'};
}
In V(const VectorXd& v) {
    return {v, 'v'};
}
In M(const MatrixXd& m) {
    return {m, 'm'};
}

using Fn = std::function<Expr(Model&, const std::vector<Expr>&)>;

// The value of `e` at the latents' values: the model graph with each Param leaf read
// from zeta directly (real supports), compiled with `e` as its output.
MatrixXd value_of(const Model& m, const Expr& e, const VectorXd& zeta) {
    const ModelSpec spec = m.spec();
    Graph g = spec.graph;
    g.clear_outputs();
    const Shape s = e.shape();
    g.set_output("value", e.id(), 0);
    const std::vector<int> offsets = spec.zeta_offsets();
    Graph on_zeta = rebuild(g, [&](Graph& out, const Node& n, NodeId) {
        if (n.op != Op::Param)
            return out.intern(n);
        return out.leaf(Op::Zeta, n.shape, DType::Real, offsets[n.index], "");
    });
    Program p = Program::compile(on_zeta, spec.data, spec.zeta_dim(), s.size());
    VectorXd v(s.size());
    p.run(zeta, v);
    return Eigen::Map<const MatrixXd>(v.data(), s.rows, s.cols);
}

// Builds f of the inputs (latents x0, x1, ...) in a model, checks its value against `want`
// and the gradient of the model with target += sum(w .* f) against finite differences.
void check_fn(const std::vector<In>& ins, const Fn& f, const MatrixXd& want, double tol = 1e-6) {
    Model m;
    std::vector<Expr> xs;
    std::vector<double> z;
    for (std::size_t k = 0; k < ins.size(); ++k) {
        const In& in = ins[k];
        const std::string name = "x" + std::to_string(k);
        if (in.kind == 's') {
            xs.push_back(m.param(name, normal(0, 3)));
        } else if (in.kind == 'v') {
            xs.push_back(m.param(name, normal(0, 3), in.value.size()));
        } else {
            xs.push_back(m.param(name, normal(0, 3), in.value.rows(), in.value.cols()));
        }
        z.insert(z.end(), in.value.data(), in.value.data() + in.value.size());
    }
    const VectorXd zeta = Eigen::Map<const VectorXd>(z.data(), static_cast<Eigen::Index>(z.size()));
    const Expr e = f(m, xs);
    const MatrixXd got = value_of(m, e, zeta);
    REQUIRE(got.rows() == want.rows());
    REQUIRE(got.cols() == want.cols());
    {
        INFO("got\n" << got << "\nwant\n" << want);
        CHECK((got - want).cwiseAbs().maxCoeff() <=
              1e-11 * std::max(1.0, want.cwiseAbs().maxCoeff()));
    }
    const Shape s = e.shape();
    const MatrixXd w = fill(s.rows, s.cols, 0.4).array() + 0.3;
    const VectorXd wv = w.col(0);  // bound by reference: alive until the end
    const Expr wd = s.is_scalar()   ? m.data("w", w(0, 0))
                    : s.is_vector() ? m.data("w", wv)
                                    : m.data("w", w);
    m.target_add(elt_multiply(wd, e));
    const ModelSpec spec = m.spec();
    test::check_gradient(constrain(spec), spec.data, zeta, tol);
}

MatrixXd scalar(double x) {
    return MatrixXd::Constant(1, 1, x);
}

MatrixXd lower_with_garbage(int n, double seed) {
    MatrixXd L = fill(n, n, seed);
    for (int i = 0; i < n; ++i) L(i, i) = 1.5 + 0.3 * i;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < j; ++i) L(i, j) = 7.0 + i - j;
    }
    return L;
}

}  // namespace

TEST_CASE("log_sum_exp_rows: no overflow, and infinite rows give infinities", "[dsl][linalg]") {
    Model m;
    auto X = m.param("X", normal(0, 1), 4, 2);
    const Expr e = log_sum_exp_rows(X);
    const double inf = std::numeric_limits<double>::infinity();
    VectorXd zeta(8);  // column-major 4 x 2
    zeta << 1000, -inf, inf, -1000, 999, -inf, 0, -1001;
    const MatrixXd v = value_of(m, e, zeta);
    CHECK(v(0, 0) == Approx(1000 + std::log1p(std::exp(-1.0))).epsilon(1e-15));
    CHECK(v(1, 0) == -inf);
    CHECK(v(2, 0) == inf);
    CHECK(v(3, 0) == Approx(-1000 + std::log1p(std::exp(-1.0))).epsilon(1e-15));
}

TEST_CASE("products and structure", "[dsl][linalg]") {
    const MatrixXd A = fill(3, 2, 0.1), B = fill(2, 4, 0.9), Q = fill(3, 3, 0.5),
                   C = fill(3, 2, 1.6);
    const VectorXd u = fill(3, 0.7), v = fill(2, 1.9);
    auto x = [](const std::vector<Expr>& xs, int k) { return xs[k]; };
    check_fn(
        {M(A), M(B)}, [&](Model&, auto& xs) { return x(xs, 0) * x(xs, 1); }, A * B);
    check_fn(
        {M(A), M(C)}, [&](Model&, auto& xs) { return elt_multiply(xs[0], xs[1]); },
        A.cwiseProduct(C));
    check_fn(
        {M(A)}, [&](Model&, auto& xs) { return transpose(xs[0]); }, A.transpose());
    check_fn(
        {V(u)}, [&](Model&, auto& xs) { return diag_matrix(xs[0]); }, MatrixXd(u.asDiagonal()));
    check_fn(
        {M(Q)}, [&](Model&, auto& xs) { return diagonal(xs[0]); }, Q.diagonal());
    check_fn(
        {V(u), M(A)}, [&](Model&, auto& xs) { return diag_pre_multiply(xs[0], xs[1]); },
        u.asDiagonal() * A);
    check_fn(
        {M(A), V(v)}, [&](Model&, auto& xs) { return diag_post_multiply(xs[0], xs[1]); },
        A * v.asDiagonal());
    check_fn(
        {M(A), M(C)}, [&](Model&, auto& xs) { return rows_dot_product(xs[0], xs[1]); },
        A.cwiseProduct(C).rowwise().sum());
    check_fn(
        {M(A), M(C)}, [&](Model&, auto& xs) { return columns_dot_product(xs[0], xs[1]); },
        A.cwiseProduct(C).colwise().sum().transpose());
    check_fn(
        {V(u), V(u * 2)}, [&](Model&, auto& xs) { return rows_dot_product(xs[0], xs[1]); },
        u.cwiseProduct(u * 2));
    check_fn(
        {V(u), V(u * 2)}, [&](Model&, auto& xs) { return columns_dot_product(xs[0], xs[1]); },
        scalar(u.dot(u * 2)));
    check_fn(
        {M(A)}, [&](Model&, auto& xs) { return rows_dot_self(xs[0]); }, A.rowwise().squaredNorm());
    check_fn(
        {M(A)}, [&](Model&, auto& xs) { return columns_dot_self(xs[0]); },
        A.colwise().squaredNorm().transpose());
    check_fn(
        {V(u)}, [&](Model&, auto& xs) { return dot_self(xs[0]); }, scalar(u.squaredNorm()));
    check_fn(
        {M(Q), V(u)}, [&](Model&, auto& xs) { return quad_form(xs[0], xs[1]); },
        scalar(u.dot(Q * u)));
    check_fn(
        {M(Q), M(A)}, [&](Model&, auto& xs) { return quad_form(xs[0], xs[1]); },
        A.transpose() * Q * A);
    check_fn(
        {M(A)}, [&](Model&, auto& xs) { return crossprod(xs[0]); }, A.transpose() * A);
    check_fn(
        {M(A)}, [&](Model&, auto& xs) { return tcrossprod(xs[0]); }, A * A.transpose());
    check_fn(
        {M(Q)}, [&](Model&, auto& xs) { return trace(xs[0]); }, scalar(Q.trace()));
    const MatrixXd Lg = lower_with_garbage(3, 0.3);
    const MatrixXd L = Lg.triangularView<Eigen::Lower>();
    check_fn(
        {M(Lg)}, [&](Model&, auto& xs) { return multiply_lower_tri_self_transpose(xs[0]); },
        L * L.transpose());
}

TEST_CASE("factorisations and solves", "[dsl][linalg]") {
    const MatrixXd A = fill(3, 3, 0.2);
    const MatrixXd I = MatrixXd::Identity(3, 3);
    const MatrixXd S = A * A.transpose() + 3 * I;
    // S = A A' + 3 I from the free A: every A gives a positive-definite S
    auto spd = [&](Model& m, const Expr& a) { return tcrossprod(a) + 3.0 * m.data("I", I); };
    check_fn(
        {M(A)}, [&](Model& m, auto& xs) { return cholesky_decompose(spd(m, xs[0])); },
        MatrixXd(Eigen::LLT<MatrixXd>(S).matrixL()));
    check_fn(
        {M(A)}, [&](Model& m, auto& xs) { return log_determinant_spd(spd(m, xs[0])); },
        scalar(std::log(S.determinant())));
    check_fn(
        {M(A)}, [&](Model& m, auto& xs) { return inverse_spd(spd(m, xs[0])); }, S.inverse(), 1e-6);
    const MatrixXd G = fill(3, 3, 1.4) + 2 * I;
    check_fn(
        {M(G)}, [&](Model&, auto& xs) { return log_determinant(xs[0]); },
        scalar(std::log(std::abs(G.determinant()))));
    check_fn(
        {M(G)}, [&](Model&, auto& xs) { return inverse(xs[0]); }, G.inverse());

    const MatrixXd Lg = lower_with_garbage(3, 0.8);
    const MatrixXd L = Lg.triangularView<Eigen::Lower>();
    const VectorXd b = fill(3, 2.0);
    const MatrixXd B = fill(3, 2, 2.5), Bt = fill(2, 3, 2.5);
    check_fn(
        {M(Lg), V(b)}, [&](Model&, auto& xs) { return mdivide_left_tri_low(xs[0], xs[1]); },
        L.inverse() * b);
    check_fn(
        {M(Lg), M(B)}, [&](Model&, auto& xs) { return mdivide_left_tri_low(xs[0], xs[1]); },
        L.inverse() * B);
    // A vector b stands for Stan's row vector: (b' L^-1)'
    check_fn(
        {V(b), M(Lg)}, [&](Model&, auto& xs) { return mdivide_right_tri_low(xs[0], xs[1]); },
        (b.transpose() * L.inverse()).transpose());
    check_fn(
        {M(Bt), M(Lg)}, [&](Model&, auto& xs) { return mdivide_right_tri_low(xs[0], xs[1]); },
        Bt * L.inverse());
}

TEST_CASE("reductions", "[dsl][linalg]") {
    const MatrixXd X = 2 * fill(3, 4, 0.6);
    const VectorXd v = fill(5, 1.1);
    auto lse = [](const auto& x) { return std::log(x.array().exp().sum()); };
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return log_sum_exp(xs[0]); }, scalar(lse(v)));
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return log_sum_exp(xs[0]); }, scalar(lse(X)));
    check_fn(
        {S(0.3), S(-1.2)}, [](Model&, auto& xs) { return log_sum_exp(xs[0], xs[1]); },
        scalar(std::log(std::exp(0.3) + std::exp(-1.2))));
    VectorXd rows(3), cols(4);
    for (int i = 0; i < 3; ++i) rows[i] = lse(X.row(i));
    for (int j = 0; j < 4; ++j) cols[j] = lse(X.col(j));
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return log_sum_exp_rows(xs[0]); }, rows);
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return log_sum_exp_cols(xs[0]); }, cols);
    const VectorXd sm = v.array().exp() / v.array().exp().sum();
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return softmax(xs[0]); }, sm);
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return log_softmax(xs[0]); }, VectorXd(sm.array().log()));
    const double mu = v.mean();
    const double var = (v.array() - mu).square().sum() / 4;
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return mean(xs[0]); }, scalar(mu));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return variance(xs[0]); }, scalar(var));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return sd(xs[0]); }, scalar(std::sqrt(var)));
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return mean(xs[0]); }, scalar(X.mean()));
    VectorXd cs(5);
    std::partial_sum(v.data(), v.data() + 5, cs.data());
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return cumulative_sum(xs[0]); }, cs);
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return prod(xs[0]); }, scalar(v.prod()));
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return row_sums(xs[0]); }, X.rowwise().sum());
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return col_sums(xs[0]); }, X.colwise().sum().transpose());

    SECTION("min and max: values, and a gradient to the extreme element") {
        Model m;
        const MatrixXd D = fill(2, 3, 0.9);
        auto d = m.data("D", D);
        auto p = m.param("p", normal(0, 1));
        CHECK(value_of(m, min(d), VectorXd::Zero(1))(0, 0) == D.minCoeff());
        CHECK(value_of(m, max(d), VectorXd::Zero(1))(0, 0) == D.maxCoeff());
        // d/dp max(D p) is max(D) for p > 0 and min(D) for p < 0; the prior adds -p.
        m.target_add(max(d) * p + max(d * p));
        Program prog = compile(m);
        VectorXd z(1), g(1);
        z << 0.5;
        (void)prog.run(z, g);
        CHECK(g[0] == Approx(2 * D.maxCoeff() - 0.5).epsilon(1e-12));
        z << -0.5;
        (void)prog.run(z, g);
        CHECK(g[0] == Approx(D.maxCoeff() + D.minCoeff() + 0.5).epsilon(1e-12));
    }
}

TEST_CASE("slices", "[dsl][linalg]") {
    const MatrixXd X = fill(4, 5, 0.2);
    const VectorXd v = fill(6, 0.8);
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return segment(xs[0], 1, 3); }, v.segment(1, 3));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return head(xs[0], 2); }, v.head(2));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return tail(xs[0], 4); }, v.tail(4));
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return row(xs[0], 2); }, X.row(2).transpose());
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return col(xs[0], 4); }, X.col(4));
    check_fn(
        {M(X)}, [](Model&, auto& xs) { return block(xs[0], 1, 2, 3, 2); }, X.block(1, 2, 3, 2));
}

TEST_CASE("building vectors and matrices", "[dsl][linalg]") {
    const MatrixXd A = fill(2, 3, 0.4), B = fill(3, 3, 1.2);
    const VectorXd u = fill(2, 0.6), v = fill(3, 1.5);
    check_fn(
        {S(0.7)}, [](Model&, auto& xs) { return rep_vector(xs[0], 3); },
        VectorXd::Constant(3, 0.7));
    check_fn(
        {S(0.7)}, [](Model&, auto& xs) { return rep_matrix(xs[0], 2, 3); },
        MatrixXd::Constant(2, 3, 0.7));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return rep_matrix(xs[0], 2); }, v.replicate(1, 2));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return rep_matrix_rows(xs[0], 4); },
        v.transpose().replicate(4, 1));
    check_fn(
        {M(A)}, [](Model&, auto& xs) { return tile_rows(xs[0], 3); }, A.replicate(3, 1));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return tile_rows(xs[0], 2); }, v.replicate(2, 1));
    VectorXd uv(5), su(3);
    uv << u, v;
    su << 0.9, u;
    check_fn(
        {V(u), V(v)}, [](Model&, auto& xs) { return append_row(xs[0], xs[1]); }, uv);
    check_fn(
        {S(0.9), V(u)}, [](Model&, auto& xs) { return append_row(xs[0], xs[1]); }, su);
    MatrixXd AB(5, 3), Au(2, 4), uu(2, 2);
    AB << A, B;
    Au << A, u;
    uu << u, u;
    check_fn(
        {M(A), M(B)}, [](Model&, auto& xs) { return append_row(xs[0], xs[1]); }, AB);
    check_fn(
        {M(A), V(u)}, [](Model&, auto& xs) { return append_col(xs[0], xs[1]); }, Au);
    check_fn(
        {V(u), V(u * 3)}, [](Model&, auto& xs) { return append_col(xs[0], xs[1]); },
        (MatrixXd(2, 2) << u, u * 3).finished());
    check_fn(
        {M(A)}, [](Model&, auto& xs) { return to_vector(xs[0]); },
        Eigen::Map<const VectorXd>(A.data(), 6));
    check_fn(
        {V(v)}, [](Model&, auto& xs) { return to_matrix(append_row(xs[0], xs[0]), 2, 3); },
        (MatrixXd(2, 3) << v[0], v[2], v[1], v[1], v[0], v[2]).finished());
}

TEST_CASE("rows of a matrix by an integer index vector", "[dsl][linalg]") {
    const MatrixXd X = fill(3, 2, 0.5);
    const Eigen::VectorXi idx = (Eigen::VectorXi(4) << 2, 2, 0, 1).finished();
    MatrixXd want(4, 2);
    for (int k = 0; k < 4; ++k) want.row(k) = X.row(idx[k]);
    check_fn(
        {M(X)}, [&](Model& m, auto& xs) { return xs[0][m.data("idx", idx)]; }, want);
    // integer data converted to reals where a function reads reals
    check_fn(
        {V(fill(4, 0.1))},
        [&](Model& m, auto& xs) { return rows_dot_product(to_vector(m.data("i", idx)), xs[0]); },
        idx.cast<double>().cwiseProduct(fill(4, 0.1)));
}

TEST_CASE("linear algebra errors name the function, the argument and both shapes",
          "[dsl][linalg]") {
    Model m;
    auto A = m.param("A", normal(0, 1), 2, 3);
    auto B = m.param("B", normal(0, 1), 4, 5);
    auto Q = m.param("Q", normal(0, 1), 3, 3);
    auto v = m.param("v", normal(0, 1), 4);
    auto s = m.param("s", normal(0, 1));
#define NAMES(fn, arg, s1, s2)                                                    \
    Catch::Contains(fn) && Catch::Contains("`" arg "`") && Catch::Contains(s1) && \
        Catch::Contains(s2)
    CHECK_THROWS_AS(quad_form(Q, v), ShapeError);
    CHECK_THROWS_WITH(quad_form(Q, v), NAMES("quad_form", "B", "vec[4]", "mat[3,3]"));
    CHECK_THROWS_WITH(quad_form(A, v), NAMES("quad_form", "A", "mat[2,3]", "square"));
    CHECK_THROWS_WITH(tile_rows(s, 2), NAMES("tile_rows", "x", "real", "vector"));
    CHECK_THROWS_WITH(tile_rows(v, 0), Catch::Contains("tile_rows: argument `reps` is 0"));
    CHECK_THROWS_WITH(tile_rows(v, -1), Catch::Contains("tile_rows: argument `reps` is -1"));
    CHECK_THROWS_WITH(A * B, NAMES("matmul", "B", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(diag_pre_multiply(v, A),
                      NAMES("diag_pre_multiply", "v", "vec[4]", "mat[2,3]"));
    CHECK_THROWS_WITH(diag_post_multiply(A, v),
                      NAMES("diag_post_multiply", "v", "vec[4]", "mat[2,3]"));
    CHECK_THROWS_WITH(rows_dot_product(A, B),
                      NAMES("rows_dot_product", "B", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(columns_dot_product(A, v),
                      NAMES("columns_dot_product", "B", "vec[4]", "mat[2,3]"));
    CHECK_THROWS_WITH(mdivide_left_tri_low(Q, v),
                      NAMES("mdivide_left_tri_low", "b", "vec[4]", "mat[3,3]"));
    CHECK_THROWS_WITH(mdivide_right_tri_low(v, Q),
                      NAMES("mdivide_right_tri_low", "b", "vec[4]", "mat[3,3]"));
    CHECK_THROWS_WITH(cholesky_decompose(A),
                      NAMES("cholesky_decompose", "S", "mat[2,3]", "square"));
    CHECK_THROWS_WITH(inverse_spd(v), NAMES("inverse_spd", "S", "vec[4]", "square"));
    CHECK_THROWS_WITH(append_row(A, B), NAMES("append_row", "y", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(append_row(s, s), NAMES("append_row", "y", "real", "real"));
    CHECK_THROWS_WITH(append_col(A, v), NAMES("append_col", "y", "vec[4]", "mat[2,3]"));
    CHECK_THROWS_WITH(segment(v, 2, 3), NAMES("segment", "v", "vec[3]", "vec[4]"));
    CHECK_THROWS_WITH(tail(v, 5), NAMES("tail", "v", "vec[5]", "vec[4]"));
    CHECK_THROWS_WITH(row(A, 2), NAMES("row", "M", "mat[1,3]", "mat[2,3]"));
    CHECK_THROWS_WITH(block(B, 3, 0, 2, 2), NAMES("block", "M", "mat[2,2]", "mat[4,5]"));
    CHECK_THROWS_WITH(to_matrix(v, 3, 2), NAMES("to_matrix", "v", "vec[4]", "mat[3,2]"));
    CHECK_THROWS_WITH(softmax(A), NAMES("softmax", "v", "mat[2,3]", "a vector"));
    CHECK_THROWS_WITH(transpose(v), NAMES("transpose", "A", "vec[4]", "a matrix"));
    CHECK_THROWS_WITH(rep_vector(v, 2), NAMES("rep_vector", "x", "vec[4]", "a scalar"));
    CHECK_THROWS_WITH(log_sum_exp(s, v), NAMES("log_sum_exp", "b", "vec[4]", "a scalar"));
#undef NAMES
}

}  // namespace advi
