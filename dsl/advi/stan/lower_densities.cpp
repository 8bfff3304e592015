// Stan's densities that the library's table (lib/advi/dist/distribution_table.cpp) does not
// have, as graph expressions of their Stan definitions: the multivariate Student t, the normal
// by its precision, multi_gp, the multinomials, ordered_probit, lkj_cov, categorical_logit_glm,
// ordered_logistic with cutpoints per observation, and gaussian_dlm_obs (a Kalman filter). Their
// derivatives (first and second order) are the expressions' own. Each takes the argument types
// Stan's library lists.
#include <advi/stan/lower_densities.hpp>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <advi/stan/lowerer.hpp>
#include <advi/stan/stan_library.hpp>
#include <advi/stan/types.hpp>

namespace advi::stan {
namespace {

constexpr double kLog2Pi = 1.8378770664093453;

// Values that differ between the iterations of a vectorised loop make it unroll.
void whole_values(const DensitySite& s) {
    int level = s.y.level;
    for (const Value& a : s.args) level = std::max(level, a.level);
    if (level > 0) {
        throw NotVectorisable(s.at,
                              fmt::format("`{}` of values that differ between iterations", s.name));
    }
}

[[noreturn]] void fail(DensitySite& s, const std::string& why) {
    s.lowerer.fail(s.at, fmt::format("{}: {}", s.name, why));
}

// A vector, row vector or array of them as rows: mat[N, K] (one vector: N = 1).
Expr rows_of(DensitySite& s, const Value& v) {
    const Expr e = s.lowerer.real(v, s.at);
    if (v.dims.empty())
        return to_matrix(e, 1, e.shape().size());
    return e;
}

// `m` (1 or n rows) as n rows.
Expr as_rows(DensitySite& s, const Expr& m, int n, const char* what) {
    if (m.shape().rows == n)
        return m;
    if (m.shape().rows != 1)
        fail(s, fmt::format("{} has {} vectors for {} variates", what, m.shape().rows, n));
    return rep_matrix_rows(to_vector(m), n);
}

// The variates minus the locations, one row per variate, and the size of one.
struct Residuals {
    Expr rows;  // mat[N, K]
    int n;
    int k;
};
Residuals residuals(DensitySite& s, const Value& mu) {
    const Expr y = rows_of(s, s.y);
    const int n = y.shape().rows, k = y.shape().cols;
    const Expr m = as_rows(s, rows_of(s, mu), n, "the location");
    if (m.shape().cols != k)
        fail(s, fmt::format("locations of size {} for variates of size {}", m.shape().cols, k));
    return {y - m, n, k};
}

void require_square(DensitySite& s, const Expr& m, int k, const char* what) {
    if (!m.shape().is_matrix() || m.shape().rows != k || m.shape().cols != k)
        fail(s, fmt::format("{} must be {} x {}, got {}", what, k, k, m.shape().str()));
}

// Stan's ints as a constant vector.
Eigen::VectorXd as_reals(const std::vector<int>& v) {
    Eigen::VectorXd r(static_cast<Eigen::Index>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) r[static_cast<Eigen::Index>(i)] = v[i];
    return r;
}

// Known int data of a discrete variate.
const std::vector<int>& outcomes(DensitySite& s) {
    if (!s.y.is_known_int())
        fail(s, "the outcomes must be ints known before the fit");
    return s.y.ints;
}

// multi_normal_prec(y | mu, Omega) = -K/2 log 2 pi + log|Omega| / 2 - r' Omega r / 2, per variate.
Expr multi_normal_prec(DensitySite& s) {
    whole_values(s);
    const Residuals r = residuals(s, s.args.at(0));
    const Expr omega = s.lowerer.real(s.args.at(1), s.at);
    require_square(s, omega, r.k, "the precision matrix");
    const Expr quad = sum(elt_multiply(r.rows * omega, r.rows));
    return -0.5 * r.n * r.k * kLog2Pi + 0.5 * r.n * log_determinant_spd(omega) - 0.5 * quad;
}

// multi_student_t(y | nu, mu, Sigma) = lgamma((nu + K)/2) - lgamma(nu/2) - K/2 log(nu pi)
//   - log|L| - (nu + K)/2 log1p(|L^-1 r|^2 / nu), per variate, L the Cholesky factor of Sigma.
template <bool Cholesky>
Expr multi_student_t(DensitySite& s) {
    whole_values(s);
    const Expr nu = s.lowerer.real(s.args.at(0), s.at);
    const Residuals r = residuals(s, s.args.at(1));
    const Expr given = s.lowerer.real(s.args.at(2), s.at);
    require_square(s, given, r.k, Cholesky ? "the Cholesky factor" : "the scale matrix");
    const Expr L = Cholesky ? given : cholesky_decompose(given);
    const Expr z = mdivide_left_tri_low(L, transpose(r.rows));  // one column per variate
    const Expr q = columns_dot_self(z);
    const double k = r.k;
    const Expr per_variate = lgamma(0.5 * (nu + k)) - lgamma(0.5 * nu) - 0.5 * k * log(nu) -
                             0.5 * k * std::log(std::numbers::pi) - sum(log(diagonal(L)));
    return static_cast<double>(r.n) * per_variate - 0.5 * (nu + k) * sum(log1p(q / nu));
}

// multi_gp(y | Sigma, w): each row k of y (K x N) multi_normal(0, Sigma / w_k):
//   sum_k [-N/2 log 2 pi - log|L| + N/2 log w_k - w_k |L^-1 y_k|^2 / 2].
template <bool Cholesky>
Expr multi_gp(DensitySite& s) {
    whole_values(s);
    const Expr y = s.lowerer.real(s.y, s.at);
    const Expr given = s.lowerer.real(s.args.at(0), s.at);
    const Expr w = s.lowerer.real(s.args.at(1), s.at);
    if (!y.shape().is_matrix())
        fail(s, fmt::format("the variate must be a matrix, got {}", y.shape().str()));
    const int k = y.shape().rows, n = y.shape().cols;
    require_square(s, given, n, Cholesky ? "the Cholesky factor" : "the kernel matrix");
    if (w.shape().size() != k)
        fail(s, fmt::format("{} weights for {} rows", w.shape().size(), k));
    const Expr L = Cholesky ? given : cholesky_decompose(given);
    const Expr q = columns_dot_self(mdivide_left_tri_low(L, transpose(y)));  // per row of y
    return -0.5 * k * n * kLog2Pi - static_cast<double>(k) * sum(log(diagonal(L))) +
           0.5 * n * sum(log(w)) - 0.5 * dot(w, q);
}

// multinomial(y | theta) = lgamma(N + 1) - sum lgamma(y_k + 1) + sum_{y_k > 0} y_k log theta_k;
// multinomial_logit(y | gamma) the same with log theta = log_softmax(gamma).
// The counts of a multinomial variate against `categories` probabilities: checked, their
// total N and lgamma(N + 1) - sum lgamma(y_k + 1).
struct Counts {
    int total = 0;
    double log_coefficient = 0;
};
Counts counts_of(DensitySite& s, const std::vector<int>& y, int categories) {
    if (categories != static_cast<int>(y.size()))
        fail(s, fmt::format("{} counts for {} categories", y.size(), categories));
    Counts c;
    for (std::size_t k = 0; k < y.size(); ++k) {
        if (y[k] < 0)
            fail(s, fmt::format("count {} is negative ({})", k + 1, y[k]));
        c.total += y[k];
        c.log_coefficient -= std::lgamma(y[k] + 1.0);
    }
    c.log_coefficient += std::lgamma(c.total + 1.0);
    return c;
}

template <bool Logit>
Expr multinomial(DensitySite& s) {
    whole_values(s);
    const std::vector<int>& y = outcomes(s);
    const Expr p = s.lowerer.real(s.args.at(0), s.at);
    const Counts n = counts_of(s, y, p.shape().size());
    std::vector<int> seen;
    for (std::size_t k = 0; k < y.size(); ++k) {
        if (y[k] > 0)
            seen.push_back(static_cast<int>(k));
    }
    if (seen.empty())
        return s.lowerer.m().constant(n.log_coefficient);
    Eigen::VectorXi at(static_cast<Eigen::Index>(seen.size()));
    Eigen::VectorXd counts(at.size());
    for (std::size_t j = 0; j < seen.size(); ++j) {
        at[static_cast<Eigen::Index>(j)] = seen[j];
        counts[static_cast<Eigen::Index>(j)] = y[static_cast<std::size_t>(seen[j])];
    }
    // (categories not seen add 0, also where theta_k = 0)
    const Expr log_p = Logit ? log_softmax(p) : log(p);
    return n.log_coefficient + dot(log_p[at], counts);
}

// dirichlet_multinomial(y | alpha) = lgamma(a0) + lgamma(N + 1) - lgamma(N + a0)
//   + sum_k [lgamma(y_k + alpha_k) - lgamma(alpha_k) - lgamma(y_k + 1)], a0 = sum alpha
// (0 when N = 0).
Expr dirichlet_multinomial(DensitySite& s) {
    whole_values(s);
    const std::vector<int>& y = outcomes(s);
    const Expr alpha = s.lowerer.real(s.args.at(0), s.at);
    const Counts n = counts_of(s, y, alpha.shape().size());
    if (n.total == 0)
        return s.lowerer.m().constant(0.0);
    const Expr a0 = sum(alpha);
    return n.log_coefficient + lgamma(a0) - lgamma(a0 + n.total) +
           sum(lgamma(alpha + as_reals(y))) - sum(lgamma(alpha));
}

// ordered_probit(y | eta, c) and ordered_logistic with cutpoints per observation: category k
// of K has probability F(c_k - eta) - F(c_{k-1} - eta), c_0 = -inf, c_K = inf, F = Phi or
// inv_logit; in logs, log F(c_1 - eta) for k = 1, log F(eta - c_{K-1}) for k = K (F symmetric),
// log_diff_exp of the two otherwise.
template <bool Probit>
Expr ordered(DensitySite& s) {
    whole_values(s);
    const std::vector<int>& y = outcomes(s);
    const Value& eta_v = s.args.at(0);
    const Value& cut_v = s.args.at(1);
    const Expr eta = s.lowerer.real(eta_v, s.at);
    const Expr cuts = cut_v.dims.empty() ? to_matrix(s.lowerer.real(cut_v, s.at), 1,
                                                     static_cast<int>(cut_v.size()))
                                         : s.lowerer.real(cut_v, s.at);
    const int n = static_cast<int>(y.size());
    if (!eta.shape().is_scalar() && eta.shape().size() != n)
        fail(s, fmt::format("{} linear predictors for {} outcomes", eta.shape().size(), n));
    if (cuts.shape().rows != 1 && cuts.shape().rows != n)
        fail(s, fmt::format("{} cutpoint vectors for {} outcomes", cuts.shape().rows, n));
    const int k = cuts.shape().cols + 1;
    const auto log_f = [](const Expr& x) { return Probit ? log_Phi(x) : log_inv_logit(x); };
    Expr total;
    for (int i = 0; i < n; ++i) {
        if (y[static_cast<std::size_t>(i)] < 1 || y[static_cast<std::size_t>(i)] > k)
            fail(s, fmt::format("outcome {} is {}, not in 1..{}", i + 1,
                                y[static_cast<std::size_t>(i)], k));
        const Expr e = eta.shape().is_scalar() ? eta : sum(segment(eta, i, 1));
        const Expr c = to_vector(block(cuts, cuts.shape().rows == 1 ? 0 : i, 0, 1, k - 1));
        const int yi = y[static_cast<std::size_t>(i)];
        const auto cut = [&](int j) { return sum(segment(c, j - 1, 1)); };  // c_j, 1-based
        Expr term;
        if (k == 1)
            term = 0.0 * e;
        else if (yi == 1)
            term = log_f(cut(1) - e);
        else if (yi == k)
            term = log_f(e - cut(k - 1));
        else
            term = log_diff_exp(log_f(cut(yi) - e), log_f(cut(yi - 1) - e));
        total = i == 0 ? term : total + term;
    }
    return n == 0 ? s.lowerer.m().constant(0.0) : total;
}

// ordered_logistic: the library's row, but for cutpoints per observation (an array of vectors).
Expr ordered_logistic(DensitySite& s) {
    if (s.args.size() == 2 && !s.args[1].dims.empty())
        return ordered<false>(s);
    return library_density(s);
}

// lkj_cov(y | mu, sigma, eta) = lognormal(sqrt(diag(y)) | mu, sigma)
//   + lkj_corr(D^-1 y D^-1 | eta), D = diag(sqrt(diag(y))) (Stan's definition: no Jacobian).
Expr lkj_cov(DensitySite& s) {
    whole_values(s);
    Lowerer& L = s.lowerer;
    const Expr y = L.real(s.y, s.at);
    if (!y.shape().is_matrix() || y.shape().rows != y.shape().cols)
        fail(s, fmt::format("the variate must be a square matrix, got {}", y.shape().str()));
    const int k = y.shape().rows;
    const Expr sds = sqrt(diagonal(y));
    const Expr inv = 1.0 / sds;
    const Expr corr = diag_post_multiply(diag_pre_multiply(inv, y), inv);
    Value sd_value = CallSite::vec(sds, k);
    Value corr_value = CallSite::mat(corr);
    return L.density("lognormal", sd_value, {s.args.at(0), s.args.at(1)}, s.at, false) +
           L.density("lkj_corr", corr_value, {s.args.at(2)}, s.at, false);
}

// categorical_logit_glm(y | x, alpha, beta) = sum_n log_softmax(x_n beta + alpha)[y_n].
Expr categorical_logit_glm(DensitySite& s) {
    whole_values(s);
    Lowerer& L = s.lowerer;
    const std::vector<int>& y = outcomes(s);
    Expr x = L.real(s.args.at(0), s.at);
    if (!x.shape().is_matrix())
        x = to_matrix(x, 1, x.shape().size());
    const Expr alpha = L.real(s.args.at(1), s.at), beta = L.real(s.args.at(2), s.at);
    const int n = x.shape().rows, c = alpha.shape().size();
    if (!beta.shape().is_matrix() || beta.shape().rows != x.shape().cols || beta.shape().cols != c)
        fail(s, fmt::format("beta must be {} x {}, got {}", x.shape().cols, c, beta.shape().str()));
    if (static_cast<int>(y.size()) != n && y.size() != 1)
        fail(s, fmt::format("{} outcomes for {} rows of x", y.size(), n));
    const Expr eta = x * beta + rep_matrix_rows(alpha, n);
    const Expr logs = eta - rep_matrix(log_sum_exp_rows(eta), c);
    Eigen::VectorXi at(n);
    for (int i = 0; i < n; ++i) {
        const int yi = y[y.size() == 1 ? 0 : static_cast<std::size_t>(i)];
        if (yi < 1 || yi > c)
            fail(s, fmt::format("outcome {} is {}, not in 1..{}", i + 1, yi, c));
        at[i] = i + n * (yi - 1);  // column-major
    }
    return sum(to_vector(logs)[at]);
}

// gaussian_dlm_obs(y | F, G, V, W, m0, C0): the Kalman filter's log likelihood of observations
// y (r x T) of states theta_t (n) with y_t ~ N(F' theta_t, V), theta_t ~ N(G theta_(t-1), W),
// theta_0 ~ N(m0, C0); V a matrix, or a vector (its diagonal). Per step, as Stan's:
//   a = G m, R = G C G' + W, f = F' a, Q = F' R F + V, e = y_t - f,
//   lp -= (r log 2 pi + log|Q| + e' Q^-1 e) / 2, A = R F Q^-1, m = a + A e, C = R - A Q A',
// unrolled over the T steps (the graph grows with T).
Expr gaussian_dlm_obs(DensitySite& s) {
    whole_values(s);
    Lowerer& L = s.lowerer;
    auto arg = [&](std::size_t k) { return L.real(s.args.at(k), s.at); };
    const Expr y = L.real(s.y, s.at), F = arg(0), G = arg(1), V = arg(2), W = arg(3), m0 = arg(4),
               C0 = arg(5);
    if (!y.shape().is_matrix())
        fail(s, fmt::format("the observations must be a matrix (r x T), got {}", y.shape().str()));
    const int r = y.shape().rows, T = y.shape().cols, n = m0.shape().size();
    if (!F.shape().is_matrix() || F.shape().rows != n || F.shape().cols != r)
        fail(s, fmt::format("F must be {} x {} (states by observations), got {}", n, r,
                            F.shape().str()));
    require_square(s, G, n, "G");
    require_square(s, W, n, "W");
    require_square(s, C0, n, "C0");
    const bool diagonal_v = !V.shape().is_matrix();
    if (diagonal_v ? V.shape().size() != r : (V.shape().rows != r || V.shape().cols != r))
        fail(s,
             fmt::format("V must be {} x {} or a vector of {}, got {}", r, r, r, V.shape().str()));
    const Expr Vm = diagonal_v ? diag_matrix(V) : V;
    const Expr Ft = transpose(F), Gt = transpose(G);
    Expr m = m0, C = C0;
    Expr lp = s.lowerer.m().constant(-0.5 * r * T * kLog2Pi);
    for (int t = 0; t < T; ++t) {
        const Expr a = G * m, R = G * C * Gt + W;
        const Expr Q = Ft * R * F + Vm, Qinv = inverse_spd(Q);
        const Expr e = col(y, t) - Ft * a;
        lp = lp - 0.5 * (log_determinant_spd(Q) + dot(e, Qinv * e));
        const Expr A = R * F * Qinv;
        m = a + A * e;
        C = R - A * Q * transpose(A);
    }
    return lp;
}

// Stan's signatures of `family`'s density, without complex types.
std::vector<Signature> stan_density(std::string_view family, bool ints) {
    const std::string name = std::string(family) + (ints ? "_lpmf" : "_lpdf");
    const LibraryFunction* f = find_library_function(name);
    if (f == nullptr)
        throw InternalError(fmt::format("`{}` is not in Stan's library", name));
    std::vector<Signature> out = f->signatures;
    for (Signature& s : out) s.density = true;
    return out;
}

}  // namespace

std::vector<DensityRow> composite_densities() {
    return {
        {"multi_normal_prec",        stan_density("multi_normal_prec",        false), multi_normal_prec     },
        {"multi_student_t",          stan_density("multi_student_t",          false), multi_student_t<false>},
        {"multi_student_t_cholesky", stan_density("multi_student_t_cholesky", false),
         multi_student_t<true>                                                                              },
        {"multi_gp",                 stan_density("multi_gp",                 false), multi_gp<false>       },
        {"multi_gp_cholesky",        stan_density("multi_gp_cholesky",        false), multi_gp<true>        },
        {"multinomial",              stan_density("multinomial",              true),  multinomial<false>    },
        {"multinomial_logit",        stan_density("multinomial_logit",        true),  multinomial<true>     },
        {"dirichlet_multinomial",    stan_density("dirichlet_multinomial",    true),
         dirichlet_multinomial                                                                              },
        {"ordered_probit",           stan_density("ordered_probit",           true),  ordered<true>         },
        {"ordered_logistic",         stan_density("ordered_logistic",         true),  ordered_logistic      },
        {"lkj_cov",                  stan_density("lkj_cov",                  false), lkj_cov               },
        {"gaussian_dlm_obs",         stan_density("gaussian_dlm_obs",         false), gaussian_dlm_obs      },
        {"categorical_logit_glm",    stan_density("categorical_logit_glm",    true),
         categorical_logit_glm                                                                              },
    };
}

}  // namespace advi::stan
