// Operators and functions on expressions: each interns one node in the model's graph.
#include <advi/cpp/expr.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <advi/cpp/model.hpp>

namespace advi {

namespace detail {

std::vector<double> evaluate_on_constant(Expr (*fn)(const Expr&), const Arg& x, Shape* shape) {
    Model scratch;
    const Expr r = fn(scratch.wrap(scratch.resolve(x)));
    *shape = r.shape();
    return scratch.evaluate(r);
}

}  // namespace detail

Model& Expr::model() const {
    if (model_ == nullptr)
        throw ModelError("use of an empty expression (default-constructed Expr)");
    return *model_;
}

Shape Expr::shape() const {
    return model().nodes()[id_].shape;
}

Expr Expr::operator[](const Arg& idx) const {
    const Arg self(*this);
    const std::vector<Expr> e = detail::operands("index", {&self, &idx});
    Model& m = model();
    // A matrix indexed by a vector of row numbers gives those rows (Stan's M[idx]).
    const Op op = shape().is_matrix() ? Op::GatherRows : Op::Gather;
    return m.wrap(const_cast<Graph&>(m.nodes()).apply(op, id_, e[1].id()));
}

namespace detail {

std::vector<Expr> operands(std::string_view fn, std::initializer_list<const Arg*> args) {
    Model* model = nullptr;
    for (const Arg* a : args) {
        if (!a->is_expr())
            continue;
        Model* m = &a->expr().model();
        if (model != nullptr && m != model)
            throw ModelError(fmt::format("{}: expressions of two different models", fn));
        model = m;
    }
    if (model == nullptr) {
        throw ModelError(fmt::format(
            "{}: no argument is an expression of a model (compute a function of constants "
            "alone with Eigen)",
            fn));
    }
    std::vector<Expr> out;
    out.reserve(args.size());
    for (const Arg* a : args) out.push_back(model->wrap(model->resolve(*a)));
    return out;
}

Expr binary(Op op, const Expr& a, const Arg& b) {
    Model& m = a.model();
    return m.apply(op, a, m.wrap(m.resolve(b)));
}
Expr binary(Op op, const Arg& a, const Expr& b) {
    Model& m = b.model();
    return m.apply(op, m.wrap(m.resolve(a)), b);
}
Expr product(const Arg& a, const Arg& b) {
    const std::vector<Expr> e = operands("*", {&a, &b});
    Model& m = e[0].model();
    const Shape sa = e[0].shape(), sb = e[1].shape();
    if (sa.is_matrix() && sb.is_vector())
        return m.apply(Op::MatVec, e[0], e[1]);
    if (sa.is_matrix() && sb.is_matrix())
        return m.apply(Op::MatMul, e[0], e[1]);
    return m.apply(Op::Mul, e[0], e[1]);
}

}  // namespace detail

using detail::binary;

// One line per operator and function: the op each one builds.
// clang-format off
Expr operator+(const Expr& a, const Arg& b) { return binary(Op::Add, a, b); }
Expr operator-(const Expr& a, const Arg& b) { return binary(Op::Sub, a, b); }
Expr operator*(const Expr& a, const Arg& b) { return detail::product(a, b); }
Expr operator/(const Expr& a, const Arg& b) { return binary(Op::Div, a, b); }
Expr operator-(const Expr& a) { return a.model().apply(Op::Neg, a); }

Expr exp(const Expr& x) { return x.model().apply(Op::Exp, x); }
Expr log(const Expr& x) { return x.model().apply(Op::Log, x); }
Expr log1p(const Expr& x) { return x.model().apply(Op::Log1p, x); }
Expr expm1(const Expr& x) { return x.model().apply(Op::Expm1, x); }
Expr sqrt(const Expr& x) { return x.model().apply(Op::Sqrt, x); }
Expr square(const Expr& x) { return x.model().apply(Op::Square, x); }
Expr pow(const Expr& x, const Arg& y) { return binary(Op::Pow, x, y); }
Expr inv_logit(const Expr& x) { return x.model().apply(Op::InvLogit, x); }
Expr log_inv_logit(const Expr& x) { return x.model().apply(Op::LogInvLogit, x); }
Expr log1p_exp(const Expr& x) { return x.model().apply(Op::Log1pExp, x); }
Expr lgamma(const Expr& x) { return x.model().apply(Op::Lgamma, x); }
Expr sum(const Expr& x) { return x.model().apply(Op::Sum, x); }
Expr dot(const Arg& a, const Arg& b) {
    const std::vector<Expr> e = detail::operands("dot", {&a, &b});
    return e[0].model().apply(Op::Dot, e[0], e[1]);
}
// clang-format on

}  // namespace advi
