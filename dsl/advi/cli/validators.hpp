// Checks of option values with messages that say what was expected ("--iter: expected a
// positive integer, got `abc`"), for CLI11's ->check().
#pragma once

namespace CLI {
class Validator;  // <CLI/CLI.hpp>: the installed headers do not need CLI11
}

namespace advi::cli {

[[nodiscard]] CLI::Validator positive_int();       // 1, 2, ... up to INT_MAX
[[nodiscard]] CLI::Validator non_negative_int();   // 0, 1, ... up to INT_MAX
[[nodiscard]] CLI::Validator positive_real();      // finite and > 0
[[nodiscard]] CLI::Validator non_negative_real();  // finite and >= 0
[[nodiscard]] CLI::Validator seed_value();         // 0 ... 2^64 - 1, digits only

}  // namespace advi::cli
