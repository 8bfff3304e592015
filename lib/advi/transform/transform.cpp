// The support table: which transform each support takes, shape checks, fragment helpers.
#include <advi/transform/transform.hpp>

#include <fmt/format.h>

#include <advi/base/error.hpp>

#include <advi/graph/const_vector.hpp>
#include <advi/transform/affine.hpp>
#include <advi/transform/bounds.hpp>
#include <advi/transform/cholesky.hpp>
#include <advi/transform/ordered.hpp>
#include <advi/transform/simplex.hpp>
#include <advi/transform/stacked.hpp>
#include <advi/transform/sum_to_zero.hpp>
#include <advi/transform/unit_vector.hpp>

namespace advi {

const Transform& transform_for(const Support& s, PositiveTransform t) {
    const bool softplus = t == PositiveTransform::Softplus;
    if (s.is_array())
        return kStackedTransform;
    using K = Support::Kind;
    switch (s.kind) {
        // clang-format off
        case K::Real: return kIdentityTransform;
        case K::Lower: return softplus ? kLowerSoftplusTransform : kLowerLogTransform;
        case K::Upper: return softplus ? kUpperSoftplusTransform : kUpperLogTransform;
        case K::Interval: return kIntervalTransform;
        case K::Affine: return kAffineTransform;
        case K::Simplex: return kSimplexTransform;
        case K::Ordered: return kOrderedTransform;
        case K::PositiveOrdered: return kPositiveOrderedTransform;
        case K::UnitVector: return kUnitVectorTransform;
        case K::CholeskyFactorCorr: return kCholeskyCorrTransform;
        case K::CholeskyFactorCov: return kCholeskyCovTransform;
        case K::CorrMatrix: return kCorrMatrixTransform;
        case K::CovMatrix: return kCovMatrixTransform;
        case K::SumToZero: return kSumToZeroTransform;
        case K::SumToZeroMatrix: return kSumToZeroMatrixTransform;
        case K::StochasticColumns: return kStochasticColumnsTransform;
            // clang-format on
    }
    throw InternalError("transform_for: unknown support");
}

namespace {

void check_arg(const SupportArg& a, std::string_view what, const Support& s, Shape shape) {
    if (a.is_expression() || a.values.size() == 1)
        return;
    if (static_cast<int>(a.values.size()) != shape.size()) {
        throw ShapeError(
            fmt::format("support {}: the {} has {} values but the variable is {} "
                        "({} elements)",
                        s.str(), what, a.values.size(), shape.str(), shape.size()));
    }
}

}  // namespace

void check_support_shape(const Support& s, Shape shape) {
    const Transform& t = transform_for(s, PositiveTransform::Log);
    if (!t.fits(shape, s)) {
        throw ShapeError(
            fmt::format("support {} needs {}, got {}", s.str(), t.shapes, shape.str()));
    }
    using K = Support::Kind;
    if (s.kind == K::Lower || s.kind == K::Interval)
        check_arg(s.lower, "lower bound", s, shape);
    if (s.kind == K::Upper || s.kind == K::Interval)
        check_arg(s.upper, "upper bound", s, shape);
    if (s.kind == K::Affine) {
        check_arg(s.offset, "offset", s, shape);
        check_arg(s.multiplier, "multiplier", s, shape);
    }
}

NodeId support_arg_node(Graph& g, const SupportArg& a, Shape shape) {
    if (a.is_expression()) {
        const Shape& s = g[a.node].shape;
        if (!s.is_scalar() && s != shape) {
            throw ShapeError(
                fmt::format("support argument %{} is {} but the variable is {} "
                            "(expected real or {})",
                            a.node, s.str(), shape.str(), shape.str()));
        }
        return a.node;
    }
    if (a.values.size() == 1)
        return g.constant(a.values[0]);
    return constant_vector(g, a.values, shape);
}

NodeId sum_over(Graph& g, NodeId x, Shape shape) {
    if (g[x].shape.is_scalar()) {
        return g.apply(Op::Mul, g.constant(static_cast<double>(shape.size())), x);
    }
    return g.apply(Op::Sum, x);
}

Eigen::VectorXd map_rows(const Eigen::VectorXd& x, Shape shape, int out_cols,
                         Eigen::VectorXd (*f)(const Eigen::VectorXd&)) {
    if (!shape.is_matrix())
        return f(x);
    const Eigen::Map<const Eigen::MatrixXd> X(x.data(), shape.rows, shape.cols);
    Eigen::MatrixXd Y(shape.rows, out_cols);
    for (int u = 0; u < shape.rows; ++u) Y.row(u) = f(X.row(u).transpose()).transpose();
    return Eigen::Map<const Eigen::VectorXd>(Y.data(), Y.size());
}

void numeric_needs_constants(const Support& s) {
    throw ModelError(
        fmt::format("support {}: the numeric transform needs constant arguments, "
                    "not expressions",
                    s.str()));
}

}  // namespace advi
