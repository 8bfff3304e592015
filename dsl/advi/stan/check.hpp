// Checking a Stan program without its data (`advi check`, and the lowering before anything
// else): every name is declared before use and in scope; every expression has a Stan type
// (types.hpp) and every call fits a signature of the function table (functions.hpp), which the
// lowering reads too; user functions return their declared type on every path and are called
// with their argument types, one definition per name, none named like a built-in; assignments
// go to variables of the block that declares them with a type they can hold; `~` and
// `target +=` are in the model block (or an _lp function), _rng calls in generated quantities
// (or _rng functions). Sizes that need the data are checked when the program is lowered.
#pragma once

#include <advi/stan/ast.hpp>

namespace advi::stan {

// Throws the first problem as a ParseError at its file:line:col.
void check(const Program& program);

}  // namespace advi::stan
