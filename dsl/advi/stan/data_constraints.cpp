#include <advi/stan/data_constraints.hpp>

#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <advi/graph/constraint_check.hpp>

namespace advi::stan {

namespace {

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

}  // namespace

std::optional<Constraint> declared_constraint(BaseType base) {
    switch (base) {
        case BaseType::Simplex: return Constraint::Simplex;
        case BaseType::UnitVector: return Constraint::UnitVector;
        case BaseType::Ordered: return Constraint::Ordered;
        case BaseType::PositiveOrdered: return Constraint::PositiveOrdered;
        case BaseType::CovMatrix: return Constraint::CovMatrix;
        case BaseType::CorrMatrix: return Constraint::CorrMatrix;
        case BaseType::CholeskyFactorCov: return Constraint::CholeskyFactorCov;
        case BaseType::CholeskyFactorCorr: return Constraint::CholeskyFactorCorr;
        case BaseType::SumToZeroVector: return Constraint::SumToZeroVector;
        case BaseType::SumToZeroMatrix: return Constraint::SumToZeroMatrix;
        case BaseType::RowStochasticMatrix: return Constraint::RowStochasticMatrix;
        case BaseType::ColumnStochasticMatrix: return Constraint::ColumnStochasticMatrix;
        default: return std::nullopt;
    }
}

std::optional<std::string> violated_data_constraint(const std::string& name, BaseType base,
                                                    std::span<const std::int64_t> array_dims,
                                                    std::span<const int> sizes,
                                                    std::span<const double> values) {
    const std::optional<Constraint> c = declared_constraint(base);
    if (!c)
        return std::nullopt;
    std::int64_t arrays = 1;
    for (const std::int64_t d : array_dims) arrays *= d;
    const int rows = sizes.empty() ? 0 : sizes[0];
    const int cols = is_vector_constraint(*c) ? 1 : (sizes.size() > 1 ? sizes[1] : rows);
    if (arrays == 0 || static_cast<std::int64_t>(rows) * cols == 0)
        return std::nullopt;
    // Element (a, i) of array element a and base element i is at a + arrays * i: each array
    // element is read in place with stride `arrays`.
    std::vector<double> scratch(static_cast<std::size_t>(rows) * rows);
    for (std::int64_t a = 0; a < arrays; ++a) {
        if (const auto problem =
                structured_violation(*c, values.data() + a, rows, cols, arrays, scratch.data()))
            return element_name(name, array_dims, a) + " " + *problem;
    }
    return std::nullopt;
}

}  // namespace advi::stan
