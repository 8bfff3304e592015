// Expression handles of the embedded DSL: an Expr is an interned node of a Model's graph
// (like Halide's Expr), with the usual operators and functions. Scalars broadcast.
#pragma once

#include <algorithm>
#include <concepts>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include <advi/graph/graph.hpp>

namespace advi {

class Model;
class Arg;

class Expr {
public:
    Expr() = default;
    Expr(Model* model, NodeId id) : model_(model), id_(id) {}

    [[nodiscard]] Model& model() const;
    [[nodiscard]] NodeId id() const { return id_; }
    [[nodiscard]] Shape shape() const;
    [[nodiscard]] bool valid() const { return model_ != nullptr; }

    // v[idx]: gather by an integer vector of 0-based indices (data, or an Eigen::VectorXi);
    // for a matrix, its rows.
    Expr operator[](const Arg& idx) const;

private:
    Model* model_ = nullptr;
    NodeId id_ = kNoNode;
};

// What an argument may be besides an expression: a number, or an Eigen vector or matrix of
// numbers (VectorXd, RowVectorXd, MatrixXd, VectorXi, or an Eigen expression of them such as
// v.head(3) or 2 * M), which the argument copies and the model holds as a constant.
namespace detail {
template <class Derived>
void is_dense(const Eigen::DenseBase<Derived>&);  // deduces through Eigen's CRTP bases
}  // namespace detail
template <class T>
concept EigenDense = requires(const T& t) {
    detail::is_dense(t);
};
template <class T>
concept Constant = std::is_arithmetic_v<T> || EigenDense<T>;

// A constant vector or matrix, as an Arg holds it: the values column-major, and for an
// integer vector (Eigen::VectorXi) the integers too, so that it can be integer data (an
// outcome of binomial's N, an index). A row vector is a vector: this DSL has no row vectors.
struct ConstantArray {
    Eigen::MatrixXd values;
    Eigen::VectorXi ints;  // when `integer`
    bool integer = false;
    bool vector = false;
};

// A distribution or function argument: an expression, a number, or a constant vector or
// matrix. Every distribution and every function of two or more arguments takes its
// arguments as Arg, so any of them accepts any of these (at least one argument of a function
// is an expression, which gives the model that the constants join).
class Arg {
public:
    template <class T>
    requires std::is_arithmetic_v<T> Arg(T v)
        : value_(static_cast<double>(v)) {}  // NOLINT: numbers are arguments
    Arg(const Expr& e) : expr_(e) {}         // NOLINT
    template <EigenDense T>
    Arg(const T& m) : array_(make_array(m)) {}  // NOLINT: constant vectors and matrices too
    [[nodiscard]] bool is_expr() const { return expr_.valid(); }
    [[nodiscard]] bool is_array() const { return array_ != nullptr; }
    [[nodiscard]] const Expr& expr() const { return expr_; }
    [[nodiscard]] double value() const { return value_; }
    [[nodiscard]] const std::shared_ptr<const ConstantArray>& array() const { return array_; }

private:
    template <class T>
    static std::shared_ptr<const ConstantArray> make_array(const T& m) {
        using Scalar = typename T::Scalar;
        static_assert(std::is_arithmetic_v<Scalar>, "a constant argument holds numbers");
        auto c = std::make_shared<ConstantArray>();
        c->values = m.template cast<double>().eval();
        c->vector = T::ColsAtCompileTime == 1 || T::RowsAtCompileTime == 1;
        c->integer = std::is_integral_v<Scalar> && c->vector;
        if (c->integer)
            c->ints = c->values.reshaped().template cast<int>();  // exact: they were ints
        return c;
    }

    Expr expr_;
    double value_ = 0.0;
    std::shared_ptr<const ConstantArray> array_;
};

// The left operand of an operator or function whose right one is an Expr: a constant, or an
// Arg (which the overloads taking `const Expr&` on the left would make ambiguous).
template <class T>
concept LeftArg = Constant<T> || std::same_as<T, Arg>;

namespace detail {
// op(a, b) interned in the model of the expression; a constant joins that model.
Expr binary(Op op, const Expr& a, const Arg& b);
Expr binary(Op op, const Arg& a, const Expr& b);
// a * b: the matrix product for a matrix and a vector or two matrices, else elementwise.
Expr product(const Arg& a, const Arg& b);
// The arguments of function `fn` as expressions of one model: the model of those that are
// expressions (ModelError when none is, or when two models are), the constants joining it.
std::vector<Expr> operands(std::string_view fn, std::initializer_list<const Arg*> args);

// A one-argument function of a constant (a number, an Eigen vector or matrix) is a constant:
// the same function applied to it on a scratch model that holds it, its value read back
// (Model::evaluate), so that the constant gets exactly the value the expression would have.
// The result's type is the natural one: a number for a reduction, the argument's own type for
// an elementwise function, Eigen::VectorXd or MatrixXd for the others.
enum class ConstantResult { Elementwise, Scalar, Vector, Matrix };
template <class Derived>
void is_matrix_like(const Eigen::MatrixBase<Derived>&);
}  // namespace detail
// A number or an Eigen matrix or vector (or a matrix expression), the arguments these take:
// Eigen arrays are left to Eigen's own exp, log, ... (found by argument-dependent lookup).
template <class T>
concept ConstantValue = std::is_arithmetic_v<T> || requires(const T& t) {
    detail::is_matrix_like(t);
};
namespace detail {
std::vector<double> evaluate_on_constant(Expr (*fn)(const Expr&), const Arg& x, Shape* shape);
template <ConstantResult R, ConstantValue C>
auto of_constant(Expr (*fn)(const Expr&), const C& x) {
    Shape shape;
    const std::vector<double> v = evaluate_on_constant(fn, Arg(x), &shape);
    if constexpr (R == ConstantResult::Scalar) {
        return v.at(0);
    } else if constexpr (R == ConstantResult::Elementwise && std::is_arithmetic_v<C>) {
        return v.at(0);
    } else if constexpr (R == ConstantResult::Elementwise) {
        using Plain = Eigen::Matrix<double, C::RowsAtCompileTime, C::ColsAtCompileTime>;
        Plain out(x.rows(), x.cols());
        std::copy(v.begin(), v.end(), out.data());
        return out;
    } else if constexpr (R == ConstantResult::Vector) {
        return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(v.data(), v.size()));
    } else {
        return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(v.data(), shape.rows, shape.cols));
    }
}
}  // namespace detail

// Arithmetic; `*` of a matrix and a vector or of two matrices is the matrix product (as
// Stan), every other `*` is elementwise (elt_multiply in linalg.hpp for two matrices). A
// constant on either side: `2.0 * x`, `X * beta` with Eigen::MatrixXd X.
Expr operator+(const Expr& a, const Arg& b);
Expr operator-(const Expr& a, const Arg& b);
Expr operator*(const Expr& a, const Arg& b);
Expr operator/(const Expr& a, const Arg& b);
template <LeftArg C>
Expr operator+(const C& a, const Expr& b) {
    return detail::binary(Op::Add, Arg(a), b);
}
template <LeftArg C>
Expr operator-(const C& a, const Expr& b) {
    return detail::binary(Op::Sub, Arg(a), b);
}
template <LeftArg C>
Expr operator*(const C& a, const Expr& b) {
    return detail::product(Arg(a), b);
}
template <LeftArg C>
Expr operator/(const C& a, const Expr& b) {
    return detail::binary(Op::Div, Arg(a), b);
}
Expr operator-(const Expr& a);

// Elementwise functions.
Expr exp(const Expr& x);
template <ConstantValue C>
auto exp(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&exp), x);
}
Expr log(const Expr& x);
template <ConstantValue C>
auto log(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log), x);
}
Expr log1p(const Expr& x);
template <ConstantValue C>
auto log1p(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log1p), x);
}
Expr expm1(const Expr& x);
template <ConstantValue C>
auto expm1(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&expm1), x);
}
Expr sqrt(const Expr& x);
template <ConstantValue C>
auto sqrt(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&sqrt), x);
}
Expr square(const Expr& x);
template <ConstantValue C>
auto square(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&square), x);
}
Expr pow(const Expr& x, const Arg& y);
template <LeftArg C>
Expr pow(const C& x, const Expr& y) {
    return detail::binary(Op::Pow, Arg(x), y);
}
Expr inv_logit(const Expr& x);
template <ConstantValue C>
auto inv_logit(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&inv_logit), x);
}
Expr log_inv_logit(const Expr& x);
template <ConstantValue C>
auto log_inv_logit(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log_inv_logit), x);
}
Expr log1p_exp(const Expr& x);
template <ConstantValue C>
auto log1p_exp(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&log1p_exp), x);
}
Expr lgamma(const Expr& x);
template <ConstantValue C>
auto lgamma(const C& x) {
    return detail::of_constant<detail::ConstantResult::Elementwise>(
        static_cast<Expr (*)(const Expr&)>(&lgamma), x);
}

// Reductions and products.
Expr sum(const Expr& x);
template <ConstantValue C>
auto sum(const C& x) {
    return detail::of_constant<detail::ConstantResult::Scalar>(
        static_cast<Expr (*)(const Expr&)>(&sum), x);
}
Expr dot(const Arg& a, const Arg& b);

}  // namespace advi
