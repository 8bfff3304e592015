// Stan's built-in functions and distributions as one table per kind, read by both the checker
// (`advi check`: which names exist) and the lowering (how a call builds the graph), so that the
// two cannot disagree. A row is a Stan name, its signatures (signature.hpp) and its lowering;
// a new function is one row in functions.cpp. Densities are rows of the library's table
// (lib/advi/dist/distribution_table.cpp) under their Stan names, not copies of it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <advi/stan/signature.hpp>

namespace advi {
class Expr;
}

namespace advi::stan {

struct Value;
struct CallSite;     // a call of a built-in function being lowered (lowerer.hpp)
struct RandomDraw;   // an _rng call being lowered
struct DensitySite;  // a density being lowered: `y ~ d(...)`, `d_lpdf(y | ...)`

// One row; `Lowering` is the function that builds the graph of a call.
template <class Lowering>
struct Row {
    std::string_view name;
    std::vector<Signature> signatures;
    Lowering lower;
};

// Functions by their full names (`rep_vector`, `exp`).
using FunctionRow = Row<Value (*)(CallSite&)>;
// `_rng` functions by their full names (`normal_rng`); the lowering returns the draws as a
// transform of uniform or standard normal numbers. A result of `ints` is a discrete draw.
// Elementwise draws (`lower`) come in the broadcast layout of the arguments; a draw that is
// not elementwise (a category from a simplex, a vector from a covariance matrix) has `whole`,
// which builds the result's value itself (outside vectorised loops).
struct RandomRow {
    std::string_view name;
    std::vector<Signature> signatures;
    Expr (*lower)(RandomDraw&) = nullptr;
    Value (*whole)(RandomDraw&) = nullptr;
};
// Distributions by their family names (`normal`): `normal_lpdf` (also `_lpmf`, `_lupdf`,
// `_lupmf`) and `~ normal(...)`. The signature is the `_lpdf`'s.
using DensityRow = Row<Expr (*)(DensitySite&)>;

[[nodiscard]] std::span<const FunctionRow> functions();
[[nodiscard]] std::span<const RandomRow> random_functions();
[[nodiscard]] std::span<const DensityRow> densities();

// The user function a call of `f` means: `foo_lupdf` (`_lupmf`) is the user's `foo_lpdf`
// (`_lpmf`) when there is one (Stan derives the unnormalised form); else `f` itself.
template <class IsUserFunction>
[[nodiscard]] std::string user_density(const std::string& f, IsUserFunction is_user) {
    for (const auto& [u, n] : {
             std::pair{"_lupdf", "_lpdf"},
             std::pair{"_lupmf", "_lpmf"}
    }) {
        const std::string_view suffix = u;
        if (f.size() > suffix.size() && std::string_view(f).ends_with(suffix) && !is_user(f)) {
            std::string normalised = f.substr(0, f.size() - suffix.size()) + n;
            if (is_user(normalised))
                return normalised;
        }
    }
    return f;
}

// Whether a distribution's variate is integers (`_lpmf`), by its first signature.
[[nodiscard]] bool integer_variate(const DensityRow& row);

// The row of a name, or nullptr.
[[nodiscard]] const FunctionRow* find_function(std::string_view name);
[[nodiscard]] const RandomRow* find_random_function(std::string_view name);
[[nodiscard]] const DensityRow* find_density(std::string_view family);

// `normal_lpdf` -> "normal"; the empty view if `name` has no density suffix (`_lpdf`,
// `_lpmf`, `_lupdf`, `_lupmf`; Stan removed `_log`).
[[nodiscard]] std::string_view density_family(std::string_view name);
// `normal_lpdf` -> "_lpdf"; the empty view if none.
[[nodiscard]] std::string_view density_suffix(std::string_view name);
// Why a function Stan has cannot be called here ("`normal_lcdf` is not available: ..."), for
// both the checker and the lowering; empty if there is no such reason (a row, or unknown).
[[nodiscard]] std::string unavailable_reason(std::string_view f);

// Whether `f` names a built-in function, `_rng` or density (`advi check`), and whether `d`
// names a distribution (for `~`).
[[nodiscard]] bool is_known_function(std::string_view f);
[[nodiscard]] bool is_known_distribution(std::string_view d);

}  // namespace advi::stan
