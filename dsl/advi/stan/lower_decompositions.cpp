// QR decompositions (lower_decompositions.hpp): of matrices known before the fit, Eigen's
// Householder QR, as Stan computes it; of matrices that depend on the parameters, modified
// Gram-Schmidt written out in graph operations (each column orthogonalised twice, which keeps
// Q orthogonal to rounding for any well-conditioned A), so that the derivatives of every order
// are the operations' own. Both give Stan's factors: R's diagonal non-negative.
// Singular value decompositions: of known matrices Eigen's JacobiSVD (thin), as Stan; of
// matrices that depend on the parameters the symmetric eigendecomposition of A'A (or A A' when
// A is wide), whose ops carry the derivatives of every order: sigma the square roots of its
// eigenvalues, decreasing, V (or U) its eigenvectors in that order, U = A V / sigma (or
// V = A' U / sigma). The singular vectors' signs are a convention (Stan's are JacobiSVD's);
// squaring A squares its condition number, so a nearly rank-deficient A loses digits in its
// smallest singular values, and a repeated singular value has no derivative of its vectors.
#include <advi/stan/lower_decompositions.hpp>

#include <algorithm>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi::stan {
namespace {

// The matrix of these columns.
Expr from_columns(const std::vector<Expr>& cols) {
    Expr m = to_matrix(cols.at(0), cols[0].shape().size(), 1);
    for (std::size_t j = 1; j < cols.size(); ++j) m = append_col(m, cols[j]);
    return m;
}

// 1 on and above the diagonal, else 0 (rows x cols).
Eigen::MatrixXd upper_mask(int rows, int cols) {
    Eigen::MatrixXd u = Eigen::MatrixXd::Zero(rows, cols);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i <= std::min(j, rows - 1); ++i) u(i, j) = 1;
    return u;
}

struct Factors {
    Expr q;  // m x k, k = min(m, n)
    Expr r;  // k x n
};

// The thin factors in graph operations: the first k columns orthonormalised, R = Q' A above
// its diagonal.
Factors gram_schmidt(const Expr& A) {
    const int m = A.shape().rows, n = A.shape().cols, k = std::min(m, n);
    std::vector<Expr> q;
    for (int j = 0; j < k; ++j) {
        Expr v = col(A, j);
        for (int pass = 0; pass < 2; ++pass) {
            for (int i = 0; i < j; ++i)
                v = v - dot(q[static_cast<std::size_t>(i)], v) * q[static_cast<std::size_t>(i)];
        }
        q.push_back(v / sqrt(dot_self(v)));
    }
    const Expr Q = from_columns(q);
    const Expr R = elt_multiply(transpose(Q) * A, upper_mask(k, n));
    return {Q, R};
}

struct Numbers {
    Eigen::MatrixXd q;
    Eigen::MatrixXd r;
};

// Stan's QR of known numbers: Householder, columns of Q and rows of R flipped where R's
// diagonal is negative; `full`: Q m x m and R m x n, else the thin factors.
Numbers householder(const Eigen::MatrixXd& a, bool full) {
    const Eigen::Index m = a.rows(), n = a.cols(), k = std::min(m, n);
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
    const Eigen::Index qc = full ? m : k, rr = full ? m : k;
    Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(m, qc);
    Eigen::MatrixXd r = qr.matrixQR().topRows(rr).triangularView<Eigen::Upper>();
    for (Eigen::Index i = 0; i < k; ++i) {
        if (qr.matrixQR()(i, i) < 0) {
            q.col(i) *= -1.0;
            r.row(i) *= -1.0;
        }
    }
    return {q, r};
}

// The exchange matrix: n x n, ones on the anti-diagonal (reverses rows or columns).
Eigen::MatrixXd exchange(int n) {
    return Eigen::MatrixXd::Identity(n, n).rowwise().reverse();
}

}  // namespace

Value svd_of(CallSite& c) {
    c.arity(1);
    const std::string& f = c.name();
    const Expr A = c.real_of(0);
    if (!A.shape().is_matrix() || A.shape().size() == 0)
        c.fail(
            fmt::format("{}: the argument must be a non-empty matrix, got {}", f, A.shape().str()));
    const int m = A.shape().rows, n = A.shape().cols, k = std::min(m, n);
    const auto constant = [&](const Eigen::MatrixXd& v) {
        return to_matrix(c.lowerer.known_reals(v.reshaped()), static_cast<int>(v.rows()),
                         static_cast<int>(v.cols()));
    };
    Expr U, sigma, V;
    std::vector<double> known;
    bool is_known = true;
    try {
        known = c.m().evaluate(A);
    } catch (const ModelError&) {
        is_known = false;
    }
    if (is_known) {
        const Eigen::Map<const Eigen::MatrixXd> a(known.data(), m, n);
        if (!a.allFinite())
            c.fail(fmt::format("{}: the matrix has a value that is not finite", f));
        const Eigen::JacobiSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeThinU | Eigen::ComputeThinV);
        U = constant(svd.matrixU());
        V = constant(svd.matrixV());
        sigma = c.lowerer.known_reals(svd.singularValues());
    } else {
        const bool tall = m >= n;
        const Expr S = tall ? transpose(A) * A : A * transpose(A);  // k x k
        const Expr P = constant(exchange(k));
        sigma = P * sqrt(eigenvalues_sym(S));
        const Expr W = eigenvectors_sym(S) * P;
        const Expr inverse = diag_matrix(1.0 / sigma);
        V = tall ? W : transpose(A) * W * inverse;
        U = tall ? A * W * inverse : W;
    }
    if (f == "singular_values")
        return CallSite::vec(sigma, k);
    if (f == "svd_U")
        return CallSite::mat(U);
    if (f == "svd_V")
        return CallSite::mat(V);
    Value t;  // svd: the tuple (U, sigma, V)
    t.base = Base::Tuple;
    t.parts = {CallSite::mat(U), CallSite::vec(sigma, k), CallSite::mat(V)};
    return t;
}

Value qr_of(CallSite& c) {
    c.arity(1);
    const std::string& f = c.name();
    const bool thin = f.starts_with("qr_thin");
    const Expr A = c.real_of(0);
    if (!A.shape().is_matrix() || A.shape().size() == 0)
        c.fail(
            fmt::format("{}: the argument must be a non-empty matrix, got {}", f, A.shape().str()));
    const int m = A.shape().rows, n = A.shape().cols;
    std::vector<double> known;
    bool is_known = true;
    try {
        known = c.m().evaluate(A);
    } catch (const ModelError&) {
        is_known = false;
    }
    Expr Q, R;
    if (is_known) {
        const Numbers x = householder(Eigen::Map<const Eigen::MatrixXd>(known.data(), m, n), !thin);
        const auto constant = [&](const Eigen::MatrixXd& v) {
            return to_matrix(c.lowerer.known_reals(v.reshaped()), static_cast<int>(v.rows()),
                             static_cast<int>(v.cols()));
        };
        Q = constant(x.q);
        R = constant(x.r);
    } else {
        const Factors g = gram_schmidt(A);
        Q = g.q;
        R = g.r;
        if (!thin && m > n) {
            // Q's last m - n columns complete the basis (Householder's choice, in Stan): no
            // function of A to differentiate
            if (f == "qr_Q" || f == "qr") {
                c.fail(
                    fmt::format("{} of a {} x {} matrix that depends on the parameters is not "
                                "supported yet: its last {} columns complete the basis "
                                "arbitrarily (qr_thin_Q is the part that is a function of "
                                "the matrix)",
                                f, m, n, m - n));
            }
            R = append_row(R, to_matrix(c.lowerer.known_reals(Eigen::VectorXd::Zero(
                                            static_cast<Eigen::Index>(m - n) * n)),
                                        m - n, n));  // R's zero rows
        }
    }
    if (f == "qr_thin_Q" || f == "qr_Q")
        return CallSite::mat(Q);
    if (f == "qr_thin_R" || f == "qr_R")
        return CallSite::mat(R);
    Value t;  // qr_thin, qr: the tuple (Q, R)
    t.base = Base::Tuple;
    t.parts = {CallSite::mat(Q), CallSite::mat(R)};
    return t;
}

}  // namespace advi::stan
