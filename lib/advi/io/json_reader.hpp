// CmdStan JSON data (https://mc-stan.org/docs/cmdstan-guide/json.html): one object of
// name -> number or rectangular nested arrays of numbers, read as a stream into a DataTable
// (memory: about the size of the numbers, not of the file).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <advi/io/data_table.hpp>

namespace advi {

// Throws DataError when the file cannot be opened, ParseError (file:line:col, the line, a caret
// and what was expected) when it is not CmdStan JSON data.
[[nodiscard]] DataTable read_json_data(const std::filesystem::path& file);
// The same for text in memory; `file_name` is what messages call it.
[[nodiscard]] DataTable read_json_data(std::string_view text, std::string file_name);

}  // namespace advi
