// Stan's truncation `y ~ D(args) T[L, U]`, as the Stan reference defines it: the density of
// y, less the log of the probability that D gives [L, U], through D's own CDFs (the library's
// or the user's `D_lcdf`/`D_lccdf` functions):
//   T[L, U]: log_diff_exp(D_lcdf(U | args), D_lcdf(L | args))
//   T[L, ]:  D_lccdf(L | args)          T[, U]:  D_lcdf(U | args)
// with L - 1 in place of L for a distribution of integers (whose lower bound is included).
// The checker types this expression and the lowering lowers it, both built here, so that the
// two cannot disagree; one term per element of y (or of a container argument), as Stan's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <advi/stan/ast.hpp>

namespace advi::stan {

// The normalising term, or nullopt for `T[,]` (no bound: nothing to normalise). `element`,
// if given, is an int expression that indexes the arguments marked in `indexed` (the
// elementwise form inside a loop over the elements).
[[nodiscard]] std::optional<Expression> truncation_normaliser(
    const Tilde& t, bool integer_variate, const std::vector<bool>& indexed = {},
    const std::optional<Expression>& element = std::nullopt);

}  // namespace advi::stan
