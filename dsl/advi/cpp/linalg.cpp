// The DSL's linear algebra, reductions and slicing: each function checks its arguments
// (errors name the function) and interns a few nodes of the op table.
#include <advi/cpp/linalg.hpp>

#include <limits>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/ops_dynamic_index.hpp>
#include <advi/graph/ops_linalg.hpp>

#include <advi/cpp/model.hpp>

namespace advi {
namespace {

// Nodes with attributes (a block's offsets, a result shape) are interned through the graph
// itself, as Expr::operator[] does; Model::apply covers plain ops of up to two inputs.
Graph& graph(const Expr& e) {
    return const_cast<Graph&>(e.model().nodes());
}

// The expression's node, as reals (integer data converted).
NodeId real(const Expr& e) {
    Graph& g = graph(e);
    return g[e.id()].dtype == DType::Int ? g.apply(Op::ToReal, e.id()) : e.id();
}
Expr wrap(const Expr& like, NodeId id) {
    return like.model().wrap(id);
}

enum Kind { kScalar = 1, kVector = 2, kMatrix = 4, kSquare = 8 };
std::string_view expected(int kinds) {
    switch (kinds) {
        case kScalar: return "a scalar";
        case kVector: return "a vector";
        case kMatrix: return "a matrix";
        case kSquare: return "a square matrix";
        case kVector | kMatrix: return "a vector or a matrix";
        case kScalar | kVector: return "a scalar or a vector";
        default: return "a scalar, vector or matrix";
    }
}
// Checks the kind of argument `name` of function `fn`; returns its shape.
Shape check(std::string_view fn, std::string_view name, const Expr& e, int kinds) {
    const Shape s = e.shape();
    const bool ok = (s.is_scalar() && (kinds & kScalar)) || (s.is_vector() && (kinds & kVector)) ||
                    (s.is_matrix() && (kinds & kMatrix)) ||
                    (s.is_matrix() && (kinds & kSquare) && s.rows == s.cols);
    if (!ok) {
        throw ShapeError(fmt::format("{}: argument `{}` is {} (expected {})", fn, name, s.str(),
                                     expected(kinds)));
    }
    return s;
}
[[noreturn]] void mismatch(std::string_view fn, std::string_view name, const Shape& s,
                           std::string_view other, const Shape& os, std::string_view why) {
    throw ShapeError(fmt::format("{}: argument `{}` is {} but argument `{}` is {} ({})", fn, name,
                                 s.str(), other, os.str(), why));
}

NodeId op(const Expr& like, Op o, NodeId a, NodeId b = kNoNode) {
    return graph(like).apply(o, a, b);
}
Expr apply(const Expr& like, Op o, NodeId a, NodeId b = kNoNode) {
    return wrap(like, op(like, o, a, b));
}
// A vector as a one-column matrix (for row and column reductions).
NodeId as_matrix(const Expr& e) {
    const Shape s = e.shape();
    return s.is_matrix() ? real(e) : linalg::reshape(graph(e), real(e), Shape::matrix(s.rows, 1));
}

}  // namespace

// ---------------------------------------------------------------- products and structure

Expr transpose(const Expr& A) {
    check("transpose", "A", A, kMatrix);
    return apply(A, Op::Transpose, real(A));
}
Expr elt_multiply(const Arg& A_arg, const Arg& B_arg) {
    const std::vector<Expr> e = detail::operands("elt_multiply", {&A_arg, &B_arg});
    const Expr& A = e[0];
    const Expr& B = e[1];
    return A.model().apply(Op::Mul, A, B);
}
Expr diag_matrix(const Expr& v) {
    check("diag_matrix", "v", v, kVector);
    return apply(v, Op::DiagMatrix, real(v));
}
Expr diagonal(const Expr& A) {
    check("diagonal", "A", A, kSquare);
    return apply(A, Op::Diagonal, real(A));
}
Expr diag_pre_multiply(const Arg& v_arg, const Arg& M_arg) {
    const std::vector<Expr> e = detail::operands("diag_pre_multiply", {&v_arg, &M_arg});
    const Expr& v = e[0];
    const Expr& M = e[1];
    const Shape sv = check("diag_pre_multiply", "v", v, kVector);
    const Shape sm = check("diag_pre_multiply", "M", M, kMatrix);
    if (sv.rows != sm.rows)
        mismatch("diag_pre_multiply", "v", sv, "M", sm, "one element per row of M");
    // diag(v) M scales row i by v_i: M .* [v v ... v]
    return apply(v, Op::Mul, linalg::rep_cols(graph(v), real(v), sm.cols), real(M));
}
Expr diag_post_multiply(const Arg& M_arg, const Arg& v_arg) {
    const std::vector<Expr> e = detail::operands("diag_post_multiply", {&M_arg, &v_arg});
    const Expr& M = e[0];
    const Expr& v = e[1];
    const Shape sm = check("diag_post_multiply", "M", M, kMatrix);
    const Shape sv = check("diag_post_multiply", "v", v, kVector);
    if (sv.rows != sm.cols) {
        mismatch("diag_post_multiply", "v", sv, "M", sm, "one element per column of M");
    }
    return apply(v, Op::Mul, real(M), linalg::rep_rows(graph(v), real(v), sm.rows));
}
Expr rows_dot_product(const Arg& A_arg, const Arg& B_arg) {
    const std::vector<Expr> e = detail::operands("rows_dot_product", {&A_arg, &B_arg});
    const Expr& A = e[0];
    const Expr& B = e[1];
    const Shape sa = check("rows_dot_product", "A", A, kVector | kMatrix);
    const Shape sb = check("rows_dot_product", "B", B, kVector | kMatrix);
    if (sa != sb)
        mismatch("rows_dot_product", "B", sb, "A", sa, "one shape");
    const NodeId p = op(A, Op::Mul, real(A), real(B));
    return sa.is_vector() ? wrap(A, p) : apply(A, Op::RowSums, p);
}
Expr columns_dot_product(const Arg& A_arg, const Arg& B_arg) {
    const std::vector<Expr> e = detail::operands("columns_dot_product", {&A_arg, &B_arg});
    const Expr& A = e[0];
    const Expr& B = e[1];
    const Shape sa = check("columns_dot_product", "A", A, kVector | kMatrix);
    const Shape sb = check("columns_dot_product", "B", B, kVector | kMatrix);
    if (sa != sb)
        mismatch("columns_dot_product", "B", sb, "A", sa, "one shape");
    return apply(A, Op::ColSums, op(A, Op::Mul, as_matrix(A), as_matrix(B)));
}
Expr rows_dot_self(const Expr& A) {
    return rows_dot_product(A, A);
}
Expr columns_dot_self(const Expr& A) {
    return columns_dot_product(A, A);
}
Expr dot_self(const Expr& v) {
    check("dot_self", "v", v, kVector);
    return apply(v, Op::Dot, real(v), real(v));
}
Expr quad_form(const Arg& A_arg, const Arg& B_arg) {
    const std::vector<Expr> e = detail::operands("quad_form", {&A_arg, &B_arg});
    const Expr& A = e[0];
    const Expr& B = e[1];
    const Shape sa = check("quad_form", "A", A, kSquare);
    const Shape sb = check("quad_form", "B", B, kVector | kMatrix);
    if (sb.rows != sa.rows)
        mismatch("quad_form", "B", sb, "A", sa, "as many rows in B as in A");
    if (sb.is_vector())
        return apply(A, Op::Dot, real(B), op(A, Op::MatVec, real(A), real(B)));
    return apply(A, Op::MatTMul, real(B), op(A, Op::MatMul, real(A), real(B)));
}
Expr crossprod(const Expr& A) {
    check("crossprod", "A", A, kMatrix);
    return apply(A, Op::MatTMul, real(A), real(A));
}
Expr tcrossprod(const Expr& A) {
    check("tcrossprod", "A", A, kMatrix);
    return apply(A, Op::MatMulT, real(A), real(A));
}
Expr trace(const Expr& A) {
    check("trace", "A", A, kSquare);
    return apply(A, Op::Sum, op(A, Op::Diagonal, real(A)));
}
Expr multiply_lower_tri_self_transpose(const Expr& L) {
    check("multiply_lower_tri_self_transpose", "L", L, kMatrix);
    const NodeId T = op(L, Op::Tril, real(L));
    return apply(L, Op::MatMulT, T, T);
}

// ---------------------------------------------------------------- factorisations, solves

Expr cholesky_decompose(const Expr& S) {
    check("cholesky_decompose", "S", S, kSquare);
    return apply(S, Op::Cholesky, real(S));
}
Expr eigenvalues_sym(const Expr& A) {
    check("eigenvalues_sym", "A", A, kSquare);
    return apply(A, Op::EigenvaluesSym, real(A));
}
Expr matrix_exp(const Expr& A) {
    check("matrix_exp", "A", A, kSquare);
    return apply(A, Op::MatrixExp, real(A));
}
Expr eigenvectors_sym(const Expr& A) {
    check("eigenvectors_sym", "A", A, kSquare);
    return apply(A, Op::EigenvectorsSym, real(A));
}
Expr mdivide_left_tri_low(const Arg& L_arg, const Arg& b_arg) {
    const std::vector<Expr> e = detail::operands("mdivide_left_tri_low", {&L_arg, &b_arg});
    const Expr& L = e[0];
    const Expr& b = e[1];
    const Shape sl = check("mdivide_left_tri_low", "L", L, kSquare);
    const Shape sb = check("mdivide_left_tri_low", "b", b, kVector | kMatrix);
    if (sb.rows != sl.rows)
        mismatch("mdivide_left_tri_low", "b", sb, "L", sl, "as many rows in b as in L");
    return apply(L, Op::TriLowSolve, real(L), real(b));
}
// b L^-1 = (L^-T b')': for a vector b (Stan's row vector) that is L^-T b itself.
Expr mdivide_right_tri_low(const Arg& b_arg, const Arg& L_arg) {
    const std::vector<Expr> e = detail::operands("mdivide_right_tri_low", {&b_arg, &L_arg});
    const Expr& b = e[0];
    const Expr& L = e[1];
    const Shape sl = check("mdivide_right_tri_low", "L", L, kSquare);
    const Shape sb = check("mdivide_right_tri_low", "b", b, kVector | kMatrix);
    const int n = sb.is_vector() ? sb.rows : sb.cols;
    if (n != sl.rows) {
        mismatch("mdivide_right_tri_low", "b", sb, "L", sl,
                 "as many columns in b (elements, for a vector) as rows in L");
    }
    if (sb.is_vector())
        return apply(L, Op::TriLowTSolve, real(L), real(b));
    const NodeId X = op(L, Op::TriLowTSolve, real(L), op(L, Op::Transpose, real(b)));
    return apply(L, Op::Transpose, X);
}
Expr determinant(const Expr& A) {
    check("determinant", "A", A, kSquare);
    return apply(A, Op::Determinant, real(A));
}
// The Moore-Penrose inverse of a matrix of full rank: A^-1, (A' A)^-1 A' (more rows than
// columns) or A' (A A')^-1 (more columns).
Expr generalized_inverse(const Expr& A) {
    if (!A.shape().is_matrix())
        throw ShapeError(
            fmt::format("generalized_inverse: A must be a matrix, got {}", A.shape().str()));
    if (A.shape().rows == A.shape().cols)
        return inverse(A);
    if (A.shape().rows > A.shape().cols)
        return inverse(crossprod(A)) * transpose(A);
    return transpose(A) * inverse(tcrossprod(A));
}
Expr log_determinant(const Expr& A) {
    check("log_determinant", "A", A, kSquare);
    return apply(A, Op::LogDeterminant, real(A));
}
// log det S = 2 sum log diag(chol(S))
Expr log_determinant_spd(const Expr& S) {
    check("log_determinant_spd", "S", S, kSquare);
    const NodeId L = op(S, Op::Cholesky, real(S));
    const NodeId s = op(S, Op::Sum, op(S, Op::Log, op(S, Op::Diagonal, L)));
    return apply(S, Op::Mul, graph(S).constant(2.0), s);
}
Expr inverse(const Expr& A) {
    check("inverse", "A", A, kSquare);
    return apply(A, Op::Inverse, real(A));
}
// S^-1 = L^-T L^-1 = (L^-1)' (L^-1), L = chol(S): symmetric by construction.
Expr inverse_spd(const Expr& S) {
    const Shape s = check("inverse_spd", "S", S, kSquare);
    Graph& g = graph(S);
    const NodeId L = g.apply(Op::Cholesky, real(S));
    const NodeId I = g.apply(Op::DiagMatrix, g.constant(1.0, Shape::vector(s.rows)));
    const NodeId Linv = g.apply(Op::TriLowSolve, L, I);
    return apply(S, Op::MatTMul, Linv, Linv);
}

// ---------------------------------------------------------------- reductions

Expr log_sum_exp(const Expr& x) {
    check("log_sum_exp", "x", x, kVector | kMatrix);
    return apply(x, Op::LogSumExp, real(x));
}
Expr log_sum_exp(const Arg& a_arg, const Arg& b_arg) {
    const std::vector<Expr> e = detail::operands("log_sum_exp", {&a_arg, &b_arg});
    const Expr& a = e[0];
    const Expr& b = e[1];
    check("log_sum_exp", "a", a, kScalar);
    check("log_sum_exp", "b", b, kScalar);
    Graph& g = graph(a);
    const NodeId v = g.apply(Op::AppendRow, linalg::reshape(g, real(a), Shape::vector(1)),
                             linalg::reshape(g, real(b), Shape::vector(1)));
    return apply(a, Op::LogSumExp, v);
}
// log_sum_exp_rows(M) = m + log(row_sums(exp(M - m))) with m the row maxima (0 where not
// finite, so that a row of -inf gives -inf and a row holding +inf gives +inf): the
// exponentials are a node of their own, so the gradient (the softmax of each row,
// exp(M - m) / row_sums) reuses them instead of computing a second exp per element.
Expr log_sum_exp_rows(const Expr& M) {
    check("log_sum_exp_rows", "M", M, kMatrix);
    Graph& g = graph(M);
    const NodeId X = real(M);
    const int cols = g[X].shape.cols;
    const NodeId m = g.apply(Op::LseShiftRows, X);
    const NodeId E = g.apply(Op::Exp, g.apply(Op::Sub, X, linalg::rep_cols(g, m, cols)));
    return apply(M, Op::Add, m, g.apply(Op::Log, g.apply(Op::RowSums, E)));
}
Expr log_sum_exp_cols(const Expr& M) {
    check("log_sum_exp_cols", "M", M, kMatrix);
    return apply(M, Op::LogSumExpCols, real(M));
}
// softmax(v) = exp(v - log_sum_exp(v)): no overflow, sums to 1 up to rounding.
Expr softmax(const Expr& v) {
    check("softmax", "v", v, kVector);
    return apply(v, Op::Exp, log_softmax(v).id());
}
Expr log_softmax(const Expr& v) {
    check("log_softmax", "v", v, kVector);
    const NodeId x = real(v);
    return apply(v, Op::Sub, x, op(v, Op::LogSumExp, x));
}
Expr mean(const Expr& x) {
    const Shape s = check("mean", "x", x, kVector | kMatrix);
    if (s.size() == 0)
        throw ShapeError(fmt::format("mean: argument `x` is {} (empty)", s.str()));
    return apply(x, Op::Mul, graph(x).constant(1.0 / s.size()), op(x, Op::Sum, real(x)));
}
// sum((x - mean)^2) / (n - 1): the two-pass form, accurate when the mean is large.
Expr variance(const Expr& x) {
    const Shape s = check("variance", "x", x, kVector | kMatrix);
    if (s.size() == 0)
        throw ShapeError(fmt::format("variance: argument `x` is {} (empty)", s.str()));
    Graph& g = graph(x);
    if (s.size() == 1)
        return wrap(x, g.constant(0.0));
    const NodeId d = g.apply(Op::Sub, real(x), mean(x).id());
    const NodeId ss = g.apply(Op::Sum, g.apply(Op::Square, d));
    return apply(x, Op::Mul, g.constant(1.0 / (s.size() - 1)), ss);
}
Expr sd(const Expr& x) {
    check("sd", "x", x, kVector | kMatrix);
    return apply(x, Op::Sqrt, variance(x).id());
}
Expr cumulative_sum(const Expr& v) {
    check("cumulative_sum", "v", v, kVector);
    return apply(v, Op::CumulativeSum, real(v));
}
Expr prod(const Expr& x) {
    check("prod", "x", x, kVector | kMatrix);
    return apply(x, Op::Prod, real(x));
}
Expr row_sums(const Expr& M) {
    check("row_sums", "M", M, kMatrix);
    return apply(M, Op::RowSums, real(M));
}
Expr col_sums(const Expr& M) {
    check("col_sums", "M", M, kMatrix);
    return apply(M, Op::ColSums, real(M));
}
Expr min(const Expr& x) {
    check("min", "x", x, kVector | kMatrix);
    return apply(x, Op::Min, real(x));
}
Expr max(const Expr& x) {
    check("max", "x", x, kVector | kMatrix);
    return apply(x, Op::Max, real(x));
}

// ---------------------------------------------------------------- slices

namespace {
Expr slice(std::string_view fn, const Expr& x, int i, int j, Shape s) {
    const Shape sx = x.shape();
    if (s.rows < 0 || s.cols < 0 || i < 0 || j < 0 || i + s.rows > sx.rows ||
        j + s.cols > sx.cols) {
        throw ShapeError(
            fmt::format("{}: a {} slice at row {}, column {} does not fit in argument "
                        "`{}` {}",
                        fn, s.str(), i, j, sx.is_vector() ? "v" : "M", sx.str()));
    }
    return wrap(x, linalg::block(graph(x), real(x), i, j, s));
}
}  // namespace

Expr at(const Expr& v, const Expr& i) {
    Model& m = v.model();
    if (&i.model() != &m)
        throw ModelError("at: the index is of another model");
    const Shape s = v.shape();
    if (!i.shape().is_scalar())
        throw ModelError(fmt::format("at: the index must be a scalar, got {}", i.shape().str()));
    if (s.is_scalar())
        throw ModelError("at: a scalar cannot be indexed");
    const bool matrix = s.kind == Shape::Kind::Matrix;
    // positions of index 1: element 0, or row 0 (column-major: 0, rows, 2 rows, ...)
    Eigen::VectorXi first(matrix ? s.cols : 1);
    for (Eigen::Index k = 0; k < first.size(); ++k) first[k] = static_cast<int>(k) * s.rows;
    const std::string name = fmt::format("at_positions_{}", m.nodes().size());
    const Expr positions = m.owned_data(name, std::move(first));
    Graph& g = const_cast<Graph&>(m.nodes());
    const NodeId x = g[v.id()].dtype == DType::Int ? g.apply(Op::ToReal, v.id()) : v.id();
    const NodeId picked = dyn_index::gather(
        g, x, positions.id(), g[i.id()].dtype == DType::Int ? g.apply(Op::ToReal, i.id()) : i.id(),
        1, s.rows, std::numeric_limits<double>::quiet_NaN());
    return m.wrap(matrix ? picked : linalg::reshape(g, picked, Shape::scalar()));
}

Expr segment(const Expr& v, int start, int n) {
    check("segment", "v", v, kVector);
    return slice("segment", v, start, 0, Shape::vector(n));
}
Expr head(const Expr& v, int n) {
    check("head", "v", v, kVector);
    return slice("head", v, 0, 0, Shape::vector(n));
}
Expr tail(const Expr& v, int n) {
    const Shape s = check("tail", "v", v, kVector);
    return slice("tail", v, s.rows - n, 0, Shape::vector(n));
}
Expr row(const Expr& M, int i) {
    const Shape s = check("row", "M", M, kMatrix);
    const Expr r = slice("row", M, i, 0, Shape::matrix(1, s.cols));
    return wrap(M, linalg::reshape(graph(M), r.id(), Shape::vector(s.cols)));
}
Expr col(const Expr& M, int j) {
    const Shape s = check("col", "M", M, kMatrix);
    return slice("col", M, 0, j, Shape::vector(s.rows));
}
Expr block(const Expr& M, int i, int j, int rows, int cols) {
    check("block", "M", M, kMatrix);
    return slice("block", M, i, j, Shape::matrix(rows, cols));
}

// ---------------------------------------------------------------- building

namespace {
void check_size(std::string_view fn, std::string_view name, int n) {
    if (n < 0)
        throw ShapeError(fmt::format("{}: argument `{}` is {}, a negative size", fn, name, n));
}
}  // namespace

Expr rep_vector(const Expr& x, int n) {
    check("rep_vector", "x", x, kScalar);
    check_size("rep_vector", "n", n);
    return wrap(x, graph(x).broadcast(real(x), Shape::vector(n)));
}
Expr rep_matrix(const Expr& x, int rows, int cols) {
    check("rep_matrix", "x", x, kScalar);
    check_size("rep_matrix", "m", rows);
    check_size("rep_matrix", "n", cols);
    return wrap(x, graph(x).broadcast(real(x), Shape::matrix(rows, cols)));
}
Expr rep_matrix(const Expr& v, int n) {
    check("rep_matrix", "v", v, kVector);
    check_size("rep_matrix", "n", n);
    return wrap(v, linalg::rep_cols(graph(v), real(v), n));
}
Expr rep_matrix_rows(const Expr& v, int m) {
    check("rep_matrix_rows", "v", v, kVector);
    check_size("rep_matrix_rows", "m", m);
    return wrap(v, linalg::rep_rows(graph(v), real(v), m));
}
Expr tile_rows(const Expr& x, int reps) {
    check("tile_rows", "x", x, kVector | kMatrix);
    check_size("tile_rows", "reps", reps);
    if (reps == 0)
        throw ShapeError("tile_rows: argument `reps` is 0 (expected at least one copy)");
    return wrap(x, linalg::tile_rows(graph(x), real(x), reps));
}
Expr append_row(const Arg& a_arg, const Arg& b_arg) {
    const std::vector<Expr> e = detail::operands("append_row", {&a_arg, &b_arg});
    const Expr& a = e[0];
    const Expr& b = e[1];
    const Shape sa = check("append_row", "x", a, kScalar | kVector | kMatrix);
    const Shape sb = check("append_row", "y", b, kScalar | kVector | kMatrix);
    Graph& g = graph(a);
    // A scalar joins a vector as a one-element vector (Stan's append_row(real, vector)).
    auto as_vec = [&](const Expr& e, const Shape& s) {
        return s.is_scalar() ? linalg::reshape(g, real(e), Shape::vector(1)) : real(e);
    };
    const bool vecs = !sa.is_matrix() && !sb.is_matrix() && !(sa.is_scalar() && sb.is_scalar());
    if (!vecs && !(sa.is_matrix() && sb.is_matrix() && sa.cols == sb.cols)) {
        mismatch("append_row", "y", sb, "x", sa,
                 "vectors (or a scalar and a vector), or matrices with as many columns");
    }
    return apply(a, Op::AppendRow, as_vec(a, sa), as_vec(b, sb));
}
Expr append_col(const Arg& a_arg, const Arg& b_arg) {
    const std::vector<Expr> e = detail::operands("append_col", {&a_arg, &b_arg});
    const Expr& a = e[0];
    const Expr& b = e[1];
    const Shape sa = check("append_col", "x", a, kVector | kMatrix);
    const Shape sb = check("append_col", "y", b, kVector | kMatrix);
    if (sa.rows != sb.rows)
        mismatch("append_col", "y", sb, "x", sa, "as many rows in y as in x");
    return apply(a, Op::AppendCol, real(a), real(b));
}
Expr to_vector(const Expr& x) {
    const Shape s = check("to_vector", "x", x, kScalar | kVector | kMatrix);
    return wrap(x, linalg::reshape(graph(x), real(x), Shape::vector(s.size())));
}
Expr to_matrix(const Expr& v, int rows, int cols) {
    const Shape s = check("to_matrix", "v", v, kVector | kMatrix);
    check_size("to_matrix", "m", rows);
    check_size("to_matrix", "n", cols);
    if (static_cast<long>(rows) * cols != s.size()) {
        throw ShapeError(
            fmt::format("to_matrix: argument `v` is {} ({} values), which cannot fill "
                        "mat[{},{}]",
                        s.str(), s.size(), rows, cols));
    }
    return wrap(v, linalg::reshape(graph(v), real(v), Shape::matrix(rows, cols)));
}

}  // namespace advi
