// The Stan library as stanc3 types it: every function and distribution of the Stan Functions
// Reference with every signature, derived from stanc3's own list (derive_stan_library.py writes
// stan_library_signatures.inc from `stanc --dump-stan-math-signatures`; nothing is picked by
// hand). The checker reads it to tell a Stan function that advi does not lower yet from a name
// Stan does not have, and a call Stan would refuse (wrong types) from one it would accept; the
// lowering's own table (functions.hpp) says which of these advi can build.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <advi/stan/signature.hpp>

namespace advi::stan {

struct LibraryFunction {
    std::string_view name;
    // Stan's signatures, as stanc prints them; densities (`normal_lpdf`) take the variate
    // first. Empty for a variadic function.
    std::vector<Signature> signatures;
    // The variadic higher-order functions (the ODE and DAE solvers, solve_newton, reduce_sum,
    // the embedded Laplace functions), which stanc types by rules rather than a list.
    bool variadic = false;
    // Whether an argument is itself a function (algebra_solver, integrate_1d, map_rect, ...).
    [[nodiscard]] bool higher_order() const;
};

// The library's entry for a full name (`normal_lpdf`, `exp`, `normal_rng`), or nullptr.
// `_lupdf`/`_lupmf` find the `_lpdf`/`_lpmf` entry, as Stan derives them.
[[nodiscard]] const LibraryFunction* find_library_function(std::string_view name);
// Every name of the library, sorted.
[[nodiscard]] std::span<const std::string_view> library_function_names();
// Whether every argument of the library function `name` must be data (stanc's `DataOnly`
// qualifier, which `--dump-stan-math-signatures` does not print: the list is read from stanc3's
// src/stan_math_signatures/Generate.ml, the functions declared with add_qualified whose
// arguments are all DataOnly; the higher-order functions' data arguments are checked with
// their function types).
[[nodiscard]] bool data_only_arguments(std::string_view name);

// Which function a call of `name` with arguments of these types means when the user defines
// functions of that name (signatures `user`) and the library has one too: Stan resolves user
// and library signatures together, the fewest int-to-real promotions winning. Returns whether
// the user's wins (also when the library has no `name`, or none of its signatures fits), or
// nullopt when both fit equally well (an ambiguous call).
[[nodiscard]] std::optional<bool> user_function_wins(std::string_view name,
                                                     std::span<const Signature> user,
                                                     std::span<const StanType> args);

}  // namespace advi::stan
