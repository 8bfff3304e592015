#include <advi/stan/data_constraints.hpp>

#include <cmath>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace advi::stan {

namespace {

constexpr double kTolerance = 1e-8;  // Stan's CONSTRAINT_TOLERANCE

// "`w`" for a plain variable, "`w[2, 1]`" for an element of an array of them (1-based).
std::string element_name(const std::string& name, std::span<const std::int64_t> array_dims,
                         std::int64_t flat) {
    if (array_dims.empty())
        return fmt::format("`{}`", name);
    std::vector<std::int64_t> index;
    for (const std::int64_t d : array_dims) {  // first index fastest
        index.push_back(flat % d + 1);
        flat /= d;
    }
    return fmt::format("`{}[{}]`", name, fmt::join(index, ", "));
}

std::optional<std::string> check_vector(BaseType base, const Eigen::VectorXd& x) {
    switch (base) {
        case BaseType::Simplex: {
            for (Eigen::Index k = 0; k < x.size(); ++k)
                if (x[k] < 0)
                    return fmt::format("is not a simplex: element {} is {}", k + 1, x[k]);
            if (std::abs(x.sum() - 1) > kTolerance)
                return fmt::format("is not a simplex: it sums to {:.9g}", x.sum());
            return std::nullopt;
        }
        case BaseType::UnitVector:
            if (std::abs(x.squaredNorm() - 1) > kTolerance)
                return fmt::format("is not a unit vector: its squared length is {:.9g}",
                                   x.squaredNorm());
            return std::nullopt;
        case BaseType::PositiveOrdered:
            if (x.size() > 0 && !(x[0] > 0))
                return fmt::format("is not positive_ordered: element 1 is {}", x[0]);
            [[fallthrough]];
        case BaseType::Ordered:
            for (Eigen::Index k = 1; k < x.size(); ++k)
                if (!(x[k] > x[k - 1]))
                    return fmt::format(
                        "is not {}: element {} ({}) is not greater than element {} ({})",
                        base == BaseType::Ordered ? "ordered" : "positive_ordered", k + 1, x[k], k,
                        x[k - 1]);
            return std::nullopt;
        default: return std::nullopt;
    }
}

std::optional<std::string> check_matrix(BaseType base, const Eigen::MatrixXd& m) {
    const bool cholesky =
        base == BaseType::CholeskyFactorCov || base == BaseType::CholeskyFactorCorr;
    if (cholesky) {
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            for (Eigen::Index r = 0; r < c && r < m.rows(); ++r)
                if (m(r, c) != 0)
                    return fmt::format(
                        "is not a Cholesky factor: element [{}, {}] above the diagonal is {}",
                        r + 1, c + 1, m(r, c));
            if (c < m.rows() && !(m(c, c) > 0))
                return fmt::format(
                    "is not a Cholesky factor: diagonal element [{}, {}] is {}, not positive",
                    c + 1, c + 1, m(c, c));
        }
        if (base == BaseType::CholeskyFactorCorr) {
            for (Eigen::Index r = 0; r < m.rows(); ++r)
                if (std::abs(m.row(r).squaredNorm() - 1) > kTolerance)
                    return fmt::format(
                        "is not the Cholesky factor of a correlation matrix: row {} has "
                        "squared length {:.9g}",
                        r + 1, m.row(r).squaredNorm());
        }
        return std::nullopt;
    }
    if (base != BaseType::CovMatrix && base != BaseType::CorrMatrix)
        return std::nullopt;
    const char* what = base == BaseType::CovMatrix ? "a covariance matrix" : "a correlation matrix";
    for (Eigen::Index c = 0; c < m.cols(); ++c)
        for (Eigen::Index r = c + 1; r < m.rows(); ++r)
            if (std::abs(m(r, c) - m(c, r)) > kTolerance)
                return fmt::format(
                    "is not {}: it is not symmetric ([{}, {}] is {}, [{}, {}] is {})", what, r + 1,
                    c + 1, m(r, c), c + 1, r + 1, m(c, r));
    if (base == BaseType::CorrMatrix) {
        for (Eigen::Index k = 0; k < m.rows(); ++k)
            if (std::abs(m(k, k) - 1) > kTolerance)
                return fmt::format("is not a correlation matrix: diagonal element [{}, {}] is {}",
                                   k + 1, k + 1, m(k, k));
    }
    const Eigen::LLT<Eigen::MatrixXd> llt(m);
    if (llt.info() != Eigen::Success)
        return fmt::format("is not {}: it is not positive definite", what);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> violated_data_constraint(const std::string& name, BaseType base,
                                                    std::span<const std::int64_t> array_dims,
                                                    std::span<const int> sizes,
                                                    std::span<const double> values) {
    const bool vector_like = base == BaseType::Simplex || base == BaseType::UnitVector ||
                             base == BaseType::Ordered || base == BaseType::PositiveOrdered;
    const bool matrix_like = base == BaseType::CovMatrix || base == BaseType::CorrMatrix ||
                             base == BaseType::CholeskyFactorCov ||
                             base == BaseType::CholeskyFactorCorr;
    if (!vector_like && !matrix_like)
        return std::nullopt;
    std::int64_t arrays = 1;
    for (const std::int64_t d : array_dims) arrays *= d;
    const Eigen::Index rows = sizes.empty() ? 0 : sizes[0];
    const Eigen::Index cols = vector_like ? 1 : (sizes.size() > 1 ? sizes[1] : rows);
    if (arrays == 0 || rows * cols == 0)
        return std::nullopt;
    // Element (a, i) of array element a and base element i is at a + arrays * i.
    Eigen::MatrixXd m(rows, cols);
    for (std::int64_t a = 0; a < arrays; ++a) {
        for (Eigen::Index i = 0; i < rows * cols; ++i)
            m.data()[i] = values[static_cast<std::size_t>(a + arrays * i)];
        const auto problem = vector_like ? check_vector(base, m.col(0)) : check_matrix(base, m);
        if (problem)
            return element_name(name, array_dims, a) + " " + *problem;
    }
    return std::nullopt;
}

}  // namespace advi::stan
