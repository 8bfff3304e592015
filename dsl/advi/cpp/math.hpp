// Scalar functions of the DSL by Stan's names, elementwise over vectors and matrices (scalars
// broadcast in the binary ones). Each is one op of the table or a short composition of ops.
// A function of two arguments takes each as an Arg (a number, an Eigen vector or matrix, or
// an expression; one at least an expression).
#pragma once

#include <string_view>

#include <advi/cpp/expr.hpp>

namespace advi {

// Ops of the table.
Expr step(const Expr& x);  // 0 for x < 0, else 1; its derivative is taken as 0
template <ConstantValue C>
auto step(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&step), x);
}
Expr fabs(const Expr& x);  // |x|; at 0 the gradient is the right derivative, +1
template <ConstantValue C>
auto fabs(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&fabs), x);
}
Expr abs(const Expr& x);  // Stan's newer name for fabs
template <ConstantValue C>
auto abs(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&abs), x);
}
Expr sin(const Expr& x);
template <ConstantValue C>
auto sin(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&sin), x);
}
Expr cos(const Expr& x);
template <ConstantValue C>
auto cos(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&cos), x);
}
Expr tanh(const Expr& x);
template <ConstantValue C>
auto tanh(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&tanh), x);
}
Expr tan(const Expr& x);
template <ConstantValue C>
auto tan(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&tan), x);
}
Expr asin(const Expr& x);
template <ConstantValue C>
auto asin(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&asin), x);
}
Expr acos(const Expr& x);
template <ConstantValue C>
auto acos(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&acos), x);
}
Expr atan(const Expr& x);
template <ConstantValue C>
auto atan(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&atan), x);
}
Expr sinh(const Expr& x);
template <ConstantValue C>
auto sinh(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&sinh), x);
}
Expr cosh(const Expr& x);
template <ConstantValue C>
auto cosh(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&cosh), x);
}
Expr asinh(const Expr& x);
template <ConstantValue C>
auto asinh(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&asinh), x);
}
// acosh(x) = log1p((x - 1) + sqrt((x - 1)(x + 1))), x >= 1: a composition, exact near 1
Expr acosh(const Expr& x);
template <ConstantValue C>
auto acosh(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&acosh), x);
}
Expr atanh(const Expr& x);
template <ConstantValue C>
auto atanh(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&atanh), x);
}
Expr tgamma(const Expr& x);
template <ConstantValue C>
auto tgamma(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&tgamma), x);
}
Expr floor(const Expr& x);
template <ConstantValue C>
auto floor(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&floor), x);
}
Expr ceil(const Expr& x);
template <ConstantValue C>
auto ceil(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&ceil), x);
}
Expr round(const Expr& x);
template <ConstantValue C>
auto round(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&round), x);
}
Expr trunc(const Expr& x);
template <ConstantValue C>
auto trunc(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&trunc), x);
}
Expr lambert_w0(const Expr& x);  // W with W e^W = x, the principal branch (x >= -1/e)
template <ConstantValue C>
auto lambert_w0(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&lambert_w0), x);
}
Expr lambert_wm1(const Expr& x);  // the lower branch, W <= -1 (-1/e <= x < 0)
template <ConstantValue C>
auto lambert_wm1(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&lambert_wm1), x);
}
Expr inv_erfc(const Expr& x);  // erfc^-1, x in [0, 2]
// Phi^-1(p) = -sqrt(2) erfc^-1(2 p), the standard normal quantile (p in [0, 1]); Stan's
// inv_Phi and std_normal_qf.
Expr inv_Phi(const Expr& p);
// Phi^-1(exp(lp)), lp <= 0 (Stan's std_normal_log_qf); -inf where exp(lp) underflows
// (lp < -745).
Expr std_normal_log_qf(const Expr& lp);
template <ConstantValue C>
auto inv_erfc(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&inv_erfc), x);
}
Expr cbrt(const Expr& x);
template <ConstantValue C>
auto cbrt(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&cbrt), x);
}
Expr erf(const Expr& x);
template <ConstantValue C>
auto erf(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&erf), x);
}
Expr erfc(const Expr& x);
template <ConstantValue C>
auto erfc(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&erfc), x);
}
Expr Phi(const Expr& x);  // standard normal CDF, accurate in the lower tail
template <ConstantValue C>
auto Phi(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&Phi), x);
}
Expr log_Phi(const Expr& x);  // log Phi(x), finite far into the lower tail (Stan: std_normal_lcdf
template <ConstantValue C>
auto log_Phi(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log_Phi), x);
}
// of a scalar)
Expr log1m_exp(const Expr& x);  // log(1 - e^x), x < 0
template <ConstantValue C>
auto log1m_exp(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log1m_exp), x);
}
Expr log_bessel_i0(const Expr& x);  // log I0(x) (Stan: log_modified_bessel_first_kind(0, x))
template <ConstantValue C>
auto log_bessel_i0(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log_bessel_i0), x);
}
Expr digamma(const Expr& x);
template <ConstantValue C>
auto digamma(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&digamma), x);
}
Expr trigamma(const Expr& x);  // not differentiable here: a latent may not flow into it
template <ConstantValue C>
auto trigamma(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&trigamma), x);
}
Expr fmin(const Arg& x, const Arg& y);       // on a tie the gradient goes to x
Expr fmax(const Arg& x, const Arg& y);       // on a tie the gradient goes to x
Expr lmultiply(const Arg& x, const Arg& y);  // x log y, with 0 log 0 = 0
Expr atan2(const Arg& y, const Arg& x);      // the angle of the point (x, y), in (-pi, pi]
Expr hypot(const Arg& x, const Arg& y);      // sqrt(x^2 + y^2) without overflow
Expr owens_t(const Arg& h, const Arg& a);    // Owen's T function
Expr fmod(const Arg& x, const Arg& y);       // x - trunc(x / y) y
// Bessel functions of integer order v (a constant): J_v(x), Y_v(x), I_v(x), K_v(x).
Expr bessel_first_kind(const Arg& v, const Arg& x);
Expr bessel_second_kind(const Arg& v, const Arg& x);
Expr modified_bessel_first_kind(const Arg& v, const Arg& x);
Expr modified_bessel_second_kind(const Arg& v, const Arg& x);
// The regularised incomplete gamma and beta functions, differentiable in every argument
// (graph/ops_incomplete.hpp): P(a, x), Q(a, x) = 1 - P(a, x), and I_x(a, b).
Expr gamma_p(const Arg& a, const Arg& x);
Expr gamma_q(const Arg& a, const Arg& x);
Expr inc_beta(const Arg& a, const Arg& b, const Arg& x);
// log I_v(z), v >= 0, z >= 0, differentiable in both (graph/ops_special.hpp); and the x with
// I_x(a, b) = p, differentiable in a, b and p.
Expr log_modified_bessel_first_kind(const Arg& v, const Arg& z);
Expr inv_inc_beta(const Arg& a, const Arg& b, const Arg& p);
// pFq(a; b; z) of vectors (or scalars) a and b and a scalar z, differentiable in each
// (graph/ops_special.hpp); `name` is the caller's, for its errors.
Expr hypergeometric_pFq(const Arg& a, const Arg& b, const Arg& z,
                        std::string_view name = "hypergeometric_pFq");
// a where c is not 0, else b, elementwise (scalars broadcast): a branch on a latent value.
// The gradient flows into the branch taken only.
Expr if_else(const Expr& c, const Arg& a, const Arg& b);

// Compositions of ops.
Expr log1m(const Expr& x);  // log(1 - x) = log1p(-x)
template <ConstantValue C>
auto log1m(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log1m), x);
}
Expr inv(const Expr& x);  // 1 / x
template <ConstantValue C>
auto inv(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&inv), x);
}
Expr inv_sqrt(const Expr& x);  // 1 / sqrt(x)
template <ConstantValue C>
auto inv_sqrt(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&inv_sqrt), x);
}
Expr inv_square(const Expr& x);  // 1 / x^2
template <ConstantValue C>
auto inv_square(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&inv_square), x);
}
Expr logit(const Expr& x);  // log(x / (1 - x)) = log(x) - log1p(-x)
template <ConstantValue C>
auto logit(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&logit), x);
}
Expr log1m_inv_logit(const Expr& x);  // log(1 - logit^-1(x)) = log logit^-1(-x)
template <ConstantValue C>
auto log1m_inv_logit(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log1m_inv_logit), x);
}
Expr inv_cloglog(const Expr& x);  // 1 - exp(-exp(x)) = -expm1(-exp(x))
template <ConstantValue C>
auto inv_cloglog(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&inv_cloglog), x);
}
Expr Phi_approx(const Expr& x);  // logit^-1(0.07056 x^3 + 1.5976 x)
template <ConstantValue C>
auto Phi_approx(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&Phi_approx), x);
}
Expr log2(const Expr& x);
template <ConstantValue C>
auto log2(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log2), x);
}
Expr log10(const Expr& x);
template <ConstantValue C>
auto log10(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log10), x);
}
Expr exp2(const Expr& x);
template <ConstantValue C>
auto exp2(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&exp2), x);
}
Expr log_diff_exp(const Arg& x, const Arg& y);  // log(e^x - e^y), x > y
Expr lbeta(const Arg& a, const Arg& b);         // log B(a, b)
Expr lchoose(const Arg& n, const Arg& k);       // log binomial coefficient, real n and k
Expr lmgamma(int k, const Expr& x);             // log multivariate gamma of dimension k >= 1

}  // namespace advi
