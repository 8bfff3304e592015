// CmdStan JSON data (https://mc-stan.org/docs/cmdstan-guide/json.html): one object of
// name -> number, tuple or rectangular nested arrays of either, read as a stream into a
// DataTable (memory: about the size of the numbers, not of the file).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <advi/io/data_table.hpp>

namespace advi {

// A tuple is an object with the keys "1" to "k" in any order; it gives no variable of its own
// but one per slot, named by its path: `"x": {"1": 2, "2": {"1": [1.5], "2": 3}}` gives `x.1`,
// `x.2.1` and `x.2.2`. The slots of an array of tuples take the array's dims before their
// own, as if each had been written as an array: `"p": [{"1": 1, "2": [1.5, 2.5]}, {"1": 2,
// "2": [3.5, 4.5]}]` gives `p.1` int[2] and `p.2` real[2,2]. Every element of an array of
// tuples must have the same slots, of the same shapes. An empty array cannot show whether it
// holds tuples: `"x": []` stays one variable `x` of unknown type with dims {0}, as for numbers.
//
// Throws DataError when the file cannot be opened, ParseError (file:line:col, the line, a caret
// and what was expected) when it is not CmdStan JSON data.
[[nodiscard]] DataTable read_json_data(const std::filesystem::path& file);
// The same for text in memory; `file_name` is what messages call it.
[[nodiscard]] DataTable read_json_data(std::string_view text, std::string file_name);

}  // namespace advi
