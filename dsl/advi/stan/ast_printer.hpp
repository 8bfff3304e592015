// Prints the Stan AST back as canonical Stan: new array syntax, `else if` chains, two-space
// indentation, and only the parentheses that precedence and associativity require, so that
// parse -> print -> parse gives the same print. `advi check` shows a program this way.
#pragma once

#include <ostream>
#include <string>

#include <advi/stan/ast.hpp>

namespace advi::stan {

[[nodiscard]] std::string to_stan(const Program& program);
[[nodiscard]] std::string to_stan(const FunctionDef& function, int indent = 0);
// A statement at `indent` levels, with its final newline.
[[nodiscard]] std::string to_stan(const Statement& statement, int indent = 0);
[[nodiscard]] std::string to_stan(const Expression& expression);
[[nodiscard]] std::string to_stan(const SizedType& type);    // array[N] vector<lower=0>[K]
[[nodiscard]] std::string to_stan(const UnsizedType& type);  // array[,] real

std::ostream& operator<<(std::ostream& os, const Program& program);
std::ostream& operator<<(std::ostream& os, const Statement& statement);
std::ostream& operator<<(std::ostream& os, const Expression& expression);
std::ostream& operator<<(std::ostream& os, const SizedType& type);

}  // namespace advi::stan
