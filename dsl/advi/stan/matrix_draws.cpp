// Matrix draws as transforms of standard normal and uniform numbers.
//  - Wishart(nu, S), by Bartlett's decomposition: with L L' = S and A lower triangular,
//    A_ii = sqrt(c_i), c_i ~ chi-square(nu - i) (i = 0 .. K-1), A_ij ~ N(0, 1) below the
//    diagonal, W = (L A)(L A)' and L A (lower, positive diagonal) is W's Cholesky factor.
//  - inverse Wishart(nu, S): the inverse of a Wishart(nu, S^-1) draw (its definition); the
//    Cholesky form factors that draw.
//  - LKJ(eta) of size K by the C-vine (Lewandowski, Kurowicka and Joe 2009, as Stan draws it):
//    the partial correlation of rows i > j given the columns before j is 2 Beta(a_j, a_j) - 1
//    with a_j = eta + (K - 2 - j) / 2; the Cholesky factor of the correlation matrix is what
//    the cholesky_factor_corr transform builds from their atanh, row by row.
#include <advi/stan/matrix_draws.hpp>

#include <optional>

#include <fmt/format.h>

#include <advi/cpp/linalg.hpp>
#include <advi/cpp/math.hpp>
#include <advi/stan/lowerer.hpp>
#include <advi/transform/cholesky.hpp>
#include <advi/transform/support.hpp>

namespace advi::stan {
namespace {

// The value of `e` where it is known before the fit.
std::optional<double> known_scalar(RandomDraw& d, const Expr& e) {
    try {
        return d.m().evaluate(e).at(0);
    } catch (const ModelError&) {
        return std::nullopt;
    }
}

Expr known_matrix(RandomDraw& d, const Eigen::MatrixXd& m) {
    const Eigen::VectorXd flat = m.reshaped();
    return to_matrix(d.lowerer.known_reals(flat), static_cast<int>(m.rows()),
                     static_cast<int>(m.cols()));
}

Value matrix_value(Expr e) {
    return CallSite::mat(std::move(e));
}

// Bartlett's A for K x K and nu degrees of freedom.
Expr bartlett_factor(RandomDraw& d, const Expr& nu, int K) {
    Eigen::VectorXd offsets(K);
    Eigen::MatrixXd below = Eigen::MatrixXd::Zero(K, K);
    for (int i = 0; i < K; ++i) {
        offsets[i] = i;
        for (int j = 0; j < i; ++j) below(i, j) = 1.0;
    }
    const Expr shape = 0.5 * (nu - d.lowerer.known_reals(offsets));
    const Expr c = d.quantile(Op::GammaQuantile,
                              {d.inputs(K, false), shape, d.m().constant(0.5)});  // chi-square
    const Expr Z = to_matrix(d.inputs(static_cast<std::int64_t>(K) * K, true), K, K);
    return elt_multiply(Z, known_matrix(d, below)) + diag_matrix(sqrt(c));
}

}  // namespace

Value wishart_draw(RandomDraw& d, bool inverse, bool cholesky) {
    const std::string f =
        fmt::format("{}wishart{}_rng", inverse ? "inv_" : "", cholesky ? "_cholesky" : "");
    if (d.level > 0)
        throw NotVectorisable(d.at, fmt::format("a {} draw per iteration", f));
    const Expr nu = d.lowerer.real(d.args[0], d.at);
    const Expr S = d.lowerer.real(d.args[1], d.at);
    if (!nu.shape().is_scalar())
        d.lowerer.fail(d.at, fmt::format("{}: the degrees of freedom must be one real", f));
    if (!S.shape().is_matrix() || S.shape().rows != S.shape().cols || S.shape().rows == 0)
        d.lowerer.fail(d.at, fmt::format("{}: the scale must be a non-empty square matrix, got "
                                         "{}x{}",
                                         f, S.shape().rows, S.shape().cols));
    const int K = S.shape().rows;
    if (const auto n = known_scalar(d, nu); n && !(*n > K - 1))
        d.lowerer.fail(d.at, fmt::format("{}: the degrees of freedom must be > {} (the size less "
                                         "one), got {}",
                                         f, K - 1, *n));
    // The scale of the Wishart draw, as a Cholesky factor.
    Expr L = cholesky ? S : cholesky_decompose(S);
    if (inverse)
        L = cholesky_decompose(inverse_spd(multiply_lower_tri_self_transpose(L)));
    const Expr LA = L * bartlett_factor(d, nu, K);
    if (!inverse)
        return matrix_value(cholesky ? LA : multiply_lower_tri_self_transpose(LA));
    const Expr W_inv = inverse_spd(multiply_lower_tri_self_transpose(LA));
    const Expr symmetric = 0.5 * (W_inv + transpose(W_inv));
    return matrix_value(cholesky ? cholesky_decompose(symmetric) : symmetric);
}

Value lkj_corr_draw(RandomDraw& d, bool cholesky) {
    const std::string f = fmt::format("lkj_corr{}_rng", cholesky ? "_cholesky" : "");
    if (d.level > 0)
        throw NotVectorisable(d.at, fmt::format("a {} draw per iteration", f));
    if (!d.args[0].is_known_int() || !d.args[0].is_scalar())
        d.lowerer.fail(d.at, fmt::format("{}: the size K must be an int known before the fit", f));
    const int K = d.args[0].ints.at(0);
    if (K < 1)
        d.lowerer.fail(d.at, fmt::format("{}: the size K must be >= 1, got {}", f, K));
    const Expr eta = d.lowerer.real(d.args[1], d.at);
    if (!eta.shape().is_scalar())
        d.lowerer.fail(d.at, fmt::format("{}: eta must be one real", f));
    if (const auto e = known_scalar(d, eta); e && !(*e > 0))
        d.lowerer.fail(d.at, fmt::format("{}: eta must be > 0, got {}", f, *e));
    Expr L;
    if (K == 1) {
        L = to_matrix(rep_vector(d.m().constant(1.0), 1), 1, 1);
    } else {
        // the free coordinates row by row, as the transform reads them
        const int n = K * (K - 1) / 2;
        Eigen::VectorXd half_offsets(n);
        for (int i = 1, k = 0; i < K; ++i) {
            for (int j = 0; j < i; ++j) half_offsets[k++] = 0.5 * (K - 2 - j);
        }
        const Expr a = eta + d.lowerer.known_reals(half_offsets);
        const Expr b = d.quantile(Op::BetaQuantile, {d.inputs(n, false), a, a});
        const Expr zeta = atanh(2.0 * b - 1.0);
        Graph& g = const_cast<Graph&>(d.m().nodes());
        const Support support = Support::cholesky_factor_corr();
        const Shape shape = Shape::matrix(K, K);
        L = d.m().wrap(kCholeskyCorrTransform.constrain(g, zeta.id(), shape, support));
    }
    return matrix_value(cholesky ? L : multiply_lower_tri_self_transpose(L));
}

}  // namespace advi::stan
