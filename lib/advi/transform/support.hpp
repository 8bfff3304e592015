// Supports of latent variables: bounds (lower, upper, interval; one value or one per element),
// the affine offset/multiplier, and the structured supports (simplex, ordered, unit_vector,
// Cholesky factors, correlation and covariance matrices), as Stan's constraint transforms.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <advi/graph/node.hpp>

namespace advi {

// A bound, offset or multiplier: one number for every element, one number per element
// (column-major over the variable), or an expression of the model graph (data, other
// parameters), whose node the constrain pass carries into the graph on zeta.
struct SupportArg {
    std::vector<double> values{0.0};  // size 1: every element; else one per element
    NodeId node = kNoNode;            // set: an expression, and `values` is empty

    SupportArg() = default;
    SupportArg(double v) : values{v} {}                                              // NOLINT
    SupportArg(const Eigen::VectorXd& v) : values(v.data(), v.data() + v.size()) {}  // NOLINT
    [[nodiscard]] static SupportArg expression(NodeId n);

    [[nodiscard]] bool is_expression() const { return node != kNoNode; }
    [[nodiscard]] bool is_scalar() const { return !is_expression() && values.size() == 1; }
    // The value at element i (constants only).
    [[nodiscard]] double at(int i) const { return values.size() == 1 ? values[0] : values[i]; }
    // "0", "[0, 1, 2]", "%5" (an expression).
    [[nodiscard]] std::string str() const;
    bool operator==(const SupportArg&) const = default;
};

// The support of a latent variable. The shapes each kind applies to (checked by
// check_support_shape in transform.hpp, named in its errors):
//   Real, Lower, Upper, Interval, Affine: any shape; per-element arguments have one value
//     per element.
//   Simplex: vec[K], K >= 2 (K - 1 free coordinates, stick-breaking).
//   Ordered, PositiveOrdered: vec[K], K >= 1.
//   UnitVector: vec[K], K >= 2 (K free coordinates; -|zeta|^2 / 2 joins the density).
//   Each of these four also mat[U,K]: every row one such vector (Stan's array[U] simplex[K]),
//     transformed at once by the same graph whatever U, the log-Jacobians summed.
//   CholeskyFactorCorr: mat[K,K], K >= 2 (K(K-1)/2 free).
//   CholeskyFactorCov: mat[M,N], M >= N >= 1 (N(N+1)/2 + (M-N)N free).
//   CorrMatrix: mat[K,K], K >= 2 (K(K-1)/2 free). CovMatrix: mat[K,K], K >= 1 (K(K+1)/2 free).
//   SumToZero: vec[K], K >= 2 (K - 1 free, an orthonormal basis of the zero-sum vectors), or
//     mat[U,K], every row one (Stan's array[U] sum_to_zero_vector[K]).
//   SumToZeroMatrix: mat[M,N], M, N >= 2, every row and every column summing to zero
//     ((M-1)(N-1) free).
//   StochasticColumns: mat[M,N], M >= 2, every column a simplex (Stan's
//     column_stochastic_matrix; a row_stochastic_matrix is Simplex on a matrix).
//   Any of the matrix kinds as an array (Support::array_of: element_rows x element_cols set):
//     mat[E, R*C], every row one R x C element column-major (Stan's array[E]
//     cholesky_factor_corr[K] and the like: column-major over the whole is CmdStan's order, the
//     array index fastest); transform/stacked.hpp transforms it element by element.
struct Support {
    enum class Kind {
        Real,
        Lower,
        Upper,
        Interval,
        Affine,
        Simplex,
        Ordered,
        PositiveOrdered,
        UnitVector,
        CholeskyFactorCorr,
        CholeskyFactorCov,
        CorrMatrix,
        CovMatrix,
        SumToZero,
        SumToZeroMatrix,
        StochasticColumns
    };
    Kind kind = Kind::Real;
    SupportArg lower{-std::numeric_limits<double>::infinity()};  // Lower, Interval
    SupportArg upper{std::numeric_limits<double>::infinity()};   // Upper, Interval
    SupportArg offset{0.0};                                      // Affine
    SupportArg multiplier{1.0};                                  // Affine
    int element_rows = 0;  // > 0: an array of elements of this size (array_of)
    int element_cols = 0;

    static Support real() { return {}; }
    static Support positive() { return lower_bound(0.0); }
    // Bounds: a number, an Eigen vector (one per element) or SupportArg::expression. Vector
    // bounds must be finite; interval() throws ModelError unless lower < upper everywhere.
    static Support lower_bound(SupportArg a);
    static Support upper_bound(SupportArg b);
    static Support interval(SupportArg a, SupportArg b);
    // theta = offset + multiplier * zeta (non-centred parameterisations); log|J| =
    // sum log multiplier. Throws ModelError unless constant multipliers are positive.
    static Support affine(SupportArg offset, SupportArg multiplier);
    static Support simplex() { return of(Kind::Simplex); }
    static Support ordered() { return of(Kind::Ordered); }
    static Support positive_ordered() { return of(Kind::PositiveOrdered); }
    static Support unit_vector() { return of(Kind::UnitVector); }
    static Support cholesky_factor_corr() { return of(Kind::CholeskyFactorCorr); }
    static Support cholesky_factor_cov() { return of(Kind::CholeskyFactorCov); }
    static Support corr_matrix() { return of(Kind::CorrMatrix); }
    static Support cov_matrix() { return of(Kind::CovMatrix); }
    static Support sum_to_zero() { return of(Kind::SumToZero); }
    static Support sum_to_zero_matrix() { return of(Kind::SumToZeroMatrix); }
    static Support stochastic_columns() { return of(Kind::StochasticColumns); }
    // An array of `element` (a matrix support) of rows x cols: its values the rows of a matrix.
    static Support array_of(Support element, int rows, int cols) {
        element.element_rows = rows;
        element.element_cols = cols;
        return element;
    }
    [[nodiscard]] bool is_array() const { return element_rows > 0; }
    // The support of one element of an array (itself when not one).
    [[nodiscard]] Support element() const {
        Support e = *this;
        e.element_rows = e.element_cols = 0;
        return e;
    }

    // Whether x can be an element of a value of this support (scalar bounds: lower < x <
    // upper; simplex: 0 <= x <= 1; ...); for per-element or expression bounds only what
    // every element must satisfy. The full check of a value is contains(values, shape).
    [[nodiscard]] bool contains(double x) const;
    // Whether `theta` (column-major, of shape `shape`) lies in the support, within `tol`
    // for the equalities (sums, norms, symmetry) of structured supports.
    [[nodiscard]] bool contains(const Eigen::VectorXd& theta, Shape shape, double tol = 1e-8) const;
    // True when every point of `other` lies in this support (false when that cannot be
    // known, e.g. bounds that are expressions, unless this is the real line).
    [[nodiscard]] bool covers(const Support& other) const;
    // True for the kinds with a lower or upper bound (the T1/T2 choice applies).
    [[nodiscard]] bool is_bounded() const {
        return kind == Kind::Lower || kind == Kind::Upper || kind == Kind::Interval;
    }
    [[nodiscard]] bool has_expression() const {
        return lower.is_expression() || upper.is_expression() || offset.is_expression() ||
               multiplier.is_expression();
    }
    bool operator==(const Support&) const = default;
    // "real", "positive", "lower(1)", "upper(0)", "interval(0, 1)", "lower([0, 1])",
    // "affine(offset 0, multiplier 2)", "simplex", "cholesky_factor_corr", ...
    [[nodiscard]] std::string str() const;

private:
    static Support of(Kind k) {
        Support s;
        s.kind = k;
        return s;
    }
};

// How a support with a lower or upper bound reaches the real line: T1 = log (the default,
// as Stan) or T2 = log(exp(x) - 1), the softplus inverse of the paper's section 3.3.
enum class PositiveTransform { Log, Softplus };

}  // namespace advi
