// Checking a Stan program without its data (`advi check`): every name is declared before
// use and in scope, every function and distribution exists, assignments go to variables of
// the block that declares them, `~` and `target +=` are in the model block (or an _lp
// function), _rng calls in generated quantities. Sizes and types that need the data are
// checked when the program is lowered with it.
#pragma once

#include <advi/stan/ast.hpp>

namespace advi::stan {

// Throws the first problem as a ParseError at its file:line:col.
void check(const Program& program);

}  // namespace advi::stan
