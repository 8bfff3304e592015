// The transforms of the walking skeleton, one row each. Bounded supports use
// theta = a + f(zeta) (lower), b - f(zeta) (upper) with f = exp (T1) or softplus (T2),
// and theta = a + (b - a) logit^-1(zeta) for intervals, as Stan.
#include "transform.hpp"

#include <cmath>

#include <fmt/format.h>

#include <advi/graph/error.hpp>

namespace advi {

Support Support::interval(double a, double b) {
    if (!(a < b)) {
        throw ModelError(fmt::format("interval({}, {}): the lower bound must be below the upper", a, b));
    }
    return {Kind::Interval, a, b};
}

std::string Support::str() const {
    switch (kind) {
        case Kind::Real: return "real";
        case Kind::Lower: return lower == 0 ? "positive" : fmt::format("lower({})", lower);
        case Kind::Upper: return fmt::format("upper({})", upper);
        case Kind::Interval: return fmt::format("interval({}, {})", lower, upper);
    }
    return "?";
}

namespace {

Shape same_shape(Shape s) { return s; }
NodeId sum(Graph& g, NodeId x) { return g.apply(Op::Sum, x); }
double log1p_exp(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
// softplus^-1(y) = log(exp(y) - 1) = y + log(-expm1(-y)), stable for large y.
double softplus_inv(double y) { return y + std::log(-std::expm1(-y)); }

// ---- real: identity
NodeId id_constrain(Graph&, NodeId z, const Support&) { return z; }
NodeId id_logdet(Graph& g, NodeId, NodeId, const Support&) { return g.constant(0.0); }
double id_value(double x, const Support&) { return x; }

// ---- lower(a), T1: theta = a + exp(zeta); log|J| = sum zeta
NodeId lower_log_constrain(Graph& g, NodeId z, const Support& s) {
    return g.apply(Op::Add, g.constant(s.lower), g.apply(Op::Exp, z));
}
NodeId log_logdet(Graph& g, NodeId z, NodeId, const Support&) { return sum(g, z); }
double lower_log_unconstrain(double x, const Support& s) { return std::log(x - s.lower); }
double lower_log_value(double z, const Support& s) { return s.lower + std::exp(z); }

// ---- upper(b), T1: theta = b - exp(zeta); log|J| = sum zeta
NodeId upper_log_constrain(Graph& g, NodeId z, const Support& s) {
    return g.apply(Op::Sub, g.constant(s.upper), g.apply(Op::Exp, z));
}
double upper_log_unconstrain(double x, const Support& s) { return std::log(s.upper - x); }
double upper_log_value(double z, const Support& s) { return s.upper - std::exp(z); }

// ---- lower(a), T2: theta = a + log(1 + exp(zeta)); d theta / d zeta = logit^-1(zeta),
// so log|J| = sum log logit^-1(zeta), computed without overflow.
NodeId lower_softplus_constrain(Graph& g, NodeId z, const Support& s) {
    return g.apply(Op::Add, g.constant(s.lower), g.apply(Op::Log1pExp, z));
}
NodeId softplus_logdet(Graph& g, NodeId z, NodeId, const Support&) {
    return sum(g, g.apply(Op::LogInvLogit, z));
}
double lower_softplus_unconstrain(double x, const Support& s) { return softplus_inv(x - s.lower); }
double lower_softplus_value(double z, const Support& s) { return s.lower + log1p_exp(z); }

// ---- upper(b), T2: theta = b - log(1 + exp(zeta))
NodeId upper_softplus_constrain(Graph& g, NodeId z, const Support& s) {
    return g.apply(Op::Sub, g.constant(s.upper), g.apply(Op::Log1pExp, z));
}
double upper_softplus_unconstrain(double x, const Support& s) { return softplus_inv(s.upper - x); }
double upper_softplus_value(double z, const Support& s) { return s.upper - log1p_exp(z); }

// ---- interval(a, b): theta = a + (b - a) logit^-1(zeta);
// d theta / d zeta = (b - a) logit^-1(zeta) logit^-1(-zeta), so
// log|J| = sum [log(b - a) + log logit^-1(zeta) + log logit^-1(-zeta)].
NodeId interval_constrain(Graph& g, NodeId z, const Support& s) {
    return g.apply(Op::Add, g.constant(s.lower),
                   g.apply(Op::Mul, g.constant(s.upper - s.lower), g.apply(Op::InvLogit, z)));
}
NodeId interval_logdet(Graph& g, NodeId z, NodeId, const Support& s) {
    const NodeId per = g.apply(Op::Add, g.apply(Op::LogInvLogit, z),
                               g.apply(Op::LogInvLogit, g.apply(Op::Neg, z)));
    const int n = g[z].shape.size();
    return g.apply(Op::Add, g.constant(n * std::log(s.upper - s.lower)), sum(g, per));
}
double interval_unconstrain(double x, const Support& s) {
    const double u = (x - s.lower) / (s.upper - s.lower);
    return std::log(u) - std::log1p(-u);
}
double interval_value(double z, const Support& s) {
    const double u = z >= 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z));
    return s.lower + (s.upper - s.lower) * u;
}

// clang-format off
constexpr Transform kIdentity       {"identity",       same_shape, id_constrain,             id_logdet,       id_value,                   id_value};
constexpr Transform kLowerLog       {"lower-log",      same_shape, lower_log_constrain,      log_logdet,      lower_log_unconstrain,      lower_log_value};
constexpr Transform kUpperLog       {"upper-log",      same_shape, upper_log_constrain,      log_logdet,      upper_log_unconstrain,      upper_log_value};
constexpr Transform kLowerSoftplus  {"lower-softplus", same_shape, lower_softplus_constrain, softplus_logdet, lower_softplus_unconstrain, lower_softplus_value};
constexpr Transform kUpperSoftplus  {"upper-softplus", same_shape, upper_softplus_constrain, softplus_logdet, upper_softplus_unconstrain, upper_softplus_value};
constexpr Transform kInterval       {"logit-interval", same_shape, interval_constrain,       interval_logdet, interval_unconstrain,       interval_value};
// clang-format on

}  // namespace

const Transform& transform_for(const Support& s, PositiveTransform t) {
    const bool softplus = t == PositiveTransform::Softplus;
    switch (s.kind) {
        case Support::Kind::Real: return kIdentity;
        case Support::Kind::Lower: return softplus ? kLowerSoftplus : kLowerLog;
        case Support::Kind::Upper: return softplus ? kUpperSoftplus : kUpperLog;
        case Support::Kind::Interval: return kInterval;
    }
    throw InternalError("transform_for: unknown support");
}

}  // namespace advi
