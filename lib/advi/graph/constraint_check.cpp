// The predicates of Stan's declared constraints (see the header); messages number elements
// from 1, as Stan does.
#include <advi/graph/constraint_check.hpp>

#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/graph/graph.hpp>

namespace advi {

namespace {

using Strided = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

// Nine significant digits: enough to see a value against its bound, short enough for one line.
std::string value(double v) {
    return fmt::format("{:.9g}", v);
}

std::optional<std::string> vector_violation(Constraint c, const Strided& x) {
    const Eigen::Index n = x.rows();
    switch (c) {
        case Constraint::Simplex: {
            double sum = 0;
            for (Eigen::Index k = 0; k < n; ++k) {
                if (!(x(k, 0) >= 0))
                    return fmt::format("is not a simplex: element {} is {}", k + 1, value(x(k, 0)));
                sum += x(k, 0);
            }
            if (!(std::abs(sum - 1) <= kConstraintTolerance))
                return fmt::format("is not a simplex: it sums to {:.9g}", sum);
            return std::nullopt;
        }
        case Constraint::SumToZeroVector: {
            double sum = 0;
            for (Eigen::Index k = 0; k < n; ++k) sum += x(k, 0);
            if (!(std::abs(sum) <= kConstraintTolerance))
                return fmt::format("is not a sum_to_zero_vector: it sums to {:.9g}", sum);
            return std::nullopt;
        }
        case Constraint::UnitVector: {
            double sq = 0;
            for (Eigen::Index k = 0; k < n; ++k) sq += x(k, 0) * x(k, 0);
            if (!(std::abs(sq - 1) <= kConstraintTolerance))
                return fmt::format("is not a unit vector: its squared length is {:.9g}", sq);
            return std::nullopt;
        }
        case Constraint::PositiveOrdered:
            if (n > 0 && !(x(0, 0) > 0))
                return fmt::format("is not positive_ordered: element 1 is {}", value(x(0, 0)));
            [[fallthrough]];
        case Constraint::Ordered:
            for (Eigen::Index k = 1; k < n; ++k) {
                if (!(x(k, 0) > x(k - 1, 0)))
                    return fmt::format(
                        "is not {}: element {} ({}) is not greater than element {} ({})",
                        constraint_name(c), k + 1, value(x(k, 0)), k, value(x(k - 1, 0)));
            }
            return std::nullopt;
        default: return std::nullopt;
    }
}

std::optional<std::string> matrix_violation(Constraint c, const Strided& m, double* scratch) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            if (std::isnan(m(i, j)))
                return fmt::format("is not a {}: element [{}, {}] is nan", constraint_name(c),
                                   i + 1, j + 1);
        }
    }
    if (c == Constraint::SumToZeroMatrix) {
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
            if (const double sum = m.row(i).sum(); !(std::abs(sum) <= kConstraintTolerance))
                return fmt::format("is not a sum_to_zero_matrix: row {} sums to {:.9g}", i + 1,
                                   sum);
        }
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            if (const double sum = m.col(j).sum(); !(std::abs(sum) <= kConstraintTolerance))
                return fmt::format("is not a sum_to_zero_matrix: column {} sums to {:.9g}", j + 1,
                                   sum);
        }
        return std::nullopt;
    }
    if (c == Constraint::RowStochasticMatrix || c == Constraint::ColumnStochasticMatrix) {
        const bool rows = c == Constraint::RowStochasticMatrix;
        for (Eigen::Index k = 0; k < (rows ? m.rows() : m.cols()); ++k) {
            double sum = 0;
            for (Eigen::Index l = 0; l < (rows ? m.cols() : m.rows()); ++l) {
                const double v = rows ? m(k, l) : m(l, k);
                if (!(v >= 0))
                    return fmt::format("is not a {}: element [{}, {}] is {}", constraint_name(c),
                                       (rows ? k : l) + 1, (rows ? l : k) + 1, value(v));
                sum += v;
            }
            if (!(std::abs(sum - 1) <= kConstraintTolerance))
                return fmt::format("is not a {}: {} {} sums to {:.9g}", constraint_name(c),
                                   rows ? "row" : "column", k + 1, sum);
        }
        return std::nullopt;
    }
    if (c == Constraint::CholeskyFactorCov || c == Constraint::CholeskyFactorCorr) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            for (Eigen::Index i = 0; i < j && i < m.rows(); ++i) {
                if (m(i, j) != 0)
                    return fmt::format(
                        "is not a Cholesky factor: element [{}, {}] above the diagonal is {}",
                        i + 1, j + 1, value(m(i, j)));
            }
            if (j < m.rows() && !(m(j, j) > 0))
                return fmt::format(
                    "is not a Cholesky factor: diagonal element [{}, {}] is {}, not positive",
                    j + 1, j + 1, value(m(j, j)));
        }
        if (c == Constraint::CholeskyFactorCorr) {
            for (Eigen::Index i = 0; i < m.rows(); ++i) {
                const double sq = m.row(i).squaredNorm();
                if (!(std::abs(sq - 1) <= kConstraintTolerance))
                    return fmt::format(
                        "is not the Cholesky factor of a correlation matrix: row {} has squared "
                        "length {:.9g}",
                        i + 1, sq);
            }
        }
        return std::nullopt;
    }
    const char* what = c == Constraint::CovMatrix ? "a covariance matrix" : "a correlation matrix";
    if (m.rows() != m.cols())
        return fmt::format("is not {}: it is {}x{}, not square", what, m.rows(), m.cols());
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
        for (Eigen::Index i = j + 1; i < m.rows(); ++i) {
            if (!(std::abs(m(i, j) - m(j, i)) <= kConstraintTolerance))
                return fmt::format(
                    "is not {}: it is not symmetric ([{}, {}] is {}, [{}, {}] is {})", what, i + 1,
                    j + 1, value(m(i, j)), j + 1, i + 1, value(m(j, i)));
        }
    }
    if (c == Constraint::CorrMatrix) {
        for (Eigen::Index k = 0; k < m.rows(); ++k) {
            if (!(std::abs(m(k, k) - 1) <= kConstraintTolerance))
                return fmt::format("is not a correlation matrix: diagonal element [{}, {}] is {}",
                                   k + 1, k + 1, value(m(k, k)));
        }
    }
    // Positive definite: a Cholesky factorisation in the caller's scratch (no allocation).
    Eigen::Map<Eigen::MatrixXd> a(scratch, m.rows(), m.cols());
    a = m;
    const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(a);
    if (llt.info() != Eigen::Success)
        return fmt::format("is not {}: it is not positive definite", what);
    return std::nullopt;
}

}  // namespace

std::string_view constraint_name(Constraint c) {
    switch (c) {
        case Constraint::Bounds: return "bounds";
        case Constraint::Simplex: return "simplex";
        case Constraint::UnitVector: return "unit_vector";
        case Constraint::Ordered: return "ordered";
        case Constraint::PositiveOrdered: return "positive_ordered";
        case Constraint::CovMatrix: return "cov_matrix";
        case Constraint::CorrMatrix: return "corr_matrix";
        case Constraint::CholeskyFactorCov: return "cholesky_factor_cov";
        case Constraint::CholeskyFactorCorr: return "cholesky_factor_corr";
        case Constraint::SumToZeroVector: return "sum_to_zero_vector";
        case Constraint::SumToZeroMatrix: return "sum_to_zero_matrix";
        case Constraint::RowStochasticMatrix: return "row_stochastic_matrix";
        case Constraint::ColumnStochasticMatrix: return "column_stochastic_matrix";
    }
    return "?";
}

bool is_vector_constraint(Constraint c) {
    return c == Constraint::Simplex || c == Constraint::UnitVector || c == Constraint::Ordered ||
           c == Constraint::PositiveOrdered || c == Constraint::SumToZeroVector;
}
bool is_matrix_constraint(Constraint c) {
    return c == Constraint::CovMatrix || c == Constraint::CorrMatrix ||
           c == Constraint::CholeskyFactorCov || c == Constraint::CholeskyFactorCorr ||
           c == Constraint::SumToZeroMatrix || c == Constraint::RowStochasticMatrix ||
           c == Constraint::ColumnStochasticMatrix;
}

std::optional<std::string> structured_violation(Constraint c, const double* x, int rows, int cols,
                                                std::int64_t stride, double* scratch) {
    const Strided m(x, rows, cols,
                    Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(stride * rows, stride));
    if (is_vector_constraint(c))
        return vector_violation(c, m);
    if (is_matrix_constraint(c))
        return matrix_violation(c, m, scratch);
    return std::nullopt;
}

std::optional<std::string> bounds_violation(const double* x, int n, const double* lower,
                                            int lower_size, const double* upper, int upper_size) {
    for (int k = 0; k < n; ++k) {
        const double lo = lower[lower_size == 1 ? 0 : k];
        const double hi = upper[upper_size == 1 ? 0 : k];
        if (x[k] >= lo && x[k] <= hi)
            continue;
        const std::string which = n == 1 ? "is" : fmt::format("element {} is", k + 1);
        if (std::isnan(x[k]))
            return fmt::format("{} nan", which);
        if (!(x[k] >= lo))
            return fmt::format("{} {}, below the lower bound {}", which, value(x[k]), value(lo));
        return fmt::format("{} {}, above the upper bound {}", which, value(x[k]), value(hi));
    }
    return std::nullopt;
}

namespace check_ops {

Shape check_constraint_shape(const Graph& g, const Node& n) {
    const Shape& x = g[n.in[0]].shape;
    for (int k = 0; k < 3; ++k) {
        if (g[n.in[k]].dtype != DType::Real)
            throw ShapeError(fmt::format("check_constraint: input {} must be real", k));
    }
    for (int k = 1; k < 3; ++k) {
        const Shape& b = g[n.in[k]].shape;
        if (!b.is_scalar() && !(b == x))
            throw ShapeError(fmt::format("check_constraint: a bound is {}, expected real or {}",
                                         b.str(), x.str()));
    }
    const auto c = static_cast<Constraint>(n.index);
    if (n.aux != 0 && !is_vector_constraint(c))
        throw ShapeError(
            fmt::format("check_constraint: {} is not checked per row", constraint_name(c)));
    return Shape::scalar();
}

std::int64_t check_constraint_scratch(const Graph& g, const Node& n) {
    const auto c = static_cast<Constraint>(n.index);
    const Shape& x = g[n.in[0]].shape;
    return c == Constraint::CovMatrix || c == Constraint::CorrMatrix
               ? static_cast<std::int64_t>(x.rows) * x.rows
               : 0;
}

std::optional<std::string> violation(Constraint c, bool rowwise, const View& x, const View& lower,
                                     const View& upper, double* scratch) {
    if (c == Constraint::Bounds)
        return bounds_violation(x.x, x.size(), lower.x, lower.size(), upper.x, upper.size());
    if (is_vector_constraint(c) && rowwise) {
        for (int r = 0; r < x.rows; ++r) {  // row r: x[r + rows * k], k < cols
            if (auto v = structured_violation(c, x.x + r, x.cols, 1, x.rows, scratch))
                return fmt::format("row {} {}", r + 1, *v);
        }
        return std::nullopt;
    }
    if (is_vector_constraint(c))
        return structured_violation(c, x.x, x.size(), 1, 1, scratch);
    return structured_violation(c, x.x, x.rows, x.cols, 1, scratch);
}

void check_constraint_kernel(const KernelArgs& a) {
    // (A violation formats its message, which allocates; a value inside its constraint does not.)
    const bool ok = !violation(static_cast<Constraint>(a.node->index), a.node->aux != 0, a.in[0],
                               a.in[1], a.in[2], a.scratch);
    a.out[0] = ok ? 0.0 : -std::numeric_limits<double>::infinity();
}

}  // namespace check_ops

}  // namespace advi
