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
// The decompositions with complex results (eigenvalues, eigenvectors and eigendecompose of any
// square matrix, complex_schur_decompose, and the _sym and svd functions of complex matrices)
// and csr_extract take matrices known before the fit: Eigen's solvers, as Stan's; of a matrix
// that depends on the parameters they are refused by name.
#include <advi/stan/lower_decompositions.hpp>

#include <algorithm>
#include <optional>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
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

namespace {

// A's values when it is known before the fit (data, constants), else nothing.
std::optional<std::vector<double>> known_values(CallSite& c, const Expr& A) {
    try {
        return c.m().evaluate(A);
    } catch (const ModelError&) {
        return std::nullopt;  // it depends on the parameters
    }
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
    const std::optional<std::vector<double>> known = known_values(c, A);
    const bool is_known = known.has_value();
    if (is_known) {
        const Eigen::Map<const Eigen::MatrixXd> a(known->data(), m, n);
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

namespace {

// The argument as complex numbers known before the fit (a real matrix's imaginary parts 0).
Eigen::MatrixXcd known_complex(CallSite& c, const Value& v) {
    Lowerer& L = c.lowerer;
    auto numbers = [&](const Value& part) {
        const Expr e = L.real(part, c.at);
        try {
            return c.m().evaluate(e);
        } catch (const ModelError&) {
            c.fail(
                fmt::format("{} of a matrix that depends on the parameters is not supported "
                            "yet: advi computes it of matrices known before the fit",
                            c.name()));
        }
    };
    const int rows = v.sizes.at(0), cols = v.sizes.size() > 1 ? v.sizes[1] : 1;
    const std::vector<double> re = numbers(L.real_part(v, c.at));
    const std::vector<double> im = numbers(L.imag_part(v, c.at));
    Eigen::MatrixXcd M(rows, cols);
    for (Eigen::Index k = 0; k < M.size(); ++k) {
        M.data()[k] = {re[static_cast<std::size_t>(k)], im[static_cast<std::size_t>(k)]};
        if (!std::isfinite(re[static_cast<std::size_t>(k)]) ||
            !std::isfinite(im[static_cast<std::size_t>(k)]))
            c.fail(fmt::format("{}: the matrix has a value that is not finite", c.name()));
    }
    return M;
}

Value known_matrix_value(CallSite& c, const Eigen::MatrixXd& M) {
    return CallSite::mat(to_matrix(c.lowerer.known_reals(M.reshaped()), static_cast<int>(M.rows()),
                                   static_cast<int>(M.cols())));
}
Value known_vector_value(CallSite& c, const Eigen::VectorXd& v) {
    return CallSite::vec(c.lowerer.known_reals(v), static_cast<int>(v.size()));
}
Value complex_matrix_value(CallSite& c, const Eigen::MatrixXcd& M) {
    return c.lowerer.complex_of(known_matrix_value(c, M.real()), known_matrix_value(c, M.imag()),
                                c.at);
}
Value complex_vector_value(CallSite& c, const Eigen::VectorXcd& v) {
    return c.lowerer.complex_of(known_vector_value(c, v.real()), known_vector_value(c, v.imag()),
                                c.at);
}
Value tuple_of(std::vector<Value> parts) {
    Value t;
    t.base = Base::Tuple;
    t.parts = std::move(parts);
    return t;
}

}  // namespace

Value known_decomposition_of(CallSite& c) {
    c.arity(1);
    const std::string& f = c.name();
    const Eigen::MatrixXcd A = known_complex(c, c.args[0]);
    if (A.rows() != A.cols() && !f.starts_with("svd") && f != "singular_values")
        c.fail(fmt::format("{}: the matrix must be square, got {} x {}", f, A.rows(), A.cols()));
    const bool real = !c.args[0].is_complex();
    if (f == "eigenvalues" || f == "eigenvectors" || f == "eigendecompose") {
        Eigen::VectorXcd values;
        Eigen::MatrixXcd vectors;
        if (real) {
            const Eigen::EigenSolver<Eigen::MatrixXd> es(A.real());
            values = es.eigenvalues();
            vectors = es.eigenvectors();
        } else {
            const Eigen::ComplexEigenSolver<Eigen::MatrixXcd> es(A);
            values = es.eigenvalues();
            vectors = es.eigenvectors();
        }
        if (f == "eigenvalues")
            return complex_vector_value(c, values);
        if (f == "eigenvectors")
            return complex_matrix_value(c, vectors);
        return tuple_of({complex_matrix_value(c, vectors), complex_vector_value(c, values)});
    }
    if (f.starts_with("complex_schur_decompose")) {
        const Eigen::ComplexSchur<Eigen::MatrixXcd> schur(A);
        if (f == "complex_schur_decompose_u")
            return complex_matrix_value(c, schur.matrixU());
        if (f == "complex_schur_decompose_t")
            return complex_matrix_value(c, schur.matrixT());
        return tuple_of(
            {complex_matrix_value(c, schur.matrixU()), complex_matrix_value(c, schur.matrixT())});
    }
    if (f.ends_with("_sym")) {
        // of a complex (Hermitian) matrix, its lower triangle; the eigenvalues are real, typed
        // complex_vector as Stan's signatures type them
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> es(A);
        const Eigen::VectorXcd values = es.eigenvalues().cast<std::complex<double>>();
        if (f == "eigenvalues_sym")
            return complex_vector_value(c, values);
        if (f == "eigenvectors_sym")
            return complex_matrix_value(c, es.eigenvectors());
        return tuple_of(
            {complex_matrix_value(c, es.eigenvectors()), complex_vector_value(c, values)});
    }
    // the singular value decomposition of a complex matrix
    const Eigen::JacobiSVD<Eigen::MatrixXcd> svd(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
    if (f == "singular_values")
        return known_vector_value(c, svd.singularValues());
    if (f == "svd_U")
        return complex_matrix_value(c, svd.matrixU());
    if (f == "svd_V")
        return complex_matrix_value(c, svd.matrixV());
    return tuple_of({complex_matrix_value(c, svd.matrixU()),
                     known_vector_value(c, svd.singularValues()),
                     complex_matrix_value(c, svd.matrixV())});
}

// csr_extract_w (the non-zero values, row by row), csr_extract_v (their columns) and
// csr_extract_u (where each row starts in them, then one past the end), 1-based, and the tuple
// csr_extract, of a matrix known before the fit (its sparsity would change with the draw).
Value csr_extract_of(CallSite& c) {
    c.arity(1);
    const Eigen::MatrixXcd A = known_complex(c, c.args[0]);
    std::vector<double> w;
    Value v = c.lowerer.int_scalar(0), u = c.lowerer.int_scalar(0);
    v.ints.clear();
    u.ints.clear();
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
        u.ints.push_back(static_cast<int>(w.size()) + 1);
        for (Eigen::Index j = 0; j < A.cols(); ++j) {
            if (A(i, j).real() != 0) {
                w.push_back(A(i, j).real());
                v.ints.push_back(static_cast<int>(j) + 1);
            }
        }
    }
    u.ints.push_back(static_cast<int>(w.size()) + 1);
    v.dims = {static_cast<int>(v.ints.size())};
    u.dims = {static_cast<int>(u.ints.size())};
    const Value values = known_vector_value(
        c, Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size())));
    const std::string& f = c.name();
    if (f == "csr_extract_w")
        return values;
    if (f == "csr_extract_v")
        return v;
    if (f == "csr_extract_u")
        return u;
    return tuple_of({values, v, u});
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
    const std::optional<std::vector<double>> known = known_values(c, A);
    const bool is_known = known.has_value();
    Expr Q, R;
    if (is_known) {
        const Numbers x =
            householder(Eigen::Map<const Eigen::MatrixXd>(known->data(), m, n), !thin);
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
