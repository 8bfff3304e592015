// Supports: factories with their argument checks, membership, coverage and printing.
#include <advi/transform/support.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include <Eigen/Dense>
#include <fmt/format.h>

#include <advi/base/error.hpp>

namespace advi {

SupportArg SupportArg::expression(NodeId n) {
    SupportArg a;
    a.values.clear();
    a.node = n;
    return a;
}

std::string SupportArg::str() const {
    if (is_expression())
        return fmt::format("%{}", node);
    if (values.size() == 1)
        return fmt::format("{}", values[0]);
    return fmt::format("[{}]", fmt::join(values, ", "));
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void require_finite_each(const SupportArg& a, std::string_view what) {
    if (a.is_expression() || a.values.size() == 1)
        return;
    if (a.values.empty())
        throw ModelError(fmt::format("{}: no values given", what));
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        if (!std::isfinite(a.values[i])) {
            throw ModelError(
                fmt::format("{}: element {} is {}, not a finite number", what, i, a.values[i]));
        }
    }
}

// The elementwise comparison of two constant arguments over their common length.
template <class F>
bool all_pairs(const SupportArg& a, const SupportArg& b, F f) {
    const std::size_t n = std::max(a.values.size(), b.values.size());
    if (a.values.size() != 1 && b.values.size() != 1 && a.values.size() != b.values.size()) {
        return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!f(a.at(static_cast<int>(i)), b.at(static_cast<int>(i))))
            return false;
    }
    return true;
}

// The range of the entries of a structured support's values (closed: a Cholesky factor
// of a correlation matrix has L(0,0) = 1, a simplex may touch 0 in floating point).
struct Range {
    double lo, hi;
    bool open;
};
std::optional<Range> entry_range(Support::Kind k) {
    using K = Support::Kind;
    switch (k) {
        case K::Simplex:
        case K::StochasticColumns: return Range{0.0, 1.0, false};
        case K::PositiveOrdered: return Range{0.0, kInf, true};
        case K::UnitVector:
        case K::CholeskyFactorCorr:
        case K::CorrMatrix: return Range{-1.0, 1.0, false};
        default: return std::nullopt;
    }
}

}  // namespace

Support Support::lower_bound(SupportArg a) {
    require_finite_each(a, "lower bound");
    Support s = of(Kind::Lower);
    s.lower = std::move(a);
    return s;
}

Support Support::upper_bound(SupportArg b) {
    require_finite_each(b, "upper bound");
    Support s = of(Kind::Upper);
    s.upper = std::move(b);
    return s;
}

Support Support::interval(SupportArg a, SupportArg b) {
    require_finite_each(a, "interval lower bound");
    require_finite_each(b, "interval upper bound");
    Support s = of(Kind::Interval);
    s.lower = std::move(a);
    s.upper = std::move(b);
    if (!s.lower.is_expression() && !s.upper.is_expression()) {
        const auto& lo = s.lower.values;
        const auto& hi = s.upper.values;
        if (lo.size() != 1 && hi.size() != 1 && lo.size() != hi.size()) {
            throw ModelError(fmt::format("interval({}, {}): the bounds have {} and {} elements",
                                         s.lower.str(), s.upper.str(), lo.size(), hi.size()));
        }
        const std::size_t n = std::max(lo.size(), hi.size());
        for (std::size_t i = 0; i < n; ++i) {
            const double l = s.lower.at(static_cast<int>(i));
            const double u = s.upper.at(static_cast<int>(i));
            if (!(l < u)) {
                throw ModelError(fmt::format(
                    "interval({}, {}): the lower bound must be below the upper{}", s.lower.str(),
                    s.upper.str(), n == 1 ? "" : fmt::format(" (element {}: {} >= {})", i, l, u)));
            }
        }
    }
    return s;
}

Support Support::affine(SupportArg offset, SupportArg multiplier) {
    require_finite_each(offset, "affine offset");
    require_finite_each(multiplier, "affine multiplier");
    Support s = of(Kind::Affine);
    s.offset = std::move(offset);
    s.multiplier = std::move(multiplier);
    if (!s.multiplier.is_expression()) {
        for (std::size_t i = 0; i < s.multiplier.values.size(); ++i) {
            const double m = s.multiplier.values[i];
            if (!(m > 0) || !std::isfinite(m)) {
                throw ModelError(fmt::format(
                    "affine(offset {}, multiplier {}): the multiplier "
                    "must be positive and finite{}",
                    s.offset.str(), s.multiplier.str(),
                    s.multiplier.values.size() == 1 ? ""
                                                    : fmt::format(" (element {} is {})", i, m)));
            }
        }
    }
    if (!s.offset.is_expression() && !std::isfinite(s.offset.values[0])) {
        throw ModelError(fmt::format("affine offset {} is not finite", s.offset.values[0]));
    }
    return s;
}

bool Support::contains(double x) const {
    if (std::isnan(x))
        return false;
    switch (kind) {
        case Kind::Lower:
        case Kind::Upper:
        case Kind::Interval: {
            // Per-element bounds: the loosest of them; expressions: no constraint known.
            double lo = -kInf, hi = kInf;
            if (!lower.is_expression() && kind != Kind::Upper) {
                lo = *std::min_element(lower.values.begin(), lower.values.end());
            }
            if (!upper.is_expression() && kind != Kind::Lower) {
                hi = *std::max_element(upper.values.begin(), upper.values.end());
            }
            return x > lo && x < hi;
        }
        default: break;
    }
    if (auto r = entry_range(kind)) {
        return r->open ? (x > r->lo && x < r->hi) : (x >= r->lo && x <= r->hi);
    }
    return std::isfinite(x) || kind == Kind::Real;
}

bool Support::contains(const Eigen::VectorXd& theta, Shape shape, double tol) const {
    if (theta.size() != shape.size())
        return false;
    if (is_array()) {
        // each row one element, column-major
        const Shape es = Shape::matrix(element_rows, element_cols);
        if (!shape.is_matrix() || shape.cols != es.size())
            return false;
        const Eigen::Map<const Eigen::MatrixXd> rows(theta.data(), shape.rows, shape.cols);
        for (Eigen::Index e = 0; e < rows.rows(); ++e) {
            if (!element().contains(Eigen::VectorXd(rows.row(e).transpose()), es, tol))
                return false;
        }
        return true;
    }
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
        if (!std::isfinite(theta[i]))
            return false;
    }
    const int n = static_cast<int>(theta.size());
    const Eigen::Map<const Eigen::MatrixXd> M(theta.data(), shape.rows, shape.cols);
    auto lower_tri_positive_diag = [&] {
        for (int j = 0; j < M.cols(); ++j) {
            if (!(M(j, j) > 0))
                return false;
            for (int i = 0; i < j; ++i) {
                if (M(i, j) != 0)
                    return false;
            }
        }
        return true;
    };
    auto symmetric_pd = [&] {
        if (M.rows() != M.cols() || !M.isApprox(M.transpose(), tol))
            return false;
        Eigen::LLT<Eigen::MatrixXd> llt(M);
        return llt.info() == Eigen::Success;
    };
    switch (kind) {
        case Kind::Real:
        case Kind::Affine: return true;
        case Kind::Lower:
        case Kind::Upper:
        case Kind::Interval:
            if (lower.is_expression() || upper.is_expression())
                return false;
            for (int i = 0; i < n; ++i) {
                if (kind != Kind::Upper && !(theta[i] > lower.at(i)))
                    return false;
                if (kind != Kind::Lower && !(theta[i] < upper.at(i)))
                    return false;
            }
            return true;
        case Kind::Simplex:
        case Kind::Ordered:
        case Kind::PositiveOrdered:
        case Kind::UnitVector: {
            if (shape.is_scalar())
                return false;
            // A vector is one, a matrix's rows are each one (array[U] simplex[K], ...).
            const bool rows = shape.is_matrix();
            const Eigen::Map<const Eigen::MatrixXd> V(theta.data(), rows ? shape.rows : 1,
                                                      rows ? shape.cols : n);
            for (Eigen::Index u = 0; u < V.rows(); ++u) {
                const auto r = V.row(u);
                if (kind == Kind::Simplex &&
                    (!(r.array() >= 0).all() || std::abs(r.sum() - 1) > tol)) {
                    return false;
                }
                if (kind == Kind::UnitVector && std::abs(r.norm() - 1) > tol)
                    return false;
                if (kind == Kind::PositiveOrdered && r.size() > 0 && !(r[0] > 0))
                    return false;
                if (kind == Kind::Ordered || kind == Kind::PositiveOrdered) {
                    for (Eigen::Index i = 1; i < r.size(); ++i) {
                        if (!(r[i] > r[i - 1]))
                            return false;
                    }
                }
            }
            return true;
        }
        case Kind::CholeskyFactorCov: return shape.is_matrix() && lower_tri_positive_diag();
        case Kind::CholeskyFactorCorr:
            if (!shape.is_matrix() || !lower_tri_positive_diag())
                return false;
            for (int i = 0; i < M.rows(); ++i) {
                if (std::abs(M.row(i).norm() - 1) > tol)
                    return false;
            }
            return true;
        case Kind::CovMatrix: return shape.is_matrix() && symmetric_pd();
        case Kind::SumToZero: {
            if (shape.is_scalar())
                return false;
            const bool rows = shape.is_matrix();
            const Eigen::Map<const Eigen::MatrixXd> V(theta.data(), rows ? shape.rows : 1,
                                                      rows ? shape.cols : n);
            return (V.rowwise().sum().array().abs() <= tol).all();
        }
        case Kind::SumToZeroMatrix:
            return shape.is_matrix() && (M.rowwise().sum().array().abs() <= tol).all() &&
                   (M.colwise().sum().array().abs() <= tol).all();
        case Kind::StochasticColumns:
            return shape.is_matrix() && (M.array() >= 0).all() &&
                   ((M.colwise().sum().array() - 1).abs() <= tol).all();
        case Kind::CorrMatrix:
            if (!shape.is_matrix() || !symmetric_pd())
                return false;
            for (int i = 0; i < M.rows(); ++i) {
                if (std::abs(M(i, i) - 1) > tol)
                    return false;
            }
            return true;
    }
    return false;
}

bool Support::covers(const Support& other) const {
    // The real line, also as the image of an affine map, covers every support.
    if (kind == Kind::Real || kind == Kind::Affine)
        return true;
    if (is_array() || other.is_array())
        return *this == other;
    if (has_expression() || other.has_expression())
        return *this == other;
    if (kind == other.kind && !is_bounded())
        return true;
    if (is_bounded()) {
        const bool has_lo = kind != Kind::Upper;
        const bool has_hi = kind != Kind::Lower;
        if (other.is_bounded()) {
            const bool other_lo = other.kind != Kind::Upper;
            const bool other_hi = other.kind != Kind::Lower;
            if ((has_lo && !other_lo) || (has_hi && !other_hi))
                return false;
            return (!has_lo || all_pairs(lower, other.lower, std::less_equal<>())) &&
                   (!has_hi || all_pairs(upper, other.upper, std::greater_equal<>()));
        }
        // A structured support whose entries stay in a range, e.g. a simplex inside
        // interval(0, 1) (and so a uniform(0, 1) prior), positive_ordered inside positive.
        const auto r = entry_range(other.kind);
        if (!r)
            return false;
        auto inside = [&](double lo, double hi) {
            return (!has_lo || all_pairs(lower, SupportArg(lo), std::less_equal<>())) &&
                   (!has_hi || all_pairs(upper, SupportArg(hi), std::greater_equal<>()));
        };
        return inside(r->lo, r->hi);
    }
    // Nested structured supports: a correlation matrix is a covariance matrix, ...
    return (kind == Kind::Ordered && other.kind == Kind::PositiveOrdered) ||
           (kind == Kind::CovMatrix && other.kind == Kind::CorrMatrix) ||
           (kind == Kind::CholeskyFactorCov && other.kind == Kind::CholeskyFactorCorr);
}

std::string Support::str() const {
    if (is_array())
        return fmt::format("array of {}[{},{}]", element().str(), element_rows, element_cols);
    switch (kind) {
        case Kind::Real: return "real";
        case Kind::Lower:
            return lower.is_scalar() && lower.values[0] == 0
                       ? "positive"
                       : fmt::format("lower({})", lower.str());
        case Kind::Upper: return fmt::format("upper({})", upper.str());
        case Kind::Interval: return fmt::format("interval({}, {})", lower.str(), upper.str());
        case Kind::Affine:
            return fmt::format("affine(offset {}, multiplier {})", offset.str(), multiplier.str());
        case Kind::Simplex: return "simplex";
        case Kind::Ordered: return "ordered";
        case Kind::PositiveOrdered: return "positive_ordered";
        case Kind::UnitVector: return "unit_vector";
        case Kind::CholeskyFactorCorr: return "cholesky_factor_corr";
        case Kind::CholeskyFactorCov: return "cholesky_factor_cov";
        case Kind::CorrMatrix: return "corr_matrix";
        case Kind::CovMatrix: return "cov_matrix";
        case Kind::SumToZero: return "sum_to_zero";
        case Kind::SumToZeroMatrix: return "sum_to_zero_matrix";
        case Kind::StochasticColumns: return "stochastic_columns";
    }
    return "?";
}

}  // namespace advi
