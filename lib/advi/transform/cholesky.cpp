// Cholesky factors and the matrices they factor. Log-Jacobians (over the free coordinates:
// the strict lower triangle of a correlation factor or matrix, the lower triangle or
// trapezoid otherwise) are derived beside each fragment; they are sums of elementwise terms.
#include <advi/transform/cholesky.hpp>

#include <cmath>
#include <numbers>
#include <vector>

#include <Eigen/Cholesky>

#include <advi/graph/const_vector.hpp>
#include <advi/graph/ops_constrain.hpp>

namespace advi {

namespace {

using Corr = fused::Op1<CholeskyCorrKernels>;
using Cov = fused::Op1<CholeskyCovKernels>;
using SelfT = fused::Op1<LowerTriSelfTransposeKernels>;
using MatrixMap = Eigen::Map<const Eigen::MatrixXd>;

bool cov_matrix_fits(Shape s, const Support&) {
    return s.is_matrix() && s.rows == s.cols && s.rows >= 1;
}

// sum_p weight_p * a(zeta_p) with a = log(1 - tanh^2 zeta) = 2 log sech zeta
// = 2 log 2 + 2 zeta - 2 log(1 + exp(2 zeta)), stable in both tails.
NodeId weighted_log_sech2(Graph& g, NodeId zeta, const std::vector<double>& weight) {
    const Shape s = g[zeta].shape;
    const NodeId two_z = g.apply(Op::Mul, g.constant(2.0), zeta);
    const NodeId a =
        g.apply(Op::Sub, two_z, g.apply(Op::Mul, g.constant(2.0), g.apply(Op::Log1pExp, two_z)));
    double total = 0;
    for (double w : weight) total += w;
    return g.apply(Op::Add, g.apply(Op::Dot, constant_vector(g, weight, s), a),
                   g.constant(2 * std::numbers::ln2 * total));
}

// The row and column of each free coordinate of a correlation factor, row by row.
template <class F>
std::vector<double> corr_weights(int n, F weight_of) {
    std::vector<double> w;
    w.reserve(n);
    for (int i = 1; static_cast<int>(w.size()) < n; ++i) {
        for (int k = 0; k < i; ++k) w.push_back(weight_of(i, k));
    }
    return w;
}
int corr_order(int n) {  // K from K(K-1)/2
    int K = 1;
    while (K * (K - 1) / 2 < n) ++K;
    return K;
}

// cholesky_factor_corr: row i's coordinates map to L(i,0..i-1) by a triangular Jacobian
// with diagonal dL(i,j)/dzeta_j = c_j^2 r_j, and log r_j = (1/2) sum_{k<j} a_k with
// a = log(1 - w^2) = log c^2. So log|J| = sum_{i,k<i} a_ik (1 + (i - 1 - k) / 2).
NodeId cholesky_corr_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    const int n = g[zeta].shape.size();
    return weighted_log_sech2(
        g, zeta, corr_weights(n, [](int i, int k) { return 1.0 + 0.5 * (i - 1 - k); }));
}

// corr_matrix: Omega = L L'. Over the strict lower triangles (row by row), Omega(i,j) =
// sum_{k<=j} L(i,k) L(j,k) depends on L(i,k<=j) and on earlier rows: the Jacobian is
// triangular with diagonal L(j,j), each appearing for the K - 1 - j rows i > j. Adding
// sum_j (K - 1 - j) log L(j,j) = sum_{j,k<j} (K - 1 - j) a_jk / 2 to the factor's
// log|J|: log|J| = sum_{i,k<i} a_ik (1 + (K - 2 - k) / 2).
NodeId corr_matrix_logdet(Graph& g, NodeId zeta, NodeId, const Support&) {
    const int n = g[zeta].shape.size();
    const int K = corr_order(n);
    return weighted_log_sech2(g, zeta,
                              corr_weights(n, [K](int, int k) { return 1.0 + 0.5 * (K - 2 - k); }));
}

// cholesky_factor_cov: the diagonal is exp(zeta), the rest the identity: log|J| = the sum
// of the diagonal's coordinates.
std::vector<double> cov_diagonal_weights(int M, int N, bool cov_matrix) {
    std::vector<double> w;
    for (int m = 0; m < M; ++m) {
        const int last = std::min(m, N - 1);
        for (int n = 0; n <= last; ++n) {
            // cov_matrix: the L -> L L' Jacobian over lower triangles is 2^K prod_k
            // L(k,k)^(K-k) (0-based k: Sigma(i,k) for i >= k is linear in L(i,k) with
            // factor L(k,k), doubled on the diagonal); with log L(k,k) = zeta_kk from exp,
            // log|J| = K log 2 + sum_k (K - k + 1) zeta_kk.
            w.push_back(m != n ? 0.0 : cov_matrix ? N - m + 1.0 : 1.0);
        }
    }
    return w;
}
NodeId cholesky_cov_logdet(Graph& g, NodeId zeta, NodeId theta, const Support&) {
    const Shape t = g[theta].shape;
    return g.apply(Op::Dot,
                   constant_vector(g, cov_diagonal_weights(t.rows, t.cols, false), g[zeta].shape),
                   zeta);
}
NodeId cov_matrix_logdet(Graph& g, NodeId zeta, NodeId theta, const Support&) {
    const int K = g[theta].shape.rows;
    const NodeId d =
        g.apply(Op::Dot, constant_vector(g, cov_diagonal_weights(K, K, true), g[zeta].shape), zeta);
    return g.apply(Op::Add, d, g.constant(K * std::numbers::ln2));
}

NodeId corr_matrix_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    return SelfT::build(g, Corr::build(g, zeta, shape), shape);
}
NodeId cov_matrix_constrain(Graph& g, NodeId zeta, Shape shape, const Support&) {
    return SelfT::build(g, Cov::build(g, zeta, shape), shape);
}

// T of a correlation factor: row i, w_j = L(i,j) / r_j, zeta = atanh(w_j).
Eigen::VectorXd corr_factor_free(const Eigen::MatrixXd& L) {
    const int K = static_cast<int>(L.rows());
    Eigen::VectorXd z(K * (K - 1) / 2);
    int pos = 0;
    for (int i = 1; i < K; ++i) {
        double r2 = 1.0;  // 1 - sum of the squares so far
        for (int j = 0; j < i; ++j, ++pos) {
            const double w = L(i, j) / std::sqrt(r2);
            z[pos] = std::atanh(w);
            r2 -= L(i, j) * L(i, j);
        }
    }
    return z;
}
Eigen::VectorXd cov_factor_free(const Eigen::MatrixXd& L) {
    const int M = static_cast<int>(L.rows()), N = static_cast<int>(L.cols());
    Eigen::VectorXd z(N * (N + 1) / 2 + (M - N) * N);
    int pos = 0;
    for (int m = 0; m < M; ++m) {
        for (int n = 0; n <= std::min(m, N - 1); ++n, ++pos) {
            z[pos] = m == n ? std::log(L(m, m)) : L(m, n);
        }
    }
    return z;
}
Eigen::MatrixXd lower_factor(const Eigen::VectorXd& x, Shape s) {
    return Eigen::LLT<Eigen::MatrixXd>(MatrixMap(x.data(), s.rows, s.cols)).matrixL();
}

Eigen::VectorXd cholesky_corr_unconstrain(const Eigen::VectorXd& x, Shape s, const Support&) {
    return corr_factor_free(MatrixMap(x.data(), s.rows, s.cols));
}
Eigen::VectorXd corr_matrix_unconstrain(const Eigen::VectorXd& x, Shape s, const Support&) {
    return corr_factor_free(lower_factor(x, s));
}
Eigen::VectorXd cholesky_cov_unconstrain(const Eigen::VectorXd& x, Shape s, const Support&) {
    return cov_factor_free(MatrixMap(x.data(), s.rows, s.cols));
}
Eigen::VectorXd cov_matrix_unconstrain(const Eigen::VectorXd& x, Shape s, const Support&) {
    return cov_factor_free(lower_factor(x, s));
}

template <class M, bool self_transpose>
Eigen::VectorXd value(const Eigen::VectorXd& z, Shape s, const Support&) {
    Eigen::VectorXd L(s.size());
    M::constrain(z.data(), s.rows, s.cols, L.data());
    if (!self_transpose)
        return L;
    Eigen::VectorXd out(s.size());
    LowerTriSelfTransposeKernels::constrain(L.data(), s.rows, s.cols, out.data());
    return out;
}

}  // namespace

// clang-format off
const Transform kCholeskyCorrTransform {"cholesky-corr", CholeskyCorrKernels::needs, fused_fits<CholeskyCorrKernels>, fused_free<CholeskyCorrKernels>, fused_constrain<CholeskyCorrKernels>, cholesky_corr_logdet, cholesky_corr_unconstrain, value<CholeskyCorrKernels, false>};
const Transform kCorrMatrixTransform   {"corr-matrix",   CholeskyCorrKernels::needs, fused_fits<CholeskyCorrKernels>, fused_free<CholeskyCorrKernels>, corr_matrix_constrain,                corr_matrix_logdet,   corr_matrix_unconstrain,   value<CholeskyCorrKernels, true>};
const Transform kCholeskyCovTransform  {"cholesky-cov",  CholeskyCovKernels::needs,  fused_fits<CholeskyCovKernels>,  fused_free<CholeskyCovKernels>,  fused_constrain<CholeskyCovKernels>,  cholesky_cov_logdet,  cholesky_cov_unconstrain,  value<CholeskyCovKernels, false>};
const Transform kCovMatrixTransform    {"cov-matrix",    "mat[K,K] with K >= 1",     cov_matrix_fits,                 fused_free<CholeskyCovKernels>,  cov_matrix_constrain,                 cov_matrix_logdet,    cov_matrix_unconstrain,    value<CholeskyCovKernels, true>};
// clang-format on

}  // namespace advi
