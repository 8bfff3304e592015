// Shape rules, kernels and adjoint rules of the linear algebra, reduction and slicing ops.
// Kernels work on Eigen maps of the arena; products and solves are Eigen's blocked ones.
#include <advi/graph/ops_linalg.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <Eigen/QR>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi::linalg {
namespace {

using Mat = Eigen::Map<Eigen::MatrixXd>;
using CMat = Eigen::Map<const Eigen::MatrixXd>;
using Vec = Eigen::Map<Eigen::VectorXd>;
using CVec = Eigen::Map<const Eigen::VectorXd>;

CMat in_mat(const KernelArgs& a, int k) {
    return {a.in[k].x, a.in[k].rows, a.in[k].cols};
}
CVec in_vec(const KernelArgs& a, int k) {
    return {a.in[k].x, a.in[k].size()};
}
Mat out_mat(const KernelArgs& a) {
    return {a.out, a.out_rows, a.out_cols};
}
Vec out_vec(const KernelArgs& a) {
    return {a.out, a.out_size()};
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------- shape rules

const Shape& arg(const Graph& g, const Node& n, int k) {
    return g[n.in[k]].shape;
}

// Every op here reads reals; integer data must be converted first (the DSL does).
void require_real(const Graph& g, const Node& n, int k, const char* name) {
    if (g[n.in[k]].dtype != DType::Real) {
        const std::string& label = g.label(n.in[k]);
        throw ShapeError(
            fmt::format("{}: argument `{}` is integer data{}; convert it to real first",
                        op_name(n.op), name, label.empty() ? "" : " `" + label + "`"));
    }
}

[[noreturn]] void mismatch(const Node& n, const char* name, const Shape& s, const char* other,
                           const Shape& os, std::string_view expected) {
    throw ShapeError(fmt::format("{}: argument `{}` is {} but argument `{}` is {} ({})",
                                 op_name(n.op), name, s.str(), other, os.str(), expected));
}
[[noreturn]] void wrong_kind(const Node& n, const char* name, const Shape& s,
                             std::string_view expected) {
    throw ShapeError(fmt::format("{}: argument `{}` is {} (expected {})", op_name(n.op), name,
                                 s.str(), expected));
}

const Shape& matrix_arg(const Graph& g, const Node& n, int k, const char* name) {
    require_real(g, n, k, name);
    const Shape& s = arg(g, n, k);
    if (!s.is_matrix())
        wrong_kind(n, name, s, "a matrix");
    return s;
}
const Shape& square_arg(const Graph& g, const Node& n, int k, const char* name) {
    const Shape& s = matrix_arg(g, n, k, name);
    if (s.rows != s.cols)
        wrong_kind(n, name, s, "a square matrix");
    return s;
}
const Shape& vector_arg(const Graph& g, const Node& n, int k, const char* name) {
    require_real(g, n, k, name);
    const Shape& s = arg(g, n, k);
    if (!s.is_vector())
        wrong_kind(n, name, s, "a vector");
    return s;
}
// A vector or a matrix (a vector counts as one column).
const Shape& array_arg(const Graph& g, const Node& n, int k, const char* name) {
    require_real(g, n, k, name);
    const Shape& s = arg(g, n, k);
    if (s.is_scalar())
        wrong_kind(n, name, s, "a vector or a matrix");
    return s;
}
// The node's own shape (set by the builder) must be a vector or matrix of valid size.
const Shape& proto_shape(const Node& n) {
    if (n.shape.rows < 0 || n.shape.cols < 0 || (n.shape.is_vector() && n.shape.cols != 1)) {
        throw ShapeError(fmt::format("{}: invalid result shape {}", op_name(n.op), n.shape.str()));
    }
    return n.shape;
}

}  // namespace

Shape matmul_shape(const Graph& g, const Node& n) {
    const Shape& A = matrix_arg(g, n, 0, "A");
    const Shape& B = matrix_arg(g, n, 1, "B");
    if (A.cols != B.rows)
        mismatch(n, "B", B, "A", A, "A B needs as many rows in B as columns in A");
    return Shape::matrix(A.rows, B.cols);
}
Shape mattmul_shape(const Graph& g, const Node& n) {
    const Shape& A = matrix_arg(g, n, 0, "A");
    const Shape& B = matrix_arg(g, n, 1, "B");
    if (A.rows != B.rows)
        mismatch(n, "B", B, "A", A, "A' B needs as many rows in B as in A");
    return Shape::matrix(A.cols, B.cols);
}
Shape matmult_shape(const Graph& g, const Node& n) {
    const Shape& A = matrix_arg(g, n, 0, "A");
    const Shape& B = matrix_arg(g, n, 1, "B");
    if (A.cols != B.cols)
        mismatch(n, "B", B, "A", A, "A B' needs as many columns in B as in A");
    return Shape::matrix(A.rows, B.rows);
}
Shape transpose_shape(const Graph& g, const Node& n) {
    const Shape& A = matrix_arg(g, n, 0, "A");
    return Shape::matrix(A.cols, A.rows);
}
Shape diag_matrix_shape(const Graph& g, const Node& n) {
    const Shape& v = vector_arg(g, n, 0, "v");
    return Shape::matrix(v.rows, v.rows);
}
Shape diagonal_shape(const Graph& g, const Node& n) {
    return Shape::vector(square_arg(g, n, 0, "A").rows);
}
Shape same_matrix_shape(const Graph& g, const Node& n) {
    return matrix_arg(g, n, 0, "A");
}
Shape square_shape(const Graph& g, const Node& n) {
    return square_arg(g, n, 0, "A");
}
Shape cholesky_adjoint_shape(const Graph& g, const Node& n) {
    const Shape& L = square_arg(g, n, 0, "L");
    const Shape& G = square_arg(g, n, 1, "adjoint");
    if (L != G)
        mismatch(n, "adjoint", G, "L", L, "one shape");
    return L;
}
Shape tri_solve_shape(const Graph& g, const Node& n) {
    const Shape& L = square_arg(g, n, 0, "L");
    const Shape& B = array_arg(g, n, 1, "b");
    if (B.rows != L.rows)
        mismatch(n, "b", B, "L", L, "as many rows in b as in L");
    return B;
}
Shape square_to_scalar_shape(const Graph& g, const Node& n) {
    square_arg(g, n, 0, "A");
    return Shape::scalar();
}
Shape to_scalar_shape(const Graph& g, const Node& n) {
    require_real(g, n, 0, "x");
    return Shape::scalar();
}
Shape row_reduce_shape(const Graph& g, const Node& n) {
    return Shape::vector(matrix_arg(g, n, 0, "x").rows);
}
Shape col_reduce_shape(const Graph& g, const Node& n) {
    return Shape::vector(matrix_arg(g, n, 0, "x").cols);
}
Shape vector_shape(const Graph& g, const Node& n) {
    return vector_arg(g, n, 0, "x");
}
Shape same_shape(const Graph& g, const Node& n) {
    require_real(g, n, 0, "x");
    return arg(g, n, 0);
}

namespace {
// A block of `inner` at (row, col) must lie inside `outer`; vectors are one column.
void check_block(const Node& n, const Shape& inner, const Shape& outer, const char* name,
                 const Shape& named) {
    if (n.index < 0 || n.aux < 0 || n.index + inner.rows > outer.rows ||
        n.aux + inner.cols > outer.cols) {
        throw ShapeError(fmt::format(
            "{}: a {} block at row {}, column {} does not fit in {} (argument `{}` is {})",
            op_name(n.op), inner.str(), n.index, n.aux, outer.str(), name, named.str()));
    }
}
}  // namespace

Shape prod_others_vjp_shape(const Graph& g, const Node& n) {
    require_real(g, n, 0, "x");
    require_real(g, n, 1, "adjoint");
    const Shape& x = arg(g, n, 0);
    const Shape& adj = arg(g, n, 1);
    if (x != adj)
        mismatch(n, "adjoint", adj, "x", x, "one shape");
    return x;
}
Shape block_shape(const Graph& g, const Node& n) {
    const Shape& x = array_arg(g, n, 0, "x");
    const Shape& s = proto_shape(n);
    if (s.is_scalar())
        wrong_kind(n, "result", s, "a vector or a matrix");
    check_block(n, s, x, "x", x);
    return s;
}
Shape embed_shape(const Graph& g, const Node& n) {
    const Shape& x = array_arg(g, n, 0, "x");
    const Shape& s = proto_shape(n);
    if (s.is_scalar())
        wrong_kind(n, "result", s, "a vector or a matrix");
    check_block(n, x, s, "x", x);
    return s;
}
Shape reshape_shape(const Graph& g, const Node& n) {
    require_real(g, n, 0, "x");
    const Shape& x = arg(g, n, 0);
    const Shape& s = proto_shape(n);
    if (s.size() != x.size()) {
        throw ShapeError(
            fmt::format("{}: argument `x` is {} ({} values), which cannot be read as {} "
                        "({} values)",
                        op_name(n.op), x.str(), x.size(), s.str(), s.size()));
    }
    return s;
}
Shape append_row_shape(const Graph& g, const Node& n) {
    const Shape& a = array_arg(g, n, 0, "x");
    const Shape& b = array_arg(g, n, 1, "y");
    if (a.is_vector() && b.is_vector())
        return Shape::vector(a.rows + b.rows);
    if (a.is_matrix() && b.is_matrix() && a.cols == b.cols) {
        return Shape::matrix(a.rows + b.rows, a.cols);
    }
    mismatch(n, "y", b, "x", a, "two vectors, or two matrices with as many columns");
}
Shape append_col_shape(const Graph& g, const Node& n) {
    const Shape& a = array_arg(g, n, 0, "x");
    const Shape& b = array_arg(g, n, 1, "y");
    if (a.rows != b.rows)
        mismatch(n, "y", b, "x", a, "as many rows in y as in x");
    return Shape::matrix(a.rows, a.cols + b.cols);
}
Shape rep_cols_shape(const Graph& g, const Node& n) {
    const Shape& v = vector_arg(g, n, 0, "v");
    const Shape& s = proto_shape(n);
    if (!s.is_matrix() || s.rows != v.rows) {
        mismatch(n, "v", v, "result", s, "a matrix with as many rows as v has elements");
    }
    return s;
}
Shape tile_rows_shape(const Graph& g, const Node& n) {
    const Shape& x = array_arg(g, n, 0, "x");
    const Shape& s = proto_shape(n);
    if (s.is_vector() != x.is_vector() || s.cols != x.cols || x.rows == 0 || s.rows % x.rows != 0) {
        mismatch(n, "x", x, "result", s, "x's kind and columns, a multiple of x's rows");
    }
    return s;
}
Shape tile_sum_rows_shape(const Graph& g, const Node& n) {
    const Shape& x = array_arg(g, n, 0, "G");
    const Shape& s = proto_shape(n);
    if (s.is_vector() != x.is_vector() || s.cols != x.cols || s.rows == 0 || x.rows % s.rows != 0) {
        mismatch(n, "G", x, "result", s, "G's kind and columns, rows dividing G's");
    }
    return s;
}
Shape rep_rows_shape(const Graph& g, const Node& n) {
    const Shape& v = vector_arg(g, n, 0, "v");
    const Shape& s = proto_shape(n);
    if (!s.is_matrix() || s.cols != v.rows) {
        mismatch(n, "v", v, "result", s, "a matrix with as many columns as v has elements");
    }
    return s;
}
namespace {
void require_int_index(const Graph& g, const Node& n) {
    const Node& idx = g[n.in[1]];
    if (idx.dtype != DType::Int || !idx.shape.is_vector()) {
        throw ShapeError(
            fmt::format("{}: argument `index` must be an integer data vector, got {} {}",
                        op_name(n.op), dtype_name(idx.dtype), idx.shape.str()));
    }
}
}  // namespace
Shape gather_rows_shape(const Graph& g, const Node& n) {
    const Shape& M = matrix_arg(g, n, 0, "x");
    require_int_index(g, n);
    return Shape::matrix(arg(g, n, 1).rows, M.cols);
}
Shape scatter_add_rows_shape(const Graph& g, const Node& n) {
    const Shape& G = matrix_arg(g, n, 0, "values");
    require_int_index(g, n);
    const Shape& idx = arg(g, n, 1);
    if (G.rows != idx.rows)
        mismatch(n, "index", idx, "values", G, "one index per row of values");
    const Shape& s = proto_shape(n);
    if (!s.is_matrix() || s.cols != G.cols) {
        mismatch(n, "values", G, "result", s, "a matrix with as many columns as values");
    }
    return s;
}

// ---------------------------------------------------------------- kernels
// Eigen's blocked products and triangular solves take their packing buffers from the stack
// up to EIGEN_STACK_ALLOCATION_LIMIT (128 KB) and from the heap beyond: matrices of a few
// hundred rows allocate there until ops get scratch space. Factorisations say so below.

void matmul_kernel(const KernelArgs& a) {
    out_mat(a).noalias() = in_mat(a, 0) * in_mat(a, 1);
}
void mattmul_kernel(const KernelArgs& a) {
    out_mat(a).noalias() = in_mat(a, 0).transpose() * in_mat(a, 1);
}
void matmult_kernel(const KernelArgs& a) {
    out_mat(a).noalias() = in_mat(a, 0) * in_mat(a, 1).transpose();
}
void transpose_kernel(const KernelArgs& a) {
    out_mat(a) = in_mat(a, 0).transpose();
}
void diag_matrix_kernel(const KernelArgs& a) {
    Mat out = out_mat(a);
    out.setZero();
    out.diagonal() = in_vec(a, 0);
}
void diagonal_kernel(const KernelArgs& a) {
    out_vec(a) = in_mat(a, 0).diagonal();
}
void tril_kernel(const KernelArgs& a) {
    out_mat(a) = in_mat(a, 0).triangularView<Eigen::Lower>();
}

// L = chol(S) from the lower triangle of S (as Eigen's LLT; Stan also requires S symmetric),
// decomposed in place in the output: no allocation. A matrix that is not positive definite
// gives NaN, so that the draw's log density is not finite and the fit drops it (as Stan
// rejects it), rather than a silently wrong factor.
void cholesky_kernel(const KernelArgs& a) {
    Mat out = out_mat(a);
    out = in_mat(a, 0);
    Eigen::Ref<Eigen::MatrixXd> ref(out);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(ref);
    if (llt.info() != Eigen::Success) {
        out.setConstant(kNaN);
        return;
    }
    out.triangularView<Eigen::StrictlyUpper>().setZero();
}

// S_bar from L = chol(S) and L_bar (Murray 2016, "Differentiation of the Cholesky
// decomposition"). For symmetric dS, dL = L Phi(L^-1 dS L^-T), with Phi(X) the lower
// triangle of X with its diagonal halved. Then
//   tr(L_bar' dL) = <Phi(L' L_bar), L^-1 dS L^-T> = <M, dS>,  M = L^-T Phi(L' L_bar) L^-1
// (Phi is self-adjoint under the Frobenius product). S enters through its lower triangle
// only: an off-diagonal entry S_ij (i > j) stands for both S_ij and S_ji, so
//   S_bar = tril(M + M') with diagonal M_ii.
// Only the lower triangle of L_bar is read (L's upper triangle is constant zero).
void cholesky_adjoint_kernel(const KernelArgs& a) {
    const CMat L = in_mat(a, 0);
    const CMat Lbar = in_mat(a, 1);
    Mat out = out_mat(a);
    const Eigen::Index n = L.rows();
    // Phi(L' tril(L_bar)), lower triangle: (L' L_bar)_ij = sum_{k >= i} L_ki L_bar_kj for
    // i >= j, column dot products written into the output without a temporary.
    for (Eigen::Index j = 0; j < n; ++j) {
        for (Eigen::Index i = j; i < n; ++i) {
            out(i, j) = L.col(i).tail(n - i).dot(Lbar.col(j).tail(n - i));
        }
        out(j, j) *= 0.5;
        for (Eigen::Index i = 0; i < j; ++i) out(i, j) = 0.0;
    }
    L.transpose().triangularView<Eigen::Upper>().solveInPlace(out);         // L^-T P
    L.triangularView<Eigen::Lower>().solveInPlace<Eigen::OnTheRight>(out);  // ... L^-1
    for (Eigen::Index j = 0; j < n; ++j) {
        for (Eigen::Index i = j + 1; i < n; ++i) {
            out(i, j) += out(j, i);
            out(j, i) = 0.0;
        }
    }
}

// L^-1 B and L^-T B for lower-triangular L (only its lower triangle is read), in place in
// the output.
void tri_low_solve_kernel(const KernelArgs& a) {
    Mat out = out_mat(a);
    out = in_mat(a, 1);
    in_mat(a, 0).triangularView<Eigen::Lower>().solveInPlace(out);
}
void tri_low_t_solve_kernel(const KernelArgs& a) {
    Mat out = out_mat(a);
    out = in_mat(a, 1);
    in_mat(a, 0).transpose().triangularView<Eigen::Upper>().solveInPlace(out);
}

std::int64_t square_scratch(const Graph& g, const Node& n) {
    return static_cast<std::int64_t>(g[n.in[0]].shape.size());
}

namespace {
// Row k's partial pivot below the diagonal of M: the row with the largest |M(i, k)|, i >= k.
Eigen::Index pivot_row(const Mat& M, Eigen::Index k) {
    Eigen::Index p = k;
    for (Eigen::Index i = k + 1; i < M.rows(); ++i) {
        if (std::abs(M(i, k)) > std::abs(M(p, k)))
            p = i;
    }
    return p;
}
}  // namespace

namespace {
// log|det A| and the sign of det A by LU with partial pivoting of the scratch copy of A (the
// sign from the row swaps and the pivots); a singular matrix has sign 0 and log|det| -inf, as
// Stan.
struct LogAbsDeterminant {
    double log_abs = 0.0;
    double sign = 1.0;
};
LogAbsDeterminant eliminate(const KernelArgs& a) {
    const CMat A = in_mat(a, 0);
    const Eigen::Index n = A.rows();
    Mat M(a.scratch, n, n);
    M = A;
    LogAbsDeterminant r;
    for (Eigen::Index k = 0; k < n; ++k) {
        const Eigen::Index p = pivot_row(M, k);
        if (p != k) {
            M.row(k).swap(M.row(p));
            r.sign = -r.sign;
        }
        const double d = M(k, k);
        if (d == 0.0)
            return {-kInf, 0.0};
        r.log_abs += std::log(std::abs(d));
        if (d < 0)
            r.sign = -r.sign;
        for (Eigen::Index i = k + 1; i < n; ++i) {
            const double f = M(i, k) / d;
            M.row(i).tail(n - k - 1) -= f * M.row(k).tail(n - k - 1);
        }
    }
    return r;
}
}  // namespace

void determinant_kernel(const KernelArgs& a) {
    const LogAbsDeterminant r = eliminate(a);
    a.out[0] = r.sign == 0.0 ? 0.0 : r.sign * std::exp(r.log_abs);
}

void log_determinant_kernel(const KernelArgs& a) {
    a.out[0] = eliminate(a).log_abs;
}
// A^-1 by Gauss-Jordan elimination with partial pivoting: the scratch copy of A is reduced
// to the identity while the same row operations turn the output from I into A^-1.
void inverse_kernel(const KernelArgs& a) {
    const CMat A = in_mat(a, 0);
    const Eigen::Index n = A.rows();
    Mat M(a.scratch, n, n);
    M = A;
    Mat X = out_mat(a);
    X.setIdentity();
    for (Eigen::Index k = 0; k < n; ++k) {
        const Eigen::Index p = pivot_row(M, k);
        if (p != k) {
            M.row(k).swap(M.row(p));
            X.row(k).swap(X.row(p));
        }
        const double d = M(k, k);
        if (d == 0.0) {  // singular: no inverse
            X.setConstant(kNaN);
            return;
        }
        M.row(k) /= d;
        X.row(k) /= d;
        for (Eigen::Index i = 0; i < n; ++i) {
            if (i == k || M(i, k) == 0.0)
                continue;
            const double f = M(i, k);
            M.row(i) -= f * M.row(k);
            X.row(i) -= f * X.row(k);
        }
    }
}

// log sum exp(x) = m + log sum exp(x - m), m = max(x): no overflow, and exact for a
// single dominant term. An infinite or NaN maximum is the answer itself.
template <class V>
double lse(const V& x) {
    if (x.size() == 0)
        return -kInf;
    const double m = x.maxCoeff();
    if (!std::isfinite(m))
        return std::isnan(x.sum()) ? kNaN : m;
    return m + std::log((x.array() - m).exp().sum());
}
void log_sum_exp_kernel(const KernelArgs& a) {
    a.out[0] = lse(in_vec(a, 0));
}
// Column by column (X is column-major, so every pass is contiguous): the row maxima into out,
// the sums of exp(x - max) into the scratch, then out = max + log(sum). A row whose maximum
// is infinite takes the scalar path; NaN reaches the sum and the result.
void log_sum_exp_rows_kernel(const KernelArgs& a) {
    const CMat X = in_mat(a, 0);
    const Eigen::Index n = X.rows(), k = X.cols();
    double* m = a.out;
    double* s = a.scratch;
    if (k == 0) {
        for (Eigen::Index i = 0; i < n; ++i) m[i] = -kInf;
        return;
    }
    for (Eigen::Index i = 0; i < n; ++i) m[i] = X(i, 0);
    for (Eigen::Index j = 1; j < k; ++j) {
        const double* x = X.col(j).data();
        for (Eigen::Index i = 0; i < n; ++i) m[i] = x[i] > m[i] ? x[i] : m[i];
    }
    for (Eigen::Index i = 0; i < n; ++i) s[i] = 0.0;
    for (Eigen::Index j = 0; j < k; ++j) {
        const double* x = X.col(j).data();
        for (Eigen::Index i = 0; i < n; ++i) s[i] += std::exp(x[i] - m[i]);
    }
    for (Eigen::Index i = 0; i < n; ++i) {
        if (std::isfinite(m[i]) || std::isnan(s[i]))
            m[i] += std::log(s[i]);
        else
            m[i] = lse(X.row(i));
    }
}
std::int64_t rows_scratch(const Graph& g, const Node& n) {
    return g[n.in[0]].shape.rows;
}
void log_sum_exp_cols_kernel(const KernelArgs& a) {
    const CMat X = in_mat(a, 0);
    for (Eigen::Index j = 0; j < X.cols(); ++j) a.out[j] = lse(X.col(j));
}

void cumulative_sum_kernel(const KernelArgs& a) {
    const double* x = a.in[0].x;
    double s = 0.0;
    for (int i = 0; i < a.out_size(); ++i) a.out[i] = s += x[i];
}
void reverse_cumulative_sum_kernel(const KernelArgs& a) {
    const double* x = a.in[0].x;
    double s = 0.0;
    for (int i = a.out_size() - 1; i >= 0; --i) a.out[i] = s += x[i];
}
void prod_kernel(const KernelArgs& a) {
    a.out[0] = in_vec(a, 0).prod();
}
// out_i = prod_{j != i} x_j by prefix and suffix products (no division: exact when some
// x_j is zero, where y / x_i would give NaN).
void prod_others_kernel(const KernelArgs& a) {
    const double* x = a.in[0].x;
    const int n = a.out_size();
    double p = 1.0;
    for (int i = 0; i < n; ++i) {
        a.out[i] = p;
        p *= x[i];
    }
    p = 1.0;
    for (int i = n - 1; i >= 0; --i) {
        a.out[i] *= p;
        p *= x[i];
    }
}
// x_bar_k = sum_{i != k} g_i prod_{j != i, k} x_j (the Hessian of prod applied to g), without
// division (exact where some x_j is zero), in O(n): with pre_k = prod_{j<k} x_j and
// suf_k = prod_{j>k} x_j,
//   A_k = sum_{i<k} g_i prod_{j<k, j!=i} x_j,  A_0 = 0,      A_{k+1} = A_k x_k + g_k pre_k,
//   B_k = sum_{i>k} g_i prod_{j>k, j!=i} x_j,  B_{n-1} = 0,  B_{k-1} = B_k x_k + g_k suf_k,
//   x_bar_k = A_k suf_k + pre_k B_k.
// pre_k is kept in the scratch, A_k in the output, by the forward sweep.
void prod_others_vjp_kernel(const KernelArgs& a) {
    const double* x = a.in[0].x;
    const double* g = a.in[1].x;
    double* pre = a.scratch;
    const int n = a.out_size();
    double p = 1.0, A = 0.0;
    for (int k = 0; k < n; ++k) {
        pre[k] = p;
        a.out[k] = A;
        A = A * x[k] + g[k] * p;
        p *= x[k];
    }
    double s = 1.0, B = 0.0;
    for (int k = n - 1; k >= 0; --k) {
        a.out[k] = a.out[k] * s + pre[k] * B;
        B = B * x[k] + g[k] * s;
        s *= x[k];
    }
}
std::int64_t input_scratch(const Graph& g, const Node& n) {
    return static_cast<std::int64_t>(g[n.in[0]].shape.size());
}
// Stan: min of nothing is +inf, max of nothing is -inf.
void min_kernel(const KernelArgs& a) {
    a.out[0] = a.in[0].size() == 0 ? kInf : in_vec(a, 0).minCoeff();
}
void max_kernel(const KernelArgs& a) {
    a.out[0] = a.in[0].size() == 0 ? -kInf : in_vec(a, 0).maxCoeff();
}

void lse_shift_rows_kernel(const KernelArgs& a) {
    const CMat X = in_mat(a, 0);
    const Eigen::Index n = X.rows();
    double* m = a.out;
    for (Eigen::Index i = 0; i < n; ++i) m[i] = -kInf;
    for (Eigen::Index j = 0; j < X.cols(); ++j) {  // column by column: contiguous passes
        const double* x = X.col(j).data();
        for (Eigen::Index i = 0; i < n; ++i) m[i] = x[i] > m[i] ? x[i] : m[i];
    }
    for (Eigen::Index i = 0; i < n; ++i) m[i] = std::isfinite(m[i]) ? m[i] : 0.0;
}

void block_kernel(const KernelArgs& a) {
    out_mat(a) = in_mat(a, 0).block(a.node->index, a.node->aux, a.out_rows, a.out_cols);
}
void embed_kernel(const KernelArgs& a) {
    Mat out = out_mat(a);
    out.setZero();
    out.block(a.node->index, a.node->aux, a.in[0].rows, a.in[0].cols) = in_mat(a, 0);
}
void reshape_kernel(const KernelArgs& a) {
    std::copy_n(a.in[0].x, a.out_size(), a.out);
}
void append_row_kernel(const KernelArgs& a) {
    if (a.out_cols == 1) {
        std::copy_n(a.in[0].x, a.in[0].size(), a.out);
        std::copy_n(a.in[1].x, a.in[1].size(), a.out + a.in[0].size());
        return;
    }
    Mat out = out_mat(a);
    out.topRows(a.in[0].rows) = in_mat(a, 0);
    out.bottomRows(a.in[1].rows) = in_mat(a, 1);
}
// Column-major: the columns of y follow those of x in memory.
void append_col_kernel(const KernelArgs& a) {
    std::copy_n(a.in[0].x, a.in[0].size(), a.out);
    std::copy_n(a.in[1].x, a.in[1].size(), a.out + a.in[0].size());
}
void rep_cols_kernel(const KernelArgs& a) {
    out_mat(a).colwise() = in_vec(a, 0);
}
void rep_rows_kernel(const KernelArgs& a) {
    out_mat(a).rowwise() = in_vec(a, 0).transpose();
}
void tile_rows_kernel(const KernelArgs& a) {
    const int p = a.in[0].rows;
    const CMat x = in_mat(a, 0);
    Mat out = out_mat(a);
    for (int t = 0; t < a.out_rows; t += p) out.middleRows(t, p) = x;
}
void tile_sum_rows_kernel(const KernelArgs& a) {
    const int p = a.out_rows;
    const CMat G = in_mat(a, 0);
    Mat out = out_mat(a);
    out = G.topRows(p);
    for (Eigen::Index t = p; t < G.rows(); t += p) out += G.middleRows(t, p);
}
void row_sums_kernel(const KernelArgs& a) {
    out_vec(a) = in_mat(a, 0).rowwise().sum();
}
void col_sums_kernel(const KernelArgs& a) {
    out_vec(a) = in_mat(a, 0).colwise().sum().transpose();
}

namespace {
[[noreturn]] void row_out_of_range(int at, int index, int n) {
    throw DataError(fmt::format("row index {} at position {} is outside 0..{}", index, at, n - 1));
}
}  // namespace
void gather_rows_kernel(const KernelArgs& a) {
    const CMat M = in_mat(a, 0);
    const int* idx = a.in[1].i;
    const int m = a.out_rows;
    for (int k = 0; k < m; ++k) {
        if (idx[k] < 0 || idx[k] >= M.rows())
            row_out_of_range(k, idx[k], static_cast<int>(M.rows()));
    }
    Mat out = out_mat(a);
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
        for (int k = 0; k < m; ++k) out(k, j) = M(idx[k], j);
    }
}
void scatter_add_rows_kernel(const KernelArgs& a) {
    const CMat G = in_mat(a, 0);
    const int* idx = a.in[1].i;
    Mat out = out_mat(a);
    for (int k = 0; k < G.rows(); ++k) {
        if (idx[k] < 0 || idx[k] >= out.rows())
            row_out_of_range(k, idx[k], static_cast<int>(out.rows()));
    }
    out.setZero();
    for (Eigen::Index j = 0; j < G.cols(); ++j) {
        for (Eigen::Index k = 0; k < G.rows(); ++k) out(idx[k], j) += G(k, j);
    }
}

// ---------------------------------------------------------------- node builders

namespace {
NodeId make(Graph& g, Op op, Shape s, NodeId a, NodeId b = kNoNode, std::int64_t index = 0,
            std::int64_t aux = 0) {
    Node n;
    n.op = op;
    n.shape = s;
    n.in = {a, b, kNoNode};
    n.index = index;
    n.aux = aux;
    return g.intern(n);
}
}  // namespace

NodeId block(Graph& g, NodeId x, int row, int col, Shape s) {
    if (g[x].shape == s && row == 0 && col == 0)
        return x;
    return make(g, Op::Block, s, x, kNoNode, row, col);
}
NodeId embed(Graph& g, NodeId x, int row, int col, Shape s) {
    if (g[x].shape == s && row == 0 && col == 0)
        return x;
    return make(g, Op::Embed, s, x, kNoNode, row, col);
}
NodeId reshape(Graph& g, NodeId x, Shape s) {
    if (g[x].shape == s)
        return x;
    return make(g, Op::Reshape, s, x);
}
NodeId rep_cols(Graph& g, NodeId v, int cols) {
    return make(g, Op::RepCols, Shape::matrix(g[v].shape.rows, cols), v);
}
NodeId rep_rows(Graph& g, NodeId v, int rows) {
    return make(g, Op::RepRows, Shape::matrix(rows, g[v].shape.rows), v);
}
NodeId tile_rows(Graph& g, NodeId x, int reps) {
    const Shape& s = g[x].shape;
    if (reps == 1)
        return x;
    return make(g, Op::TileRows,
                s.is_vector() ? Shape::vector(s.rows * reps) : Shape::matrix(s.rows * reps, s.cols),
                x);
}
NodeId tile_sum_rows(Graph& g, NodeId G, int rows) {
    const Shape& s = g[G].shape;
    if (s.rows == rows)
        return G;
    return make(g, Op::TileSumRows,
                s.is_vector() ? Shape::vector(rows) : Shape::matrix(rows, s.cols), G);
}
NodeId scatter_add_rows(Graph& g, NodeId values, NodeId index, int rows) {
    return make(g, Op::ScatterAddRows, Shape::matrix(rows, g[values].shape.cols), values, index);
}

// ---------------------------------------------------------------- adjoint rules
// `y` is the node, `G` (or `g`) the adjoint of its value; c[k] the contribution to input k.

namespace {
NodeId in(const Graph& g, NodeId y, int k) {
    return g[y].in[k];
}
bool var(const Graph& g, NodeId y, int k) {
    return g.is_variable(in(g, y, k));
}
NodeId apply(Graph& g, Op op, NodeId a, NodeId b = kNoNode) {
    return g.apply(op, a, b);
}
}  // namespace

// C = A B: A_bar = G B', B_bar = A' G
void adj_matmul(Graph& g, NodeId y, NodeId G, Contrib& c) {
    if (var(g, y, 0))
        c[0] = apply(g, Op::MatMulT, G, in(g, y, 1));
    if (var(g, y, 1))
        c[1] = apply(g, Op::MatTMul, in(g, y, 0), G);
}
// C = A' B: dC = dA' B + A' dB, so A_bar = B G', B_bar = A G
void adj_mattmul(Graph& g, NodeId y, NodeId G, Contrib& c) {
    if (var(g, y, 0))
        c[0] = apply(g, Op::MatMulT, in(g, y, 1), G);
    if (var(g, y, 1))
        c[1] = apply(g, Op::MatMul, in(g, y, 0), G);
}
// C = A B': dC = dA B' + A dB', so A_bar = G B, B_bar = G' A
void adj_matmult(Graph& g, NodeId y, NodeId G, Contrib& c) {
    if (var(g, y, 0))
        c[0] = apply(g, Op::MatMul, G, in(g, y, 1));
    if (var(g, y, 1))
        c[1] = apply(g, Op::MatTMul, G, in(g, y, 0));
}
// C = A': A_bar = G'
void adj_transpose(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Transpose, G);
}
// C = diag(v): only the diagonal depends on v, v_bar = diagonal(G)
void adj_diag_matrix(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Diagonal, G);
}
// y = diagonal(A): A_bar = diag(g)
void adj_diagonal(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::DiagMatrix, G);
}
// C = tril(A) is linear and self-adjoint: A_bar = tril(G)
void adj_tril(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Tril, G);
}
// L = chol(S): see cholesky_adjoint_kernel.
void adj_cholesky(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::CholeskyAdjoint, y, G);
}
// S_bar = cholesky_adjoint(L, L_bar) = sigma(M), M = L^-T P L^-1, P = Phi(L' T), T = tril(L_bar),
// sigma(M) = tril(M + M') - diag(M) (cholesky_adjoint_kernel). With H the adjoint of S_bar,
//   <H, sigma(M)> = <W, M>,  W = tril(H) + tril(H, -1)' (symmetric).
// In L_bar (S_bar is linear in it), with Z = L^-1 W L^-T and Q = Phi(Z) (Phi self-adjoint):
//   <W, L^-T Phi(L' T) L^-1> = <Phi(Z), L' T> = <L Q, T>:  L_bar_bar = L Q (lower triangular).
// In L: dM = -L^-T dL' M + L^-T Phi(dL' T) L^-1 - M dL L^-1, so
//   <W, dM> = <-M W L^-T + T Q' - M' W L^-T, dL>:  L_bar = tril(T Q' - (M + M') W L^-T),
// where M + M' = S_bar + S_bar' (sigma keeps M + M' below the diagonal and M_ii on it) and
// W L^-T = (L^-1 W)'. Only lower triangles are read, as the kernel reads only those.
void adj_cholesky_adjoint(Graph& g, NodeId y, NodeId H, Contrib& c) {
    const NodeId L = apply(g, Op::Tril, in(g, y, 0));
    const NodeId T = apply(g, Op::Tril, in(g, y, 1));
    const NodeId Hl = apply(g, Op::Tril, H);
    const NodeId W = apply(g, Op::Sub, apply(g, Op::Add, Hl, apply(g, Op::Transpose, Hl)),
                           apply(g, Op::DiagMatrix, apply(g, Op::Diagonal, H)));
    const NodeId Y = apply(g, Op::TriLowSolve, L, W);                           // L^-1 W
    const NodeId Z = apply(g, Op::TriLowSolve, L, apply(g, Op::Transpose, Y));  // L^-1 W L^-T
    const NodeId Q = apply(
        g, Op::Sub, apply(g, Op::Tril, Z),
        apply(g, Op::Mul, g.constant(0.5), apply(g, Op::DiagMatrix, apply(g, Op::Diagonal, Z))));
    if (var(g, y, 1))
        c[1] = apply(g, Op::MatMul, L, Q);
    if (var(g, y, 0)) {
        const NodeId MMt = apply(g, Op::Add, y, apply(g, Op::Transpose, y));
        c[0] = apply(g, Op::Tril,
                     apply(g, Op::Sub, apply(g, Op::MatMulT, T, Q),
                           apply(g, Op::MatMul, MMt, apply(g, Op::Transpose, Y))));
    }
}
// C = L^-1 B: L dC + dL C = dB, dC = L^-1 (dB - dL C), so with B_bar = L^-T G,
//   B_bar = L^-T G,  L_bar = -tril(B_bar C') (only L's lower triangle is read).
void adj_tri_low_solve(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const NodeId L = in(g, y, 0);
    const NodeId Bbar = apply(g, Op::TriLowTSolve, L, G);
    if (var(g, y, 0)) {
        const bool vec = g[y].shape.is_vector();
        const NodeId BC = apply(g, vec ? Op::Outer : Op::MatMulT, Bbar, y);
        c[0] = apply(g, Op::Neg, apply(g, Op::Tril, BC));
    }
    c[1] = Bbar;
}
// C = L^-T B: L' dC + dL' C = dB, dC = L^-T (dB - dL' C). With B_bar = L^-1 G,
//   tr(G' dC) = tr(B_bar' dB) - tr(B_bar' dL' C) = tr(B_bar' dB) - <C B_bar', dL>,
// so L_bar = -tril(C B_bar').
void adj_tri_low_t_solve(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const NodeId L = in(g, y, 0);
    const NodeId Bbar = apply(g, Op::TriLowSolve, L, G);
    if (var(g, y, 0)) {
        const bool vec = g[y].shape.is_vector();
        const NodeId CB = apply(g, vec ? Op::Outer : Op::MatMulT, y, Bbar);
        c[0] = apply(g, Op::Neg, apply(g, Op::Tril, CB));
    }
    c[1] = Bbar;
}
// y = log|det A|: dy = tr(A^-1 dA), so A_bar = g A^-T
// d det A = det A tr(A^-1 dA): A_bar = g det(A) A^-T
void adj_determinant(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const NodeId A = in(g, y, 0);
    c[0] = apply(g, Op::Mul, apply(g, Op::Mul, G, y),
                 apply(g, Op::Transpose, apply(g, Op::Inverse, A)));
}
void adj_log_determinant(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Mul, G, apply(g, Op::Transpose, apply(g, Op::Inverse, in(g, y, 0))));
}
// Y = A^-1: dY = -Y dA Y, so A_bar = -Y' G Y'
void adj_inverse(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Neg, apply(g, Op::MatMulT, apply(g, Op::MatTMul, y, G), y));
}
// y = log sum exp(x): dy/dx_i = exp(x_i - y) (the softmax), x_bar = g exp(x - y)
void adj_log_sum_exp(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Mul, G, apply(g, Op::Exp, apply(g, Op::Sub, in(g, y, 0), y)));
}
// Row-wise: X_bar_ij = g_i exp(X_ij - y_i)
void adj_none(Graph&, NodeId, NodeId, Contrib&) {}

void adj_log_sum_exp_rows(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const NodeId X = in(g, y, 0);
    const int cols = g[X].shape.cols;
    const NodeId soft = apply(g, Op::Exp, apply(g, Op::Sub, X, rep_cols(g, y, cols)));
    c[0] = apply(g, Op::Mul, rep_cols(g, G, cols), soft);
}
// Column-wise: X_bar_ij = g_j exp(X_ij - y_j)
void adj_log_sum_exp_cols(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const NodeId X = in(g, y, 0);
    const int rows = g[X].shape.rows;
    const NodeId soft = apply(g, Op::Exp, apply(g, Op::Sub, X, rep_rows(g, y, rows)));
    c[0] = apply(g, Op::Mul, rep_rows(g, G, rows), soft);
}
// y_i = sum_{j <= i} x_j: x_bar_j = sum_{i >= j} g_i, and the reverse sum's adjoint is the
// forward sum.
void adj_cumulative_sum(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::ReverseCumulativeSum, G);
}
void adj_reverse_cumulative_sum(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::CumulativeSum, G);
}
// y = prod(x): dy/dx_i = prod_{j != i} x_j
void adj_prod(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Mul, G, apply(g, Op::ProdOthers, in(g, y, 0)));
}
// y = prod_others(x), y_i = prod_{j != i} x_j: dy_i/dx_k = prod_{j != i, k} x_j for k != i and
// 0 for k = i, a symmetric matrix (the Hessian of prod); its product with G is one kernel.
// That op (prod_others_vjp) has no rule of its own: it is the third derivative of prod, which
// a Hessian-vector product (a second differentiation) never differentiates.
void adj_prod_others(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::ProdOthersVjp, in(g, y, 0), G);
}
namespace {
// y = min(x) or max(x) (a scalar) is differentiable wherever one element attains it, with
// derivative the indicator of that element; where several tie, the one-sided derivatives
// differ, and the adjoint is split evenly among them (a subgradient; ties have measure zero
// under a density). `attained` is step(y - x) for min (x_i <= y iff x_i = y), step(x - y)
// for max; step's derivative is 0, so the second derivative is 0 as it is almost everywhere.
void to_extremum(Graph& g, NodeId attained, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::Mul, G, apply(g, Op::Div, attained, apply(g, Op::Sum, attained)));
}
}  // namespace
void adj_min(Graph& g, NodeId y, NodeId G, Contrib& c) {
    to_extremum(g, apply(g, Op::Step, apply(g, Op::Sub, y, in(g, y, 0))), G, c);
}
void adj_max(Graph& g, NodeId y, NodeId G, Contrib& c) {
    to_extremum(g, apply(g, Op::Step, apply(g, Op::Sub, in(g, y, 0), y)), G, c);
}
// A block is a linear selection; its adjoint puts G back in place among zeros, and the
// adjoint of that is the selection again.
void adj_block(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const Node& n = g[y];
    c[0] = embed(g, G, static_cast<int>(n.index), static_cast<int>(n.aux), g[n.in[0]].shape);
}
void adj_embed(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const Node& n = g[y];
    c[0] = block(g, G, static_cast<int>(n.index), static_cast<int>(n.aux), g[n.in[0]].shape);
}
// Reshaping keeps the values in order: the adjoint reads G in the input's shape.
void adj_reshape(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = reshape(g, G, g[in(g, y, 0)].shape);
}
// [x; y]: x_bar, y_bar are the top and bottom blocks of G
void adj_append_row(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const Shape a = g[in(g, y, 0)].shape;
    const Shape b = g[in(g, y, 1)].shape;
    if (var(g, y, 0))
        c[0] = block(g, G, 0, 0, a);
    if (var(g, y, 1))
        c[1] = block(g, G, a.rows, 0, b);
}
// [x, y]: x_bar, y_bar are the left and right blocks of G
void adj_append_col(Graph& g, NodeId y, NodeId G, Contrib& c) {
    const Shape a = g[in(g, y, 0)].shape;
    const Shape b = g[in(g, y, 1)].shape;
    if (var(g, y, 0))
        c[0] = block(g, G, 0, 0, a);
    if (var(g, y, 1))
        c[1] = block(g, G, 0, a.cols, b);
}
// Replicating v into every column: v_bar is the sum of G's columns (row sums), and back.
void adj_rep_cols(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::RowSums, G);
}
void adj_rep_rows(Graph& g, NodeId, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::ColSums, G);
}
void adj_row_sums(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = rep_cols(g, G, g[in(g, y, 0)].shape.cols);
}
void adj_col_sums(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = rep_rows(g, G, g[in(g, y, 0)].shape.rows);
}
// Y = M[idx, :]: M_bar = scatter-add of G's rows at idx; and back.
void adj_gather_rows(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = scatter_add_rows(g, G, in(g, y, 1), g[in(g, y, 0)].shape.rows);
}
// Each value of x is read once per tile: x_bar sums G's tiles; and back.
void adj_tile_rows(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = tile_sum_rows(g, G, g[in(g, y, 0)].shape.rows);
}
void adj_tile_sum_rows(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = tile_rows(g, G, g[in(g, y, 0)].shape.rows / g[y].shape.rows);
}
void adj_scatter_add_rows(Graph& g, NodeId y, NodeId G, Contrib& c) {
    c[0] = apply(g, Op::GatherRows, G, in(g, y, 1));
}

}  // namespace advi::linalg
