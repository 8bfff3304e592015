// Scalar functions of the DSL: ops intern one node through Model::apply (which converts
// integer data to real); compositions are built from the operators and other functions.
#include <advi/cpp/math.hpp>

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <advi/cpp/model.hpp>
#include <advi/graph/ops_incomplete.hpp>
#include <advi/graph/ops_special.hpp>

namespace advi {
namespace {

Expr unary(Op op, const Expr& x) {
    return x.model().apply(op, x);
}
// op(x, y) for arguments of which one at least is an expression (detail::operands).
Expr binary(Op op, std::string_view fn, const Arg& x, const Arg& y) {
    const std::vector<Expr> e = detail::operands(fn, {&x, &y});
    return e[0].model().apply(op, e[0], e[1]);
}

}  // namespace

Expr step(const Expr& x) {
    return unary(Op::Step, x);
}
Expr fabs(const Expr& x) {
    return unary(Op::Fabs, x);
}
Expr abs(const Expr& x) {
    return unary(Op::Fabs, x);
}
Expr sin(const Expr& x) {
    return unary(Op::Sin, x);
}
Expr cos(const Expr& x) {
    return unary(Op::Cos, x);
}
Expr tanh(const Expr& x) {
    return unary(Op::Tanh, x);
}
Expr tan(const Expr& x) {
    return unary(Op::Tan, x);
}
Expr asin(const Expr& x) {
    return unary(Op::Asin, x);
}
Expr acos(const Expr& x) {
    return unary(Op::Acos, x);
}
Expr atan(const Expr& x) {
    return unary(Op::Atan, x);
}
Expr sinh(const Expr& x) {
    return unary(Op::Sinh, x);
}
Expr cosh(const Expr& x) {
    return unary(Op::Cosh, x);
}
Expr asinh(const Expr& x) {
    return unary(Op::Asinh, x);
}
Expr acosh(const Expr& x) {
    const Expr d = x - 1.0;
    return log1p(d + sqrt(d * (x + 1.0)));
}
Expr atanh(const Expr& x) {
    return unary(Op::Atanh, x);
}
Expr tgamma(const Expr& x) {
    return unary(Op::Tgamma, x);
}
Expr floor(const Expr& x) {
    return unary(Op::Floor, x);
}
Expr ceil(const Expr& x) {
    return unary(Op::Ceil, x);
}
Expr round(const Expr& x) {
    return unary(Op::Round, x);
}
Expr trunc(const Expr& x) {
    return unary(Op::Trunc, x);
}
Expr cbrt(const Expr& x) {
    return unary(Op::Cbrt, x);
}
Expr lambert_w0(const Expr& x) {
    return unary(Op::LambertW0, x);
}
Expr lambert_wm1(const Expr& x) {
    return unary(Op::LambertWm1, x);
}
Expr inv_erfc(const Expr& x) {
    return unary(Op::InvErfc, x);
}
Expr inv_Phi(const Expr& p) {
    return -std::numbers::sqrt2 * inv_erfc(2.0 * p);
}
Expr std_normal_log_qf(const Expr& lp) {
    return inv_Phi(exp(lp));
}
Expr erf(const Expr& x) {
    return unary(Op::Erf, x);
}
Expr erfc(const Expr& x) {
    return unary(Op::Erfc, x);
}
Expr Phi(const Expr& x) {
    return unary(Op::Phi, x);
}
Expr log_Phi(const Expr& x) {
    return unary(Op::LogPhi, x);
}
Expr log1m_exp(const Expr& x) {
    return unary(Op::Log1mExp, x);
}
Expr log_bessel_i0(const Expr& x) {
    return unary(Op::LogBesselI0, x);
}
Expr digamma(const Expr& x) {
    return unary(Op::Digamma, x);
}
Expr trigamma(const Expr& x) {
    return unary(Op::Trigamma, x);
}
Expr fmin(const Arg& x, const Arg& y) {
    return binary(Op::Fmin, "fmin", x, y);
}
Expr fmax(const Arg& x, const Arg& y) {
    return binary(Op::Fmax, "fmax", x, y);
}
Expr lmultiply(const Arg& x, const Arg& y) {
    return binary(Op::Lmultiply, "lmultiply", x, y);
}
Expr atan2(const Arg& y, const Arg& x) {
    return binary(Op::Atan2, "atan2", y, x);
}
Expr hypot(const Arg& x, const Arg& y) {
    return binary(Op::Hypot, "hypot", x, y);
}
Expr if_else(const Expr& c, const Arg& a, const Arg& b) {
    const std::vector<Expr> e = detail::operands("if_else", {&a, &b});
    Model& m = c.model();
    if (&e[0].model() != &m)
        throw ModelError("if_else: an expression of another model was used here");
    // Three inputs: interned through the graph itself, as linalg.cpp's nodes with attributes.
    Graph& g = const_cast<Graph&>(m.nodes());
    auto real = [&](const Expr& x) {
        return g[x.id()].dtype == DType::Int ? g.apply(Op::ToReal, x.id()) : x.id();
    };
    return m.wrap(g.apply(Op::Select, real(c), real(e[0]), real(e[1])));
}
namespace {
// op(args) through the graph itself (ops with attributes), int data converted to real.
// `exp_of`: exp of the op's node (the log-scale ops), else the node itself.
template <class Make>
Expr through_graph(std::string_view fn, std::initializer_list<const Arg*> args, Make make,
                   bool exp_of = true) {
    const std::vector<Expr> e = detail::operands(fn, args);
    Model& m = e[0].model();
    Graph& g = const_cast<Graph&>(m.nodes());
    std::vector<NodeId> ids;
    for (const Expr& x : e) {
        if (&x.model() != &m)
            throw ModelError(fmt::format("{}: an expression of another model was used here", fn));
        ids.push_back(g[x.id()].dtype == DType::Int ? g.apply(Op::ToReal, x.id()) : x.id());
    }
    const NodeId r = make(g, ids);
    return m.wrap(exp_of ? g.apply(Op::Exp, r) : r);
}
}  // namespace

Expr gamma_p(const Arg& a, const Arg& x) {
    return through_graph("gamma_p", {&a, &x}, [](Graph& g, const std::vector<NodeId>& in) {
        return incomplete::log_inc_gamma(g, in[0], in[1], incomplete::Tail::Lower);
    });
}
Expr gamma_q(const Arg& a, const Arg& x) {
    return through_graph("gamma_q", {&a, &x}, [](Graph& g, const std::vector<NodeId>& in) {
        return incomplete::log_inc_gamma(g, in[0], in[1], incomplete::Tail::Upper);
    });
}
Expr inc_beta(const Arg& a, const Arg& b, const Arg& x) {
    return through_graph("inc_beta", {&a, &b, &x}, [](Graph& g, const std::vector<NodeId>& in) {
        return incomplete::log_inc_beta(g, in[0], in[1], in[2], incomplete::Tail::Lower);
    });
}

Expr log_modified_bessel_first_kind(const Arg& v, const Arg& z) {
    return through_graph(
        "log_modified_bessel_first_kind", {&v, &z},
        [](Graph& g, const std::vector<NodeId>& in) {
            return special::log_bessel_i(g, in[0], in[1]);
        },
        false);
}
Expr hypergeometric_pFq(const Arg& a, const Arg& b, const Arg& z, std::string_view name) {
    return through_graph(
        name, {&a, &b, &z},
        [](Graph& g, const std::vector<NodeId>& in) {
            return special::hypergeometric_pfq(g, in[0], in[1], in[2]);
        },
        false);
}
Expr inv_inc_beta(const Arg& a, const Arg& b, const Arg& p) {
    return through_graph(
        "inv_inc_beta", {&a, &b, &p},
        [](Graph& g, const std::vector<NodeId>& in) {
            return special::inv_inc_beta(g, in[0], in[1], in[2]);
        },
        false);
}

Expr bessel_first_kind(const Arg& v, const Arg& x) {
    return binary(Op::BesselJ, "bessel_first_kind", v, x);
}
Expr bessel_second_kind(const Arg& v, const Arg& x) {
    return binary(Op::BesselY, "bessel_second_kind", v, x);
}
Expr modified_bessel_first_kind(const Arg& v, const Arg& x) {
    return binary(Op::BesselI, "modified_bessel_first_kind", v, x);
}
Expr modified_bessel_second_kind(const Arg& v, const Arg& x) {
    return binary(Op::BesselK, "modified_bessel_second_kind", v, x);
}
Expr owens_t(const Arg& h, const Arg& a) {
    return binary(Op::OwensT, "owens_t", h, a);
}
Expr fmod(const Arg& x, const Arg& y) {
    return binary(Op::Fmod, "fmod", x, y);
}

// log1p(-x) keeps the digits of a small x that 1 - x would round away.
Expr log1m(const Expr& x) {
    return log1p(-x);
}
Expr inv(const Expr& x) {
    return 1.0 / x;
}
Expr inv_sqrt(const Expr& x) {
    return 1.0 / sqrt(x);
}
Expr inv_square(const Expr& x) {
    return 1.0 / square(x);
}
// log(x) - log1p(-x) rather than log(x / (1 - x)): near 0 log1p(-x) keeps x's digits, near 1
// 1 - x is exact (Sterbenz) inside log1p.
Expr logit(const Expr& x) {
    return log(x) - log1p(-x);
}
// log(1 - logit^-1(x)) = log logit^-1(-x): no cancellation in 1 - logit^-1(x) for large x.
Expr log1m_inv_logit(const Expr& x) {
    return log_inv_logit(-x);
}
// 1 - exp(-exp(x)) = -expm1(-exp(x)): exact where exp(x) is tiny (x very negative).
Expr inv_cloglog(const Expr& x) {
    return -expm1(-exp(x));
}
// Stan's logistic approximation of Phi: logit^-1(0.07056 x^3 + 1.5976 x), factored as
// x (0.07056 x^2 + 1.5976).
Expr Phi_approx(const Expr& x) {
    return inv_logit(x * (0.07056 * square(x) + 1.5976));
}
Expr log2(const Expr& x) {
    return log(x) / std::numbers::ln2;
}
Expr log10(const Expr& x) {
    return log(x) / std::numbers::ln10;
}
Expr exp2(const Expr& x) {
    return exp(x * std::numbers::ln2);
}

// log(e^x - e^y) = x + log(1 - e^(y - x)): never forms e^x (no overflow), and log1m_exp is
// stable for y - x near 0 and far below.
Expr log_diff_exp(const Arg& x, const Arg& y) {
    const std::vector<Expr> e = detail::operands("log_diff_exp", {&x, &y});
    return e[0] + log1m_exp(e[1] - e[0]);
}
// log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b). Its derivatives digamma(a) -
// digamma(a + b) follow from lgamma's rule. (For a, b both above ~1e7 the three terms cancel
// to a few digits; the densities here do not reach that range.)
Expr lbeta(const Arg& a, const Arg& b) {
    const std::vector<Expr> e = detail::operands("lbeta", {&a, &b});
    return lgamma(e[0]) + lgamma(e[1]) - lgamma(e[0] + e[1]);
}
// log C(n, k) = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1).
Expr lchoose(const Arg& n, const Arg& k) {
    const std::vector<Expr> e = detail::operands("lchoose", {&n, &k});
    return lgamma(e[0] + 1.0) - lgamma(e[1] + 1.0) - lgamma(e[0] - e[1] + 1.0);
}
// log Gamma_k(x) = k (k - 1) / 4 log(pi) + sum_{j=1..k} lgamma(x + (1 - j) / 2).
Expr lmgamma(int k, const Expr& x) {
    if (k < 1)
        throw ModelError(fmt::format("lmgamma: the dimension `k` must be at least 1, got {}", k));
    Expr total = lgamma(x);
    for (int j = 2; j <= k; ++j) total = total + lgamma(x + (1.0 - j) / 2);
    return total + k * (k - 1) / 4.0 * std::log(std::numbers::pi);
}

}  // namespace advi
