// Data files by their extension: CmdStan JSON (.json), R dump (.R, .r, .data.R, .rdump), CSV
// (.csv) or NumPy (.npy, one variable per file), one reader each (json_reader.hpp,
// rdump_reader.hpp, csv_reader.hpp, npy_reader.hpp); several files merge into one table.
#pragma once

#include <filesystem>
#include <span>

#include <advi/io/data_table.hpp>

namespace advi {

// The reader for `file`'s extension. Throws DataError naming the file and the extensions there
// are when the extension is none of them, and whatever the reader throws (DataError when the
// file cannot be opened, ParseError at file:line:col for bad text).
// `keep_mapped`: large .npy arrays stay in their mapped files (npy_reader.hpp), for a
// minibatch fit.
[[nodiscard]] DataTable read_data(const std::filesystem::path& file, bool keep_mapped = false);

// Every file into one table; a variable given in two files is a DataError naming both places.
[[nodiscard]] DataTable read_data(std::span<const std::filesystem::path> files,
                                  bool keep_mapped = false);

}  // namespace advi
