// The linear algebra, reduction and slicing ops: values against Eigen (or a formula) computed
// independently here, gradients against finite differences with respect to every real
// input, shape errors that name the op, the argument and both shapes.
#include <cmath>
#include <deque>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/diff/reverse.hpp>
#include <advi/graph/graph.hpp>
#include <advi/graph/ops_linalg.hpp>

#include "support/graph_case.hpp"

namespace advi {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using test::Case;
using test::check_close;
using test::check_grad;
using test::eval;
using test::fill;

// S = A A' + n I from free A: symmetric positive definite for every A.
NodeId spd(Case& c, NodeId A) {
    const int n = c.g[A].shape.rows;
    const NodeId I = c.g.apply(Op::DiagMatrix, c.g.constant(1.0, Shape::vector(n)));
    return c.g.apply(Op::Add, c.g.apply(Op::MatMulT, A, A), c.g.apply(Op::Mul, c.g.constant(n), I));
}

// A lower-triangular factor with a comfortable diagonal and garbage above it (which the
// triangular ops must not read).
MatrixXd lower_with_garbage(int n, double seed) {
    MatrixXd L = fill(n, n, seed);
    for (int i = 0; i < n; ++i) L(i, i) = 1.5 + 0.3 * i;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < j; ++i) L(i, j) = 7.0 + i - j;
    }
    return L;
}

}  // namespace

TEST_CASE("matrix products: values and gradients", "[graph][linalg]") {
    const MatrixXd A = fill(3, 2, 0.1), B = fill(2, 4, 0.9), C = fill(3, 4, 1.7),
                   D = fill(4, 2, 2.2);
    SECTION("matmul: A B") {
        Case c;
        const NodeId out = c.g.apply(Op::MatMul, c.mat(A), c.mat(B));
        check_close(eval(c, out), A * B);
        check_grad(c, out);
    }
    SECTION("mattmul: A' C") {
        Case c;
        const NodeId out = c.g.apply(Op::MatTMul, c.mat(A), c.mat(C));
        check_close(eval(c, out), A.transpose() * C);
        check_grad(c, out);
    }
    SECTION("matmult: A D'") {
        Case c;
        const NodeId out = c.g.apply(Op::MatMulT, c.mat(A), c.mat(D));
        check_close(eval(c, out), A * D.transpose());
        check_grad(c, out);
    }
    SECTION("one input twice: A' A and A A'") {
        Case c;
        const NodeId a = c.mat(A);
        check_close(eval(c, c.g.apply(Op::MatTMul, a, a)), A.transpose() * A);
        check_grad(c, c.g.apply(Op::MatTMul, a, a));
        check_grad(c, c.g.apply(Op::MatMulT, a, a));
    }
}

TEST_CASE("transpose, diag_matrix, diagonal, tril", "[graph][linalg]") {
    const MatrixXd A = fill(3, 4, 0.3), S = fill(3, 3, 1.1);
    const VectorXd v = fill(3, 0.5);
    Case c;
    const NodeId a = c.mat(A), s = c.mat(S), x = c.vec(v);
    const NodeId t = c.g.apply(Op::Transpose, a);
    const NodeId dm = c.g.apply(Op::DiagMatrix, x);
    const NodeId dg = c.g.apply(Op::Diagonal, s);
    const NodeId tl = c.g.apply(Op::Tril, a);
    check_close(eval(c, t), A.transpose());
    check_close(eval(c, dm), MatrixXd(v.asDiagonal()));
    check_close(eval(c, dg), S.diagonal());
    MatrixXd want = A;
    for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < std::min(j, 3); ++i) want(i, j) = 0;
    }
    check_close(eval(c, tl), want);
    for (NodeId out : {t, dm, dg, tl}) {
        INFO(op_name(c.g[out].op));
        check_grad(c, out);
    }
}

TEST_CASE("cholesky_decompose: values, gradients, lower triangle only", "[graph][linalg]") {
    SECTION("of A A' + n I, differentiated through A") {
        for (double seed : {0.2, 1.9}) {
            Case c;
            const MatrixXd A = fill(4, 4, seed);
            const NodeId L = c.g.apply(Op::Cholesky, spd(c, c.mat(A)));
            const MatrixXd S = A * A.transpose() + 4 * MatrixXd::Identity(4, 4);
            const MatrixXd want = Eigen::LLT<MatrixXd>(S).matrixL();
            check_close(eval(c, L), want, 1e-12);
            check_grad(c, L);
        }
    }
    SECTION("near the edge: a nearly singular matrix") {
        Case c;
        MatrixXd A = fill(3, 3, 0.7);
        A.col(2) = A.col(0) + 1e-3 * A.col(1);  // rank 2 up to 1e-3
        // S = A A' + 0.05 I: smallest eigenvalue 0.05 against largest ~ 10
        const NodeId a = c.mat(A);
        const NodeId I = c.g.apply(Op::DiagMatrix, c.g.constant(1.0, Shape::vector(3)));
        const NodeId S = c.g.apply(Op::Add, c.g.apply(Op::MatMulT, a, a),
                                   c.g.apply(Op::Mul, c.g.constant(0.05), I));
        check_grad(c, c.g.apply(Op::Cholesky, S), 1e-5);
    }
    SECTION("a free matrix: the upper triangle is not read and gets no gradient") {
        Case c;
        const MatrixXd A = fill(3, 3, 0.4);
        MatrixXd S = A * A.transpose() + 3 * MatrixXd::Identity(3, 3);
        MatrixXd garbage = S;
        garbage(0, 1) = 100;
        garbage(0, 2) = -50;
        garbage(1, 2) = 3;
        const NodeId L = c.g.apply(Op::Cholesky, c.mat(garbage));
        const MatrixXd want = Eigen::LLT<MatrixXd>(S).matrixL();
        check_close(eval(c, L), want);
        check_grad(c, L);
    }
    SECTION("not positive definite: NaN, so that a fit drops the draw") {
        Case c;
        MatrixXd S = MatrixXd::Identity(2, 2);
        S(1, 1) = -1;
        const MatrixXd out = eval(c, c.g.apply(Op::Cholesky, c.mat(S)));
        CHECK(out.array().isNaN().all());
    }
}

TEST_CASE("triangular solves: L^-1 b and L^-T b read L's lower triangle", "[graph][linalg]") {
    const MatrixXd Lg = lower_with_garbage(4, 0.6);
    const MatrixXd L = Lg.triangularView<Eigen::Lower>();
    const VectorXd b = fill(4, 1.2);
    const MatrixXd B = fill(4, 3, 2.1);
    const Eigen::FullPivLU<MatrixXd> lu(L), lut(L.transpose());
    for (Op op : {Op::TriLowSolve, Op::TriLowTSolve}) {
        const auto& solver = op == Op::TriLowSolve ? lu : lut;
        INFO(op_name(op));
        Case c;
        const NodeId l = c.mat(Lg);
        const NodeId xv = c.g.apply(op, l, c.vec(b));
        const NodeId xm = c.g.apply(op, l, c.mat(B));
        check_close(eval(c, xv), solver.solve(b), 1e-12);
        check_close(eval(c, xm), solver.solve(B), 1e-12);
        check_grad(c, xv);
        check_grad(c, xm);
    }
}

TEST_CASE("log_determinant and inverse", "[graph][linalg]") {
    MatrixXd A = fill(3, 3, 0.8) + 2 * MatrixXd::Identity(3, 3);
    for (int sign : {1, -1}) {
        if (sign < 0)
            A.row(0).swap(A.row(1));  // a negative determinant: log |det A|
        const Eigen::FullPivLU<MatrixXd> lu(A);
        REQUIRE(lu.determinant() * sign > 0);
        Case c;
        const NodeId a = c.mat(A);
        const NodeId ld = c.g.apply(Op::LogDeterminant, a);
        const NodeId inv = c.g.apply(Op::Inverse, a);
        check_close(eval(c, ld), MatrixXd::Constant(1, 1, std::log(std::abs(lu.determinant()))));
        check_close(eval(c, inv), lu.inverse(), 1e-12);
        check_grad(c, ld);
        check_grad(c, inv);
    }
}

TEST_CASE("log_sum_exp: whole, by rows, by columns; no overflow", "[graph][linalg]") {
    const MatrixXd X = 3 * fill(3, 4, 0.25);
    auto naive = [](const auto& x) { return std::log(x.array().exp().sum()); };
    SECTION("values and gradients") {
        Case c;
        const NodeId x = c.mat(X), v = c.vec(X.col(1));
        const NodeId all = c.g.apply(Op::LogSumExp, x);
        const NodeId vec = c.g.apply(Op::LogSumExp, v);
        const NodeId rows = c.g.apply(Op::LogSumExpRows, x);
        const NodeId cols = c.g.apply(Op::LogSumExpCols, x);
        check_close(eval(c, all), MatrixXd::Constant(1, 1, naive(X)));
        check_close(eval(c, vec), MatrixXd::Constant(1, 1, naive(X.col(1))));
        VectorXd wr(3), wc(4);
        for (int i = 0; i < 3; ++i) wr[i] = naive(X.row(i));
        for (int j = 0; j < 4; ++j) wc[j] = naive(X.col(j));
        check_close(eval(c, rows), wr);
        check_close(eval(c, cols), wc);
        for (NodeId out : {all, vec, rows, cols}) check_grad(c, out);
    }
    SECTION("large and very negative arguments") {
        Case c;
        VectorXd v(3);
        v << 1000, 999, -1e6;
        const NodeId x = c.vec(v);
        const double want = 1000 + std::log1p(std::exp(-1.0));
        check_close(eval(c, c.g.apply(Op::LogSumExp, x)), MatrixXd::Constant(1, 1, want));
        check_grad(c, c.g.apply(Op::LogSumExp, x));
    }
}

TEST_CASE("cumulative sums, prod, min, max", "[graph][linalg]") {
    const VectorXd v = fill(5, 0.9);
    SECTION("cumulative_sum and its reverse") {
        Case c;
        const NodeId x = c.vec(v);
        VectorXd fwd(5), rev(5);
        for (int i = 0; i < 5; ++i) {
            fwd[i] = v.head(i + 1).sum();
            rev[i] = v.tail(5 - i).sum();
        }
        const NodeId cs = c.g.apply(Op::CumulativeSum, x);
        const NodeId rs = c.g.apply(Op::ReverseCumulativeSum, x);
        check_close(eval(c, cs), fwd);
        check_close(eval(c, rs), rev);
        check_grad(c, cs);
        check_grad(c, rs);
    }
    SECTION("prod, with and without a zero factor") {
        for (bool zero : {false, true}) {
            VectorXd w = v;
            if (zero)
                w[2] = 0;
            Case c;
            const NodeId x = c.vec(w);
            double want = 1;
            for (double e : w) want *= e;
            check_close(eval(c, c.g.apply(Op::Prod, x)), MatrixXd::Constant(1, 1, want));
            VectorXd others(5);
            for (int i = 0; i < 5; ++i) {
                others[i] = 1;
                for (int j = 0; j < 5; ++j) others[i] *= i == j ? 1 : w[j];
            }
            check_close(eval(c, c.g.apply(Op::ProdOthers, x)), others);
            check_grad(c, c.g.apply(Op::Prod, x));
        }
    }
    SECTION("min and max: values; gradients (second_order_test.cpp)") {
        Case c;
        const NodeId x = c.mat(fill(2, 3, 0.2));
        const MatrixXd X = fill(2, 3, 0.2);
        check_close(eval(c, c.g.apply(Op::Min, x)), MatrixXd::Constant(1, 1, X.minCoeff()));
        check_close(eval(c, c.g.apply(Op::Max, x)), MatrixXd::Constant(1, 1, X.maxCoeff()));
    }
}

TEST_CASE("block, embed, reshape: values and gradients", "[graph][linalg]") {
    const MatrixXd M = fill(4, 5, 0.6);
    const VectorXd v = fill(6, 1.4);
    Case c;
    const NodeId m = c.mat(M), x = c.vec(v);
    const NodeId seg = linalg::block(c.g, x, 2, 0, Shape::vector(3));
    const NodeId blk = linalg::block(c.g, m, 1, 2, Shape::matrix(2, 3));
    const NodeId column = linalg::block(c.g, m, 0, 3, Shape::vector(4));
    const NodeId emb = linalg::embed(c.g, x, 1, 0, Shape::vector(9));
    const NodeId embm = linalg::embed(c.g, m, 1, 2, Shape::matrix(6, 8));
    const NodeId rv = linalg::reshape(c.g, m, Shape::vector(20));
    const NodeId rm = linalg::reshape(c.g, x, Shape::matrix(2, 3));
    check_close(eval(c, seg), v.segment(2, 3));
    check_close(eval(c, blk), M.block(1, 2, 2, 3));
    check_close(eval(c, column), M.col(3));
    VectorXd e = VectorXd::Zero(9);
    e.segment(1, 6) = v;
    check_close(eval(c, emb), e);
    MatrixXd E = MatrixXd::Zero(6, 8);
    E.block(1, 2, 4, 5) = M;
    check_close(eval(c, embm), E);
    check_close(eval(c, rv), Eigen::Map<const VectorXd>(M.data(), 20));
    check_close(eval(c, rm), Eigen::Map<const MatrixXd>(v.data(), 2, 3));
    for (NodeId out : {seg, blk, column, emb, embm, rv, rm}) {
        INFO(op_name(c.g[out].op) << " " << c.g[out].shape.str());
        check_grad(c, out);
    }
}

TEST_CASE("append_row, append_col: values and gradients", "[graph][linalg]") {
    const MatrixXd A = fill(2, 3, 0.1), B = fill(3, 3, 0.5), C = fill(2, 2, 0.9);
    const VectorXd u = fill(2, 1.3), v = fill(4, 1.8);
    Case c;
    const NodeId a = c.mat(A), b = c.mat(B), cc = c.mat(C), x = c.vec(u), y = c.vec(v);
    const NodeId rows_vv = c.g.apply(Op::AppendRow, x, y);
    const NodeId rows_mm = c.g.apply(Op::AppendRow, a, b);
    const NodeId cols_mm = c.g.apply(Op::AppendCol, a, cc);
    const NodeId cols_vm = c.g.apply(Op::AppendCol, x, a);
    const NodeId cols_vv = c.g.apply(Op::AppendCol, x, x);
    VectorXd w(6);
    w << u, v;
    MatrixXd R(5, 3), K(2, 5), Kvm(2, 4), Kvv(2, 2);
    R << A, B;
    K << A, C;
    Kvm << u, A;
    Kvv << u, u;
    check_close(eval(c, rows_vv), w);
    check_close(eval(c, rows_mm), R);
    check_close(eval(c, cols_mm), K);
    check_close(eval(c, cols_vm), Kvm);
    check_close(eval(c, cols_vv), Kvv);
    for (NodeId out : {rows_vv, rows_mm, cols_mm, cols_vm, cols_vv}) check_grad(c, out);
}

TEST_CASE("rep_cols, rep_rows, row_sums, col_sums: values and gradients", "[graph][linalg]") {
    const MatrixXd M = fill(3, 4, 0.7);
    const VectorXd v = fill(3, 0.2);
    Case c;
    const NodeId m = c.mat(M), x = c.vec(v);
    const NodeId rc = linalg::rep_cols(c.g, x, 5);
    const NodeId rr = linalg::rep_rows(c.g, x, 2);
    const NodeId rs = c.g.apply(Op::RowSums, m);
    const NodeId cs = c.g.apply(Op::ColSums, m);
    check_close(eval(c, rc), v.replicate(1, 5));
    check_close(eval(c, rr), v.transpose().replicate(2, 1));
    check_close(eval(c, rs), M.rowwise().sum());
    check_close(eval(c, cs), M.colwise().sum().transpose());
    for (NodeId out : {rc, rr, rs, cs}) check_grad(c, out);
}

TEST_CASE("tile_rows and tile_sum_rows: values and gradients", "[graph][linalg]") {
    const MatrixXd M = fill(3, 2, 0.4);
    const VectorXd v = fill(4, 0.9);
    Case c;
    const NodeId m = c.mat(M), x = c.vec(v);
    const NodeId tm = linalg::tile_rows(c.g, m, 3);
    const NodeId tv = linalg::tile_rows(c.g, x, 2);
    CHECK(c.g[tm].shape == Shape::matrix(9, 2));
    CHECK(c.g[tv].shape == Shape::vector(8));
    CHECK(linalg::tile_rows(c.g, m, 1) == m);
    check_close(eval(c, tm), M.replicate(3, 1));
    check_close(eval(c, tv), v.replicate(2, 1));
    const MatrixXd G = fill(6, 2, 1.3);
    const NodeId g = c.mat(G);
    const NodeId sm = linalg::tile_sum_rows(c.g, g, 2);
    const NodeId sv = linalg::tile_sum_rows(c.g, x, 2);
    MatrixXd want = MatrixXd::Zero(2, 2);
    for (int t = 0; t < 3; ++t) want += G.middleRows(2 * t, 2);
    check_close(eval(c, sm), want);
    check_close(eval(c, sv), v.head(2) + v.tail(2));
    for (NodeId out : {tm, tv, sm, sv}) check_grad(c, out);
    // The tiles must fit exactly: 7 rows do not tile by 3.
    Node bad;
    bad.op = Op::TileSumRows;
    bad.shape = Shape::vector(3);
    bad.in = {c.vec(fill(7, 0.1)), kNoNode, kNoNode};
    CHECK_THROWS_WITH(c.g.intern(bad), Catch::Contains("tile_sum_rows: argument `G` is vec[7]"));
}

TEST_CASE("gather_rows and scatter_add_rows", "[graph][linalg]") {
    const MatrixXd M = fill(3, 2, 0.3);
    Eigen::VectorXi idx(5);
    idx << 2, 0, 2, 1, 2;
    Case c;
    const NodeId m = c.mat(M);
    const NodeId ix = c.index(idx);
    const NodeId rows = c.g.apply(Op::GatherRows, m, ix);
    MatrixXd want(5, 2);
    for (int k = 0; k < 5; ++k) want.row(k) = M.row(idx[k]);
    check_close(eval(c, rows), want);
    check_grad(c, rows);

    const MatrixXd G = fill(5, 2, 1.1);
    Case s;
    const NodeId gz = s.mat(G);
    const NodeId sc = linalg::scatter_add_rows(s.g, gz, s.index(idx), 3);
    MatrixXd acc = MatrixXd::Zero(3, 2);
    for (int k = 0; k < 5; ++k) acc.row(idx[k]) += G.row(k);
    check_close(eval(s, sc), acc);
    check_grad(s, sc);

    c.ints.back()[1] = 3;  // out of range: a DataError when the program runs
    CHECK_THROWS_AS(eval(c, rows), DataError);
    CHECK_THROWS_WITH(eval(c, rows), Catch::Contains("row index 3 at position 1 is outside 0..2"));
}

TEST_CASE("shape errors name the op, the argument and both shapes", "[graph][linalg]") {
    Case c;
    const NodeId A = c.mat(fill(2, 3, 0.1));
    const NodeId B = c.mat(fill(4, 5, 0.2));
    const NodeId S = c.mat(fill(3, 3, 0.3));
    const NodeId v = c.vec(fill(4, 0.4));
    // (Catch's && of matchers keeps references: the combination must not outlive a call.)
#define names(op, arg, s1, s2)                                                    \
    Catch::Contains(op) && Catch::Contains("`" arg "`") && Catch::Contains(s1) && \
        Catch::Contains(s2)
    CHECK_THROWS_AS(c.g.apply(Op::MatMul, A, B), ShapeError);
    CHECK_THROWS_WITH(c.g.apply(Op::MatMul, A, B), names("matmul", "B", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(c.g.apply(Op::MatTMul, A, B), names("mattmul", "B", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(c.g.apply(Op::MatMulT, A, B), names("matmult", "B", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(c.g.apply(Op::MatMul, A, v), names("matmul", "B", "vec[4]", "a matrix"));
    CHECK_THROWS_WITH(c.g.apply(Op::TriLowSolve, S, v),
                      names("mdivide_left_tri_low", "b", "vec[4]", "mat[3,3]"));
    CHECK_THROWS_WITH(c.g.apply(Op::TriLowSolve, A, v),
                      names("mdivide_left_tri_low", "L", "mat[2,3]", "square"));
    CHECK_THROWS_WITH(c.g.apply(Op::Cholesky, A),
                      names("cholesky_decompose", "A", "mat[2,3]", "square"));
    CHECK_THROWS_WITH(c.g.apply(Op::Transpose, v), names("transpose", "A", "vec[4]", "a matrix"));
    CHECK_THROWS_WITH(c.g.apply(Op::AppendRow, A, B),
                      names("append_row", "y", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(c.g.apply(Op::AppendCol, A, B),
                      names("append_col", "y", "mat[4,5]", "mat[2,3]"));
    CHECK_THROWS_WITH(linalg::block(c.g, A, 1, 1, Shape::matrix(2, 2)),
                      names("block", "x", "mat[2,2]", "mat[2,3]"));
    CHECK_THROWS_WITH(linalg::reshape(c.g, A, Shape::vector(5)),
                      names("reshape", "x", "mat[2,3]", "vec[5]"));
    CHECK_THROWS_WITH(c.make(Op::RepCols, Shape::matrix(3, 2), v),
                      names("rep_cols", "v", "vec[4]", "mat[3,2]"));
    const NodeId ix = c.index(Eigen::VectorXi::Zero(3));
    CHECK_THROWS_WITH(c.make(Op::ScatterAddRows, Shape::matrix(3, 3), A, ix),
                      names("scatter_add_rows", "index", "vec[3]", "mat[2,3]"));
    CHECK_THROWS_WITH(c.g.apply(Op::GatherRows, v, ix),
                      names("gather_rows", "x", "vec[4]", "a matrix"));
    const NodeId iv = c.index(Eigen::VectorXi::Zero(4));
    CHECK_THROWS_WITH(c.g.apply(Op::Transpose, iv), names("transpose", "A", "integer data", "idx"));
#undef names
}

}  // namespace advi
