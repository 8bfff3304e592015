// Complex numbers: a complex value is its real and imaginary parts, two real values of one
// shape (value.hpp), and every complex operation is real operations on the parts, so that the
// graph, its gradients and second derivatives are the real ones (nothing complex is compiled).
// The operators (`+ - * / ^ .* ./ == !=`), the elementwise functions of the Stan library
// (exp, log, pow, sqrt, the trigonometric and hyperbolic functions and their inverses, abs,
// arg, norm, conj, proj, polar, get_real, get_imag, to_complex), and the library's container
// functions that are linear in their real arguments (block, append_row, rep_matrix, sum, ...),
// which run the real function on each part.
#include <advi/stan/lower_complex.hpp>

#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <advi/cpp/linalg.hpp>
#include <advi/cpp/math.hpp>
#include <advi/stan/functions.hpp>
#include <advi/stan/lower_decompositions.hpp>
#include <advi/stan/lowerer.hpp>

namespace advi::stan {

namespace {

// The real value v with real elements (known ints become constants or data).
Value as_reals(Lowerer& L, const Value& v, Loc at) {
    if (!v.is_int())
        return v;
    Value r = v;
    r.expr = L.real(v, at);
    r.ints.clear();
    r.base = Base::Real;
    return r;
}

}  // namespace

Value Lowerer::zeros_like(const Value& v) {
    Value r = v;
    r.parts.clear();
    r.ints.clear();
    if (r.is_int() || r.is_complex())
        r.base = v.is_complex() ? v.parts[0].base : Base::Real;
    r.level = 0;
    const Expr zero = m().constant(0);
    std::vector<int> all = v.dims;
    all.insert(all.end(), v.sizes.begin(), v.sizes.end());
    if (all.empty()) {
        r.expr = zero;
    } else if (all.size() == 1) {
        r.expr = rep_vector(zero, all[0]);
    } else {
        int cols = 1;
        for (std::size_t k = 1; k < all.size(); ++k) cols *= all[k];
        r.expr = rep_matrix(zero, all[0], cols);
    }
    return r;
}

Value Lowerer::complex_of(Value re, Value im, Loc at) {
    if (!levels_.empty())
        throw NotVectorisable(at, "a complex number");
    re = as_reals(*this, re, at);
    im = as_reals(*this, im, at);
    if (re.has_parts() || im.has_parts() || re.dims != im.dims || re.sizes != im.sizes) {
        fail(at, fmt::format("a complex value needs real and imaginary parts of one shape, got {} "
                             "and {}",
                             type_str(re), type_str(im)));
    }
    Value r;
    r.base = Base::Complex;
    r.dims = re.dims;
    r.sizes = re.sizes;
    r.level = std::max(re.level, im.level);
    r.parts = {std::move(re), std::move(im)};
    return r;
}

Value Lowerer::real_part(const Value& v, Loc at) {
    if (v.is_complex())
        return v.parts[0];
    if (v.is_tuple())
        fail(at, fmt::format("{} is not a number", type_str(v)));
    return as_reals(*this, v, at);
}

Value Lowerer::imag_part(const Value& v, Loc at) {
    if (v.is_complex())
        return v.parts[1];
    if (v.is_tuple())
        fail(at, fmt::format("{} is not a number", type_str(v)));
    return zeros_like(v);
}

Value Lowerer::as_complex(const Value& v, Loc at) {
    if (v.is_complex())
        return v;
    return complex_of(real_part(v, at), imag_part(v, at), at);
}

namespace {

// Elementwise complex arithmetic on parts of one layout (or a scalar with anything).
struct Parts {
    Expr re, im;
};

Parts parts_of(Lowerer& L, const Value& v, Loc at) {
    return {L.real(L.real_part(v, at), at), L.real(L.imag_part(v, at), at)};
}

// Elementwise products (Expr's `*` of two matrices is the matrix product).
Expr mul(const Expr& a, const Expr& b) {
    return a.shape().is_scalar() || b.shape().is_scalar() ? a * b : elt_multiply(a, b);
}
Parts multiply(const Parts& a, const Parts& b) {
    return {mul(a.re, b.re) - mul(a.im, b.im), mul(a.re, b.im) + mul(a.im, b.re)};
}
Parts divide(const Parts& a, const Parts& b) {
    const Expr d = mul(b.re, b.re) + mul(b.im, b.im);
    return {(mul(a.re, b.re) + mul(a.im, b.im)) / d, (mul(a.im, b.re) - mul(a.re, b.im)) / d};
}
Parts add(const Parts& a, const Parts& b) {
    return {a.re + b.re, a.im + b.im};
}
Parts scaled(const Parts& a, double s) {
    return {s * a.re, s * a.im};
}
Parts exp_of(const Parts& z) {
    const Expr e = exp(z.re);
    return {mul(e, cos(z.im)), mul(e, sin(z.im))};
}
Parts log_of(const Parts& z) {
    return {log(hypot(z.re, z.im)), atan2(z.im, z.re)};
}
// The principal square root: sqrt((|z| + x) / 2) + i sign(y) sqrt((|z| - x) / 2), with
// sign(0) = +1 (the cut on the negative reals gives +i sqrt(-x), as std::sqrt).
Parts sqrt_of(const Parts& z) {
    const Expr r = hypot(z.re, z.im);
    const Expr sign = 2.0 * step(z.im) - 1.0;
    return {sqrt(0.5 * (r + z.re)), mul(sign, sqrt(0.5 * (r - z.re)))};
}
Parts times_i(const Parts& z) {
    return {-z.im, z.re};
}
Parts one_plus(const Parts& z, double s = 1) {  // 1 + s z
    return {1.0 + s * z.re, s * z.im};
}
Parts sin_of(const Parts& z) {
    return {mul(sin(z.re), cosh(z.im)), mul(cos(z.re), sinh(z.im))};
}
Parts cos_of(const Parts& z) {
    return {mul(cos(z.re), cosh(z.im)), -mul(sin(z.re), sinh(z.im))};
}
Parts sinh_of(const Parts& z) {
    return {mul(sinh(z.re), cos(z.im)), mul(cosh(z.re), sin(z.im))};
}
Parts cosh_of(const Parts& z) {
    return {mul(cosh(z.re), cos(z.im)), mul(sinh(z.re), sin(z.im))};
}
// asinh z = log(z + sqrt(z^2 + 1)); asin z = -i asinh(i z)
Parts asinh_of(const Parts& z) {
    return log_of(add(z, sqrt_of(one_plus(multiply(z, z)))));
}
Parts asin_of(const Parts& z) {
    const Parts w = asinh_of(times_i(z));
    return {w.im, -w.re};
}
// acos z = pi/2 - asin z
Parts acos_of(const Parts& z) {
    const Parts s = asin_of(z);
    return {M_PI / 2 - s.re, -s.im};
}
// atanh z = (log(1 + z) - log(1 - z)) / 2; atan z = -i atanh(i z)
Parts atanh_of(const Parts& z) {
    const Parts a = log_of(one_plus(z)), b = log_of(one_plus(z, -1));
    return {0.5 * (a.re - b.re), 0.5 * (a.im - b.im)};
}
Parts atan_of(const Parts& z) {
    const Parts w = atanh_of(times_i(z));
    return {w.im, -w.re};
}
// acosh z = log(z + sqrt(z + 1) sqrt(z - 1))
Parts acosh_of(const Parts& z) {
    const Parts a = sqrt_of(one_plus(z)), b = sqrt_of({z.re - 1.0, z.im});
    return log_of(add(z, multiply(a, b)));
}

Value from_parts(Lowerer& L, const Value& like, const Parts& p, Loc at) {
    const Value shape = L.real_part(like, at);
    return L.complex_of(CallSite::result_like(shape, p.re), CallSite::result_like(shape, p.im), at);
}

template <Parts (*F)(const Parts&)>
Value elementwise(CallSite& c) {
    c.arity(1);
    return from_parts(c.lowerer, c.args[0], F(parts_of(c.lowerer, c.args[0], c.at)), c.at);
}

// (T) => R with real results
template <Expr (*F)(const Parts&)>
Value real_valued(CallSite& c) {
    c.arity(1);
    const Value shape = c.lowerer.real_part(c.args[0], c.at);
    return CallSite::result_like(shape, F(parts_of(c.lowerer, c.args[0], c.at)));
}
Expr abs_parts(const Parts& z) {
    return hypot(z.re, z.im);
}
Expr arg_parts(const Parts& z) {
    return atan2(z.im, z.re);
}
Expr norm_parts(const Parts& z) {
    return mul(z.re, z.re) + mul(z.im, z.im);
}

Parts conj_of(const Parts& z) {
    return {z.re, -z.im};
}
Parts proj_of(const Parts& z) {
    return z;  // the Riemann sphere's projection moves only infinities
}
Parts tan_of(const Parts& z) {
    return divide(sin_of(z), cos_of(z));
}
Parts tanh_of(const Parts& z) {
    return divide(sinh_of(z), cosh_of(z));
}
Parts log10_of(const Parts& z) {
    return scaled(log_of(z), 1.0 / std::log(10.0));
}

Value get_part(CallSite& c, bool imaginary) {
    c.arity(1);
    return imaginary ? c.lowerer.imag_part(c.args[0], c.at) : c.lowerer.real_part(c.args[0], c.at);
}

// to_complex(), to_complex(re), to_complex(re, im): elementwise, broadcast as `+` does.
Value to_complex_of(CallSite& c) {
    Lowerer& L = c.lowerer;
    if (c.args.empty())
        return L.complex_of(L.constant(0), L.constant(0), c.at);
    if (c.args.size() == 1)
        return L.complex_of(L.real_part(c.args[0], c.at), L.zeros_like(c.args[0]), c.at);
    c.arity(2);
    const Value& a = c.args[0];
    const Value& b = c.args[1];
    if (!a.is_scalar() && !b.is_scalar() && (a.dims != b.dims || a.sizes != b.sizes))
        c.fail(fmt::format("to_complex of {} and {}: the shapes differ", type_str(a), type_str(b)));
    // a scalar with a container: repeated to the container's shape
    const Value& shape = a.is_scalar() ? b : a;
    auto spread = [&](const Value& v) {
        if (!v.is_scalar() || shape.is_scalar())
            return L.real_part(v, c.at);
        return L.binary(BinaryOp::Add, L.zeros_like(shape), v, c.at);
    };
    return L.complex_of(spread(a), spread(b), c.at);
}

Value polar_of(CallSite& c) {
    c.arity(2);
    const Value r = c.lowerer.real_part(c.args[0], c.at);
    const Expr rho = c.real_of(0), theta = c.real_of(1);
    return c.lowerer.complex_of(CallSite::result_like(r, mul(rho, cos(theta))),
                                CallSite::result_like(r, mul(rho, sin(theta))), c.at);
}

Value pow_of(CallSite& c) {
    c.arity(2);
    return c.lowerer.complex_binary(BinaryOp::EltPower, c.args[0], c.args[1], c.at);
}

// A function linear in its real arguments (block, append_row, rep_matrix, sum, ...): the real
// function of the real parts and of the imaginary parts (ints, sizes and indices, in both).
Value by_parts(CallSite& c) {
    const FunctionRow* row = find_function(c.name());
    if (row == nullptr)
        c.no_match();
    Lowerer& L = c.lowerer;
    auto with = [&](bool imaginary) {
        CallSite part{L, c.call, {}, c.at, c.level};
        for (const Value& a : c.args) {
            if (a.is_int() || !(a.is_complex() || imaginary))
                part.args.push_back(a);
            else
                part.args.push_back(imaginary ? L.imag_part(a, c.at) : L.real_part(a, c.at));
        }
        return row->lower(part);
    };
    const Value re = with(false);
    if (re.is_int())
        return re;  // a size
    return L.complex_of(re, with(true), c.at);
}

// f(a, b), bilinear in its two arguments (columns_dot_product, diag_pre_multiply, ...): the
// real function on the parts. With ConjugateFirst, of conj(a) and b: Stan's dot_product of
// complex vectors is Eigen's, conjugate-linear in the first (stan/math/prim/fun/dot_product.hpp).
template <bool ConjugateFirst>
Value bilinear(CallSite& c) {
    c.arity(2);
    const FunctionRow* row = find_function(c.name());
    if (row == nullptr)
        c.no_match();
    Lowerer& L = c.lowerer;
    auto f = [&](const Value& a, const Value& b) {
        CallSite part{
            L, c.call, {a, b},
              c.at, c.level
        };
        return row->lower(part);
    };
    const Value ar = L.real_part(c.args[0], c.at);
    Value ai = L.imag_part(c.args[0], c.at);
    if (ConjugateFirst)
        ai = L.binary(BinaryOp::Subtract, L.zeros_like(ai), ai, c.at);
    const Value br = L.real_part(c.args[1], c.at), bi = L.imag_part(c.args[1], c.at);
    const Value re = L.binary(BinaryOp::Subtract, f(ar, br), f(ai, bi), c.at);
    const Value im = L.binary(BinaryOp::Add, f(ar, bi), f(ai, br), c.at);
    return L.complex_of(re, im, c.at);
}

// dot_self, rows_dot_self, columns_dot_self of complex values: squared norms (Eigen's
// squaredNorm, sum |z|^2, as Stan's), real numbers in complex form.
Value squared_norms(CallSite& c) {
    c.arity(1);
    const FunctionRow* row = find_function(c.name());
    if (row == nullptr)
        c.no_match();
    Lowerer& L = c.lowerer;
    auto f = [&](const Value& a) {
        CallSite part{L, c.call, {a}, c.at, c.level};
        return row->lower(part);
    };
    const Value n = L.binary(BinaryOp::Add, f(L.real_part(c.args[0], c.at)),
                             f(L.imag_part(c.args[0], c.at)), c.at);
    return L.complex_of(n, L.zeros_like(n), c.at);
}

// prod of complex values: the product in turn.
Value complex_prod(CallSite& c) {
    c.arity(1);
    Lowerer& L = c.lowerer;
    const Parts z = parts_of(L, c.args[0], c.at);
    auto flat = [](const Expr& e) {
        return e.shape().is_scalar() ? rep_vector(e, 1) : e.shape().is_vector() ? e : to_vector(e);
    };
    const Expr re = flat(z.re), im = flat(z.im);
    Parts acc{L.m().constant(1), L.m().constant(0)};
    for (int k = 0; k < static_cast<int>(c.args[0].size()); ++k)
        acc = multiply(acc, {sum(segment(re, k, 1)), sum(segment(im, k, 1))});
    return L.complex_of(CallSite::real_scalar(acc.re), CallSite::real_scalar(acc.im), c.at);
}

// z1 op z2 of two arguments (add(z1, z2), elt_multiply, ...): the operator.
template <BinaryOp Op>
Value operator_function(CallSite& c) {
    c.arity(2);
    return c.lowerer.complex_binary(Op, c.args[0], c.args[1], c.at);
}

// fft(z) and inv_fft(z) of complex vectors, fft2(Z) and inv_fft2(Z) of complex matrices, as
// Stan's (Eigen's FFT): y_j = sum_k z_k e^(-2 pi i j k / n), the inverse with e^(+...) and 1/n;
// in two dimensions the transform of the columns, then of the rows. Linear in the parts:
// constant matrices C_jk = cos(2 pi j k / n) and S_jk = sin(...) applied densely (n^2 numbers
// per transform; the gradient is the transposed map).
struct Dft {
    Expr C, S;
};
Dft dft_matrices(Lowerer& L, int n) {
    Eigen::VectorXd cos_jk(static_cast<Eigen::Index>(n) * n), sin_jk(cos_jk.size());
    const double two_pi = 2 * std::acos(-1.0);
    for (int k = 0; k < n; ++k) {
        for (int j = 0; j < n; ++j) {
            // j k mod n keeps the angle small, so that the constants are exact to rounding
            const double angle = two_pi * static_cast<double>((std::int64_t{j} * k) % n) / n;
            cos_jk[j + static_cast<Eigen::Index>(n) * k] = std::cos(angle);
            sin_jk[j + static_cast<Eigen::Index>(n) * k] = std::sin(angle);
        }
    }
    return {to_matrix(L.known_reals(cos_jk), n, n), to_matrix(L.known_reals(sin_jk), n, n)};
}
// The transform of the columns of a + ib (n rows).
template <bool Inverse>
Parts dft_columns(Lowerer& L, const Parts& z, int n) {
    const Dft f = dft_matrices(L, n);
    const double s = Inverse ? -1 : 1;
    Parts y{f.C * z.re + s * (f.S * z.im), f.C * z.im - s * (f.S * z.re)};
    if (Inverse) {
        y.re = y.re / static_cast<double>(n);
        y.im = y.im / static_cast<double>(n);
    }
    return y;
}
template <bool Inverse, bool TwoD>
Value fourier(CallSite& c) {
    c.arity(1);
    Lowerer& L = c.lowerer;
    const Value& z = c.args[0];
    if (z.size() == 0)
        return L.as_complex(z, c.at);
    const Parts p = parts_of(L, z, c.at);
    if (!TwoD) {
        const int n = z.sizes.at(0);
        const Parts y = dft_columns<Inverse>(L, p, n);
        return L.complex_of(CallSite::vec(y.re, n), CallSite::vec(y.im, n), c.at);
    }
    const int rows = z.sizes.at(0), cols = z.sizes.at(1);
    const Parts t = dft_columns<Inverse>(L, p, rows);
    const Parts u = dft_columns<Inverse>(L, {transpose(t.re), transpose(t.im)}, cols);
    return L.complex_of(CallSite::mat(transpose(u.re)), CallSite::mat(transpose(u.im)), c.at);
}

struct ComplexRow {
    std::string_view name;
    Value (*lower)(CallSite&);
    bool complex_only;  // every call is lowered here (its real arguments are promoted)
};

// clang-format off
constexpr std::array kRows = {
    ComplexRow{"get_real",   [](CallSite& c) { return get_part(c, false); }, true},
    ComplexRow{"get_imag",   [](CallSite& c) { return get_part(c, true); },  true},
    ComplexRow{"to_complex", to_complex_of,                                  true},
    ComplexRow{"polar",      polar_of,                                       true},
    ComplexRow{"arg",        real_valued<arg_parts>,                         true},
    ComplexRow{"norm",       real_valued<norm_parts>,                        true},
    ComplexRow{"conj",       elementwise<conj_of>,                           true},
    ComplexRow{"fft",        fourier<false, false>,                          true},
    // decompositions with complex results, of matrices known before the fit
    // (lower_decompositions.hpp)
    ComplexRow{"eigenvalues",    known_decomposition_of,                     true},
    ComplexRow{"eigenvectors",   known_decomposition_of,                     true},
    ComplexRow{"eigendecompose", known_decomposition_of,                     true},
    ComplexRow{"complex_schur_decompose",   known_decomposition_of,          true},
    ComplexRow{"complex_schur_decompose_t", known_decomposition_of,          true},
    ComplexRow{"complex_schur_decompose_u", known_decomposition_of,          true},
    ComplexRow{"inv_fft",    fourier<true, false>,                           true},
    ComplexRow{"fft2",       fourier<false, true>,                           true},
    ComplexRow{"inv_fft2",   fourier<true, true>,                            true},
    ComplexRow{"proj",       elementwise<proj_of>,                           true},
    ComplexRow{"abs",        real_valued<abs_parts>,                         false},
    ComplexRow{"exp",        elementwise<exp_of>,                            false},
    ComplexRow{"log",        elementwise<log_of>,                            false},
    ComplexRow{"log10",      elementwise<log10_of>,                          false},
    ComplexRow{"sqrt",       elementwise<sqrt_of>,                           false},
    ComplexRow{"sin",        elementwise<sin_of>,                            false},
    ComplexRow{"cos",        elementwise<cos_of>,                            false},
    ComplexRow{"tan",        elementwise<tan_of>,                            false},
    ComplexRow{"asin",       elementwise<asin_of>,                           false},
    ComplexRow{"acos",       elementwise<acos_of>,                           false},
    ComplexRow{"atan",       elementwise<atan_of>,                           false},
    ComplexRow{"sinh",       elementwise<sinh_of>,                           false},
    ComplexRow{"cosh",       elementwise<cosh_of>,                           false},
    ComplexRow{"tanh",       elementwise<tanh_of>,                           false},
    ComplexRow{"asinh",      elementwise<asinh_of>,                          false},
    ComplexRow{"acosh",      elementwise<acosh_of>,                          false},
    ComplexRow{"atanh",      elementwise<atanh_of>,                          false},
    ComplexRow{"pow",        pow_of,                                         false},
    ComplexRow{"add",          operator_function<BinaryOp::Add>,             false},
    ComplexRow{"subtract",     operator_function<BinaryOp::Subtract>,        false},
    ComplexRow{"multiply",     operator_function<BinaryOp::Multiply>,        false},
    ComplexRow{"divide",       operator_function<BinaryOp::Divide>,          false},
    ComplexRow{"elt_multiply", operator_function<BinaryOp::EltMultiply>,     false},
    ComplexRow{"elt_divide",   operator_function<BinaryOp::EltDivide>,       false},
    ComplexRow{"mdivide_right", operator_function<BinaryOp::Divide>,         false},
    // linear in the real arguments: the real function on each part
    ComplexRow{"block",        by_parts, false},
    ComplexRow{"col",          by_parts, false},
    ComplexRow{"row",          by_parts, false},
    ComplexRow{"sub_col",      by_parts, false},
    ComplexRow{"sub_row",      by_parts, false},
    ComplexRow{"head",         by_parts, false},
    ComplexRow{"tail",         by_parts, false},
    ComplexRow{"segment",      by_parts, false},
    ComplexRow{"diagonal",     by_parts, false},
    ComplexRow{"diag_matrix",  by_parts, false},
    ComplexRow{"rep_vector",   by_parts, false},
    ComplexRow{"rep_row_vector", by_parts, false},
    ComplexRow{"rep_matrix",   by_parts, false},
    ComplexRow{"rep_array",    by_parts, false},
    ComplexRow{"to_vector",    by_parts, false},
    ComplexRow{"to_row_vector", by_parts, false},
    ComplexRow{"to_matrix",    by_parts, false},
    ComplexRow{"to_array_1d",  by_parts, false},
    ComplexRow{"to_array_2d",  by_parts, false},
    ComplexRow{"append_row",   by_parts, false},
    ComplexRow{"append_col",   by_parts, false},
    ComplexRow{"append_array", by_parts, false},
    ComplexRow{"add_diag",     by_parts, false},
    ComplexRow{"reverse",      by_parts, false},
    ComplexRow{"symmetrize_from_lower_tri", by_parts, false},
    ComplexRow{"minus",        by_parts, false},
    ComplexRow{"sum",          by_parts, false},
    ComplexRow{"prod",         complex_prod, false},
    ComplexRow{"dot_product",  bilinear<true>, false},
    ComplexRow{"columns_dot_product", bilinear<false>, false},
    ComplexRow{"rows_dot_product", bilinear<false>, false},
    ComplexRow{"diag_pre_multiply", bilinear<false>, false},
    ComplexRow{"diag_post_multiply", bilinear<false>, false},
    ComplexRow{"dot_self",     squared_norms, false},
    ComplexRow{"columns_dot_self", squared_norms, false},
    ComplexRow{"rows_dot_self", squared_norms, false},
    ComplexRow{"cumulative_sum", by_parts, false},
    // of complex matrices known before the fit (Hermitian for the _sym ones)
    ComplexRow{"eigenvalues_sym",    known_decomposition_of, false},
    ComplexRow{"eigenvectors_sym",   known_decomposition_of, false},
    ComplexRow{"eigendecompose_sym", known_decomposition_of, false},
    ComplexRow{"singular_values",    known_decomposition_of, false},
    ComplexRow{"svd_U",              known_decomposition_of, false},
    ComplexRow{"svd_V",              known_decomposition_of, false},
    ComplexRow{"svd",                known_decomposition_of, false},
    ComplexRow{"trace",        by_parts, false},
    ComplexRow{"rows",         by_parts, false},
    ComplexRow{"cols",         by_parts, false},
    ComplexRow{"num_elements", by_parts, false},
    ComplexRow{"size",         by_parts, false},
    ComplexRow{"dims",         by_parts, false},
};
// clang-format on

const ComplexRow* find_row(std::string_view name) {
    for (const ComplexRow& r : kRows)
        if (r.name == name)
            return &r;
    return nullptr;
}

}  // namespace

std::vector<std::string_view> complex_function_names(bool complex_only) {
    std::vector<std::string_view> out;
    for (const ComplexRow& r : kRows)
        if (r.complex_only == complex_only)
            out.push_back(r.name);
    return out;
}

std::optional<Value> complex_call(CallSite& c) {
    const ComplexRow* row = find_row(c.name());
    if (row == nullptr)
        return std::nullopt;
    bool any = row->complex_only;
    for (const Value& a : c.args) any = any || a.is_complex();
    if (!any)
        return std::nullopt;
    return row->lower(c);
}

Value Lowerer::complex_binary(BinaryOp op, const Value& a, const Value& b, Loc at) {
    const auto bin = [&](BinaryOp o, const Value& x, const Value& y) {
        return binary(o, x, y, at);
    };
    const Value ar = real_part(a, at), ai = imag_part(a, at);
    const Value br = real_part(b, at), bi = imag_part(b, at);
    switch (op) {
        case BinaryOp::Add:
        case BinaryOp::Subtract: return complex_of(bin(op, ar, br), bin(op, ai, bi), at);
        case BinaryOp::Multiply:
        case BinaryOp::EltMultiply:
            // bilinear: (ar + i ai)(br + i bi), with any product (matrix or elementwise)
            if (!b.is_complex())
                return complex_of(bin(op, ar, b), bin(op, ai, b), at);
            if (!a.is_complex())
                return complex_of(bin(op, a, br), bin(op, a, bi), at);
            return complex_of(bin(BinaryOp::Subtract, bin(op, ar, br), bin(op, ai, bi)),
                              bin(BinaryOp::Add, bin(op, ar, bi), bin(op, ai, br)), at);
        case BinaryOp::Divide:
        case BinaryOp::EltDivide: {
            if (!b.is_complex())  // linear in a, also for a matrix divisor (a B^-1)
                return complex_of(bin(op, ar, b), bin(op, ai, b), at);
            if (op == BinaryOp::Divide && !b.is_scalar() && !a.is_scalar()) {
                // x B^-1 for complex B: [yr yi] = [xr xi] [[Br, Bi], [-Bi, Br]]^-1
                if (b.sizes.size() != 2 || !b.dims.empty() || !a.dims.empty())
                    fail(at, fmt::format("cannot divide {} by {}", type_str(a), type_str(b)));
                const Expr Br = real(br, at), Bi = real(bi, at);
                const Expr M = append_row(append_col(Br, Bi), append_col(-Bi, Br));
                const bool row = a.sizes.size() == 1;
                const Expr xr = real(ar, at), xi = real(ai, at);
                const Expr X = row ? rep_matrix_rows(append_row(xr, xi), 1) : append_col(xr, xi);
                Value Xv;
                Xv.base = Base::Matrix;
                Xv.sizes = {row ? 1 : a.sizes[0], 2 * b.sizes[0]};
                Xv.expr = X;
                Value Mv;
                Mv.base = Base::Matrix;
                Mv.sizes = {2 * b.sizes[0], 2 * b.sizes[1]};
                Mv.expr = M;
                const Expr Y = real(bin(BinaryOp::Divide, Xv, Mv), at);
                const int n = b.sizes[1], k = row ? 1 : a.sizes[0];
                Expr yr = block(Y, 0, 0, k, n), yi = block(Y, 0, n, k, n);
                if (row) {
                    yr = to_vector(yr);
                    yi = to_vector(yi);
                }
                return complex_of(CallSite::result_like(ar, yr), CallSite::result_like(ai, yi), at);
            }
            // a conj(b) / |b|^2, elementwise (b a scalar or of a's shape)
            const bool scalar = a.is_scalar() || b.is_scalar();
            const BinaryOp times = scalar ? BinaryOp::Multiply : BinaryOp::EltMultiply;
            const BinaryOp by = b.is_scalar() ? BinaryOp::Divide : BinaryOp::EltDivide;
            const Value d = bin(BinaryOp::Add, bin(BinaryOp::EltMultiply, br, br),
                                bin(BinaryOp::EltMultiply, bi, bi));
            const Value re = bin(BinaryOp::Add, bin(times, ar, br), bin(times, ai, bi));
            const Value im = bin(BinaryOp::Subtract, bin(times, ai, br), bin(times, ar, bi));
            return complex_of(bin(by, re, d), bin(by, im, d), at);
        }
        case BinaryOp::Power:
        case BinaryOp::EltPower: {
            // a^b = exp(b log a), elementwise
            const Parts pa = parts_of(*this, a, at), pb = parts_of(*this, b, at);
            return from_parts(*this, a.is_scalar() ? b : a, exp_of(multiply(pb, log_of(pa))), at);
        }
        case BinaryOp::Equal:
            return bin(BinaryOp::And, bin(BinaryOp::Equal, ar, br), bin(BinaryOp::Equal, ai, bi));
        case BinaryOp::NotEqual:
            return bin(BinaryOp::Or, bin(BinaryOp::NotEqual, ar, br),
                       bin(BinaryOp::NotEqual, ai, bi));
        default:
            fail(at, fmt::format("`{}` does not apply to {} and {}", binary_op_info(op).symbol,
                                 type_str(a), type_str(b)));
    }
}

}  // namespace advi::stan
