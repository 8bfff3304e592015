// The rows: Stan's built-in functions onto the DSL (dsl/advi/cpp/math.hpp,
// dsl/advi/cpp/linalg.hpp), its _rng functions as transforms of uniform or normal numbers, and
// its densities as the library's. Elementwise functions apply to batched values (one per
// iteration of a vectorised loop) as they are; reductions of a batched vector become
// reductions per row; the rest (`whole`) take values that are the same in every iteration.
#include <advi/stan/algebra_solvers.hpp>
#include <advi/stan/functions.hpp>
#include <advi/stan/integrators.hpp>
#include <advi/stan/ode_solvers.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include <advi/cpp/hmm.hpp>
#include <advi/dist/cdf.hpp>
#include <advi/graph/const_vector.hpp>
#include <advi/stan/int_arithmetic.hpp>
#include <advi/stan/lower_complex.hpp>
#include <advi/stan/lower_decompositions.hpp>
#include <advi/stan/lower_densities.hpp>
#include <advi/stan/lower_reorder.hpp>
#include <advi/stan/lower_transform_functions.hpp>
#include <advi/stan/lowerer.hpp>
#include <advi/stan/matrix_draws.hpp>
#include <advi/stan/stan_library.hpp>
#include <advi/stan/types.hpp>

namespace advi::stan {

namespace {

using E = const Expr&;

std::vector<Signature> sigs(std::string_view text) {
    return parse_signatures(text);
}

// Every signature Stan's library has for `name` but its complex ones (lower_complex.cpp offers
// those where the lowering has them): for rows whose lowering takes all of them, so that the
// table is Stan's list rather than a selection from it.
std::vector<Signature> all_stan(std::string_view name) {
    const LibraryFunction* f = find_library_function(name);
    if (f == nullptr)
        throw InternalError(fmt::format("all_stan: `{}` is not in Stan's library", name));
    std::vector<Signature> out;
    for (const Signature& s : f->signatures) {
        const bool complex =
            is_complex(s.result) || std::any_of(s.args.begin(), s.args.end(),
                                                [](const StanType& t) { return is_complex(t); });
        if (!complex)
            out.push_back(s);
    }
    return out;
}

// --- lowerings shared by rows

// An elementwise function of one argument: the argument's type with real elements.
template <Expr (*F)(const Expr&)>
Value unary(CallSite& c) {
    c.arity(1);
    return CallSite::result_like(c.args[0], F(c.real_of(0)));
}

// a .* b, where `*` of two matrices would be their product
Expr times(const Expr& a, const Expr& b) {
    return a.shape().is_matrix() && b.shape().is_matrix() ? elt_multiply(a, b) : a * b;
}

// --- values by their elements in Stan's flat order (first index fastest, which is the
// column-major order of every layout: value.hpp)

// Argument k's elements in flat order: a vector (a scalar stays a scalar).
Expr flat_of(CallSite& c, std::size_t k) {
    const Expr e = c.real_of(k);
    if (e.shape().is_scalar() && !c.args[k].is_scalar())  // (ints all alike: one constant)
        return rep_vector(e, static_cast<int>(c.args[k].size()));
    return e.shape().is_matrix() ? to_vector(e) : e;
}

// The layout of a value of `v`'s dims and sizes (value.hpp) holding the elements `flat`.
Expr in_layout(const Value& v, const Expr& flat) {
    const std::size_t rank = v.dims.size() + v.sizes.size();
    if (rank <= 1)
        return flat;
    const int first = v.dims.empty() ? v.sizes[0] : v.dims[0];
    const int total = flat.shape().size();
    return to_matrix(flat, first, first == 0 ? 0 : total / first);
}

// `like`'s type and sizes, with real elements, holding the elements `flat`.
Value shaped_like(const Value& like, const Expr& flat) {
    return CallSite::result_like(like, in_layout(like, flat));
}

// f(x, n) with n an int per element, where Stan pairs a container with an int array of the same
// elements (or a scalar with an int array): each element's own scalar value, stacked in flat
// order. `x_at` and `n_at` are the arguments' positions; F builds one element.
template <Expr (*F)(CallSite&, const Expr& x, int n)>
Value per_int_element(CallSite& c, std::size_t x_at, std::size_t n_at) {
    if (c.level > 0)
        throw NotVectorisable(
            c.at, fmt::format("`{}` of values that differ between iterations", c.name()));
    const Value &x = c.args[x_at], &n = c.args[n_at];
    if (!n.is_known_int())
        c.fail(fmt::format("{}: ints known only per draw are not supported yet", c.name()));
    const std::int64_t count = std::max<std::int64_t>(x.size(), n.size());
    if ((x.size() != 1 && x.size() != count) || (n.size() != 1 && n.size() != count))
        c.fail(
            fmt::format("{} of {} and {}: the sizes differ", c.name(), type_str(x), type_str(n)));
    const Expr xs = flat_of(c, x_at);
    const bool scalar_x = xs.shape().is_scalar();
    std::vector<Value> elements;
    for (std::int64_t i = 0; i < count; ++i) {
        const Expr xi = scalar_x ? xs : sum(segment(xs, static_cast<int>(i), 1));
        elements.push_back(CallSite::real_scalar(F(c, xi, n.ints[n.ints.size() == 1 ? 0 : i])));
    }
    const Value& like = x.size() == count && !x.is_scalar() ? x : n;
    if (like.is_scalar())
        return elements.at(0);
    const Value stacked = c.lowerer.stacked(elements, {static_cast<int>(count)}, c.at);
    return shaped_like(like, c.lowerer.real(stacked, c.at));
}

// An elementwise function of two arguments whose containers differ in type but hold the same
// elements (Stan's ldexp(vector, array[] int), binary_log_loss(array[,] int, matrix)): on the
// elements in flat order, in the layout of the argument with real elements. Anything else is
// broadcast as `+` broadcasts (`binary`).
template <auto F>
Value paired(CallSite& c);

// An elementwise function of two arguments, broadcast as `+` broadcasts them.
template <auto F>
Value binary(CallSite& c) {
    c.arity(2);
    Lowerer& L = c.lowerer;
    const Value a = c.args[0], b = c.args[1];
    // the broadcast type and layout, of `+` on reals (ints have no arithmetic on arrays:
    // atan2(array[] int, int) is as on reals)
    Value a_real = a;
    if (a.is_known_int() && b.is_known_int() && !(a.is_scalar() && b.is_scalar())) {
        a_real.expr = L.real(a, c.at);
        a_real.ints.clear();
        a_real.base = Base::Real;
    }
    const Value r = L.binary(BinaryOp::Add, a_real, b, c.at);
    const int lv = r.level;
    Expr x = L.real(L.at_level(a, lv, c.at), c.at), y = L.real(L.at_level(b, lv, c.at), c.at);
    if (lv > 0 && x.shape() != y.shape() && !x.shape().is_scalar() && !y.shape().is_scalar()) {
        // per-iteration scalar against per-iteration vector: the sum already spread them (one
        // value for all iterations is a scalar, which the elementwise ops broadcast)
        c.fail(fmt::format("{} of {} and {}: mixed batched shapes", c.name(), type_str(a),
                           type_str(b)));
    }
    return CallSite::result_like(r, F(x, y));
}

template <auto F>
Value paired(CallSite& c) {
    c.arity(2);
    const Value &a = c.args[0], &b = c.args[1];
    const bool same_type =
        a.dims == b.dims && a.sizes == b.sizes && (a.base == b.base || a.is_int() || b.is_int());
    if (a.is_scalar() || b.is_scalar() || same_type || a.level > 0 || b.level > 0)
        return binary<F>(c);
    if (a.size() != b.size())
        c.fail(
            fmt::format("{} of {} and {}: the sizes differ", c.name(), type_str(a), type_str(b)));
    return shaped_like(a.is_int() ? b : a, F(flat_of(c, 0), flat_of(c, 1)));
}

// f(orders, x) of Stan's Bessel functions: as `binary`, and also an int array of orders with
// x of another container type laid out alike (array[] int with a vector, array[,] int with a
// matrix or an array of vectors: forms Stan has that `+` would refuse).
template <auto F>
Value with_int_orders(CallSite& c) {
    c.arity(2);
    const Value &v = c.args[0], &x = c.args[1];
    if (v.is_int() && !v.dims.empty() && !x.is_scalar() && v.level == 0 && x.level == 0 &&
        !x.is_int()) {
        const Expr orders = c.real_of(0), values = c.real_of(1);
        if (orders.shape() != values.shape() && !orders.shape().is_scalar())  // (one: a constant)
            c.fail(fmt::format("{} of {} and {}: the sizes differ", c.name(), type_str(v),
                               type_str(x)));
        return CallSite::result_like(x, F(orders, values));
    }
    return binary<F>(c);
}

// abs of ints is an int (Stan: abs(int) => int); of anything else elementwise real.
Value abs_of(CallSite& c) {
    c.arity(1);
    Value r = c.args[0];
    if (r.is_known_int()) {
        for (int& x : r.ints) x = x < 0 ? -x : x;
        return r;
    }
    if (r.is_runtime_int()) {  // an _rng draw: still integral
        r.expr = abs(r.expr);
        return r;
    }
    return CallSite::result_like(r, abs(c.real_of(0)));
}

// std_normal_lcdf(y): the sum of log Phi(y) over the elements of y, as Stan's.
Value std_normal_lcdf(CallSite& c) {
    c.arity(1);
    const Value& y = c.args[0];
    const Expr x = log_Phi(c.real_of(0));
    if (Lowerer::rank_of_value(y) == 0)
        return CallSite::result_like(y, x);
    if (y.level == 0)
        return CallSite::real_scalar(sum(x));
    if (c.batched_vector(0))
        return CallSite::real_scalar(row_sums(x), y.level);
    throw NotVectorisable(c.at, "std_normal_lcdf of a container that differs between iterations");
}

Value constant(CallSite& c, double v) {
    if (!c.args.empty())
        c.no_match();
    return c.lowerer.constant(v);
}

// A function of values that are the same in every iteration: a batched argument makes the
// loop not vectorisable, and the builder's errors are prefixed with the function's name.
template <auto F>
Value whole(CallSite& c) {
    if (c.level > 0) {
        throw NotVectorisable(
            c.at, fmt::format("`{}` of values that differ between iterations", c.name()));
    }
    try {
        return F(c);
    } catch (const ParseError&) {
        throw;  // already says where and what (was prefixed twice: "f.stan:2:3: f: f.stan:2:3:
                // ...")
    } catch (const Error& e) {
        c.fail(fmt::format("{}: {}", c.name(), e.what()));
    }
}

// --- sizes: known ints

Value sizes(CallSite& c) {
    c.arity(1);
    const std::string& f = c.name();
    const Value& v = c.args[0];
    if (f == "num_elements")
        return c.lowerer.int_scalar(static_cast<int>(v.size()));
    if (f == "size")
        return c.lowerer.int_scalar(v.dims.empty() ? (v.sizes.empty() ? 1 : v.sizes[0])
                                                   : v.dims[0]);
    if (f == "dims") {  // the array dimensions, then the vector's or matrix's sizes
        Value r = c.lowerer.int_scalar(0);
        r.ints = v.dims;
        r.ints.insert(r.ints.end(), v.sizes.begin(), v.sizes.end());
        r.dims = {static_cast<int>(r.ints.size())};
        return r;
    }
    if (f == "rows")
        return c.lowerer.int_scalar(v.sizes.empty() ? 1 : v.sizes[0]);
    return c.lowerer.int_scalar(v.sizes.size() < 2 ? (v.base == Base::RowVector ? v.sizes[0] : 1)
                                                   : v.sizes[1]);
}

// choose(n, k): the binomial coefficient of ints, elementwise over int arrays (a scalar
// repeats), as Stan: n, k >= 0, 0 where k > n, an error where it overflows an int.
Value choose_of(CallSite& c) {
    c.arity(2);
    const Value &n = c.args[0], &k = c.args[1];
    for (std::size_t a = 0; a < 2; ++a) {
        if (!c.args[a].is_known_int())
            c.fail("choose of ints known only per draw is not supported yet");
    }
    if (!n.is_scalar() && !k.is_scalar() && n.dims != k.dims) {
        c.fail(fmt::format("choose of {} and {}: the sizes differ", type_str(n), type_str(k)));
    }
    Value r = n.is_scalar() ? k : n;
    r.level = std::max(n.level, k.level);
    const std::size_t count = std::max(n.ints.size(), k.ints.size());
    r.ints.assign(count, 0);
    for (std::size_t i = 0; i < count; ++i) {
        const int a = n.ints[n.ints.size() == 1 ? 0 : i], b = k.ints[k.ints.size() == 1 ? 0 : i];
        if (a < 0 || b < 0)
            c.fail(fmt::format("choose({}, {}): the arguments must be non-negative", a, b));
        if (b > a)
            continue;
        // exactly: each step's value is C(a - m + j, j), an integer, below 2^62 before the check
        const int m = std::min(b, a - b);
        std::int64_t v = 1;
        for (int j = 1; j <= m; ++j) {
            v = v * (a - m + j) / j;
            if (v > std::numeric_limits<int>::max())
                c.fail(fmt::format("choose({}, {}) overflows an int", a, b));
        }
        r.ints[i] = static_cast<int>(v);
    }
    return r;
}

// fma(x, y, z) = x .* y + z, through Stan's operators: every combination Stan allows.
Value fma_of(CallSite& c) {
    c.arity(3);
    const Value xy = c.lowerer.binary(BinaryOp::EltMultiply, c.args[0], c.args[1], c.at);
    return c.lowerer.binary(BinaryOp::Add, xy, c.args[2], c.at);
}

// lmgamma(k, x) = k (k - 1) / 4 log(pi) + sum over j = 1..k of lgamma(x + (1 - j) / 2), the log
// multivariate gamma function, elementwise in x.
Expr lmgamma_element(CallSite& c, const Expr& x, int k) {
    if (k < 1)
        c.fail(fmt::format("lmgamma: the dimension must be positive, got {}", k));
    Expr sum_lgamma = lgamma(x);
    for (int j = 2; j <= k; ++j) sum_lgamma = sum_lgamma + lgamma(x + (1.0 - j) / 2.0);
    return 0.25 * k * (k - 1) * std::log(M_PI) + sum_lgamma;
}

Value lmgamma_of(CallSite& c) {
    c.arity(2);
    if (c.args[0].is_scalar())
        return CallSite::result_like(c.args[1], lmgamma_element(c, c.real_of(1), c.int_arg(0)));
    return per_int_element<lmgamma_element>(c, 1, 0);
}

// --- reductions: a batched vector reduces per iteration (per row)

Value reduction(CallSite& c) {
    Lowerer& L = c.lowerer;
    const std::string& f = c.name();
    const auto& args = c.args;
    const Loc at = c.at;
    if (f == "log_sum_exp" && args.size() == 2) {
        const Value r = L.binary(BinaryOp::Add, args[0], args[1], at);
        const int lv = r.level;
        const Expr x = L.real(L.at_level(args[0], lv, at), at),
                   y = L.real(L.at_level(args[1], lv, at), at);
        if (Lowerer::rank_of_value(r) > 0 || lv > 0) {
            // elementwise log(exp(x) + exp(y)) = max + log1p(exp(-|x - y|))
            return CallSite::result_like(r, fmax(x, y) + log1p_exp(-fabs(x - y)));
        }
        return CallSite::result_like(r, log_sum_exp(x, y));
    }
    c.arity(1);
    if (args[0].level > 0 && Lowerer::rank_of_value(args[0]) == 0) {
        c.fail(fmt::format("{} of a scalar", f));
    }
    const Expr x = c.real_of(0);
    const int level = c.level;
    if (c.batched_vector(0)) {
        const int n = args[0].sizes.empty() ? args[0].dims[0] : args[0].sizes[0];
        if (f == "sum")
            return CallSite::real_scalar(row_sums(x), level);
        if (f == "log_sum_exp")
            return CallSite::real_scalar(log_sum_exp_rows(x), level);
        if (f == "mean")
            return CallSite::real_scalar(row_sums(x) / static_cast<double>(n), level);
        if (f == "dot_self")
            return CallSite::real_scalar(row_sums(square(x)), level);
        throw NotVectorisable(at, fmt::format("{} of a vector that differs between iterations", f));
    }
    if (level > 0)
        throw NotVectorisable(at, fmt::format("{} of a matrix that differs between iterations", f));
    if (f == "sum")
        return CallSite::real_scalar(sum(x));
    if (f == "log_sum_exp")
        return CallSite::real_scalar(log_sum_exp(x));
    if (f == "mean")
        return CallSite::real_scalar(mean(x));
    if (f == "dot_self")
        return CallSite::real_scalar(dot_self(x));
    if (f == "prod")
        return CallSite::real_scalar(prod(x));
    if (f == "variance")
        return CallSite::real_scalar(variance(x));
    if (f == "sd")
        return CallSite::real_scalar(sd(x));
    if (f == "max")
        return CallSite::real_scalar(max(x));
    return CallSite::real_scalar(min(x));
}

// sum, max and min of known ints are known ints, as Stan's sum(array[] int), max and
// min(array[] int) and max and min(int, int); of anything else, reductions.
Value int_or_reduction(CallSite& c) {
    const std::string& f = c.name();
    const auto& args = c.args;
    const bool known_ints =
        c.level == 0 && !args.empty() &&
        std::all_of(args.begin(), args.end(), [](const Value& a) { return a.is_known_int(); });
    if (args.size() == 2 && f != "sum") {
        // min(a, b), max(a, b) of scalars not both known ints at level 0: of ints known per
        // iteration, per iteration; else as fmin/fmax (an int if both are ints)
        if (!args[0].is_scalar() || !args[1].is_scalar())
            c.fail(fmt::format("{} of two values takes two scalars", f));
        Lowerer& L = c.lowerer;
        const int level = std::max(args[0].level, args[1].level);
        if (args[0].is_known_int() && args[1].is_known_int()) {
            const Value a = L.at_level(args[0], level, c.at), b = L.at_level(args[1], level, c.at);
            Value r = L.int_scalar(0);
            r.level = level;
            const std::size_t n = std::max(a.ints.size(), b.ints.size());
            r.ints.assign(n, 0);
            for (std::size_t k = 0; k < n; ++k) {
                const int x = a.ints[a.ints.size() == 1 ? 0 : k];
                const int y = b.ints[b.ints.size() == 1 ? 0 : k];
                r.ints[k] = f == "max" ? std::max(x, y) : std::min(x, y);
            }
            return r;
        }
        Value r = f == "max" ? binary<[](E x, E y) { return fmax(x, y); }>(c)
                             : binary<[](E x, E y) { return fmin(x, y); }>(c);
        if (args[0].is_int() && args[1].is_int())
            r.base = Base::Int;
        return r;
    }
    if (!known_ints) {
        // of ints known only per draw (or per iteration): an int known the same way
        Value r = reduction(c);
        if (!args.empty() &&
            std::all_of(args.begin(), args.end(), [](const Value& a) { return a.is_int(); }))
            r.base = Base::Int;
        return r;
    }
    Lowerer& L = c.lowerer;
    c.arity(1);
    const auto& v = args[0].ints;
    if (f == "sum") {
        try {
            return L.int_scalar(int_arithmetic::sum(v));
        } catch (const IntArithmeticError& e) {
            c.fail(fmt::format("sum of ints: {}", e.what()));
        }
    }
    if (v.empty())
        c.fail(fmt::format("{} of an empty array", f));
    return L.int_scalar(f == "max" ? *std::max_element(v.begin(), v.end())
                                   : *std::min_element(v.begin(), v.end()));
}

Value dot_product(CallSite& c) {
    c.arity(2);
    Value a = c.args[0], b = c.args[1];
    for (std::size_t k = 0; k < 2; ++k) {
        Value& v = k == 0 ? a : b;
        if (v.dims.size() == 1 && v.sizes.empty()) {  // array[] real: its elements as a vector
            v.expr = c.real_of(k);
            v.sizes = v.dims;
            v.dims.clear();
            v.ints.clear();
        }
    }
    a.base = Base::RowVector;
    b.base = Base::Vector;
    return c.lowerer.binary(BinaryOp::Multiply, a, b, c.at);
}

// log_mix(theta, lambda) = log sum_k theta_k exp(lambda_k): theta K mixing proportions (a vector,
// row vector or array), lambda K log densities, or an array of N such vectors (the sum over
// them of each one's log_mix).
Value log_mix_of_containers(CallSite& c) {
    const Value& lambda = c.args[1];
    const Expr log_theta = log(flat_of(c, 0));
    const int k = log_theta.shape().size();
    const Expr l = c.real_of(1);
    if (lambda.dims.size() == 1 && !lambda.sizes.empty()) {  // N vectors: rows of the layout
        if (l.shape().cols != k)
            c.fail(
                fmt::format("log_mix: {} proportions and {} densities per row", k, l.shape().cols));
        return CallSite::real_scalar(
            sum(log_sum_exp_rows(l + rep_matrix_rows(log_theta, l.shape().rows))));
    }
    const Expr flat = flat_of(c, 1);
    if (flat.shape().size() != k)
        c.fail(fmt::format("log_mix: {} proportions and {} densities", k, flat.shape().size()));
    return CallSite::real_scalar(log_sum_exp(log_theta + flat));
}

// log(theta exp(a) + (1 - theta) exp(b)), elementwise
Value log_mix(CallSite& c) {
    if (c.args.size() == 2)
        return whole<log_mix_of_containers>(c);
    c.arity(3);
    Lowerer& L = c.lowerer;
    const Loc at = c.at;
    const Value theta = c.args[0];
    const Value la = L.binary(BinaryOp::Add, L.call_log(theta, at), c.args[1], at);
    const Value lb = L.binary(BinaryOp::Add, L.call_log1m(theta, at), c.args[2], at);
    const Value r = L.binary(BinaryOp::Add, la, lb, at);
    const int lv = r.level;
    const Expr x = L.real(L.at_level(la, lv, at), at), y = L.real(L.at_level(lb, lv, at), at);
    return CallSite::result_like(r, fmax(x, y) + log1p_exp(-fabs(x - y)));
}

// inc_beta(a, b, x): scalars, elementwise over the iterations of a vectorised loop.
Value inc_beta_of(CallSite& c) {
    c.arity(3);
    Lowerer& L = c.lowerer;
    int level = 0;
    for (const Value& v : c.args) level = std::max(level, v.level);
    std::array<Expr, 3> e;
    for (int k = 0; k < 3; ++k) e[k] = L.real(L.at_level(c.args[k], level, c.at), c.at);
    return CallSite::real_scalar(inc_beta(e[0], e[1], e[2]), level);
}

// f of scalars, elementwise over the iterations of a vectorised loop.
template <std::size_t N, auto F>
Value scalars(CallSite& c) {
    c.arity(N);
    Lowerer& L = c.lowerer;
    int level = 0;
    for (const Value& v : c.args) level = std::max(level, v.level);
    std::array<Expr, N> e;
    for (std::size_t k = 0; k < N; ++k) e[k] = L.real(L.at_level(c.args[k], level, c.at), c.at);
    return CallSite::real_scalar(std::apply([](const auto&... x) { return F(x...); }, e), level);
}

// hypergeometric_1F0(a, z) = (1 - z)^-a, |z| < 1 for the series Stan names it by, but the
// closed form holds wherever z < 1
Expr hypergeometric_1F0_of(E a, E z) {
    return exp(-a * log1m(z));
}

// student_t_qf(p, nu, mu, sigma): mu + sigma t, t = -+sqrt(nu (1 / x - 1)) with
// x = inv_inc_beta(nu / 2, 1 / 2, 2 min(p, 1 - p)) (I_x(nu / 2, 1 / 2) is twice the tail beyond
// |t|), the sign that of p - 1/2. Reals or containers of reals (a vector when any is one, the
// containers of the same size); elementwise over the iterations of a vectorised loop.
Expr student_t_quantile(E p, E nu, E mu, E sigma) {
    const Expr tail = 2.0 * fmin(p, 1.0 - p);
    const Expr x = inv_inc_beta(0.5 * nu, 0.5, tail);
    const Expr t = sqrt(nu * (1.0 - x) / x);
    return mu + sigma * if_else(step(p - 0.5), t, -t);
}
Value student_t_qf_of(CallSite& c) {
    c.arity(4);
    int level = 0, size = -1;
    for (const Value& v : c.args) level = std::max(level, v.level);
    if (level > 0) {
        for (const Value& a : c.args) {
            if (Lowerer::rank_of_value(a) != 0)
                throw NotVectorisable(c.at,
                                      "student_t_qf of containers that differ between iterations");
        }
        return scalars<4, student_t_quantile>(c);
    }
    std::array<Expr, 4> e;
    for (std::size_t k = 0; k < 4; ++k) {
        e[k] = c.real_of(k);
        if (e[k].shape().is_scalar())
            continue;
        const int n = static_cast<int>(c.args[k].size());
        if (size >= 0 && n != size)
            c.fail(fmt::format("student_t_qf: containers of sizes {} and {}", size, n));
        size = n;
        if (e[k].shape().is_matrix())
            e[k] = to_vector(e[k]);
    }
    const Expr q = student_t_quantile(e[0], e[1], e[2], e[3]);
    if (size < 0)
        return CallSite::real_scalar(q);
    return CallSite::vec(q.shape().is_scalar() ? rep_vector(q, size) : q, size);
}

// hypergeometric_2F1(a1, a2, b1, z), hypergeometric_3F2(a, b, z), hypergeometric_pFq(a, b, z):
// the series pFq(a; b; z), differentiable in a, b and z (graph/ops_special.hpp). Whole values:
// not inside a vectorised loop.
Value hypergeometric_of(CallSite& c) {
    const std::string& f = c.name();
    if (f == "hypergeometric_2F1") {
        c.arity(4);
        const Expr a = append_row(c.real_of(0), rep_vector(c.real_of(1), 1));
        return CallSite::real_scalar(hypergeometric_pFq(a, c.real_of(2), c.real_of(3), f));
    }
    c.arity(3);
    std::array<Expr, 2> e;
    for (std::size_t k = 0; k < 2; ++k) {
        const int n = static_cast<int>(c.args[k].size());
        if (f == "hypergeometric_3F2" && n != (k == 0 ? 3 : 2)) {
            c.fail(fmt::format("hypergeometric_3F2: argument {} has {} elements, not {}", k + 1, n,
                               k == 0 ? 3 : 2));
        }
        if (n == 0) {
            c.fail(fmt::format("{} of an empty argument {} is not supported yet", f, k + 1));
        }
        e[k] = c.real_of(k);
    }
    return CallSite::real_scalar(hypergeometric_pFq(e[0], e[1], c.real_of(2), f));
}

// --- building vectors and matrices, linear algebra: whole values

Value rep_vector_of(CallSite& c, Base b) {
    c.arity(2);
    return CallSite::vec(rep_vector(c.real_of(0), c.int_arg(1)), c.int_arg(1), b);
}

// --- container construction (Stan's zeros_*, ones_*, linspaced_*, one_hot_*, identity_matrix,
// uniform_simplex): values known while lowering, as Stan computes them (its linspaced functions
// are Eigen's LinSpaced, so these are too)

// A container of known reals: vector, row_vector, or (Base::Real) a 1-d array.
Value known_reals(CallSite& c, const Eigen::VectorXd& v, Base b) {
    const Expr e = c.m().wrap(c.m().resolve(Arg(v)));
    Value r = CallSite::vec(e, static_cast<int>(v.size()), b == Base::Real ? Base::Vector : b);
    if (b == Base::Real) {
        r.base = Base::Real;
        r.dims = {static_cast<int>(v.size())};
        r.sizes.clear();
    }
    return r;
}
Value known_ints(const Eigen::VectorXi& v) {
    Value r;
    r.base = Base::Int;
    r.dims = {static_cast<int>(v.size())};
    r.ints.assign(v.data(), v.data() + v.size());
    return r;
}
int size_arg(CallSite& c, std::size_t k) {
    const int n = c.int_arg(k);
    if (n < 0)
        c.fail(fmt::format("{}: the size must be non-negative, got {}", c.name(), n));
    return n;
}
// Argument k, a real known while lowering (Stan's `data real`).
double known_real_arg(CallSite& c, std::size_t k) {
    if (c.args[k].is_known_int())
        return c.int_arg(k);
    try {
        return c.m().evaluate(c.real_of(k)).at(0);
    } catch (const ModelError&) {
        c.fail(fmt::format("{}: argument {} must be data", c.name(), k + 1));
    }
}
// zeros_*, ones_*: `value` repeated; the result's kind from the name's suffix.
template <int Value>
struct Filled {
    static ::advi::stan::Value of(CallSite& c) {
        c.arity(1);
        const int n = size_arg(c, 0);
        const std::string_view name = c.name();
        if (name.ends_with("int_array"))
            return known_ints(Eigen::VectorXi::Constant(n, Value));
        const Base b = name.ends_with("row_vector") ? Base::RowVector
                       : name.ends_with("vector")   ? Base::Vector
                                                    : Base::Real;
        return known_reals(c, Eigen::VectorXd::Constant(n, Value), b);
    }
};
Value linspaced_of(CallSite& c) {
    c.arity(3);
    const int n = size_arg(c, 0);
    const std::string_view name = c.name();
    if (name == "linspaced_int_array") {
        const int lo = c.int_arg(1), hi = c.int_arg(2);
        if (hi < lo)
            c.fail(fmt::format("{}: high ({}) is below low ({})", name, hi, lo));
        return known_ints(n == 0 ? Eigen::VectorXi() : Eigen::VectorXi::LinSpaced(n, lo, hi));
    }
    const double lo = known_real_arg(c, 1), hi = known_real_arg(c, 2);
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo)
        c.fail(fmt::format("{}: low and high must be finite and low <= high, got {} and {}", name,
                           lo, hi));
    const Eigen::VectorXd v = n == 0 ? Eigen::VectorXd() : Eigen::VectorXd::LinSpaced(n, lo, hi);
    const Base b = name == "linspaced_row_vector" ? Base::RowVector
                   : name == "linspaced_vector"   ? Base::Vector
                                                  : Base::Real;
    return known_reals(c, v, b);
}
Value one_hot_of(CallSite& c) {
    c.arity(2);
    const int n = size_arg(c, 0), k = c.int_arg(1);
    if (n < 1 || k < 1 || k > n)
        c.fail(fmt::format("{}: k = {} must be in 1..n = {}", c.name(), k, n));
    const std::string_view name = c.name();
    if (name == "one_hot_int_array") {
        Eigen::VectorXi v = Eigen::VectorXi::Zero(n);
        v[k - 1] = 1;
        return known_ints(v);
    }
    Eigen::VectorXd v = Eigen::VectorXd::Zero(n);
    v[k - 1] = 1;
    const Base b = name == "one_hot_row_vector" ? Base::RowVector
                   : name == "one_hot_vector"   ? Base::Vector
                                                : Base::Real;
    return known_reals(c, v, b);
}
Value identity_matrix_of(CallSite& c) {
    c.arity(1);
    const int n = size_arg(c, 0);
    const Eigen::MatrixXd id = Eigen::MatrixXd::Identity(n, n);
    return CallSite::mat(c.m().wrap(c.m().resolve(Arg(id))));
}
Value uniform_simplex_of(CallSite& c) {
    c.arity(1);
    const int n = size_arg(c, 0);
    if (n < 1)
        c.fail(fmt::format("uniform_simplex: the size must be positive, got {}", n));
    return known_reals(c, Eigen::VectorXd::Constant(n, 1.0 / n), Base::Vector);
}

// --- distances and norms of vectors (x - y and x as vec[n] whatever their orientation)
Value squared_distance_of(CallSite& c) {
    c.arity(2);
    return CallSite::real_scalar(sum(square(c.real_of(0) - c.real_of(1))));
}
Value distance_of(CallSite& c) {
    c.arity(2);
    return CallSite::real_scalar(sqrt(sum(square(c.real_of(0) - c.real_of(1)))));
}
Value norm1_of(CallSite& c) {
    c.arity(1);
    return CallSite::real_scalar(sum(fabs(c.real_of(0))));
}
Value norm2_of(CallSite& c) {
    c.arity(1);
    return CallSite::real_scalar(sqrt(sum(square(c.real_of(0)))));
}

// --- Stan's operators as functions (add(a, b) is a + b, ...): the operator's lowering
template <BinaryOp Op>
Value operator_of(CallSite& c) {
    c.arity(2);
    BinaryOp op = Op;
    const bool ints =
        c.args[0].is_int() && c.args[1].is_int() && c.args[0].is_scalar() && c.args[1].is_scalar();
    if (ints && op == BinaryOp::EltMultiply)
        op = BinaryOp::Multiply;  // elt_multiply(int, int): the product
    if (ints && op == BinaryOp::EltDivide)
        op = BinaryOp::Divide;  // elt_divide(int, int): Stan's integer division
    if (op == BinaryOp::Divide && !c.args[1].is_scalar())
        op = BinaryOp::EltDivide;  // divide(real, vector): elementwise (the operator has no form)
    return c.lowerer.binary(op, c.args[0], c.args[1], c.at);
}
Value minus_of(CallSite& c) {
    c.arity(1);
    if (c.args[0].is_known_int()) {
        Value r = c.args[0];
        for (int& v : r.ints) v = int_arithmetic::negate(v);
        r.expr = Expr();
        return r;
    }
    return c.lowerer.binary(BinaryOp::Subtract, c.lowerer.int_scalar(0), c.args[0], c.at);
}

// --- linear algebra written with the ops there are
// A \ B and B / A through the inverse (_spd: of a symmetric positive-definite A)
template <bool Spd>
Value mdivide_left_of(CallSite& c) {
    c.arity(2);
    const Expr inv = Spd ? inverse_spd(c.real_of(0)) : inverse(c.real_of(0));
    Value r = c.args[1];
    r.ints.clear();
    r.base = r.base == Base::Matrix ? Base::Matrix : Base::Vector;
    r.expr = inv * c.real_of(1);
    return r;
}
template <bool Spd>
Value mdivide_right_of(CallSite& c) {
    c.arity(2);
    const Expr inv = Spd ? inverse_spd(c.real_of(1)) : inverse(c.real_of(1));
    if (c.args[0].base == Base::Matrix)
        return CallSite::mat(c.real_of(0) * inv);
    // a row vector b: b A^-1 = (A^-T b')'
    return CallSite::vec(transpose(inv) * c.real_of(0), c.args[0].sizes[0], Base::RowVector);
}
Value matrix_power_of(CallSite& c) {
    c.arity(2);
    const int n = c.int_arg(1);
    if (n < 0)
        c.fail(fmt::format("matrix_power: the power must be non-negative, got {}", n));
    const Expr a = c.real_of(0);
    const Shape s = a.shape();
    if (s.rows != s.cols)
        c.fail(fmt::format("matrix_power: the matrix must be square, got {}", s.str()));
    if (n == 0) {
        const Eigen::MatrixXd id = Eigen::MatrixXd::Identity(s.rows, s.cols);
        return CallSite::mat(c.m().wrap(c.m().resolve(Arg(id))));
    }
    // by squaring: n = sum of powers of two
    Expr result, square_k = a;
    for (int k = n; k > 0; k >>= 1) {
        if ((k & 1) != 0)
            result = result.valid() ? result * square_k : square_k;
        if (k > 1)
            square_k = square_k * square_k;
    }
    return CallSite::mat(result);
}
// trace(B' A B), or B' A B for a vector B
Value trace_quad_form_of(CallSite& c) {
    c.arity(2);
    const Expr a = c.real_of(0), b = c.real_of(1);
    if (b.shape().is_matrix())
        return CallSite::real_scalar(trace(transpose(b) * (a * b)));
    return CallSite::real_scalar(dot(b, a * b));
}
// trace(D B' A B)
Value trace_gen_quad_form_of(CallSite& c) {
    c.arity(3);
    const Expr d = c.real_of(0), a = c.real_of(1), b = c.real_of(2);
    return CallSite::real_scalar(trace(d * (transpose(b) * (a * b))));
}
// B' A B, symmetric for a matrix B (Stan symmetrises the result)
Value quad_form_sym_of(CallSite& c) {
    c.arity(2);
    const Expr a = c.real_of(0), b = c.real_of(1);
    if (!b.shape().is_matrix())
        return CallSite::real_scalar(dot(b, a * b));
    const Expr q = transpose(b) * (a * b);
    return CallSite::mat(0.5 * (q + transpose(q)));
}
Value chol2inv_of(CallSite& c) {
    c.arity(1);
    return CallSite::mat(inverse_spd(multiply_lower_tri_self_transpose(c.real_of(0))));
}
Value log_determinant_spd_of(CallSite& c) {
    c.arity(1);
    return CallSite::real_scalar(log_determinant(c.real_of(0)));
}
// int_step(x) = 1 if x > 0 else 0: known for ints, an int known only per draw for reals
Value int_step_of(CallSite& c) {
    c.arity(1);
    if (c.args[0].is_known_int()) {
        Value r = c.args[0];
        for (int& v : r.ints) v = v > 0 ? 1 : 0;
        r.expr = Expr();
        return r;
    }
    Value r;
    r.base = Base::Int;
    r.level = c.args[0].level;
    r.expr = 1.0 - step(-c.real_of(0));  // step(0) = 1: int_step(0) = 0
    return r;
}

// rising_factorial(x, n) = x (x + 1) ... (x + n - 1), falling_factorial(x, n) = x (x - 1) ...
// (x - n + 1), n a known non-negative int: the product itself (exact for ints, right in sign for
// negative x, where exp(lgamma) is not), for n up to kFactorialTerms.
constexpr int kFactorialTerms = 1000;
template <int Step>
Expr factorial_element(CallSite& c, const Expr& x, int n) {
    if (n < 0)
        c.fail(fmt::format("{}: n must be non-negative, got {}", c.name(), n));
    if (n > kFactorialTerms)
        c.fail(
            fmt::format("{} with n = {} > {} is not supported yet", c.name(), n, kFactorialTerms));
    Expr p = n == 0 ? x * 0.0 + 1.0 : x;
    for (int k = 1; k < n; ++k) p = times(p, x + static_cast<double>(Step * k));
    return p;
}

template <int Step>
Value factorial_of(CallSite& c) {
    c.arity(2);
    const Value &x = c.args[0], &n = c.args[1];
    if (x.is_known_int() && n.is_known_int()) {  // ints, elementwise (a scalar repeats)
        if (x.ints.size() != 1 && n.ints.size() != 1 && x.ints.size() != n.ints.size())
            c.fail(fmt::format("{} of {} and {}: the sizes differ", c.name(), type_str(x),
                               type_str(n)));
        Value r = x.is_scalar() ? n : x;
        r.expr = Expr();
        for (std::size_t i = 0; i < r.ints.size(); ++i) {
            const int v = x.ints[x.ints.size() == 1 ? 0 : i],
                      m = n.ints[n.ints.size() == 1 ? 0 : i];
            if (m < 0)
                c.fail(fmt::format("{}: n must be non-negative, got {}", c.name(), m));
            std::int64_t p = 1;
            for (int k = 0; k < m; ++k) {
                p *= static_cast<std::int64_t>(v) + Step * k;
                if (p > std::numeric_limits<int>::max() || p < std::numeric_limits<int>::min())
                    c.fail(fmt::format("{}({}, {}) overflows an int", c.name(), v, m));
            }
            r.ints[i] = static_cast<int>(p);
        }
        return r;
    }
    if (n.is_scalar())  // one product, elementwise over x
        return CallSite::result_like(x, factorial_element<Step>(c, c.real_of(0), c.int_arg(1)));
    return per_int_element<factorial_element<Step>>(c, 0, 1);
}

// rep_array(x, n[, m[, k]]): known ints of any dimensions; reals in the layouts of up to two
// dimensions (array[n, m] real and array[n] vector: a matrix with x in every row).
Value rep_array(CallSite& c) {
    if (c.args.size() < 2 || c.args.size() > 4)
        c.fail(fmt::format("rep_array takes 2 to 4 arguments, got {}", c.args.size()));
    std::vector<int> dims;
    std::size_t copies = 1;
    for (std::size_t k = 1; k < c.args.size(); ++k) {
        dims.push_back(c.int_arg(k));
        if (dims.back() < 0)
            c.fail(fmt::format("rep_array: size {} is negative", dims.back()));
        copies *= static_cast<std::size_t>(dims.back());
    }
    const Value& x = c.args[0];
    // in flat order the copies vary fastest, x's own elements slowest
    if (x.is_known_int()) {
        Value r;
        r.base = Base::Int;
        r.dims = dims;
        r.dims.insert(r.dims.end(), x.dims.begin(), x.dims.end());
        for (int v : x.ints) r.ints.insert(r.ints.end(), copies, v);
        return r;
    }
    Value r = x;
    r.dims = dims;
    r.dims.insert(r.dims.end(), x.dims.begin(), x.dims.end());
    const Expr e = flat_of(c, 0);
    const int n = static_cast<int>(copies);
    const Expr flat = e.shape().is_scalar() ? rep_vector(e, n) : to_vector(rep_matrix_rows(e, n));
    r.expr = in_layout(r, flat);
    return r;
}

Value rep_matrix_of(CallSite& c) {
    if (c.args.size() == 3)
        return CallSite::mat(rep_matrix(c.real_of(0), c.int_arg(1), c.int_arg(2)));
    c.arity(2);
    if (c.args[0].base == Base::RowVector)
        return CallSite::mat(rep_matrix_rows(c.real_of(0), c.int_arg(1)));
    return CallSite::mat(rep_matrix(c.real_of(0), c.int_arg(1)));
}

// gp_exp_quad_cov(x1[, x2], sigma, l): sigma^2 exp(-|x1_i - x2_j|^2 / (2 l^2)), with one
// length scale per dimension where l is an array (ARD). Points are reals (an array: a vector)
// or vectors (an array of them: a matrix, one point per row); the squared distances are sums
// over the dimensions of squared differences, so that the diagonal is exactly 0 (the expansion
// |a|^2 + |b|^2 - 2 a.b is not).
// gp_dot_prod_cov(x1[, x2], sigma): sigma^2 + x1_i . x2_j, points real or vectors (rows).
Value gp_dot_prod_cov_of(CallSite& c) {
    if (c.args.size() != 2 && c.args.size() != 3)
        c.fail(fmt::format("gp_dot_prod_cov takes 2 or 3 arguments, got {}", c.args.size()));
    const auto points = [&](std::size_t k) {
        const Expr x = c.real_of(k);
        return x.shape().is_matrix() ? x : to_matrix(x, x.shape().size(), 1);
    };
    const Expr x1 = points(0), x2 = c.args.size() == 3 ? points(1) : x1;
    if (x1.shape().cols != x2.shape().cols)
        c.fail(fmt::format("gp_dot_prod_cov: points of {} and {} dimensions", x1.shape().cols,
                           x2.shape().cols));
    const Value& sigma = c.args.back();
    if (sigma.level == 0) {
        try {
            if (const double s = c.m().evaluate(c.real_of(c.args.size() - 1)).at(0); !(s >= 0))
                c.fail(fmt::format("gp_dot_prod_cov: sigma must be non-negative, got {}", s));
        } catch (const ModelError&) {  // a parameter: its support's business
        }
    }
    return CallSite::mat(x1 * transpose(x2) + square(c.real_of(c.args.size() - 1)));
}

// eigenvalues_sym(A), eigenvectors_sym(A) and the tuple (eigenvectors, eigenvalues) of
// eigendecompose_sym (graph/ops_eigen.hpp).
Value eigen_sym_of(CallSite& c) {
    c.arity(1);
    const Expr a = c.real_of(0);
    const int n = a.shape().rows;
    const std::string& f = c.name();
    if (f == "eigenvalues_sym")
        return CallSite::vec(eigenvalues_sym(a), n);
    if (f == "eigenvectors_sym")
        return CallSite::mat(eigenvectors_sym(a));
    Value t;
    t.base = Base::Tuple;
    t.parts = {CallSite::mat(eigenvectors_sym(a)), CallSite::vec(eigenvalues_sym(a), n)};
    return t;
}

// matrix_exp(A), matrix_exp_multiply(A, B) = exp(A) B, scale_matrix_exp_multiply(t, A, B) =
// exp(t A) B (graph/ops_matrix_exp.hpp).
Value matrix_exp_of(CallSite& c) {
    const std::string& f = c.name();
    c.arity(f == "matrix_exp" ? 1 : f == "matrix_exp_multiply" ? 2 : 3);
    const std::size_t a = f == "scale_matrix_exp_multiply" ? 1 : 0;
    const std::vector<int>& sa = c.args[a].sizes;
    if (sa.at(0) != sa.at(1))
        c.fail(fmt::format("{}: A must be square, got {} x {}", f, sa[0], sa[1]));
    const Expr A = a == 1 ? c.real_of(0) * c.real_of(1) : c.real_of(0);
    if (f == "matrix_exp")
        return CallSite::mat(matrix_exp(A));
    const std::vector<int>& sb = c.args[a + 1].sizes;
    if (sb.at(0) != sa[0])
        c.fail(fmt::format("{}: B must have as many rows as A ({}), got {}", f, sa[0], sb[0]));
    return CallSite::mat(matrix_exp(A) * c.real_of(a + 1));
}

// hmm_marginal(log_omega, Gamma, rho) and hmm_hidden_state_prob (cpp/hmm.hpp): the sizes are
// checked here, where the message can name Stan's arguments.
Value hmm_of(CallSite& c) {
    c.arity(3);
    const Expr log_omega = c.real_of(0), Gamma = c.real_of(1), rho = c.real_of(2);
    const int K = c.args[0].sizes.at(0), N = c.args[0].sizes.at(1);
    if (c.args[1].sizes.at(0) != K || c.args[1].sizes.at(1) != K || c.args[2].sizes.at(0) != K) {
        c.fail(fmt::format(
            "{}: Gamma must be {} x {} and rho of size {} (log_omega has {} rows, "
            "one per state); got Gamma {} x {} and rho of size {}",
            c.name(), K, K, K, K, c.args[1].sizes[0], c.args[1].sizes[1], c.args[2].sizes[0]));
    }
    if (K == 0 || N == 0)
        c.fail(
            fmt::format("{}: log_omega is {} x {}; it needs at least one state and one "
                        "observation",
                        c.name(), K, N));
    if (c.name() == "hmm_marginal")
        return CallSite::real_scalar(hmm_marginal(log_omega, Gamma, rho));
    return CallSite::mat(hmm_hidden_state_prob(log_omega, Gamma, rho));
}

// trace_dot(A, B) = tr(A B) = sum_ij A_ij B_ji.
Value trace_dot_of(CallSite& c) {
    c.arity(2);
    const Expr a = c.real_of(0), b = c.real_of(1);
    if (a.shape().rows != b.shape().cols || a.shape().cols != b.shape().rows)
        c.fail(fmt::format("trace_dot: {} and {} (A B must be square)", a.shape().str(),
                           b.shape().str()));
    return CallSite::real_scalar(sum(elt_multiply(a, transpose(b))));
}

// The compressed-row matrix (m, n, w, v, u) dense: nonzero k at row i (u[i] <= k < u[i+1],
// 1-based) and column v[k]; checked as Stan checks it.
Expr csr_dense(CallSite& c) {
    const int m = c.int_arg(0), n = c.int_arg(1);
    const Expr w = c.real_of(2);
    const Value &v = c.args[3], &u = c.args[4];
    if (!v.is_known_int() || !u.is_known_int())
        c.fail(fmt::format("{}: v and u must be known ints", c.name()));
    const int nnz = w.shape().size();
    if (m <= 0 || n <= 0)
        c.fail(fmt::format("{}: m and n must be positive, got {} and {}", c.name(), m, n));
    if (static_cast<int>(u.ints.size()) != m + 1)
        c.fail(fmt::format("{}: u has {} elements for m = {} rows (needs m + 1)", c.name(),
                           u.ints.size(), m));
    if (static_cast<int>(v.ints.size()) != nnz || u.ints.back() - 1 != nnz)
        c.fail(fmt::format("{}: {} values, {} column indices and u[m + 1] - 1 = {} differ",
                           c.name(), nnz, v.ints.size(), u.ints.back() - 1));
    Eigen::VectorXi at = Eigen::VectorXi::Constant(static_cast<Eigen::Index>(m) * n, nnz);
    for (int i = 0; i < m; ++i) {
        const int from = u.ints[static_cast<std::size_t>(i)],
                  to = u.ints[static_cast<std::size_t>(i) + 1];
        if (from < 1 || to < from || to - 1 > nnz)
            c.fail(fmt::format("{}: u[{}] = {}, u[{}] = {} is no range of 1..{}", c.name(), i + 1,
                               from, i + 2, to, nnz));
        for (int k = from; k < to; ++k) {
            const int j = v.ints[static_cast<std::size_t>(k) - 1];
            if (j < 1 || j > n)
                c.fail(
                    fmt::format("{}: column index v[{}] = {} is not in 1..{}", c.name(), k, j, n));
            at[i + static_cast<Eigen::Index>(m) * (j - 1)] = k - 1;
        }
    }
    const Expr padded = append_row(w, c.lowerer.known_reals(Eigen::VectorXd::Zero(1)));
    return to_matrix(padded[at], m, n);
}

Value csr_to_dense_matrix_of(CallSite& c) {
    c.arity(5);
    return CallSite::mat(csr_dense(c));
}

Value csr_matrix_times_vector_of(CallSite& c) {
    c.arity(6);
    const Expr a = csr_dense(c), b = c.real_of(5);
    if (b.shape().size() != a.shape().cols)
        c.fail(fmt::format("csr_matrix_times_vector: b has {} elements for n = {}",
                           b.shape().size(), a.shape().cols));
    return CallSite::vec(a * b, a.shape().rows);
}

// Stan's stationary covariance functions of the distance between points (reals, or vectors
// as rows), in one set or between two: sigma^2 times
//   exp_quad     exp(-r^2 / 2)                       r = |x - x'| / l, or with a length scale
//   exponential  exp(-r)                                 per dimension (ARD): |(x - x') ./ l|
//   matern32     (1 + sqrt(3) r) exp(-sqrt(3) r)
//   matern52     (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)
//   periodic     exp(-2 sin^2(pi |x - x'| / p) / l^2)
// The distance of points that coincide is written sqrt(0 + 1) - 1, so that its derivative is
// 0 where sqrt's at 0 would make it NaN (Stan's abs(0) has derivative 0 too).
enum class Kernel { ExpQuad, Exponential, Matern32, Matern52, Periodic };

template <Kernel K>
Value stationary_cov_of(CallSite& c) {
    const std::size_t extra = K == Kernel::Periodic ? 1 : 0;  // the period
    const bool two_sets = c.args.size() == 4 + extra;
    if (c.args.size() != 3 + extra && !two_sets)
        c.fail(fmt::format("{} takes {} or {} arguments, got {}", c.name(), 3 + extra, 4 + extra,
                           c.args.size()));
    const Expr x1 = c.real_of(0), x2 = two_sets ? c.real_of(1) : x1;
    const std::size_t s = two_sets ? 2 : 1;
    const Expr sigma = c.real_of(s), l = c.real_of(s + 1);
    const bool points_are_vectors = c.args[0].base == Base::Vector;
    const int n1 = c.args[0].dims[0], n2 = c.args[two_sets ? 1 : 0].dims[0];
    const int dims = points_are_vectors ? c.args[0].sizes[0] : 1;
    if (points_are_vectors && two_sets && c.args[1].sizes[0] != dims) {
        c.fail(fmt::format("{}: the points have {} and {} dimensions", c.name(), dims,
                           c.args[1].sizes[0]));
    }
    const bool ard = c.args[s + 1].dims.size() == 1;
    if (ard && c.args[s + 1].dims[0] != dims) {
        c.fail(fmt::format("{}: {} length scales for points of {} dimensions", c.name(),
                           c.args[s + 1].dims[0], dims));
    }
    // sum over dimensions of the squared differences (divided by the ARD length scales)
    Expr squares;
    for (int k = 0; k < dims; ++k) {
        const Expr a = points_are_vectors ? col(x1, k) : x1;
        const Expr b = points_are_vectors ? col(x2, k) : x2;
        Expr d = square(rep_matrix(a, n2) - rep_matrix_rows(b, n1));
        if (ard)
            d = d / square(sum(segment(l, k, 1)));
        squares = k == 0 ? d : squares + d;
    }
    const bool scaled = K != Kernel::Periodic;  // periodic: l divides the sine's square
    if (scaled && !ard)
        squares = squares / square(l);
    const Expr variance = square(sigma);
    if constexpr (K == Kernel::ExpQuad) {
        return CallSite::mat(variance * exp(-0.5 * squares));
    } else {
        // 1 where the points coincide (step(0) = 1), else 0
        const Expr same = step(-squares);
        const Expr r = sqrt(squares + same) - same;
        Expr shape;
        if constexpr (K == Kernel::Exponential) {
            shape = exp(-r);
        } else if constexpr (K == Kernel::Matern32) {
            shape = elt_multiply(1.0 + std::sqrt(3.0) * r, exp(-std::sqrt(3.0) * r));
        } else if constexpr (K == Kernel::Matern52) {
            shape = elt_multiply(1.0 + std::sqrt(5.0) * r + (5.0 / 3.0) * squares,
                                 exp(-std::sqrt(5.0) * r));
        } else {
            const Expr p = c.real_of(s + 2);
            shape = exp(-2.0 * square(sin(M_PI * r / p)) / square(l));
        }
        return CallSite::mat(variance * shape);
    }
}

Value to_vector_of(CallSite& c, Base b) {
    c.arity(1);
    const Expr x = c.real_of(0);
    return CallSite::vec(x.shape().is_matrix()   ? to_vector(x)
                         : x.shape().is_scalar() ? rep_vector(x, 1)
                                                 : x,
                         static_cast<int>(c.args[0].size()), b);
}

Value to_matrix_of(CallSite& c) {
    if (c.args.size() == 3 || c.args.size() == 4) {
        // the elements in flat order, filled by columns (or by rows: a 4th argument of 0)
        const int m = c.int_arg(1), n = c.int_arg(2);
        const Expr flat = flat_of(c, 0);
        if (flat.shape().size() != m * n)
            c.fail(fmt::format("to_matrix: {} elements into a {} x {} matrix", flat.shape().size(),
                               m, n));
        if (c.args.size() == 4 && c.int_arg(3) == 0)
            return CallSite::mat(transpose(to_matrix(flat, n, m)));
        return CallSite::mat(to_matrix(flat, m, n));
    }
    c.arity(1);
    const Value& x = c.args[0];
    const Expr e = flat_of(c, 0);
    const int n = e.shape().size();
    if (x.base == Base::RowVector && x.dims.empty())
        return CallSite::mat(to_matrix(e, 1, n));
    if (x.dims.size() + x.sizes.size() == 1)  // a vector: one column
        return CallSite::mat(to_matrix(e, n, 1));
    return CallSite::mat(in_layout(x, e));  // a matrix, array[,] real or int, array[] row_vector
}

// Known ints of any dimensions: `count` elements of the outermost from `first` (0-based). The
// layout is column-major, the outer index fastest: element (i, rest) at i + n rest.
Value slice_outer_ints(CallSite& c, const Value& x, int first, int count) {
    const int n = x.dims.at(0);
    if (first < 0 || count < 0 || first + count > n)
        c.fail(fmt::format("{}: elements {}..{} of an array of {}", c.name(), first + 1,
                           first + count, n));
    Value r = x;
    r.dims[0] = count;
    r.ints.clear();
    const std::size_t rest = n == 0 ? 0 : x.ints.size() / static_cast<std::size_t>(n);
    for (std::size_t j = 0; j < rest; ++j) {
        for (int i = first; i < first + count; ++i) r.ints.push_back(x.ints[i + n * j]);
    }
    return r;
}

// `count` elements of the outermost dimension of argument 0 from `first` (0-based): a segment
// of a vector or one-dimensional array, else rows of the layout (value.hpp).
Value slice_outer(CallSite& c, int first, int count) {
    Value r = c.args[0];
    if (r.is_known_int() && !r.dims.empty())  // ints: known, sliced here
        return slice_outer_ints(c, r, first, count);
    if (r.is_int())
        c.fail(fmt::format("{} of ints known only per draw is not supported yet", c.name()));
    const int n = r.dims.empty() ? r.sizes.at(0) : r.dims[0];
    if (first < 0 || count < 0 || first + count > n)
        c.fail(fmt::format("{}: elements {}..{} of {} elements", c.name(), first + 1, first + count,
                           n));
    const Expr e = c.real_of(0);
    r.expr = e.shape().is_matrix() ? block(e, first, 0, count, e.shape().cols)
                                   : segment(e, first, count);
    (r.dims.empty() ? r.sizes : r.dims)[0] = count;
    return r;
}

Value head_or_tail(CallSite& c) {
    c.arity(2);
    const Value& x = c.args[0];
    const int n = c.int_arg(1), size = x.dims.empty() ? x.sizes.at(0) : x.dims[0];
    return slice_outer(c, c.name() == "head" ? 0 : size - n, n);
}

Value segment_of(CallSite& c) {
    c.arity(3);
    return slice_outer(c, c.int_arg(1) - 1, c.int_arg(2));
}

// append_col of matrices and vectors (a matrix), or of row vectors and reals (a row vector).
Value append_col_of(CallSite& c) {
    c.arity(2);
    const Value &a = c.args[0], &b = c.args[1];
    const auto row_like = [](const Value& v) { return v.base == Base::RowVector || v.is_scalar(); };
    if (!row_like(a) || !row_like(b))
        return CallSite::mat(append_col(c.real_of(0), c.real_of(1)));
    const auto as_vector = [&](std::size_t k) {
        const Expr e = c.real_of(k);
        return e.shape().is_scalar() ? rep_vector(e, 1) : e;
    };
    const Expr e = append_row(as_vector(0), as_vector(1));
    return CallSite::vec(e, e.shape().size(), Base::RowVector);
}

Value append_row_of(CallSite& c) {
    c.arity(2);
    Expr x = c.real_of(0), y = c.real_of(1);
    // a row vector stacked with a matrix or another row vector is a row of a matrix
    const bool rows = c.args[0].base == Base::RowVector || c.args[1].base == Base::RowVector;
    if (rows) {
        for (std::size_t k = 0; k < 2; ++k) {
            Expr& e = k == 0 ? x : y;
            if (c.args[k].base == Base::RowVector)
                e = to_matrix(e, 1, e.shape().size());
        }
    }
    const Expr e = append_row(x, y);
    if (e.shape().is_matrix())
        return CallSite::mat(e);
    return CallSite::vec(e, e.shape().size());
}

// f(matrix) -> matrix, f(matrix, matrix) -> matrix (the builder checks the shapes).
template <Expr (*F)(const Expr&)>
Value matrix1(CallSite& c) {
    c.arity(1);
    return CallSite::mat(F(c.real_of(0)));
}
template <Expr (*F)(const Arg&, const Arg&)>
Value matrix2(CallSite& c) {
    c.arity(2);
    return CallSite::mat(F(c.real_of(0), c.real_of(1)));
}
template <Expr (*F)(const Expr&)>
Value real1(CallSite& c) {
    c.arity(1);
    return CallSite::real_scalar(F(c.real_of(0)));
}

// add_diag(M, d): M with d (a scalar, or a vector of the diagonal's length) added to its
// diagonal.
Value add_diag_of(CallSite& c) {
    c.arity(2);
    const Value& M = c.args[0];
    const int n = std::min(M.sizes[0], M.sizes[1]);
    if (M.sizes[0] != M.sizes[1])
        c.fail(
            fmt::format("add_diag of a non-square matrix ({}) is not supported yet", type_str(M)));
    const Expr d = c.real_of(1);
    if (!c.args[1].is_scalar() && c.args[1].sizes[0] != n) {
        c.fail(
            fmt::format("add_diag: the diagonal has {} elements, got {}", n, type_str(c.args[1])));
    }
    const Expr v = c.args[1].is_scalar() ? rep_vector(d, n) : d;
    return CallSite::mat(c.real_of(0) + diag_matrix(v));
}

// symmetrize_from_lower_tri(M): the lower triangle (with the diagonal) mirrored above it.
Value symmetrize_from_lower_tri_of(CallSite& c) {
    c.arity(1);
    const Value& M = c.args[0];
    if (M.sizes[0] != M.sizes[1])
        c.fail(fmt::format("symmetrize_from_lower_tri needs a square matrix, got {}", type_str(M)));
    const int n = M.sizes[0];
    Eigen::MatrixXd strict = Eigen::MatrixXd::Zero(n, n);
    for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i) strict(i, j) = 1;
    const Eigen::VectorXd flat = Eigen::Map<const Eigen::VectorXd>(strict.data(), n * n);
    const Expr below = elt_multiply(c.real_of(0), to_matrix(c.lowerer.known_reals(flat), n, n));
    return CallSite::mat(below + transpose(below) + diag_matrix(diagonal(c.real_of(0))));
}

// transpose(m), and of a vector the row vector with its elements (the same node).
Value transpose_of(CallSite& c) {
    c.arity(1);
    const Value& v = c.args[0];
    if (v.base == Base::Vector || v.base == Base::RowVector)
        return CallSite::vec(c.real_of(0), v.sizes[0],
                             v.base == Base::Vector ? Base::RowVector : Base::Vector);
    return CallSite::mat(transpose(c.real_of(0)));
}

Value quad_form_of(CallSite& c) {
    c.arity(2);
    const Expr e = quad_form(c.real_of(0), c.real_of(1));
    return e.shape().is_scalar() ? CallSite::real_scalar(e) : CallSite::mat(e);
}

// A matrix or, for a vector right-hand side, a vector of kind `b`.
template <Expr (*F)(const Arg&, const Arg&), Base B>
Value divide(CallSite& c) {
    c.arity(2);
    const Expr e = F(c.real_of(0), c.real_of(1));
    return e.shape().is_matrix() ? CallSite::mat(e) : CallSite::vec(e, e.shape().size(), B);
}

// rows_dot_product and friends: a vector of kind `b`.
template <Expr (*F)(const Arg&, const Arg&), Base B>
Value dot_products(CallSite& c) {
    c.arity(2);
    const Expr e = F(c.real_of(0), c.real_of(1));
    return CallSite::vec(e, e.shape().size(), B);
}
template <Expr (*F)(const Expr&), Base B>
Value dot_selves(CallSite& c) {
    c.arity(1);
    const Expr e = F(c.real_of(0));
    return CallSite::vec(e, e.shape().size(), B);
}

// softmax and log_softmax of a vector or row vector, or of each of an array of them (rows of
// the layout).
template <bool Log>
Value softmaxes(CallSite& c) {
    c.arity(1);
    const Value& x = c.args[0];
    const Expr e = c.real_of(0);
    if (x.dims.empty())
        return CallSite::vec(Log ? log_softmax(e) : softmax(e), x.sizes[0], x.base);  // a row too
    const Expr logs = e - rep_matrix(log_sum_exp_rows(e), e.shape().cols);
    return CallSite::result_like(x, Log ? logs : exp(logs));
}

Value cumulative_sum_of(CallSite& c) {
    c.arity(1);
    Value r = c.args[0];
    r.expr = cumulative_sum(c.real_of(0));
    return CallSite::result_like(r, r.expr);
}

// --- _rng helpers

Expr sign(const Expr& x) {
    return 2.0 * step(x) - 1.0;
}

// The multivariate densities' Stan signatures (the library's table knows their shapes, not
// Stan's types); every other distribution's is derived from its row: `reals` arguments, `ints`
// for an integer variate and for the argument that bounds it (binomial's N).
// clang-format off
constexpr std::pair<std::string_view, std::string_view> kMultivariateSignatures[] = {
    // (the vectorised forms the lowering does: a mean per variate, or one for all)
    {"multi_normal",          "(vectors | vectors, matrix) => real"},
    {"multi_normal_cholesky", "(vectors | vectors, matrix) => real"},
    {"dirichlet",             "(vectors | vectors) => real"},
    {"categorical",           "(ints | vector) => real"},
    {"categorical_logit",     "(ints | vector) => real"},
    {"ordered_logistic",      "(int | real, vector) => real; (array[] int | vector, vector) => real"},
    {"lkj_corr_cholesky",     "(matrix | real) => real"},
    {"lkj_corr",              "(matrix | real) => real"},
    {"wishart",               "(matrix | real, matrix) => real"},
    {"inv_wishart",           "(matrix | real, matrix) => real"},
    {"wishart_cholesky",      "(matrix | real, matrix) => real"},
    {"inv_wishart_cholesky",  "(matrix | real, matrix) => real"},
    // (rows of the table whose arguments are ints: Stan's forms)
    {"discrete_range",        "(ints | ints, ints) => real"},
    {"hypergeometric",        "(int | int, int, int) => real"},
};
// clang-format on

// Stan's GLM densities: the density `base` of the linear predictor alpha + x * beta (x * beta
// for ordered_logistic_glm), with the GLM's other arguments in place: binomial's N before x,
// a scale or dispersion after beta. One lowering for all, through Stan's operators, so each
// takes every combination of argument types Stan allows, and its signatures are Stan's own.
struct Glm {
    std::string_view name, base;
    int x;  // x's position among the arguments after the variate
    bool alpha;
};
constexpr Glm kGlms[] = {
    {"bernoulli_logit_glm",    "bernoulli_logit",    0, true },
    {"poisson_log_glm",        "poisson_log",        0, true },
    {"neg_binomial_2_log_glm", "neg_binomial_2_log", 0, true },
    {"normal_id_glm",          "normal",             0, true },
    {"binomial_logit_glm",     "binomial_logit",     1, true },
    {"ordered_logistic_glm",   "ordered_logistic",   0, false},
};

Expr glm_density(DensitySite& s) {
    const Glm* glm = nullptr;
    for (const Glm& g : kGlms) {
        if (g.name == s.name)
            glm = &g;
    }
    if (glm == nullptr)
        throw InternalError(fmt::format("glm_density: `{}` is not a GLM", s.name));
    Lowerer& L = s.lowerer;
    const std::size_t x = static_cast<std::size_t>(glm->x), beta = x + (glm->alpha ? 2 : 1);
    Value eta = L.binary(BinaryOp::Multiply, s.args[x], s.args[beta], s.at);
    if (glm->alpha)
        eta = L.binary(BinaryOp::Add, s.args[x + 1], eta, s.at);
    std::vector<Value> args(s.args.begin(), s.args.begin() + static_cast<std::ptrdiff_t>(x));
    args.push_back(std::move(eta));
    args.insert(args.end(), s.args.begin() + static_cast<std::ptrdiff_t>(beta) + 1, s.args.end());
    return L.density(std::string(glm->base), s.y, args, s.at, s.per_iteration, s.variate);
}

Expr std_normal_density(DensitySite& s) {
    if (!s.args.empty())
        s.lowerer.fail(s.at, "std_normal takes no arguments");
    s.name = "normal";  // std_normal() = normal(0, 1)
    s.args = {s.lowerer.constant(0), s.lowerer.constant(1)};
    return library_density(s);
}

// wiener_lpdf(y | alpha, tau, beta, delta [, sv [, sw, st0]] [, precision]): the library's
// `wiener` takes all seven (0: no variability). The precision is Stan's bound on the log
// density's error; the series are summed to rounding (lib/advi/graph/ops_wiener.hpp), within
// any bound, and the averages over sw and st0 are fixed Gauss rules (lib/advi/dist/wiener.hpp).
void wiener_arguments(std::vector<Value>& args, Lowerer& lowerer) {
    if (args.size() == 6 || args.size() == 8)
        args.pop_back();  // the precision
    while (args.size() < 7) args.push_back(lowerer.constant(0));
}
Expr wiener_density(DensitySite& s) {
    wiener_arguments(s.args, s.lowerer);
    return library_density(s);
}

template <class Row>
const Row* find_in(std::span<const Row> rows, std::string_view name) {
    static const auto index = [&] {
        std::map<std::string_view, const Row*, std::less<>> m;
        for (const Row& r : rows) {
            if (!m.emplace(r.name, &r).second)
                throw InternalError(fmt::format("Stan function table: `{}` twice", r.name));
        }
        return m;
    }();
    const auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
}

}  // namespace

// `normal_lcdf(y | mu, sigma)`, `_lccdf`, `_cdf` (and std_normal's, as normal(0, 1)): the sum
// over the elements of log P(Y <= y), of log P(Y > y), and the product of P(Y <= y), as Stan's
// (lib/advi/dist/cdf.hpp). Inside a vectorised loop, of scalars per iteration.
// The variate and arguments of a CDF call as graph arguments: whole values, or inside a
// vectorised loop scalars per iteration spread over the loop's level.
struct CdfCall {
    Expr y;
    std::vector<Arg> args;
};
CdfCall cdf_arguments(CallSite& c) {
    CdfCall out;
    const int level = c.level;
    if (level == 0) {
        out.y = c.real_of(0);
        for (std::size_t k = 1; k < c.args.size(); ++k) out.args.emplace_back(c.real_of(k));
        return out;
    }
    for (const Value& a : c.args) {
        if (Lowerer::rank_of_value(a) != 0) {
            throw NotVectorisable(c.at, c.name() + " of containers that differ between iterations");
        }
    }
    const Value like = CallSite::real_scalar(Expr(), level);
    out.y = c.lowerer.spread(c.args[0], like, level, c.call.args[0].loc);
    for (std::size_t k = 1; k < c.args.size(); ++k)
        out.args.emplace_back(c.lowerer.spread(c.args[k], like, level, c.call.args[k].loc));
    return out;
}

Value cdf_function(CallSite& c) {
    const std::string& f = c.name();
    const std::size_t cut = f.rfind('_');
    const std::string suffix = f.substr(cut + 1), family = f.substr(0, cut);
    const Tail tail = suffix == "lccdf" ? Tail::Upper : Tail::Lower;
    const bool standard = family == "std_normal";
    const DistInfo& info = distribution(standard ? "normal" : family);
    CdfCall call = cdf_arguments(c);
    if (standard)
        call.args = {Arg(0.0), Arg(1.0)};
    if (cdf_sums_mass(info.name)) {
        // a finite sum of the mass function up to the variate (and beta_binomial's N): ints
        // known while lowering, made constants of the graph, which the sum's length is read
        // from; not a draw of an _rng, which differs between evaluations
        auto known = [&](std::size_t k, const Expr& e) {
            if (!c.args[k].is_known_int()) {
                c.fail(
                    fmt::format("{} of a {} that is drawn by an _rng is not supported yet: "
                                "its terms are summed up to a count known before the fit",
                                f, k == 0 ? "variate" : "count"));
            }
            Graph& g = const_cast<Graph&>(c.m().nodes());
            return c.m().wrap(constant_vector(g, c.m().evaluate(e), e.shape()));
        };
        call.y = known(0, call.y);
        for (std::size_t k = 0; k < call.args.size(); ++k) {
            if (info.arg_domains[k] == ArgDomain::Count)
                call.args[k] = Arg(known(k + 1, call.args[k].expr()));
        }
    }
    const Expr log_p = c.m().log_cdf(call.y, Dist{&info, call.args}, tail, c.level > 0);
    return CallSite::real_scalar(suffix == "cdf" ? exp(log_p) : log_p, c.level);
}

// Stan's forms, all reals or all vectors, with or without the precision: without the
// variabilities, and with sv, sw and st0 (lib/advi/dist/wiener.hpp).
constexpr const char* kWienerCdfForms =
    "(real, real, real, real, real) => real; (vector, vector, vector, vector, vector) => real; "
    "(real, real, real, real, real, real) => real; "
    "(vector, vector, vector, vector, vector, real) => real; "
    "(real, real, real, real, real, real, real, real) => real; "
    "(vector, vector, vector, vector, vector, vector, vector, vector) => real; "
    "(real, real, real, real, real, real, real, real, real) => real; "
    "(vector, vector, vector, vector, vector, vector, vector, vector, real) => real";

// wiener_lcdf_unnorm(y, alpha, tau, beta, delta [, sv, sw, st0] [, precision]) and
// wiener_lccdf_unnorm:
// log P(Y <= y) and log P(Y > y) of the upper boundary's defective distribution
// (lib/advi/dist/wiener.hpp), summed over the elements. The precision, Stan's bound on the error
// of the log, is met by the series (summed to rounding).
Value wiener_cdf_function(CallSite& c) {
    const Tail tail = c.name() == "wiener_lccdf_unnorm" ? Tail::Upper : Tail::Lower;
    CdfCall call = cdf_arguments(c);
    if (call.args.size() == 5 || call.args.size() == 8)
        call.args.pop_back();                                  // the precision
    while (call.args.size() < 7) call.args.emplace_back(0.0);  // no variability
    const Expr log_p =
        c.m().log_cdf_unnorm(call.y, Dist{&distribution("wiener"), call.args}, tail, c.level > 0);
    return CallSite::real_scalar(log_p, c.level);
}

std::span<const FunctionRow> functions() {
    static const std::vector<FunctionRow> table = [] {
        std::vector<FunctionRow> rows = {
  // clang-format off
        // constants
        {"pi",                sigs("() => real"), [](CallSite& c) { return constant(c, M_PI); }},
        {"e",                 sigs("() => real"), [](CallSite& c) { return constant(c, M_E); }},
        {"sqrt2",             sigs("() => real"), [](CallSite& c) { return constant(c, std::sqrt(2.0)); }},
        {"positive_infinity", sigs("() => real"), [](CallSite& c) { return constant(c, std::numeric_limits<double>::infinity()); }},
        {"negative_infinity", sigs("() => real"), [](CallSite& c) { return constant(c, -std::numeric_limits<double>::infinity()); }},
        {"not_a_number",      sigs("() => real"), [](CallSite& c) { return constant(c, std::numeric_limits<double>::quiet_NaN()); }},
        {"machine_precision", sigs("() => real"), [](CallSite& c) { return constant(c, std::numeric_limits<double>::epsilon()); }},
        // elementwise, one argument (Stan's log2() and log10() constants are not lowered)
        {"exp",                sigs("(T) => R"), unary<exp>},
        {"log",                sigs("(T) => R"), unary<log>},
        {"log1p",              sigs("(T) => R"), unary<log1p>},
        {"expm1",              sigs("(T) => R"), unary<expm1>},
        {"sqrt",               sigs("(T) => R"), unary<sqrt>},
        {"square",             sigs("(T) => R"), unary<square>},
        {"inv_logit",          sigs("(T) => R"), unary<inv_logit>},
        {"log_inv_logit",      sigs("(T) => R"), unary<log_inv_logit>},
        {"log1p_exp",          sigs("(T) => R"), unary<log1p_exp>},
        {"lgamma",             sigs("(T) => R"), unary<lgamma>},
        {"step",               sigs("(real) => real"), unary<step>},
        {"abs",                sigs("(int) => int; (T) => R"), abs_of},
        {"sin",                sigs("(T) => R"), unary<sin>},
        {"cos",                sigs("(T) => R"), unary<cos>},
        {"tanh",               sigs("(T) => R"), unary<tanh>},
        {"tan",               sigs("(T) => R"), unary<tan>},
        {"asin",              sigs("(T) => R"), unary<asin>},
        {"acos",              sigs("(T) => R"), unary<acos>},
        {"atan",              sigs("(T) => R"), unary<atan>},
        {"sinh",              sigs("(T) => R"), unary<sinh>},
        {"cosh",              sigs("(T) => R"), unary<cosh>},
        {"asinh",             sigs("(T) => R"), unary<asinh>},
        {"acosh",             sigs("(T) => R"), unary<acosh>},
        {"atanh",             sigs("(T) => R"), unary<atanh>},
        {"tgamma",            sigs("(T) => R"), unary<tgamma>},
        {"floor",             sigs("(T) => R"), unary<floor>},
        {"ceil",              sigs("(T) => R"), unary<ceil>},
        {"round",             sigs("(T) => R"), unary<round>},
        {"trunc",             sigs("(T) => R"), unary<trunc>},
        {"lambert_w0",        sigs("(T) => R"), unary<lambert_w0>},
        {"lambert_wm1",       sigs("(T) => R"), unary<lambert_wm1>},
        {"inv_Phi",           sigs("(T) => R"), unary<inv_Phi>},
        {"std_normal_qf",     sigs("(T) => R"), unary<inv_Phi>},
        {"std_normal_log_qf", sigs("(T) => R"), unary<std_normal_log_qf>},
        {"inv_erfc",          sigs("(T) => R"), unary<inv_erfc>},
        {"cbrt",               sigs("(T) => R"), unary<cbrt>},
        {"erf",                sigs("(T) => R"), unary<erf>},
        {"erfc",               sigs("(T) => R"), unary<erfc>},
        {"Phi",                sigs("(T) => R"), unary<Phi>},
        {"Phi_approx",         sigs("(T) => R"), unary<Phi_approx>},
        {"log1m",              sigs("(T) => R"), unary<log1m>},
        {"log1m_exp",          sigs("(T) => R"), unary<log1m_exp>},
        {"logit",              sigs("(T) => R"), unary<logit>},
        {"log1m_inv_logit",    sigs("(T) => R"), unary<log1m_inv_logit>},
        {"inv_cloglog",        sigs("(T) => R"), unary<inv_cloglog>},
        {"inv",                sigs("(T) => R"), unary<inv>},
        {"inv_sqrt",           sigs("(T) => R"), unary<inv_sqrt>},
        {"inv_square",         sigs("(T) => R"), unary<inv_square>},
        {"log2",               sigs("() => real; (T) => R"), [](CallSite& c) { return c.args.empty() ? c.lowerer.constant(M_LN2) : unary<log2>(c); }},
        {"log10",              sigs("() => real; (T) => R"), [](CallSite& c) { return c.args.empty() ? c.lowerer.constant(M_LN10) : unary<log10>(c); }},
        {"exp2",               sigs("(T) => R"), unary<exp2>},
        {"digamma",            sigs("(T) => R"), unary<digamma>},
        {"trigamma",           sigs("(T) => R"), unary<trigamma>},

        // elementwise, two arguments
        {"pow",          sigs("(T1, T2) => R"), binary<[](E x, E y) { return pow(x, y); }>},
        {"fmin",         sigs("(T1, T2) => R"), binary<[](E x, E y) { return fmin(x, y); }>},
        {"fmax",         sigs("(T1, T2) => R"), binary<[](E x, E y) { return fmax(x, y); }>},
        {"lmultiply",    sigs("(T1, T2) => R"), binary<[](E x, E y) { return lmultiply(x, y); }>},
        {"atan2",        sigs("(T1, T2) => R"), binary<[](E y, E x) { return atan2(y, x); }>},
        {"hypot",        sigs("(T1, T2) => R"), binary<[](E x, E y) { return hypot(x, y); }>},
        {"fmod",         sigs("(T1, T2) => R"), binary<[](E x, E y) { return fmod(x, y); }>},
        {"owens_t",      sigs("(T1, T2) => R"), binary<[](E h, E a) { return owens_t(h, a); }>},
        {"gamma_p",      sigs("(T1, T2) => R"), binary<[](E a, E x) { return gamma_p(a, x); }>},
        {"ldexp", all_stan("ldexp"), paired<[](E x, E n) { return times(x, exp2(n)); }>},
        {"gamma_q",      sigs("(T1, T2) => R"), binary<[](E a, E x) { return gamma_q(a, x); }>},
        {"inc_beta",     sigs("(real, real, real) => real"), inc_beta_of},
        {"inv_inc_beta", sigs("(real, real, real) => real"), scalars<3, [](E a, E b, E p) { return inv_inc_beta(a, b, p); }>},
        {"hypergeometric_1F0", sigs("(real, real) => real"), scalars<2, hypergeometric_1F0_of>},
        {"log_diff_exp", sigs("(T1, T2) => R"), binary<[](E x, E y) { return log_diff_exp(x, y); }>},
        {"lbeta",        sigs("(T1, T2) => R"), binary<[](E x, E y) { return lbeta(x, y); }>},
        {"beta",         sigs("(T1, T2) => R"), binary<[](E x, E y) { return exp(lbeta(x, y)); }>},
        {"lchoose",      sigs("(T1, T2) => R"), binary<[](E x, E y) { return lchoose(x, y); }>},
        {"fdim",         sigs("(T1, T2) => R"), binary<[](E x, E y) { return fmax(x - y, 0.0); }>},
        {"log_mix",      all_stan("log_mix"), log_mix},
        {"log_falling_factorial", sigs("(T1, T2) => R"), binary<[](E x, E n) { return lgamma(x + 1.0) - lgamma(x - n + 1.0); }>},
        {"log_rising_factorial",  sigs("(T1, T2) => R"), binary<[](E x, E n) { return lgamma(x + n) - lgamma(x); }>},
        {"rising_factorial", all_stan("rising_factorial"), whole<factorial_of<1>>},
        {"falling_factorial", all_stan("falling_factorial"), whole<factorial_of<-1>>},
        // log(inv_logit(x) - inv_logit(y)) = x + log1m_exp(y - x) - log1p_exp(x) - log1p_exp(y)
        {"log_inv_logit_diff",    sigs("(T1, T2) => R"), binary<[](E x, E y) { return x + log1m_exp(y - x) - log1p_exp(x) - log1p_exp(y); }>},
        {"binary_log_loss", all_stan("binary_log_loss"), paired<[](E y, E p) { return -(times(y, log(p)) + times(1.0 - y, log1m(p))); }>},
        // cumulative distribution functions of the library's (Stan's name for log Phi)
        {"std_normal_lcdf", sigs("(reals) => real"), std_normal_lcdf},
        {"wiener_lcdf_unnorm",  sigs(kWienerCdfForms), wiener_cdf_function},
        {"wiener_lccdf_unnorm", sigs(kWienerCdfForms), wiener_cdf_function},
        // sizes: known ints
        {"num_elements", sigs("(array[] T) => int; (vector) => int; (row_vector) => int; (matrix) => int"), sizes},
        {"size",         sigs("(array[] T) => int; (int) => int; (real) => int; (vector) => int; (row_vector) => int; (matrix) => int"), sizes},
        {"rows",         sigs("(vector) => int; (row_vector) => int; (matrix) => int"), sizes},
        {"dims",         sigs("(T) => array[] int"), sizes},
        {"choose", all_stan("choose"), choose_of},
        {"cols",         sigs("(vector) => int; (row_vector) => int; (matrix) => int"), sizes},
        // reductions
        {"sum",         sigs("(array[] int) => int; (array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real"), int_or_reduction},
        {"max",         sigs("(array[] int) => int; (int, int) => int; (array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real"), int_or_reduction},
        {"min",         sigs("(array[] int) => int; (int, int) => int; (array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real"), int_or_reduction},
        {"log_sum_exp", sigs("(array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real; (T1, T2) => R"), reduction},
        {"mean",        sigs("(array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real"), reduction},
        {"variance",    sigs("(array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real"), reduction},
        {"sd",          sigs("(array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real"), reduction},
        {"prod",        sigs("(array[] real) => real; (vector) => real; (row_vector) => real; (matrix) => real"), reduction},
        {"dot_self",    sigs("(vector) => real; (row_vector) => real"), reduction},
        {"dot_product", sigs("(vector, vector) => real; (vector, row_vector) => real; (row_vector, vector) => real; (row_vector, row_vector) => real; (array[] real, array[] real) => real"), dot_product},
        // building vectors and matrices
        {"rep_vector",     sigs("(real, int) => vector"), whole<[](CallSite& c) { return rep_vector_of(c, Base::Vector); }>},
        {"rep_row_vector", sigs("(real, int) => row_vector"), whole<[](CallSite& c) { return rep_vector_of(c, Base::RowVector); }>},
        {"rep_array", all_stan("rep_array"), whole<rep_array>},
        {"rep_matrix",     sigs("(real, int, int) => matrix; (vector, int) => matrix; (row_vector, int) => matrix"), whole<rep_matrix_of>},
        {"to_vector",      sigs("(vector) => vector; (row_vector) => vector; (matrix) => vector; (array[] real) => vector; (array[] int) => vector"), whole<[](CallSite& c) { return to_vector_of(c, Base::Vector); }>},
        {"to_row_vector",  sigs("(vector) => row_vector; (row_vector) => row_vector; (matrix) => row_vector; (array[] real) => row_vector; (array[] int) => row_vector"), whole<[](CallSite& c) { return to_vector_of(c, Base::RowVector); }>},
        {"to_matrix",      all_stan("to_matrix"), whole<to_matrix_of>},
        {"head", all_stan("head"), whole<head_or_tail>},
        {"tail", all_stan("tail"), whole<head_or_tail>},
        {"segment", all_stan("segment"), whole<segment_of>},
        {"append_row",     sigs("(matrix, matrix) => matrix; (matrix, row_vector) => matrix; (row_vector, matrix) => matrix; (row_vector, row_vector) => matrix; (vector, vector) => vector; (real, vector) => vector; (vector, real) => vector"), whole<append_row_of>},
        {"append_col",     all_stan("append_col"), whole<append_col_of>},
        // slices (1-based, as Stan)
        {"col",   sigs("(matrix, int) => vector"), whole<[](CallSite& c) { c.arity(2); return CallSite::vec(col(c.real_of(0), c.int_arg(1) - 1), c.args[0].sizes[0]); }>},
        {"row",   sigs("(matrix, int) => row_vector"), whole<[](CallSite& c) { c.arity(2); return CallSite::vec(row(c.real_of(0), c.int_arg(1) - 1), c.args[0].sizes[1], Base::RowVector); }>},
        {"sub_col", sigs("(matrix, int, int, int) => vector"), whole<[](CallSite& c) { c.arity(4); return CallSite::vec(col(block(c.real_of(0), c.int_arg(1) - 1, c.int_arg(2) - 1, c.int_arg(3), 1), 0), c.int_arg(3)); }>},
        {"sub_row", sigs("(matrix, int, int, int) => row_vector"), whole<[](CallSite& c) { c.arity(4); return CallSite::vec(row(block(c.real_of(0), c.int_arg(1) - 1, c.int_arg(2) - 1, 1, c.int_arg(3)), 0), c.int_arg(3), Base::RowVector); }>},
        {"block", sigs("(matrix, int, int, int, int) => matrix"), whole<[](CallSite& c) { c.arity(5); return CallSite::mat(block(c.real_of(0), c.int_arg(1) - 1, c.int_arg(2) - 1, c.int_arg(3), c.int_arg(4))); }>},
        // linear algebra
        {"diag_matrix",                       sigs("(vector) => matrix"), whole<matrix1<diag_matrix>>},
        {"diagonal",                          sigs("(matrix) => vector"), whole<[](CallSite& c) { c.arity(1); return CallSite::vec(diagonal(c.real_of(0)), c.args[0].sizes[0]); }>},
        {"diag_pre_multiply",                 sigs("(vector, matrix) => matrix; (row_vector, matrix) => matrix"), whole<matrix2<diag_pre_multiply>>},
        {"diag_post_multiply",                sigs("(matrix, vector) => matrix; (matrix, row_vector) => matrix"), whole<matrix2<diag_post_multiply>>},
        {"quad_form",                         sigs("(matrix, matrix) => matrix; (matrix, vector) => real"), whole<quad_form_of>},
        {"quad_form_diag",                    sigs("(matrix, vector) => matrix; (matrix, row_vector) => matrix"), whole<[](CallSite& c) { c.arity(2); return CallSite::mat(diag_pre_multiply(c.real_of(1), diag_post_multiply(c.real_of(0), c.real_of(1)))); }>},
        {"gp_exp_quad_cov",                   all_stan("gp_exp_quad_cov"), whole<stationary_cov_of<Kernel::ExpQuad>>},
        {"gp_exponential_cov",                all_stan("gp_exponential_cov"), whole<stationary_cov_of<Kernel::Exponential>>},
        {"gp_matern32_cov",                   all_stan("gp_matern32_cov"), whole<stationary_cov_of<Kernel::Matern32>>},
        {"gp_matern52_cov",                   all_stan("gp_matern52_cov"), whole<stationary_cov_of<Kernel::Matern52>>},
        {"gp_periodic_cov",                   all_stan("gp_periodic_cov"), whole<stationary_cov_of<Kernel::Periodic>>},
        {"crossprod",                         sigs("(matrix) => matrix"), whole<matrix1<crossprod>>},
        {"tcrossprod",                        sigs("(matrix) => matrix"), whole<matrix1<tcrossprod>>},
        {"transpose",                         sigs("(matrix) => matrix; (vector) => row_vector; (row_vector) => vector"), whole<transpose_of>},
        {"trace",                             sigs("(matrix) => real"), whole<real1<trace>>},
        {"trace_dot",                         all_stan("trace_dot"), whole<trace_dot_of>},
        {"gp_dot_prod_cov",                   all_stan("gp_dot_prod_cov"), whole<gp_dot_prod_cov_of>},
        {"csr_to_dense_matrix",               all_stan("csr_to_dense_matrix"), whole<csr_to_dense_matrix_of>},
        {"csr_matrix_times_vector",           all_stan("csr_matrix_times_vector"), whole<csr_matrix_times_vector_of>},
        {"eigenvalues_sym",                   all_stan("eigenvalues_sym"), whole<eigen_sym_of>},
        {"hmm_marginal",                      all_stan("hmm_marginal"), whole<hmm_of>},
        {"matrix_exp",                        all_stan("matrix_exp"), whole<matrix_exp_of>},
        {"singular_values",                   sigs("(matrix) => vector"), whole<svd_of>},
        {"csr_extract",                       all_stan("csr_extract"), whole<csr_extract_of>},
        {"csr_extract_w",                     all_stan("csr_extract_w"), whole<csr_extract_of>},
        {"csr_extract_v",                     all_stan("csr_extract_v"), whole<csr_extract_of>},
        {"csr_extract_u",                     all_stan("csr_extract_u"), whole<csr_extract_of>},
        {"svd_U",                             sigs("(matrix) => matrix"), whole<svd_of>},
        {"svd_V",                             sigs("(matrix) => matrix"), whole<svd_of>},
        {"svd",                               sigs("(matrix) => tuple(matrix, vector, matrix)"), whole<svd_of>},
        {"matrix_exp_multiply",               all_stan("matrix_exp_multiply"), whole<matrix_exp_of>},
        {"scale_matrix_exp_multiply",         all_stan("scale_matrix_exp_multiply"), whole<matrix_exp_of>},
        {"hmm_hidden_state_prob",             all_stan("hmm_hidden_state_prob"), whole<hmm_of>},
        {"eigenvectors_sym",                  all_stan("eigenvectors_sym"), whole<eigen_sym_of>},
        {"eigendecompose_sym",                all_stan("eigendecompose_sym"), whole<eigen_sym_of>},
        // QR decompositions (lower_decompositions.hpp)
        {"qr_thin_Q",                         all_stan("qr_thin_Q"), whole<qr_of>},
        {"qr_thin_R",                         all_stan("qr_thin_R"), whole<qr_of>},
        {"qr_Q",                              all_stan("qr_Q"), whole<qr_of>},
        {"qr_R",                              all_stan("qr_R"), whole<qr_of>},
        {"qr_thin",                           all_stan("qr_thin"), whole<qr_of>},
        {"qr",                                all_stan("qr"), whole<qr_of>},
        {"cholesky_decompose",                sigs("(matrix) => matrix"), whole<matrix1<cholesky_decompose>>},
        {"multiply_lower_tri_self_transpose", sigs("(matrix) => matrix"), whole<matrix1<multiply_lower_tri_self_transpose>>},
        {"log_determinant",                   sigs("(matrix) => real"), whole<real1<log_determinant>>},
        {"inverse",                           sigs("(matrix) => matrix"), whole<matrix1<inverse>>},
        {"inverse_spd",                       sigs("(matrix) => matrix"), whole<matrix1<inverse_spd>>},
        {"mdivide_left_tri_low",              sigs("(matrix, matrix) => matrix; (matrix, vector) => vector"), whole<divide<mdivide_left_tri_low, Base::Vector>>},
        {"mdivide_right_tri_low",             sigs("(matrix, matrix) => matrix; (row_vector, matrix) => row_vector"), whole<divide<mdivide_right_tri_low, Base::RowVector>>},
        {"rows_dot_product",                  sigs("(vector, vector) => vector; (row_vector, row_vector) => vector; (matrix, matrix) => vector"), whole<dot_products<rows_dot_product, Base::Vector>>},
        {"columns_dot_product",               sigs("(vector, vector) => row_vector; (row_vector, row_vector) => row_vector; (matrix, matrix) => row_vector"), whole<dot_products<columns_dot_product, Base::RowVector>>},
        {"rows_dot_self",                     sigs("(vector) => vector; (row_vector) => vector; (matrix) => vector"), whole<dot_selves<rows_dot_self, Base::Vector>>},
        {"columns_dot_self",                  sigs("(vector) => row_vector; (row_vector) => row_vector; (matrix) => row_vector"), whole<dot_selves<columns_dot_self, Base::RowVector>>},
        {"softmax",                           all_stan("softmax"), whole<softmaxes<false>>},
        {"log_softmax",                       all_stan("log_softmax"), whole<softmaxes<true>>},
        {"cumulative_sum",                    sigs("(array[] real) => array[] real; (vector) => vector; (row_vector) => row_vector"), whole<cumulative_sum_of>},
  // clang-format on
        };
        // The CDFs of every distribution with a row in lib/advi/dist/cdf_table.cpp, under
        // Stan's names where Stan has them, with the density's signatures.
        static std::deque<std::string> names;  // kept for the rows' views
        for (const CdfInfo& cdf : cdfs()) {
            const DensityRow* density = find_density(cdf.name);
            if (density == nullptr)
                continue;
            for (const char* suffix : {"_lcdf", "_lccdf", "_cdf"}) {
                const std::string name = std::string(cdf.name) + suffix;
                if (find_library_function(name) != nullptr)
                    rows.push_back({names.emplace_back(name), density->signatures, cdf_function});
            }
        }
        for (const char* name : {"std_normal_lccdf", "std_normal_cdf"})
            rows.push_back({name, sigs("(reals) => real"), cdf_function});
        // a composition through Stan's operators takes every signature Stan has
        rows.push_back({"fma", find_library_function("fma")->signatures, whole<fma_of>});
        rows.push_back({"lmgamma", all_stan("lmgamma"), lmgamma_of});
        // Stan's operators as functions
        const std::pair<const char*, Value (*)(CallSite&)> operators[] = {
            {"add",          whole<operator_of<BinaryOp::Add>>        },
            {"subtract",     whole<operator_of<BinaryOp::Subtract>>   },
            {"multiply",     whole<operator_of<BinaryOp::Multiply>>   },
            {"divide",       whole<operator_of<BinaryOp::Divide>>     },
            {"elt_multiply", whole<operator_of<BinaryOp::EltMultiply>>},
            {"elt_divide",   whole<operator_of<BinaryOp::EltDivide>>  },
        };
        // (their real forms: complex numbers are not lowered yet)
        auto real_forms = [](std::string_view name) {
            std::vector<Signature> out;
            for (const Signature& sig : find_library_function(name)->signatures) {
                if (str(sig).find("complex") == std::string::npos)
                    out.push_back(sig);
            }
            return out;
        };
        for (const auto& [name, lowering] : operators)
            rows.push_back({name, real_forms(name), lowering});
        rows.push_back({"minus",
                        sigs("(int) => int; (real) => real; (vector) => vector; (row_vector) => "
                             "row_vector; (matrix) => matrix; (array[] int) => array[] int; "
                             "(array[] real) => array[] real"),
                        whole<minus_of>});
        // container construction and distances: every signature Stan has
        const std::pair<const char*, Value (*)(CallSite&)> with_stan_signatures[] = {
            {"zeros_vector",                                       whole<Filled<0>::of>              },
            {"zeros_row_vector",                                   whole<Filled<0>::of>              },
            {"zeros_array",                                        whole<Filled<0>::of>              },
            {"zeros_int_array",                                    whole<Filled<0>::of>              },
            {"ones_vector",                                        whole<Filled<1>::of>              },
            {"ones_row_vector",                                    whole<Filled<1>::of>              },
            {"ones_array",                                         whole<Filled<1>::of>              },
            {"ones_int_array",                                     whole<Filled<1>::of>              },
            {"linspaced_vector",                                   whole<linspaced_of>               },
            {"linspaced_row_vector",                               whole<linspaced_of>               },
            {"linspaced_array",                                    whole<linspaced_of>               },
            {"linspaced_int_array",                                whole<linspaced_of>               },
            {"one_hot_vector",                                     whole<one_hot_of>                 },
            {"one_hot_row_vector",                                 whole<one_hot_of>                 },
            {"one_hot_array",                                      whole<one_hot_of>                 },
            {"one_hot_int_array",                                  whole<one_hot_of>                 },
            {"identity_matrix",                                    whole<identity_matrix_of>         },
            {"uniform_simplex",                                    whole<uniform_simplex_of>         },
            {"squared_distance",                                   whole<squared_distance_of>        },
            {"distance",                                           whole<distance_of>                },
            {"norm1",                                              whole<norm1_of>                   },
            {"norm2",                                              whole<norm2_of>                   },
            {"mdivide_left",                                       whole<mdivide_left_of<false>>     },
            {"mdivide_left_spd",                                   whole<mdivide_left_of<true>>      },
            {"mdivide_right",                                      whole<mdivide_right_of<false>>    },
            {"mdivide_right_spd",                                  whole<mdivide_right_of<true>>     },
            {"matrix_power",                                       whole<matrix_power_of>            },
            {"trace_quad_form",                                    whole<trace_quad_form_of>         },
            {"trace_gen_quad_form",                                whole<trace_gen_quad_form_of>     },
            {"quad_form_sym",                                      whole<quad_form_sym_of>           },
            {"chol2inv",                                           whole<chol2inv_of>                },
            {"log_determinant_spd",                                whole<log_determinant_spd_of>     },
            {"int_step",                                           int_step_of                       },
            {"bessel_first_kind",
             with_int_orders<[](E v,                                                                   E x) { return bessel_first_kind(v, x); }>},
            {"bessel_second_kind",
             with_int_orders<[](E v,                                                                   E x) { return bessel_second_kind(v, x); }>},
            {"log_modified_bessel_first_kind",
             with_int_orders<[](E v,E x) { return log_modified_bessel_first_kind(v, x); }>},
            {"student_t_qf",                               student_t_qf_of                                 },
            {"hypergeometric_2F1",                                       whole<hypergeometric_of>                           },
            {"hypergeometric_3F2",                                 whole<hypergeometric_of>    },
            {"hypergeometric_pFq",                                 whole<hypergeometric_of>          },
            {"modified_bessel_first_kind",
             with_int_orders<[](E v,           E x) { return modified_bessel_first_kind(v, x); }>},
            {"modified_bessel_second_kind",
             with_int_orders<[](E v,                                                                   E x) { return modified_bessel_second_kind(v, x); }>},
            {"append_array",                                                    whole<append_array_of>                                                         },
            {"sort_asc", whole<sort_of>},
            {"sort_desc",whole<sort_of>},
            {"sort_indices_asc",                                      whole<sort_indices_of>                                                                                                       },
            {"sort_indices_desc",                                                            whole<sort_indices_of>                                                                                                                                          },
            {"rank",whole<rank_of>},
            {"reverse",whole<reverse_of>},
            {"to_array_1d",                                              whole<to_array_1d_of>                                                                                                                                                            },
            {"to_array_2d",                                                                 whole<to_array_2d_of>                                                                                                                                                                                                                                        },
            {"to_int",whole<to_int_of>},
            {"is_nan",whole<is_nan_or_inf_of>},
            {"is_inf",                                                   whole<is_nan_or_inf_of>                                                                                                                                                                                                                             },
            {"quantile",                                                               whole<quantile_of>                                                                                                                                                                                                                                                                                                                                        },
            {"determinant",whole<real1<determinant>>},
            {"generalized_inverse",whole<matrix1<generalized_inverse>>},
            {"add_diag",                                                 whole<add_diag_of>                                                                                                                                                                                                                                                                                                   },
            {"symmetrize_from_lower_tri",                                              whole<symmetrize_from_lower_tri_of>                                                                                                                                                                                                                                                                                                                                                                                                                  },
        };
        // (every form Stan has: values of three or more dimensions are refused at their
        // declarations, "not supported yet")
        // the constraint transforms as functions (lower_transform_functions.hpp)
        static std::deque<std::string> transform_names;  // kept for the rows' views
        for (const char* t :
             {"lower_bound", "upper_bound", "lower_upper_bound", "offset_multiplier", "ordered",
              "positive_ordered", "simplex", "unit_vector", "sum_to_zero", "stochastic_row",
              "stochastic_column", "cholesky_factor_corr", "cholesky_factor_cov", "corr_matrix",
              "cov_matrix"}) {
            for (const char* suffix : {"_constrain", "_jacobian", "_unconstrain"}) {
                const std::string& name = transform_names.emplace_back(std::string(t) + suffix);
                rows.push_back({name, real_forms(name), whole<transform_function_of>});
            }
        }
        for (const auto& [name, lowering] : with_stan_signatures) {
            if (find_library_function(name) == nullptr)
                throw InternalError(fmt::format("`{}` is not in Stan's library", name));
            rows.push_back({name, real_forms(name), lowering});
        }
        // Complex forms (lower_complex.hpp): Stan's signatures with complex types, for the
        // functions lowered on complex values; the complex-only functions with all of theirs.
        // A complex form is lowered where its real form is (the parts go through it).
        auto realified_all = [](std::vector<StanType> types) {
            for (StanType& t : types) t = realified(t);
            return types;
        };
        for (const std::string_view name : complex_function_names(false)) {
            for (FunctionRow& r : rows) {
                if (r.name != name)
                    continue;
                const std::vector<Signature> real = r.signatures;
                for (const Signature& sig : find_library_function(name)->signatures) {
                    if (str(sig).find("complex") != std::string::npos &&
                        resolve(real, realified_all(sig.args)))
                        r.signatures.push_back(sig);
                }
            }
        }
        for (const std::string_view name : complex_function_names(true)) {
            rows.push_back({name, find_library_function(name)->signatures,
                            [](CallSite& c) { return *complex_call(c); }});
        }
        return rows;
    }();
    return table;
}

// Draws that are not elementwise; inside vectorised loops (d.level > 0) one per iteration, the
// iteration's vector a row of a matrix (its arguments there too: a vector that is the same in
// every iteration repeats). categorical: 1 + the number of cumulative probabilities at or
// below a uniform, the last left out (rounding cannot make the category K + 1); row cumulative
// sums as the product with an upper triangle of ones.
Expr per_iteration_rows(RandomDraw& d, std::size_t k) {
    const Value& v = d.args[k];
    const Expr e = d.lowerer.real(v, d.at);
    return v.level == 0 ? rep_matrix_rows(e, static_cast<int>(d.n)) : e;
}
Value categorical_draw(RandomDraw& d, bool logit) {
    const int K = d.args[0].sizes[0];
    Value r;
    r.base = Base::Int;
    r.level = d.level;
    if (d.level == 0) {
        Expr p = d.lowerer.real(d.args[0], d.at);
        if (logit)
            p = softmax(p);
        r.expr = K == 1 ? d.m().constant(1)
                        : 1.0 + sum(step(sum(d.inputs(1, false)) - head(cumulative_sum(p), K - 1)));
        return r;
    }
    const int B = static_cast<int>(d.n);
    if (K == 1) {
        r.expr = rep_vector(d.m().constant(1), B);
        return r;
    }
    Expr P = per_iteration_rows(d, 0);  // B x K
    if (logit) {
        const Expr E = exp(P - rep_matrix(log_sum_exp_rows(P), K));
        P = E;
    }
    Eigen::MatrixXd upper = Eigen::MatrixXd::Zero(K, K - 1);
    for (int j = 0; j < K - 1; ++j) upper.col(j).head(j + 1).setOnes();
    const Expr C = P * upper;  // B x (K - 1) cumulative sums
    r.expr = 1.0 + row_sums(step(rep_matrix(d.inputs(B, false), K - 1) - C));
    return r;
}
// multi_normal: mu + L z with L L' = Sigma and z standard normal; for an array of means, one
// draw per row (Z L', a row of Z each).
Value multi_normal_draw(RandomDraw& d, bool cholesky) {
    if (d.level > 0)
        throw NotVectorisable(d.at, "a multivariate normal draw per iteration");
    const Value& mu = d.args[0];
    const Expr S = d.lowerer.real(d.args[1], d.at);
    const Expr L = cholesky ? S : cholesky_decompose(S);
    const int K = mu.sizes[0];
    if (d.args[1].sizes[0] != K || d.args[1].sizes[1] != K) {
        d.lowerer.fail(d.at, fmt::format("the covariance is {}x{} for a mean of size {}",
                                         d.args[1].sizes[0], d.args[1].sizes[1], K));
    }
    if (mu.dims.empty())
        return CallSite::vec(d.lowerer.real(mu, d.at) + L * d.inputs(K, true), K);
    const int N = mu.dims[0];
    const Expr Z = to_matrix(d.inputs(static_cast<std::int64_t>(N) * K, true), N, K);
    Value r = CallSite::mat(d.lowerer.real(mu, d.at) + Z * transpose(L));
    r.base = Base::Vector;
    r.dims = {N};
    r.sizes = {K};
    return r;
}
// multi_student_t: mu + L z sqrt(nu / w), z standard normal, w chi-square(nu): one w per draw
// (per row of an array of means).
Value multi_student_t_draw(RandomDraw& d, bool cholesky) {
    if (d.level > 0)
        throw NotVectorisable(d.at, "a multivariate Student t draw per iteration");
    const Expr nu = d.lowerer.real(d.args[0], d.at);
    if (!nu.shape().is_scalar())
        d.lowerer.fail(d.at, "the degrees of freedom must be one real");
    const Value& mu = d.args[1];
    const Expr S = d.lowerer.real(d.args[2], d.at);
    const int K = mu.sizes.at(0);
    if (d.args[2].sizes.at(0) != K || d.args[2].sizes.at(1) != K) {
        d.lowerer.fail(d.at, fmt::format("the scale is {}x{} for a location of size {}",
                                         d.args[2].sizes[0], d.args[2].sizes[1], K));
    }
    const Expr L = cholesky ? S : cholesky_decompose(S);
    const int N = mu.dims.empty() ? 1 : mu.dims[0];
    const Expr w =
        d.quantile(Op::GammaQuantile, {d.inputs(N, false), 0.5 * nu, d.m().constant(0.5)});
    const Expr scale = sqrt(nu / w);  // one per draw
    if (mu.dims.empty())
        return CallSite::vec(d.lowerer.real(mu, d.at) + (L * d.inputs(K, true)) * sum(scale), K);
    const Expr Z = to_matrix(d.inputs(static_cast<std::int64_t>(N) * K, true), N, K);
    Value r = CallSite::mat(d.lowerer.real(mu, d.at) + diag_pre_multiply(scale, Z * transpose(L)));
    r.base = Base::Vector;
    r.dims = {N};
    r.sizes = {K};
    return r;
}

// multinomial: K - 1 binomial counts in turn, each of what is left with its share of the
// probability left; multinomial_logit of softmax(gamma), dirichlet_multinomial of a dirichlet
// draw. The counts as an int array known per draw.
Value multinomial_of(RandomDraw& d, Expr theta, const Value& n_value) {
    const int K = theta.shape().size();
    const Expr N = d.lowerer.real(n_value, d.at);
    if (!N.shape().is_scalar())
        d.lowerer.fail(d.at, "the number of trials must be one int");
    std::vector<Expr> counts;
    Expr left = N, share = d.m().constant(1.0);
    const Expr u = d.inputs(std::max(K - 1, 1), false);
    for (int k = 0; k + 1 < K; ++k) {
        const Expr p_k = sum(segment(theta, k, 1));
        // the conditional probability, kept in [0, 1] against rounding
        const Expr p = fmin(fmax(p_k / share, d.m().constant(0.0)), d.m().constant(1.0));
        const Expr n_k = d.quantile(Op::BinomialQuantile, {sum(segment(u, k, 1)), left, p});
        counts.push_back(n_k);
        left = left - n_k;
        share = share - p_k;
    }
    counts.push_back(left);
    Expr all = rep_vector(counts[0], 1);
    for (std::size_t k = 1; k < counts.size(); ++k) all = append_row(all, counts[k]);
    Value r;
    r.base = Base::Int;
    r.dims = {K};
    r.expr = all;
    return r;
}
Value multinomial_draw(RandomDraw& d, int form) {  // 0: theta, 1: logit, 2: dirichlet
    if (d.level > 0)
        throw NotVectorisable(d.at, "a multinomial draw per iteration");
    const Expr a = d.lowerer.real(d.args[0], d.at);
    Expr theta = a;
    if (form == 1) {
        theta = softmax(a);
    } else if (form == 2) {
        const int K = a.shape().size();
        const Expr g = d.quantile(Op::GammaQuantile, {d.inputs(K, false), a, d.m().constant(1)});
        theta = g / sum(g);
    }
    return multinomial_of(d, theta, d.args[1]);
}

// ordered_logistic(eta, c): 1 + the number of cut points with inv_logit(c_k - eta) < u.
Value ordered_logistic_draw(RandomDraw& d) {
    if (d.level > 0)
        throw NotVectorisable(d.at, "an ordered logistic draw per iteration");
    const Expr eta = d.lowerer.real(d.args[0], d.at), c = d.lowerer.real(d.args[1], d.at);
    Value r;
    r.base = Base::Int;
    r.expr = 1.0 + sum(step(sum(d.inputs(1, false)) - inv_logit(c - eta)));
    return r;
}

// bernoulli_logit_glm(x, alpha, beta): a bernoulli(inv_logit(x beta + alpha)) per row of x.
Value bernoulli_logit_glm_draw(RandomDraw& d) {
    if (d.level > 0)
        throw NotVectorisable(d.at, "a GLM draw per iteration");
    Expr x = d.lowerer.real(d.args[0], d.at);
    if (!x.shape().is_matrix())
        x = to_matrix(x, 1, x.shape().size());
    const Expr alpha = d.lowerer.real(d.args[1], d.at), beta = d.lowerer.real(d.args[2], d.at);
    const int n = x.shape().rows;
    if (beta.shape().size() != x.shape().cols)
        d.lowerer.fail(d.at, fmt::format("beta has {} values for {} columns of x",
                                         beta.shape().size(), x.shape().cols));
    if (!alpha.shape().is_scalar() && alpha.shape().size() != n)
        d.lowerer.fail(
            d.at, fmt::format("alpha has {} values for {} rows of x", alpha.shape().size(), n));
    const Expr p = inv_logit(x * beta + alpha);
    Value r;
    r.base = Base::Int;
    r.dims = {n};
    r.expr = step(p - d.inputs(n, false));
    return r;
}

// dirichlet: independent gamma(alpha_k, 1) draws, normalised.
Value dirichlet_draw(RandomDraw& d) {
    const int K = d.args[0].sizes[0];
    if (d.level == 0) {
        const Expr g =
            d.quantile(Op::GammaQuantile,
                       {d.inputs(K, false), d.lowerer.real(d.args[0], d.at), d.m().constant(1)});
        return CallSite::vec(g / sum(g), K);
    }
    const int B = static_cast<int>(d.n);
    const Expr U = to_matrix(d.inputs(static_cast<std::int64_t>(B) * K, false), B, K);
    const Expr G = d.quantile(Op::GammaQuantile, {U, per_iteration_rows(d, 0), d.m().constant(1)});
    Value r = CallSite::vec(G / rep_matrix(row_sums(G), K), K);
    r.level = d.level;
    return r;
}

// hmm_latent_rng(log_omega, Gamma, rho): one hidden path, N uniforms (cpp/hmm.hpp).
Value hmm_latent_draw(RandomDraw& d) {
    if (d.level != 0)
        d.lowerer.fail(d.at, "hmm_latent_rng inside a vectorised loop is not supported yet");
    const int K = d.args[0].sizes.at(0), N = d.args[0].sizes.at(1);
    if (d.args[1].sizes.at(0) != K || d.args[1].sizes.at(1) != K || d.args[2].sizes.at(0) != K)
        d.lowerer.fail(d.at, fmt::format("hmm_latent_rng: Gamma must be {} x {} and rho of size {} "
                                         "(log_omega has {} rows, one per state)",
                                         K, K, K, K));
    if (K == 0 || N == 0)
        d.lowerer.fail(d.at, fmt::format("hmm_latent_rng: log_omega is {} x {}; it needs at least "
                                         "one state and one observation",
                                         K, N));
    Value r;
    r.base = Base::Int;
    r.dims = {N};
    r.expr = hmm_latent(d.lowerer.real(d.args[0], d.at), d.lowerer.real(d.args[1], d.at),
                        d.lowerer.real(d.args[2], d.at), d.inputs(N, false));
    return r;
}

// hypergeometric_rng(N, a, b): successes in N draws without replacement from a successes and b
// failures, by the inverse of its CDF, known numbers (the three must be known before the fit).
Value hypergeometric_draw(RandomDraw& d) {
    if (d.level != 0)
        d.lowerer.fail(d.at, "hypergeometric_rng inside a vectorised loop is not supported yet");
    for (const Value& v : d.args) {
        if (!v.is_known_int() || !v.is_scalar())
            d.lowerer.fail(d.at,
                           "hypergeometric_rng: N, a and b must be ints known before the fit");
    }
    const int N = d.args[0].ints[0], a = d.args[1].ints[0], b = d.args[2].ints[0];
    if (N < 0 || a < 0 || b < 0 || N > a + b)
        d.lowerer.fail(d.at, fmt::format("hypergeometric_rng: needs 0 <= N <= a + b and a, b >= 0; "
                                         "got N = {}, a = {}, b = {}",
                                         N, a, b));
    const int lo = std::max(0, N - b), hi = std::min(N, a);
    auto lchoose = [](double n, double k) {
        return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
    };
    Value r;
    r.base = Base::Int;
    if (hi == lo) {
        r.expr = d.m().constant(lo);
        return r;
    }
    Eigen::VectorXd cdf(hi - lo);
    double total = 0;
    for (int n = lo; n < hi; ++n) {
        total += std::exp(lchoose(a, n) + lchoose(b, N - n) - lchoose(a + b, N));
        cdf[n - lo] = total;
    }
    const Expr u = sum(d.inputs(1, false));
    r.expr = static_cast<double>(lo) + sum(step(u - d.lowerer.known_reals(cdf)));
    return r;
}

std::span<const RandomRow> random_functions() {
    // `reals` results are real, or an array of the arguments' broadcast size; `ints` likewise.
    static const std::vector<RandomRow> table = {
  // clang-format off
        {"normal_rng",             sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) + d.arg(1) * d.normal(); }},
        {"std_normal_rng",         sigs("() => real"), [](RandomDraw& d) { return d.normal(); }},
        {"lognormal_rng",          sigs("(reals, reals) => reals"), [](RandomDraw& d) { return exp(d.arg(0) + d.arg(1) * d.normal()); }},
        {"exponential_rng",        sigs("(reals) => reals"), [](RandomDraw& d) { return -log(d.uniform()) / d.arg(0); }},
        {"uniform_rng",            sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) + (d.arg(1) - d.arg(0)) * d.uniform(); }},
        {"cauchy_rng",             sigs("(reals, reals) => reals"), [](RandomDraw& d) { const Expr a = M_PI * (d.uniform() - 0.5); return d.arg(0) + d.arg(1) * (sin(a) / cos(a)); }},
        {"logistic_rng",           sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) + d.arg(1) * logit(d.uniform()); }},
        {"exp_mod_normal_rng",     sigs("(reals, reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) + d.arg(1) * d.normal() - log(d.uniform()) / d.arg(2); }},
        {"skew_double_exponential_rng", sigs("(reals, reals, reals) => reals"), [](RandomDraw& d) {
             // the inverse CDF: below mu where u < tau
             const Expr u = d.uniform(), mu = d.arg(0), sigma = d.arg(1), tau = d.arg(2);
             const Expr below = mu + sigma / (2.0 * (1.0 - tau)) * log(u / tau);
             const Expr above = mu - sigma / (2.0 * tau) * log((1.0 - u) / (1.0 - tau));
             const Expr s = step(u - tau);
             return s * above + (1.0 - s) * below; }},
        {"gumbel_rng",             sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) - d.arg(1) * log(-log(d.uniform())); }},
        {"weibull_rng",            sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(1) * pow(-log(d.uniform()), 1.0 / d.arg(0)); }},
        {"rayleigh_rng",           sigs("(reals) => reals"), [](RandomDraw& d) { return d.arg(0) * sqrt(-2.0 * log(d.uniform())); }},
        {"loglogistic_rng",        sigs("(reals, reals) => reals"), [](RandomDraw& d) { const Expr u = d.uniform(); return d.arg(0) * pow(u / (1.0 - u), 1.0 / d.arg(1)); }},
        {"double_exponential_rng", sigs("(reals, reals) => reals"), [](RandomDraw& d) { const Expr c = d.uniform() - 0.5; return d.arg(0) - d.arg(1) * sign(c) * log1m(2.0 * fabs(c)); }},
        {"gamma_rng",              sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.quantile(Op::GammaQuantile, {d.uniform(), d.arg(0), d.arg(1)}); }},
        {"inv_gamma_rng",          sigs("(reals, reals) => reals"), [](RandomDraw& d) { return 1.0 / d.quantile(Op::GammaQuantile, {d.uniform(), d.arg(0), d.arg(1)}); }},
        {"chi_square_rng",         sigs("(reals) => reals"), [](RandomDraw& d) { return d.quantile(Op::GammaQuantile, {d.uniform(), 0.5 * d.arg(0), d.m().constant(0.5)}); }},
        {"inv_chi_square_rng",     sigs("(reals) => reals"), [](RandomDraw& d) { return 1.0 / d.quantile(Op::GammaQuantile, {d.uniform(), 0.5 * d.arg(0), d.m().constant(0.5)}); }},
        {"scaled_inv_chi_square_rng", sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) * square(d.arg(1)) / d.quantile(Op::GammaQuantile, {d.uniform(), 0.5 * d.arg(0), d.m().constant(0.5)}); }},
        // sigma (-log u)^(-1/alpha); ymin u^(-1/alpha); mu + lambda (u^(-1/alpha) - 1)
        {"frechet_rng",            sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(1) * pow(-log(d.uniform()), -1.0 / d.arg(0)); }},
        {"pareto_rng",             sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) * pow(d.uniform(), -1.0 / d.arg(1)); }},
        {"pareto_type_2_rng",      sigs("(reals, reals, reals) => reals"), [](RandomDraw& d) { return d.arg(0) + d.arg(1) * (pow(d.uniform(), -1.0 / d.arg(2)) - 1.0); }},
        // xi + omega (delta |z0| + sqrt(1 - delta^2) z1), delta = alpha / sqrt(1 + alpha^2)
        {"skew_normal_rng",        sigs("(reals, reals, reals) => reals"), [](RandomDraw& d) { const Expr delta = d.arg(2) / sqrt(1.0 + square(d.arg(2))); return d.arg(0) + d.arg(1) * (delta * fabs(d.normal()) + sqrt(1.0 - square(delta)) * d.normal()); }},
        {"beta_rng",               sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.quantile(Op::BetaQuantile, {d.uniform(), d.arg(0), d.arg(1)}); }},
        {"student_t_rng",          sigs("(reals, reals, reals) => reals"), [](RandomDraw& d) { return d.arg(1) + d.arg(2) * d.quantile(Op::StudentTQuantile, {d.uniform(), d.arg(0)}); }},
        {"von_mises_rng",          sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.quantile(Op::VonMisesQuantile, {d.uniform(), d.arg(0), d.arg(1)}); }},
        {"bernoulli_rng",          sigs("(reals) => ints"), [](RandomDraw& d) { return step(d.arg(0) - d.uniform()); }},
        {"bernoulli_logit_rng",    sigs("(reals) => ints"), [](RandomDraw& d) { return step(inv_logit(d.arg(0)) - d.uniform()); }},
        {"poisson_rng",            sigs("(reals) => ints"), [](RandomDraw& d) { return d.quantile(Op::PoissonQuantile, {d.uniform(), d.arg(0)}); }},
        {"poisson_log_rng",        sigs("(reals) => ints"), [](RandomDraw& d) { return d.quantile(Op::PoissonQuantile, {d.uniform(), exp(d.arg(0))}); }},
        {"binomial_rng",           sigs("(ints, reals) => ints"), [](RandomDraw& d) { return d.quantile(Op::BinomialQuantile, {d.uniform(), d.arg(0), d.arg(1)}); }},
        // failures before r successes of a beta-drawn success probability p: a negative
        // binomial of mean r (1 - p) / p and dispersion r
        {"beta_neg_binomial_rng",  sigs("(reals, reals, reals) => ints"), [](RandomDraw& d) { const Expr p = d.quantile(Op::BetaQuantile, {d.uniform(), d.arg(1), d.arg(2)}); return d.quantile(Op::NegBinomial2Quantile, {d.uniform(), d.arg(0) * (1.0 - p) / p, d.arg(0)}); }},
        // a binomial count of a beta-drawn probability
        {"beta_binomial_rng",      sigs("(ints, reals, reals) => ints"), [](RandomDraw& d) { return d.quantile(Op::BinomialQuantile, {d.uniform(), d.arg(0), d.quantile(Op::BetaQuantile, {d.uniform(), d.arg(1), d.arg(2)})}); }},
        {"neg_binomial_2_rng",     sigs("(reals, reals) => ints"), [](RandomDraw& d) { return d.quantile(Op::NegBinomial2Quantile, {d.uniform(), d.arg(0), d.arg(1)}); }},
        // neg_binomial(alpha, beta) is neg_binomial_2(alpha / beta, alpha)
        {"neg_binomial_rng",       sigs("(reals, reals) => ints"), [](RandomDraw& d) { return d.quantile(Op::NegBinomial2Quantile, {d.uniform(), d.arg(0) / d.arg(1), d.arg(0)}); }},
        {"beta_proportion_rng",    sigs("(reals, reals) => reals"), [](RandomDraw& d) { return d.quantile(Op::BetaQuantile, {d.uniform(), d.arg(0) * d.arg(1), (1.0 - d.arg(0)) * d.arg(1)}); }},
        // lower + floor(u (upper - lower + 1)), u < 1
        {"discrete_range_rng",     sigs("(ints, ints) => ints"), [](RandomDraw& d) { return fmin(d.arg(0) + floor(d.uniform() * (d.arg(1) - d.arg(0) + 1.0)), d.arg(1)); }},
        // a geometric count on 1, 2, ... with success probability e^-w, w ~ exponential(alpha)
        {"yule_simon_rng",         sigs("(reals) => ints"), [](RandomDraw& d) {
             const Expr w = -log(d.uniform()) / d.arg(0);
             return 1.0 + floor(log(d.uniform()) / log1m_exp(-w)); }},
        {"categorical_rng",           sigs("(vector) => int"), nullptr, [](RandomDraw& d) { return categorical_draw(d, false); }},
        {"categorical_logit_rng",     sigs("(vector) => int"), nullptr, [](RandomDraw& d) { return categorical_draw(d, true); }},
        {"multi_normal_rng",          sigs("(vector, matrix) => vector; (row_vector, matrix) => vector; (array[] vector, matrix) => array[] vector; (array[] row_vector, matrix) => array[] vector"), nullptr, [](RandomDraw& d) { return multi_normal_draw(d, false); }},
        {"multi_normal_cholesky_rng", sigs("(vector, matrix) => vector; (row_vector, matrix) => vector; (array[] vector, matrix) => array[] vector; (array[] row_vector, matrix) => array[] vector"), nullptr, [](RandomDraw& d) { return multi_normal_draw(d, true); }},
        {"dirichlet_rng",             sigs("(vector) => vector"), nullptr, dirichlet_draw},
        {"hmm_latent_rng",            all_stan("hmm_latent_rng"), nullptr, hmm_latent_draw},
        {"multi_student_t_rng",       sigs("(real, vector, matrix) => vector; (real, row_vector, matrix) => vector; (real, array[] vector, matrix) => array[] vector; (real, array[] row_vector, matrix) => array[] vector"), nullptr, [](RandomDraw& d) { return multi_student_t_draw(d, false); }},
        {"multi_student_t_cholesky_rng", sigs("(real, vector, matrix) => vector; (real, row_vector, matrix) => vector; (real, array[] vector, matrix) => array[] vector; (real, array[] row_vector, matrix) => array[] vector"), nullptr, [](RandomDraw& d) { return multi_student_t_draw(d, true); }},
        {"multinomial_rng",           all_stan("multinomial_rng"), nullptr, [](RandomDraw& d) { return multinomial_draw(d, 0); }},
        {"multinomial_logit_rng",     all_stan("multinomial_logit_rng"), nullptr, [](RandomDraw& d) { return multinomial_draw(d, 1); }},
        {"dirichlet_multinomial_rng", all_stan("dirichlet_multinomial_rng"), nullptr, [](RandomDraw& d) { return multinomial_draw(d, 2); }},
        {"wishart_rng",               all_stan("wishart_rng"), nullptr, [](RandomDraw& d) { return wishart_draw(d, false, false); }},
        {"wishart_cholesky_rng",      all_stan("wishart_cholesky_rng"), nullptr, [](RandomDraw& d) { return wishart_draw(d, false, true); }},
        {"inv_wishart_rng",           all_stan("inv_wishart_rng"), nullptr, [](RandomDraw& d) { return wishart_draw(d, true, false); }},
        {"inv_wishart_cholesky_rng",  all_stan("inv_wishart_cholesky_rng"), nullptr, [](RandomDraw& d) { return wishart_draw(d, true, true); }},
        {"lkj_corr_rng",              all_stan("lkj_corr_rng"), nullptr, [](RandomDraw& d) { return lkj_corr_draw(d, false); }},
        {"lkj_corr_cholesky_rng",     all_stan("lkj_corr_cholesky_rng"), nullptr, [](RandomDraw& d) { return lkj_corr_draw(d, true); }},
        {"ordered_logistic_rng",      all_stan("ordered_logistic_rng"), nullptr, ordered_logistic_draw},
        {"bernoulli_logit_glm_rng",   all_stan("bernoulli_logit_glm_rng"), nullptr, bernoulli_logit_glm_draw},
        {"hypergeometric_rng",        all_stan("hypergeometric_rng"), nullptr, hypergeometric_draw},
        {"neg_binomial_2_log_rng", sigs("(reals, reals) => ints"), [](RandomDraw& d) { return d.quantile(Op::NegBinomial2Quantile, {d.uniform(), exp(d.arg(0)), d.arg(1)}); }},
  // clang-format on
    };
    return table;
}

std::span<const DensityRow> densities() {
    static const std::vector<DensityRow> table = [] {
        std::vector<DensityRow> rows = {
            {"std_normal", sigs("(reals) => real"),                                                  std_normal_density},
            {"wiener",
             // (Stan's forms with sv take all reals or all vectors)
             sigs(
                 "(reals | reals, reals, reals, reals) => real; "
                 "(real | real, real, real, real, real) => real; "
                 "(vector | vector, vector, vector, vector, vector) => real; "
                 "(real | real, real, real, real, real, real) => real; "
                 "(vector | vector, vector, vector, vector, vector, real) => real; "
                 "(real | real, real, real, real, real, real, real) => real; "
                 "(vector | vector, vector, vector, vector, vector, vector, vector) => real; "
                 "(real | real, real, real, real, real, real, real, real) => real; "
                 "(vector | vector, vector, vector, vector, vector, vector, vector, real) => real"),
             wiener_density                                                                                            },
        };
        for (DensityRow& r : composite_densities()) rows.push_back(std::move(r));
        const std::size_t own_rows = rows.size();
        static std::deque<std::string> texts;  // derived signatures, kept for their views
        for (const DistInfo& info : distributions()) {
            // rows with a lowering of their own above
            if (std::any_of(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(own_rows),
                            [&](const DensityRow& r) { return r.name == info.name; }))
                continue;
            // Stan's distributions only (the library's `flat` is not one)
            if (find_library_function(std::string(info.name) + "_lpdf") == nullptr &&
                find_library_function(std::string(info.name) + "_lpmf") == nullptr)
                continue;
            std::string text;
            for (const auto& [name, signature] : kMultivariateSignatures) {
                if (name == info.name)
                    text = signature;
            }
            if (text.empty()) {
                text = info.variate == DType::Int ? "(ints" : "(reals";
                for (int k = 0; k < info.arity; ++k)
                    text += std::string(k == 0 ? " | " : ", ") +
                            (k == info.upper_arg ? "ints" : "reals");
                text += ") => real";
            }
            rows.push_back({info.name, sigs(texts.emplace_back(std::move(text))), library_density});
        }
        for (const Glm& g : kGlms) {
            const bool ints = g.base != "normal";
            const LibraryFunction* stan =
                find_library_function(std::string(g.name) + (ints ? "_lpmf" : "_lpdf"));
            if (stan == nullptr)
                throw InternalError(fmt::format("`{}` is not in Stan's library", g.name));
            std::vector<Signature> signatures = stan->signatures;
            for (Signature& sig : signatures) sig.density = true;
            rows.push_back({g.name, std::move(signatures), glm_density});
        }
        return rows;
    }();
    return table;
}

bool integer_variate(const DensityRow& row) {
    const TypeKind k = row.signatures.front().args.front().kind;
    return k == TypeKind::Int || k == TypeKind::Ints;
}

const FunctionRow* find_function(std::string_view name) {
    return find_in(functions(), name);
}

const RandomRow* find_random_function(std::string_view name) {
    return find_in(random_functions(), name);
}

const DensityRow* find_density(std::string_view family) {
    return find_in(densities(), family);
}

std::string_view density_suffix(std::string_view name) {
    for (std::string_view suffix : {"_lpdf", "_lpmf", "_lupdf", "_lupmf"}) {
        if (name.size() > suffix.size() && name.ends_with(suffix))
            return suffix;
    }
    return {};
}

std::string_view density_family(std::string_view name) {
    const std::string_view suffix = density_suffix(name);
    return suffix.empty() ? suffix : name.substr(0, name.size() - suffix.size());
}

std::string unavailable_reason(std::string_view f) {
    if (find_function(f) != nullptr)
        return {};
    if (f == "get_lp")
        return "`get_lp()` was removed from Stan (2.33): write `target()`";
    if (f.size() > 4 && f.ends_with("_log")) {
        const std::string_view d = f.substr(0, f.size() - 4);
        if (const DensityRow* row = find_density(d)) {
            const bool pmf = integer_variate(*row);
            return fmt::format("`{}`: Stan removed the `_log` suffix; write `{}{}`", f, d,
                               pmf ? "_lpmf" : "_lpdf");
        }
    }
    if (f == "fabs")
        return "`fabs` was removed from Stan (2.33): write `abs`";
    const LibraryFunction* library = find_library_function(f);
    if (library == nullptr || is_known_function(f))
        return {};
    if (library->variadic || library->higher_order()) {
        return fmt::format(
            "`{}` is not supported yet: a higher-order function of Stan's library that advi "
            "does not lower (it lowers the ODE and algebraic solvers, integrate_1d, map_rect, "
            "reduce_sum and the HMM functions; not the embedded Laplace functions or dae)",
            f);
    }
    return fmt::format(
        "`{}` is not supported yet: a Stan library function that advi does not "
        "lower",
        f);
}

bool is_known_function(std::string_view f) {
    if (find_function(f) != nullptr || find_ode_solver(f) != nullptr ||
        find_algebra_solver(f) != nullptr || find_integrator(f) != nullptr)
        return true;
    if (f.size() > 4 && f.ends_with("_rng"))
        return find_random_function(f) != nullptr;
    if (const std::string_view d = density_family(f); !d.empty())
        return is_known_distribution(d);
    return false;
}

bool is_known_distribution(std::string_view d) {
    return find_density(d) != nullptr;
}

}  // namespace advi::stan
