// Operators and functions on expressions: each interns one node in the model's graph.
#include <advi/cpp/expr.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <advi/cpp/model.hpp>

namespace advi {

Model& Expr::model() const {
    if (model_ == nullptr)
        throw ModelError("use of an empty expression (default-constructed Expr)");
    return *model_;
}

Shape Expr::shape() const {
    return model().nodes()[id_].shape;
}

Expr Expr::operator[](const Expr& idx) const {
    Model& m = model();
    if (idx.valid() && &idx.model() != &m)
        throw ModelError("index: expressions of two different models");
    // A matrix indexed by a vector of row numbers gives those rows (Stan's M[idx]).
    const Op op = shape().is_matrix() ? Op::GatherRows : Op::Gather;
    return m.wrap(const_cast<Graph&>(m.nodes()).apply(op, id_, idx.id()));
}

namespace detail {

Expr binary(Op op, const Expr& a, const Arg& b) {
    Model& m = a.model();
    return m.apply(op, a, m.wrap(m.resolve(b)));
}
Expr binary(Op op, double a, const Expr& b) {
    Model& m = b.model();
    return m.apply(op, m.wrap(m.resolve(a)), b);
}

}  // namespace detail

using detail::binary;

// One line per operator and function: the op each one builds.
// clang-format off
Expr operator+(const Expr& a, const Arg& b) { return binary(Op::Add, a, b); }
Expr operator+(double a, const Expr& b) { return binary(Op::Add, a, b); }
Expr operator-(const Expr& a, const Arg& b) { return binary(Op::Sub, a, b); }
Expr operator-(double a, const Expr& b) { return binary(Op::Sub, a, b); }
Expr operator*(const Expr& a, const Arg& b) {
    Model& m = a.model();
    const Expr e = m.wrap(m.resolve(b));
    if (a.shape().is_matrix() && e.shape().is_vector()) return m.apply(Op::MatVec, a, e);
    if (a.shape().is_matrix() && e.shape().is_matrix()) return m.apply(Op::MatMul, a, e);
    return m.apply(Op::Mul, a, e);
}
Expr operator*(double a, const Expr& b) { return binary(Op::Mul, a, b); }
Expr operator/(const Expr& a, const Arg& b) { return binary(Op::Div, a, b); }
Expr operator/(double a, const Expr& b) { return binary(Op::Div, a, b); }
Expr operator-(const Expr& a) { return a.model().apply(Op::Neg, a); }

Expr exp(const Expr& x) { return x.model().apply(Op::Exp, x); }
Expr log(const Expr& x) { return x.model().apply(Op::Log, x); }
Expr log1p(const Expr& x) { return x.model().apply(Op::Log1p, x); }
Expr expm1(const Expr& x) { return x.model().apply(Op::Expm1, x); }
Expr sqrt(const Expr& x) { return x.model().apply(Op::Sqrt, x); }
Expr square(const Expr& x) { return x.model().apply(Op::Square, x); }
Expr pow(const Expr& x, const Arg& y) { return binary(Op::Pow, x, y); }
Expr pow(double x, const Expr& y) { return binary(Op::Pow, x, y); }
Expr inv_logit(const Expr& x) { return x.model().apply(Op::InvLogit, x); }
Expr log_inv_logit(const Expr& x) { return x.model().apply(Op::LogInvLogit, x); }
Expr log1p_exp(const Expr& x) { return x.model().apply(Op::Log1pExp, x); }
Expr lgamma(const Expr& x) { return x.model().apply(Op::Lgamma, x); }
Expr sum(const Expr& x) { return x.model().apply(Op::Sum, x); }
Expr dot(const Expr& a, const Expr& b) { return a.model().apply(Op::Dot, a, b); }
// clang-format on

}  // namespace advi
