// The structured constraints of data declarations (simplex, unit_vector, ordered,
// positive_ordered, cov_matrix, corr_matrix, cholesky_factor_cov, cholesky_factor_corr),
// checked on the values given, one vector or matrix per array element, with Stan's tolerance
// (1e-8), by the predicates shared with transformed parameters and generated quantities
// (lib/advi/graph/constraint_check.hpp). Bounds (`<lower=0>`) are checked by the lowering itself.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <advi/graph/constraint_check.hpp>
#include <advi/stan/ast.hpp>

namespace advi::stan {

// The structured constraint a declared type carries (simplex[K]: Constraint::Simplex), or
// nothing (vector, real, ...).
[[nodiscard]] std::optional<Constraint> declared_constraint(BaseType base);

// The first violation as a message ("`w[2]` is not a simplex: it sums to 1.5"), or nothing.
// `values` are column-major over {array_dims..., sizes...} (lib/advi/io/data_table.hpp's layout).
[[nodiscard]] std::optional<std::string> violated_data_constraint(
    const std::string& name, BaseType base, std::span<const std::int64_t> array_dims,
    std::span<const int> sizes, std::span<const double> values);

}  // namespace advi::stan
