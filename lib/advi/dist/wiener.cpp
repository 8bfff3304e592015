// The Wiener first-passage time distribution of the upper boundary (wiener.hpp): the density's
// closed forms, the distribution function's op, and the averages over the variabilities.
#include <advi/dist/wiener.hpp>

#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/dist/quadrature.hpp>
#include <advi/graph/ops_wiener_cdf.hpp>

namespace advi {
namespace {

using Args = std::span<const NodeId>;

struct Arguments {
    NodeId y, alpha, tau, beta, delta, sv;
};

// log p(y | alpha, tau, beta, delta, sv): the first passage of a Wiener process with drift
// delta (drift variability sv, 0 for Stan's four-parameter form) through the upper of two
// boundaries alpha apart, started at beta alpha, after the non-decision time tau. With
// t = y - tau, u = t / alpha^2 and w = 1 - beta (the upper boundary is the lower one of the
// mirrored process, drift -delta started at 1 - beta: Navarro & Fuss 2009):
//   log p = -2 log alpha + log f(u | w) + delta alpha w - delta^2 t / 2                (sv = 0)
//   log p = -2 log alpha + log f(u | w) - log(1 + sv^2 t) / 2
//           + (sv^2 alpha^2 w^2 + 2 alpha delta w - delta^2 t) / (2 (1 + sv^2 t))   (sv > 0)
// the second the first with the drift integrated over normal(delta, sv) (Blurton et al. 2017).
NodeId log_density(Terms& t, const Arguments& a) {
    const NodeId time = t.sub(a.y, a.tau);
    const NodeId w = t.sub(t.c(1), a.beta);
    const NodeId u = t.div(time, t.f(Op::Square, a.alpha));
    NodeId sum = t.add(t.g().apply(Op::WienerLogF, u, w), t.mul(t.c(-2), t.f(Op::Log, a.alpha)));
    const NodeId delta_sq_t = t.mul(t.f(Op::Square, a.delta), time);
    const NodeId alpha_w = t.mul(a.alpha, w);
    if (t.g().const_value(a.sv) == 0.0)
        return t.add(sum, t.sub(t.mul(a.delta, alpha_w), t.mul(t.c(0.5), delta_sq_t)));
    const NodeId sv_sq = t.f(Op::Square, a.sv);
    const NodeId spread = t.add(t.c(1), t.mul(sv_sq, time));
    const NodeId numerator =
        t.sub(t.add(t.mul(sv_sq, t.f(Op::Square, alpha_w)), t.mul(t.c(2), t.mul(a.delta, alpha_w))),
              delta_sq_t);
    sum = t.add(sum, t.div(numerator, t.mul(t.c(2), spread)));
    return t.add(sum, t.mul(t.c(-0.5), t.f(Op::Log, spread)));
}

// log F or log(P - F) of the four parameters: the lower-boundary functions of the mirrored
// process, u = (y - tau) / alpha^2, w = 1 - beta, c = -delta alpha.
bool is_zero(const Graph& g, NodeId x) {
    return g.const_value(x) == 0.0;
}

// With drift variability sv, the drift -delta a is normal(-delta a, sv a) in these units.
NodeId log_cdf(Terms& t, const Arguments& a, Tail tail) {
    const NodeId u = t.div(t.sub(a.y, a.tau), t.f(Op::Square, a.alpha));
    const NodeId w = t.sub(t.c(1), a.beta);
    const NodeId c = t.neg(t.mul(a.delta, a.alpha));
    const wiener::CdfTail side =
        tail == Tail::Lower ? wiener::CdfTail::Lower : wiener::CdfTail::Upper;
    if (is_zero(t.g(), a.sv))
        return wiener::log_first_passage_cdf(t.g(), u, w, c, side);
    return wiener::log_first_passage_cdf_sv(t.g(), u, w, c, t.mul(a.sv, a.alpha), side);
}

// log(e^a + e^b) elementwise (one of them may be -inf).
NodeId log_sum_exp(Terms& t, NodeId a, NodeId b) {
    const NodeId hi = t.g().apply(Op::Fmax, a, b), lo = t.g().apply(Op::Fmin, a, b);
    return t.add(hi, t.f(Op::Log1pExp, t.sub(lo, hi)));
}

// What the integrand is at non-decision times that leave no time for the passage (y <= tau'):
// 0 (the density, P(Y <= y)), or its value at y = tau' (P(Y > y), the whole mass).
enum class BeyondReach { Zero, AtZeroTime };

// The average of e^{f} over the variabilities that are not the constant 0: the start point
// beta + sw (x - 1/2) and the non-decision time tau + st0 s (x, s uniform on [0, 1]). The
// non-decision time's rule covers only the part of its range that leaves time for the passage,
// [tau, tau + reach], reach = min(st0, y - tau): the integrand's part beyond is known
// (`beyond`), and the rule is not spent on it; that part can be most of the range for responses
// just after tau, where the integrand rises from 0 steeply.
template <class F>
NodeId averaged(Terms& t, Args args, NodeId y, BeyondReach beyond, F f) {
    Graph& g = t.g();
    const NodeId sw = args[5], st0 = args[6];
    Arguments a{y, args[0], args[1], args[2], args[3], args[4]};
    std::vector<const QuadratureRule*> rules;
    const bool vary_start = !is_zero(g, sw), vary_time = !is_zero(g, st0);
    if (vary_start)
        rules.push_back(&gauss_legendre_unit(kWienerStartPoints));
    if (vary_time)
        rules.push_back(&gauss_legendre_unit(kWienerNonDecisionPoints));
    if (rules.empty())
        return f(t, a);
    if (!t.shape().is_scalar() && !t.shape().is_vector()) {
        throw ShapeError(fmt::format(
            "wiener: with variability of the start point (sw) or the non-decision time (st0) "
            "the variate and the arguments must be scalars or vectors, got {}",
            t.shape().str()));
    }
    const Quadrature q(g, t.shape(), rules);
    // reach / st0, the share of the non-decision time's range before y: 1 where all of it is
    // (st0 = 0 too); the other branch's st0 clamped above 0, so that it stays finite
    NodeId reach = kNoNode, share = kNoNode;
    if (vary_time) {
        const NodeId time = t.sub(y, a.tau);
        reach = g.apply(Op::Fmax, t.c(0), g.apply(Op::Fmin, st0, time));
        share = g.apply(Op::Select, t.f(Op::Step, t.sub(time, st0)), t.c(1),
                        t.div(reach, g.apply(Op::Fmax, st0, t.c(1e-300))));
    }
    for (NodeId* x : {&a.y, &a.alpha, &a.tau, &a.beta, &a.delta, &a.sv}) *x = q.expand(*x);
    int next = 0;
    if (vary_start)
        a.beta = t.add(a.beta, t.mul(q.expand(sw), t.sub(q.variable(next++), t.c(0.5))));
    if (vary_time)
        a.tau = t.add(a.tau, t.mul(q.expand(reach), q.variable(next++)));
    NodeId value = f(t, a);
    if (vary_time) {
        // (reach / st0) E[f over the reach] + (1 - reach / st0) f beyond it
        share = q.expand(share);
        value = t.add(value, t.f(Op::Log, share));
        if (beyond == BeyondReach::AtZeroTime) {
            Arguments at_zero = a;
            at_zero.tau = a.y;
            // (1 - share clamped above 0: at share 1 the log's derivative would meet 0 / 0)
            const NodeId rest = t.g().apply(Op::Fmax, t.sub(t.c(1), share), t.c(1e-300));
            value = log_sum_exp(t, value, t.add(t.f(Op::Log, rest), f(t, at_zero)));
        }
    }
    return q.log_mean(value);
}

}  // namespace

void wiener_log_density(Terms& t, NodeId y, Args args) {
    t.add(averaged(t, args, y, BeyondReach::Zero,
                   [](Terms& tt, const Arguments& a) { return log_density(tt, a); }));
}

// Above tau where tau is a constant. Elsewhere the real line: the density itself is -inf at
// y <= tau (log f of u <= 0), so data need no check against a tau that is a parameter (the usual
// model: tau < min(y) declared on it), and a latent response time declares its own support.
Support wiener_support(const Graph& g, Args a) {
    if (const auto tau = g.const_value(a[1]))
        return Support::lower_bound(*tau);
    return Support::real();
}

NodeId wiener_log_cdf(Graph& g, NodeId y, Args args, Tail tail, bool elementwise) {
    const Shape shape = broadcast_of(g, distribution("wiener"), y, args);
    Terms t(g, shape, false, elementwise);
    const BeyondReach beyond = tail == Tail::Lower ? BeyondReach::Zero : BeyondReach::AtZeroTime;
    t.add(averaged(t, args, y, beyond,
                   [tail](Terms& tt, const Arguments& a) { return log_cdf(tt, a, tail); }));
    return t.total();
}

}  // namespace advi
