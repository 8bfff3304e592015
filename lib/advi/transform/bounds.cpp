// Bounded supports use theta = a + f(zeta) (lower), b - f(zeta) (upper) with f = exp (T1) or
// softplus (T2), and theta = a + (b - a) logit^-1(zeta) for intervals, as Stan.
#include <advi/transform/bounds.hpp>

#include <cmath>
#include <vector>

#include <advi/graph/const_vector.hpp>
#include <advi/graph/ops_constrain.hpp>

namespace advi {
namespace {

// softplus^-1(y) = log(exp(y) - 1) = y + log(-expm1(-y)), stable for large y.
double softplus_inv(double y) {
    return y + std::log(-std::expm1(-y));
}

// Elementwise numeric maps over a support's constant arguments.
template <class F>
Eigen::VectorXd each(const Eigen::VectorXd& x, const Support& s, F f) {
    if (s.has_expression())
        numeric_needs_constants(s);
    Eigen::VectorXd y(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) y[i] = f(x[i], static_cast<int>(i));
    return y;
}

// ---- real: identity
NodeId id_constrain(Graph&, NodeId z, Shape, const Support&) {
    return z;
}
NodeId id_logdet(Graph& g, NodeId, NodeId, const Support&) {
    return g.constant(0.0);
}
Eigen::VectorXd id_value(const Eigen::VectorXd& x, Shape, const Support&) {
    return x;
}

// ---- lower(a), T1: theta = a + exp(zeta); log|J| = sum zeta
NodeId lower_log_constrain(Graph& g, NodeId z, Shape shape, const Support& s) {
    return g.apply(Op::Add, support_arg_node(g, s.lower, shape), g.apply(Op::Exp, z));
}
NodeId log_logdet(Graph& g, NodeId z, NodeId, const Support&) {
    return g.apply(Op::Sum, z);
}
Eigen::VectorXd lower_log_unconstrain(const Eigen::VectorXd& x, Shape, const Support& s) {
    return each(x, s, [&](double v, int i) { return std::log(v - s.lower.at(i)); });
}
Eigen::VectorXd lower_log_value(const Eigen::VectorXd& z, Shape, const Support& s) {
    return each(z, s, [&](double v, int i) { return s.lower.at(i) + std::exp(v); });
}

// ---- upper(b), T1: theta = b - exp(zeta); log|J| = sum zeta
NodeId upper_log_constrain(Graph& g, NodeId z, Shape shape, const Support& s) {
    return g.apply(Op::Sub, support_arg_node(g, s.upper, shape), g.apply(Op::Exp, z));
}
Eigen::VectorXd upper_log_unconstrain(const Eigen::VectorXd& x, Shape, const Support& s) {
    return each(x, s, [&](double v, int i) { return std::log(s.upper.at(i) - v); });
}
Eigen::VectorXd upper_log_value(const Eigen::VectorXd& z, Shape, const Support& s) {
    return each(z, s, [&](double v, int i) { return s.upper.at(i) - std::exp(v); });
}

// ---- lower(a), T2: theta = a + log(1 + exp(zeta)); d theta / d zeta = logit^-1(zeta),
// so log|J| = sum log logit^-1(zeta), computed without overflow.
NodeId lower_softplus_constrain(Graph& g, NodeId z, Shape shape, const Support& s) {
    return g.apply(Op::Add, support_arg_node(g, s.lower, shape), g.apply(Op::Log1pExp, z));
}
NodeId softplus_logdet(Graph& g, NodeId z, NodeId, const Support&) {
    return g.apply(Op::Sum, g.apply(Op::LogInvLogit, z));
}
Eigen::VectorXd lower_softplus_unconstrain(const Eigen::VectorXd& x, Shape, const Support& s) {
    return each(x, s, [&](double v, int i) { return softplus_inv(v - s.lower.at(i)); });
}
Eigen::VectorXd lower_softplus_value(const Eigen::VectorXd& z, Shape, const Support& s) {
    return each(z, s, [&](double v, int i) { return s.lower.at(i) + fused::log1p_exp(v); });
}

// ---- upper(b), T2: theta = b - log(1 + exp(zeta))
NodeId upper_softplus_constrain(Graph& g, NodeId z, Shape shape, const Support& s) {
    return g.apply(Op::Sub, support_arg_node(g, s.upper, shape), g.apply(Op::Log1pExp, z));
}
Eigen::VectorXd upper_softplus_unconstrain(const Eigen::VectorXd& x, Shape, const Support& s) {
    return each(x, s, [&](double v, int i) { return softplus_inv(s.upper.at(i) - v); });
}
Eigen::VectorXd upper_softplus_value(const Eigen::VectorXd& z, Shape, const Support& s) {
    return each(z, s, [&](double v, int i) { return s.upper.at(i) - fused::log1p_exp(v); });
}

// ---- interval(a, b): theta = a + (b - a) logit^-1(zeta);
// d theta / d zeta = (b - a) logit^-1(zeta) logit^-1(-zeta), so
// log|J| = sum [log(b - a) + log logit^-1(zeta) + log logit^-1(-zeta)].
// b - a: computed now for constant bounds, else a node.
NodeId width(Graph& g, const Support& s, Shape shape, bool log) {
    if (!s.lower.is_expression() && !s.upper.is_expression()) {
        const int n = s.lower.is_scalar() && s.upper.is_scalar() ? 1 : shape.size();
        std::vector<double> w(n);
        for (int i = 0; i < n; ++i) {
            w[i] = s.upper.at(i) - s.lower.at(i);
            if (log)
                w[i] = std::log(w[i]);
        }
        return n == 1 ? g.constant(w[0]) : constant_vector(g, w, shape);
    }
    const NodeId d =
        g.apply(Op::Sub, support_arg_node(g, s.upper, shape), support_arg_node(g, s.lower, shape));
    return log ? g.apply(Op::Log, d) : d;
}
NodeId interval_constrain(Graph& g, NodeId z, Shape shape, const Support& s) {
    return g.apply(Op::Add, support_arg_node(g, s.lower, shape),
                   g.apply(Op::Mul, width(g, s, shape, false), g.apply(Op::InvLogit, z)));
}
NodeId interval_logdet(Graph& g, NodeId z, NodeId, const Support& s) {
    const Shape shape = g[z].shape;
    const NodeId per = g.apply(Op::Add, g.apply(Op::LogInvLogit, z),
                               g.apply(Op::LogInvLogit, g.apply(Op::Neg, z)));
    return g.apply(Op::Add, sum_over(g, width(g, s, shape, true), shape), g.apply(Op::Sum, per));
}
Eigen::VectorXd interval_unconstrain(const Eigen::VectorXd& x, Shape, const Support& s) {
    return each(x, s, [&](double v, int i) {
        const double a = s.lower.at(i);
        const double b = s.upper.at(i);
        // logit((v - a) / (b - a)) = log(v - a) - log(b - v)
        return std::log(v - a) - std::log(b - v);
    });
}
Eigen::VectorXd interval_value(const Eigen::VectorXd& z, Shape, const Support& s) {
    return each(z, s, [&](double v, int i) {
        const double a = s.lower.at(i);
        return a + (s.upper.at(i) - a) * fused::inv_logit(v);
    });
}

}  // namespace

// clang-format off
const Transform kIdentityTransform      {"identity",       "any shape", fits_any_shape, same_shape, id_constrain,             id_logdet,       id_value,                   id_value};
const Transform kLowerLogTransform      {"lower-log",      "any shape", fits_any_shape, same_shape, lower_log_constrain,      log_logdet,      lower_log_unconstrain,      lower_log_value};
const Transform kUpperLogTransform      {"upper-log",      "any shape", fits_any_shape, same_shape, upper_log_constrain,      log_logdet,      upper_log_unconstrain,      upper_log_value};
const Transform kLowerSoftplusTransform {"lower-softplus", "any shape", fits_any_shape, same_shape, lower_softplus_constrain, softplus_logdet, lower_softplus_unconstrain, lower_softplus_value};
const Transform kUpperSoftplusTransform {"upper-softplus", "any shape", fits_any_shape, same_shape, upper_softplus_constrain, softplus_logdet, upper_softplus_unconstrain, upper_softplus_value};
const Transform kIntervalTransform      {"logit-interval", "any shape", fits_any_shape, same_shape, interval_constrain,       interval_logdet, interval_unconstrain,       interval_value};
// clang-format on

}  // namespace advi
