// Second-order dual numbers: a value with its gradient and Hessian in N inputs, for the ops whose
// kernels are series or continued fractions (the Wiener first passage, the regularised
// incomplete gamma and beta functions). Carrying the same iteration out on these numbers gives
// the value and its first and second derivatives exact to rounding, with no formula of the
// derivatives to derive and get wrong for each special function.
#pragma once

#include <array>
#include <cmath>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include <advi/base/math_policy.hpp>

namespace advi {

template <int N>
struct Dual2 {
    static constexpr int kHessian = N * (N + 1) / 2;
    double v = 0;
    std::array<double, N> d{};         // d/dx_i
    std::array<double, kHessian> h{};  // d2/dx_i dx_j, i <= j, row by row: (0,0) (0,1) .. (1,1) ..

    Dual2() = default;
    Dual2(double value) : v(value) {}  // NOLINT(google-explicit-constructor): a constant
    // Input i of the N at `value`.
    static Dual2 input(double value, int i) {
        Dual2 r(value);
        r.d[i] = 1;
        return r;
    }
    // The position of d2/dx_i dx_j in h, i <= j.
    static constexpr int at(int i, int j) { return i * N - i * (i - 1) / 2 + (j - i); }
    // Value, gradient, then the Hessian's upper triangle: 1 + N + N (N + 1) / 2 numbers.
    [[nodiscard]] double component(int k) const {
        return k == 0 ? v : k <= N ? d[k - 1] : h[k - 1 - N];
    }
    // The largest magnitude of the gradient and Hessian.
    [[nodiscard]] double derivative_size() const {
        double m = 0;
        for (double x : d) m = std::max(m, std::fabs(x));
        for (double x : h) m = std::max(m, std::fabs(x));
        return m;
    }
};

// g(a) for a scalar function g with g(a.v) = g0, g'(a.v) = g1, g''(a.v) = g2.
template <int N>
Dual2<N> chain(const Dual2<N>& a, double g0, double g1, double g2) {
    Dual2<N> r(g0);
    for (int i = 0; i < N; ++i) r.d[i] = g1 * a.d[i];
    for (int i = 0; i < N; ++i) {
        for (int j = i; j < N; ++j) {
            const int k = Dual2<N>::at(i, j);
            r.h[k] = g2 * a.d[i] * a.d[j] + g1 * a.h[k];
        }
    }
    return r;
}

template <int N>
Dual2<N> operator+(Dual2<N> a, const Dual2<N>& b) {
    a.v += b.v;
    for (int i = 0; i < N; ++i) a.d[i] += b.d[i];
    for (int k = 0; k < Dual2<N>::kHessian; ++k) a.h[k] += b.h[k];
    return a;
}
template <int N>
Dual2<N> operator-(const Dual2<N>& a) {
    return chain(a, -a.v, -1.0, 0.0);
}
template <int N>
Dual2<N> operator-(const Dual2<N>& a, const Dual2<N>& b) {
    return a + (-b);
}
template <int N>
Dual2<N> operator*(const Dual2<N>& a, const Dual2<N>& b) {
    Dual2<N> r(a.v * b.v);
    for (int i = 0; i < N; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
    for (int i = 0; i < N; ++i) {
        for (int j = i; j < N; ++j) {
            const int k = Dual2<N>::at(i, j);
            r.h[k] = a.h[k] * b.v + a.d[i] * b.d[j] + a.d[j] * b.d[i] + a.v * b.h[k];
        }
    }
    return r;
}
template <int N>
Dual2<N> reciprocal(const Dual2<N>& a) {
    const double r = 1 / a.v;
    return chain(a, r, -r * r, 2 * r * r * r);
}
template <int N>
Dual2<N> operator/(const Dual2<N>& a, const Dual2<N>& b) {
    return a * reciprocal(b);
}
// Mixed with plain numbers (constants): the overloads above take them through the implicit
// constructor only when the other side is a Dual2 already deduced, so spell them out.
template <int N>
Dual2<N> operator+(double c, const Dual2<N>& a) {
    return Dual2<N>(c) + a;
}
template <int N>
Dual2<N> operator+(const Dual2<N>& a, double c) {
    return a + Dual2<N>(c);
}
template <int N>
Dual2<N> operator-(double c, const Dual2<N>& a) {
    return Dual2<N>(c) - a;
}
template <int N>
Dual2<N> operator-(const Dual2<N>& a, double c) {
    return a - Dual2<N>(c);
}
template <int N>
Dual2<N> operator*(double c, const Dual2<N>& a) {
    return chain(a, c * a.v, c, 0.0);
}
template <int N>
Dual2<N> operator*(const Dual2<N>& a, double c) {
    return c * a;
}
template <int N>
Dual2<N> operator/(const Dual2<N>& a, double c) {
    return (1 / c) * a;
}
template <int N>
Dual2<N> operator/(double c, const Dual2<N>& a) {
    return c * reciprocal(a);
}

template <int N>
Dual2<N> exp(const Dual2<N>& a) {
    const double e = std::exp(a.v);
    return chain(a, e, e, e);
}
template <int N>
Dual2<N> log(const Dual2<N>& a) {
    return chain(a, std::log(a.v), 1 / a.v, -1 / (a.v * a.v));
}
template <int N>
Dual2<N> sqrt(const Dual2<N>& a) {
    const double r = std::sqrt(a.v);
    return chain(a, r, 0.5 / r, -0.25 / (r * a.v));
}
template <int N>
Dual2<N> log1p(const Dual2<N>& a) {
    const double r = 1 / (1 + a.v);
    return chain(a, std::log1p(a.v), r, -r * r);
}
template <int N>
Dual2<N> sin(const Dual2<N>& a) {
    const double s = std::sin(a.v);
    return chain(a, s, std::cos(a.v), -s);
}
// log(1 - e^a), a < 0: log(-expm1(a)) near 0, log1p(-e^a) far below, as Stan's log1m_exp.
template <int N>
Dual2<N> log1m_exp(const Dual2<N>& a) {
    const double value = a.v > -0.693147 ? std::log(-std::expm1(a.v)) : std::log1p(-std::exp(a.v));
    // d/da = -e^a / (1 - e^a) = -1 / expm1(-a); d2/da2 = -e^a / (1 - e^a)^2, written
    // 1 / (expm1(-a) expm1(a)) so that a far below 0 gives -0, not inf / inf
    const double em = std::expm1(-a.v);
    return chain(a, value, -1 / em, 1 / (em * std::expm1(a.v)));
}
template <int N>
Dual2<N> lgamma(const Dual2<N>& a) {
    return chain(a, std::lgamma(a.v), boost::math::digamma(a.v, MathPolicy()),
                 boost::math::trigamma(a.v, MathPolicy()));
}

}  // namespace advi
