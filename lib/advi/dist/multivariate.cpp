// Log densities of the multivariate distributions, built from the linear algebra ops (Cholesky
// factors, triangular solves); each checks its own shapes and adds scalar terms.
#include <advi/dist/multivariate.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/ops_linalg.hpp>

namespace advi::multivariate {
namespace {

constexpr double kLog2 = 0.69314718055994531;
constexpr double kLogPi = 1.1447298858494002;
constexpr double kLog2Pi = 1.8378770664093453;
constexpr double kInf = std::numeric_limits<double>::infinity();

const Shape& shape(Terms& t, NodeId n) {
    return t.g()[n].shape;
}
NodeId op(Terms& t, Op o, NodeId a, NodeId b = kNoNode) {
    return t.g().apply(o, a, b);
}
NodeId sum(Terms& t, NodeId x) {
    return op(t, Op::Sum, x);
}
// Integer data entering the arithmetic (a mean given as integer data) as reals.
NodeId real(Terms& t, NodeId x) {
    return t.g()[x].dtype == DType::Int ? op(t, Op::ToReal, x) : x;
}

[[noreturn]] void bad_arg(std::string_view dist, std::string_view arg, const Shape& s,
                          const Shape& variate, std::string_view expected) {
    throw ShapeError(fmt::format("{}: argument `{}` is {} but the variate is {} (expected {})",
                                 dist, arg, s.str(), variate.str(), expected));
}
[[noreturn]] void bad_variate(std::string_view dist, const Shape& s, std::string_view expected) {
    throw ShapeError(fmt::format("{}: the variate is {} (expected {})", dist, s.str(), expected));
}

// Draws of a vector variate: vec[K] is one draw, mat[N,K] is N draws (one per row).
struct Draws {
    int n;
    int k;
};
Draws draws(std::string_view dist, const Shape& y) {
    if (y.is_vector())
        return {1, y.rows};
    if (y.is_matrix())
        return {y.rows, y.cols};
    bad_variate(dist, y, "vec[K], or mat[N,K] with one draw per row");
}
void require_square(std::string_view dist, std::string_view arg, const Shape& s,
                    const Shape& variate, int k) {
    if (!s.is_matrix() || s.rows != k || s.cols != k) {
        bad_arg(dist, arg, s, variate, Shape::matrix(k, k).str());
    }
}
void require_scalar(std::string_view dist, std::string_view arg, const Shape& s,
                    const Shape& variate) {
    if (!s.is_scalar())
        bad_arg(dist, arg, s, variate, "real");
}
// The variate of a matrix distribution: mat[K,K].
int square_variate(std::string_view dist, const Shape& s) {
    if (!s.is_matrix() || s.rows != s.cols)
        bad_variate(dist, s, "a square matrix mat[K,K]");
    return s.rows;
}
// An integer variate: integer data, a vector of categories (log_density passes it as it is).
void require_categories(Terms& t, std::string_view dist, NodeId y) {
    const Node& n = t.g()[y];
    if (n.dtype != DType::Int || !n.shape.is_vector()) {
        bad_variate(dist, n.shape, "an integer data vector of categories 0..K-1");
    }
}

// 1, 2, ..., n as a data-only node (computed once, when the program is built).
NodeId one_to_n(Terms& t, int n) {
    return op(t, Op::CumulativeSum, t.g().constant(1.0, Shape::vector(n)));
}
// sum log diag(L)
NodeId sum_log_diagonal(Terms& t, NodeId L) {
    return sum(t, t.f(Op::Log, op(t, Op::Diagonal, L)));
}

// The residuals y - mu with one draw per column: vec[K] for one draw, mat[K,N] for N.
// (Columns, so that one triangular solve L^-1 R whitens every draw.)
NodeId residual_columns(Terms& t, std::string_view dist, NodeId y, NodeId mu) {
    const Shape ys = shape(t, y);
    const Shape ms = shape(t, mu);
    const Draws d = draws(dist, ys);
    if (ys.is_vector()) {
        if (ms != ys)
            bad_arg(dist, "mu", ms, ys, ys.str());
        return t.sub(y, mu);
    }
    // y' is data-only when y is data: transposed once, when the program is built.
    const NodeId yt = op(t, Op::Transpose, y);
    if (ms.is_vector() && ms.rows == d.k)
        return t.sub(yt, linalg::rep_cols(t.g(), mu, d.n));
    if (ms == ys)
        return t.sub(yt, op(t, Op::Transpose, mu));
    bad_arg(dist, "mu", ms, ys, fmt::format("vec[{}] or {}", d.k, ys.str()));
}

// sum_n multi_normal(y_n | mu_n, L L') for residual columns R and lower-triangular L:
//   -N K/2 log(2 pi) - N sum log diag(L) - |L^-1 R|_F^2 / 2
void multi_normal_terms(Terms& t, NodeId R, NodeId L, Draws d) {
    const NodeId Z = op(t, Op::TriLowSolve, L, R);
    t.add(t.mul(t.c(-0.5), sum(t, t.f(Op::Square, Z))));
    t.add(t.mul(t.c(-d.n), sum_log_diagonal(t, L)));
    t.add(t.c(-0.5 * d.n * d.k * kLog2Pi));
}

// log of the LKJ normalising constant (Lewandowski, Kurowicka and Joe 2009, theorem 5):
//   log c_K(eta) = log 2 sum_{k=1}^{K-1} (2 eta - 2 + K - k)(K - k)
//                + sum_{k=1}^{K-1} (K - k) lbeta(eta + (K - k - 1)/2, eta + (K - k - 1)/2),
// with j = K - k running over 1..K-1, lbeta(b, b) = 2 lgamma(b) - lgamma(2b), and
//   sum_j (2 eta - 2 + j) j = (2 eta - 2) K(K-1)/2 + (K-1)K(2K-1)/6.
NodeId lkj_log_constant(Terms& t, NodeId eta, int K) {
    if (K < 2)
        return t.c(0.0);
    const NodeId j = one_to_n(t, K - 1);
    const NodeId b = t.add(eta, t.mul(t.c(0.5), t.sub(j, t.c(1))));
    const NodeId lbeta =
        t.sub(t.mul(t.c(2), t.f(Op::Lgamma, b)), t.f(Op::Lgamma, t.mul(t.c(2), b)));
    const double k = K;
    const NodeId powers = t.add(t.mul(t.sub(t.mul(t.c(2), eta), t.c(2)), t.c(k * (k - 1) / 2)),
                                t.c((k - 1) * k * (2 * k - 1) / 6));
    return t.add(op(t, Op::Dot, j, lbeta), t.mul(t.c(kLog2), powers));
}

// log Gamma_K(x) = K(K-1)/4 log(pi) + sum_{j=1}^K lgamma(x + (1 - j)/2)
NodeId lmgamma(Terms& t, int K, NodeId x) {
    const NodeId j = one_to_n(t, K);
    const NodeId terms = t.f(Op::Lgamma, t.add(x, t.mul(t.c(0.5), t.sub(t.c(1), j))));
    return t.add(t.c(K * (K - 1) / 4.0 * kLogPi), sum(t, terms));
}

// Stan requires nu > K - 1; checked here where nu is a number.
void check_nu(Terms& t, std::string_view dist, NodeId nu, int K) {
    if (auto v = t.g().const_value(nu); v && !(*v > K - 1)) {
        throw ModelError(
            fmt::format("{}: argument `nu` must be greater than K - 1 = {} for a "
                        "mat[{},{}] variate, got {}",
                        dist, K - 1, K, K, *v));
    }
}

}  // namespace

Support real_support(const Graph&, Args) {
    return Support::real();
}
Support simplex_support(const Graph&, Args) {
    return Support::simplex();
}
Support cholesky_factor_corr_support(const Graph&, Args) {
    return Support::cholesky_factor_corr();
}
Support corr_matrix_support(const Graph&, Args) {
    return Support::corr_matrix();
}
Support cov_matrix_support(const Graph&, Args) {
    return Support::cov_matrix();
}
Support cholesky_factor_cov_support(const Graph&, Args) {
    return Support::cholesky_factor_cov();
}
Support no_support(const Graph&, Args) {
    return Support::real();
}

bool category(int y) {
    return y >= 0;
}

// multi_normal(y | mu, Sigma) = multi_normal_cholesky(y | mu, chol(Sigma))
void multi_normal(Terms& t, NodeId y, Args a) {
    const NodeId yr = real(t, y);
    const NodeId R = residual_columns(t, "multi_normal", yr, real(t, a[0]));
    const Draws d = draws("multi_normal", shape(t, y));
    require_square("multi_normal", "Sigma", shape(t, a[1]), shape(t, y), d.k);
    multi_normal_terms(t, R, op(t, Op::Cholesky, real(t, a[1])), d);
}
void multi_normal_cholesky(Terms& t, NodeId y, Args a) {
    const NodeId yr = real(t, y);
    const NodeId R = residual_columns(t, "multi_normal_cholesky", yr, real(t, a[0]));
    const Draws d = draws("multi_normal_cholesky", shape(t, y));
    require_square("multi_normal_cholesky", "L", shape(t, a[1]), shape(t, y), d.k);
    multi_normal_terms(t, R, real(t, a[1]), d);
}

// dirichlet(theta | alpha) = lgamma(sum alpha) - sum lgamma(alpha)
//                            + sum (alpha - 1) log theta, per draw
void dirichlet(Terms& t, NodeId theta, Args a) {
    const Shape ts = shape(t, theta);
    const Draws d = draws("dirichlet", ts);
    const NodeId alpha = real(t, a[0]);
    const Shape as = shape(t, alpha);
    const NodeId log_theta = t.f(Op::Log, real(t, theta));
    if (as.is_matrix() && as == ts) {
        // one alpha per draw (Stan's array of alphas), a row each
        t.add(sum(t, t.mul(t.sub(alpha, t.c(1)), log_theta)));
        t.add(t.sub(sum(t, t.f(Op::Lgamma, op(t, Op::RowSums, alpha))),
                    sum(t, t.f(Op::Lgamma, alpha))));
        return;
    }
    if (!as.is_vector() || as.rows != d.k)
        bad_arg("dirichlet", "alpha", as, ts, Shape::vector(d.k).str());
    // sum over draws of log theta, per category: one dot product with alpha - 1
    const NodeId per_k = ts.is_vector() ? log_theta : op(t, Op::ColSums, log_theta);
    t.add(op(t, Op::Dot, t.sub(alpha, t.c(1)), per_k));
    const NodeId norm = t.sub(t.f(Op::Lgamma, sum(t, alpha)), sum(t, t.f(Op::Lgamma, alpha)));
    t.add(t.mul(t.c(d.n), norm));
}

// categorical(y | theta) = sum_n log theta[y_n]
void categorical(Terms& t, NodeId y, Args a) {
    require_categories(t, "categorical", y);
    const NodeId theta = real(t, a[0]);
    if (!shape(t, theta).is_vector()) {
        bad_arg("categorical", "theta", shape(t, theta), shape(t, y), "vec[K]");
    }
    t.add(sum(t, op(t, Op::Gather, t.f(Op::Log, theta), y)));
}
// categorical_logit(y | beta) = categorical(y | softmax(beta))
//   = sum_n beta[y_n] - N log_sum_exp(beta)
void categorical_logit(Terms& t, NodeId y, Args a) {
    require_categories(t, "categorical_logit", y);
    const NodeId beta = real(t, a[0]);
    if (!shape(t, beta).is_vector()) {
        bad_arg("categorical_logit", "beta", shape(t, beta), shape(t, y), "vec[K]");
    }
    t.add(sum(t, op(t, Op::Gather, beta, y)));
    t.add(t.mul(t.c(-shape(t, y).rows), op(t, Op::LogSumExp, beta)));
}

// ordered_logistic(y | eta, c): with cut points c_{-1} = -inf < c_0 < ... < c_{K-2} <
// c_{K-1} = +inf, P(y = k) = logit^-1(eta - c_{k-1}) - logit^-1(eta - c_k). For a = eta - lo
// and b = eta - hi (a > b),
//   logit^-1(a) - logit^-1(b) = logit^-1(a) logit^-1(-b) (1 - e^(b - a)),
// so log P = log_inv_logit(eta - lo) + log_inv_logit(hi - eta) + log(-expm1(lo - hi)): no
// difference of probabilities (exact in both tails), and the infinite ends give 0 terms.
void ordered_logistic(Terms& t, NodeId y, Args a) {
    require_categories(t, "ordered_logistic", y);
    const Shape ys = shape(t, y);
    const NodeId eta = real(t, a[0]);
    const NodeId c = real(t, a[1]);
    const Shape es = shape(t, eta);
    if (!es.is_scalar() && es != ys) {
        bad_arg("ordered_logistic", "eta", es, ys, fmt::format("real or {}", ys.str()));
    }
    if (!shape(t, c).is_vector() || shape(t, c).rows < 1) {
        bad_arg("ordered_logistic", "c", shape(t, c), ys, "vec[K-1], K >= 2");
    }
    Graph& g = t.g();
    const NodeId lo_ext = op(t, Op::AppendRow, g.constant(-kInf, Shape::vector(1)), c);
    const NodeId hi_ext = op(t, Op::AppendRow, c, g.constant(kInf, Shape::vector(1)));
    const NodeId lo = op(t, Op::Gather, lo_ext, y);
    const NodeId hi = op(t, Op::Gather, hi_ext, y);
    t.add(sum(t, t.f(Op::LogInvLogit, t.sub(eta, lo))));
    t.add(sum(t, t.f(Op::LogInvLogit, t.sub(hi, eta))));
    t.add(sum(t, t.f(Op::Log, t.neg(t.f(Op::Expm1, t.sub(lo, hi))))));
}

// lkj_corr_cholesky(L | eta) = -log c_K(eta) + sum_{k=2}^K (K - k + 2 eta - 2) log L_kk
// (1-based k; as Stan: the LKJ density of L L' times the Jacobian of L -> L L').
void lkj_corr_cholesky(Terms& t, NodeId L, Args a) {
    const Shape ls = shape(t, L);
    const int K = square_variate("lkj_corr_cholesky", ls);
    const NodeId eta = real(t, a[0]);
    require_scalar("lkj_corr_cholesky", "eta", shape(t, eta), ls);
    if (K >= 2) {
        const NodeId log_diag = t.f(Op::Log, op(t, Op::Diagonal, real(t, L)));
        const NodeId d = linalg::block(t.g(), log_diag, 1, 0, Shape::vector(K - 1));
        // K - k for k = 2..K: K-2, ..., 0 (reverse sums of ones, minus one)
        const NodeId w = t.sub(
            op(t, Op::ReverseCumulativeSum, t.g().constant(1.0, Shape::vector(K - 1))), t.c(1));
        t.add(op(t, Op::Dot, w, d));
        t.add(t.mul(t.sub(t.mul(t.c(2), eta), t.c(2)), sum(t, d)));
    }
    t.add(t.neg(lkj_log_constant(t, eta, K)));
}
// lkj_corr(Omega | eta) = -log c_K(eta) + (eta - 1) log det Omega
void lkj_corr(Terms& t, NodeId Omega, Args a) {
    const Shape os = shape(t, Omega);
    const int K = square_variate("lkj_corr", os);
    const NodeId eta = real(t, a[0]);
    require_scalar("lkj_corr", "eta", shape(t, eta), os);
    const NodeId log_det = t.mul(t.c(2), sum_log_diagonal(t, op(t, Op::Cholesky, real(t, Omega))));
    t.add(t.mul(t.sub(eta, t.c(1)), log_det));
    t.add(t.neg(lkj_log_constant(t, eta, K)));
}

// wishart(W | nu, S) = (nu - K - 1)/2 log|W| - tr(S^-1 W)/2 - nu K/2 log 2 - nu/2 log|S|
//                      - log Gamma_K(nu/2),
// with L_W = chol(W), L_S = chol(S): tr(S^-1 W) = |L_S^-1 L_W|_F^2.
void wishart(Terms& t, NodeId W, Args a) {
    const Shape ws = shape(t, W);
    const int K = square_variate("wishart", ws);
    const NodeId nu = real(t, a[0]);
    require_scalar("wishart", "nu", shape(t, nu), ws);
    require_square("wishart", "S", shape(t, a[1]), ws, K);
    check_nu(t, "wishart", nu, K);
    const NodeId LW = op(t, Op::Cholesky, real(t, W));
    const NodeId LS = op(t, Op::Cholesky, real(t, a[1]));
    const NodeId half_nu = t.mul(t.c(0.5), nu);
    t.add(t.mul(t.sub(nu, t.c(K + 1.0)), sum_log_diagonal(t, LW)));  // (nu-K-1)/2 log|W|
    t.add(t.mul(t.c(-0.5), sum(t, t.f(Op::Square, op(t, Op::TriLowSolve, LS, LW)))));
    t.add(t.mul(t.c(-K * kLog2), half_nu));
    t.add(t.neg(t.mul(nu, sum_log_diagonal(t, LS))));  // nu/2 log|S|
    t.add(t.neg(lmgamma(t, K, half_nu)));
}
// inv_wishart(W | nu, S) = nu/2 log|S| - (nu + K + 1)/2 log|W| - tr(S W^-1)/2
//                          - nu K/2 log 2 - log Gamma_K(nu/2),
// with tr(S W^-1) = |L_W^-1 L_S|_F^2.
void inv_wishart(Terms& t, NodeId W, Args a) {
    const Shape ws = shape(t, W);
    const int K = square_variate("inv_wishart", ws);
    const NodeId nu = real(t, a[0]);
    require_scalar("inv_wishart", "nu", shape(t, nu), ws);
    require_square("inv_wishart", "S", shape(t, a[1]), ws, K);
    check_nu(t, "inv_wishart", nu, K);
    const NodeId LW = op(t, Op::Cholesky, real(t, W));
    const NodeId LS = op(t, Op::Cholesky, real(t, a[1]));
    const NodeId half_nu = t.mul(t.c(0.5), nu);
    t.add(t.mul(nu, sum_log_diagonal(t, LS)));
    t.add(t.neg(t.mul(t.add(nu, t.c(K + 1.0)), sum_log_diagonal(t, LW))));
    t.add(t.mul(t.c(-0.5), sum(t, t.f(Op::Square, op(t, Op::TriLowSolve, LW, LS)))));
    t.add(t.mul(t.c(-K * kLog2), half_nu));
    t.add(t.neg(lmgamma(t, K, half_nu)));
}

// The Cholesky variants are densities over the factor L_W (Stan's wishart_cholesky and
// inv_wishart_cholesky): the density of W = L_W L_W' times the Jacobian of L_W -> W,
//   |dW/dL_W| = 2^K prod_{k=1}^K L_W[k,k]^(K - k + 1)   (1-based k),
// the lower-triangular entries of L_W mapped to those of W: row by row, dW_ij/dL_ij = L_jj for
// j < i and dW_ii/dL_ii = 2 L_ii, a triangular Jacobian whose diagonal gives the product.
// With log|W| = 2 sum log L_W[k,k], the log-diagonal terms of the two factors merge into one
// dot product with a weight per k.

// wishart_cholesky(L_W | nu, L_S)
//   = wishart(L_W L_W' | nu, L_S L_S') + K log 2 + sum_k (K - k + 1) log L_W[k,k]
//   = sum_k (nu - k) log L_W[k,k] - |L_S^-1 L_W|_F^2 / 2 - nu sum_k log L_S[k,k]
//     + K log 2 (1 - nu/2) - log Gamma_K(nu/2),
// as (nu - K - 1) + (K - k + 1) = nu - k.
void wishart_cholesky(Terms& t, NodeId L_W, Args a) {
    const Shape ws = shape(t, L_W);
    const int K = square_variate("wishart_cholesky", ws);
    const NodeId nu = real(t, a[0]);
    require_scalar("wishart_cholesky", "nu", shape(t, nu), ws);
    require_square("wishart_cholesky", "L_S", shape(t, a[1]), ws, K);
    check_nu(t, "wishart_cholesky", nu, K);
    // The solve reads only the lower triangle of its first argument; Tril does the same for
    // the right-hand side, so that L_S^-1 L_W is lower-triangular and its whole Frobenius
    // norm is tr(S^-1 W).
    const NodeId LW = op(t, Op::Tril, real(t, L_W));
    const NodeId LS = real(t, a[1]);
    const NodeId log_diag = t.f(Op::Log, op(t, Op::Diagonal, LW));
    t.add(op(t, Op::Dot, t.sub(nu, one_to_n(t, K)), log_diag));
    t.add(t.mul(t.c(-0.5), sum(t, t.f(Op::Square, op(t, Op::TriLowSolve, LS, LW)))));
    t.add(t.neg(t.mul(nu, sum_log_diagonal(t, LS))));
    t.add(t.mul(t.c(K * kLog2), t.sub(t.c(1), t.mul(t.c(0.5), nu))));
    t.add(t.neg(lmgamma(t, K, t.mul(t.c(0.5), nu))));
}
// inv_wishart_cholesky(L_W | nu, L_S)
//   = inv_wishart(L_W L_W' | nu, L_S L_S') + K log 2 + sum_k (K - k + 1) log L_W[k,k]
//   = nu sum_k log L_S[k,k] - sum_k (nu + k) log L_W[k,k] - |L_W^-1 L_S|_F^2 / 2
//     + K log 2 (1 - nu/2) - log Gamma_K(nu/2),
// as -(nu + K + 1) + (K - k + 1) = -(nu + k), and tr(S W^-1) = |L_W^-1 L_S|_F^2.
void inv_wishart_cholesky(Terms& t, NodeId L_W, Args a) {
    const Shape ws = shape(t, L_W);
    const int K = square_variate("inv_wishart_cholesky", ws);
    const NodeId nu = real(t, a[0]);
    require_scalar("inv_wishart_cholesky", "nu", shape(t, nu), ws);
    require_square("inv_wishart_cholesky", "L_S", shape(t, a[1]), ws, K);
    check_nu(t, "inv_wishart_cholesky", nu, K);
    const NodeId LW = real(t, L_W);
    const NodeId LS = op(t, Op::Tril, real(t, a[1]));  // as above: a lower-triangular solve
    const NodeId log_diag = t.f(Op::Log, op(t, Op::Diagonal, LW));
    t.add(t.neg(op(t, Op::Dot, t.add(nu, one_to_n(t, K)), log_diag)));
    t.add(t.mul(t.c(-0.5), sum(t, t.f(Op::Square, op(t, Op::TriLowSolve, LW, LS)))));
    t.add(t.mul(nu, sum_log_diagonal(t, LS)));
    t.add(t.mul(t.c(K * kLog2), t.sub(t.c(1), t.mul(t.c(0.5), nu))));
    t.add(t.neg(lmgamma(t, K, t.mul(t.c(0.5), nu))));
}

}  // namespace advi::multivariate
