// The Stan front end's parser: program text to the AST of ast.hpp. Syntax errors are
// ParseErrors at file:line:col saying what was expected ("expected `;`"); the grammar itself
// (Boost.Spirit X3) is private to dsl/advi/stan/grammar/.
#pragma once

#include <string>

#include <advi/stan/ast.hpp>

namespace advi::stan {

// The whole program. The Program keeps `text` and `file` for later errors (Program::error_at).
[[nodiscard]] Program parse_program(std::string text, std::string file = "<input>");

// One expression, alone in `text` (tests, the command line).
[[nodiscard]] Expression parse_expression(std::string_view text, std::string_view file = "<input>");

}  // namespace advi::stan
