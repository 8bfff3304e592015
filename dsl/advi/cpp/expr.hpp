// Expression handles of the embedded DSL: an Expr is an interned node of a Model's graph
// (like Halide's Expr), with the usual operators and functions. Scalars broadcast.
#pragma once

#include <advi/graph/graph.hpp>

namespace advi {

class Model;

class Expr {
public:
    Expr() = default;
    Expr(Model* model, NodeId id) : model_(model), id_(id) {}

    [[nodiscard]] Model& model() const;
    [[nodiscard]] NodeId id() const { return id_; }
    [[nodiscard]] Shape shape() const;
    [[nodiscard]] bool valid() const { return model_ != nullptr; }

    // v[idx]: gather by an integer data vector of 0-based indices; for a matrix, its rows.
    Expr operator[](const Expr& idx) const;

private:
    Model* model_ = nullptr;
    NodeId id_ = kNoNode;
};

// A distribution or function argument: an expression or a number.
class Arg {
public:
    Arg(double v) : value_(v) {}      // NOLINT: numbers are arguments
    Arg(int v) : value_(v) {}         // NOLINT
    Arg(const Expr& e) : expr_(e) {}  // NOLINT
    [[nodiscard]] bool is_expr() const { return expr_.valid(); }
    [[nodiscard]] const Expr& expr() const { return expr_; }
    [[nodiscard]] double value() const { return value_; }

private:
    Expr expr_;
    double value_ = 0.0;
};

namespace detail {
// op(a, b) interned in the model of the expression; a number becomes a constant.
Expr binary(Op op, const Expr& a, const Arg& b);
Expr binary(Op op, double a, const Expr& b);
}  // namespace detail

// Arithmetic; `*` of a matrix and a vector or of two matrices is the matrix product (as
// Stan), every other `*` is elementwise (elt_multiply in linalg.hpp for two matrices).
Expr operator+(const Expr& a, const Arg& b);
Expr operator+(double a, const Expr& b);
Expr operator-(const Expr& a, const Arg& b);
Expr operator-(double a, const Expr& b);
Expr operator*(const Expr& a, const Arg& b);
Expr operator*(double a, const Expr& b);
Expr operator/(const Expr& a, const Arg& b);
Expr operator/(double a, const Expr& b);
Expr operator-(const Expr& a);

// Elementwise functions.
Expr exp(const Expr& x);
Expr log(const Expr& x);
Expr log1p(const Expr& x);
Expr expm1(const Expr& x);
Expr sqrt(const Expr& x);
Expr square(const Expr& x);
Expr pow(const Expr& x, const Arg& y);
Expr pow(double x, const Expr& y);
Expr inv_logit(const Expr& x);
Expr log_inv_logit(const Expr& x);
Expr log1p_exp(const Expr& x);
Expr lgamma(const Expr& x);

// Reductions and products.
Expr sum(const Expr& x);
Expr dot(const Expr& a, const Expr& b);

}  // namespace advi
