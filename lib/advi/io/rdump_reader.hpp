// R dump data as CmdStan reads it (https://mc-stan.org/docs/cmdstan-guide/rdump.html):
// `name <- value` per line, values numbers, c(...), a:b, integer(n), double(n) and
// structure(c(...), .Dim = c(...)), read as a stream into a DataTable.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <advi/io/data_table.hpp>

namespace advi {

// Throws DataError when the file cannot be opened, ParseError (file:line:col, the line, a caret
// and what was expected) when it is not R dump data.
[[nodiscard]] DataTable read_rdump_data(const std::filesystem::path& file);
// The same for text in memory; `file_name` is what messages call it.
[[nodiscard]] DataTable read_rdump_data(std::string_view text, std::string file_name);

}  // namespace advi
