// Picks a data reader by the file name's extension.
#include <advi/io/read_data.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/csv_reader.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/io/npy_reader.hpp>
#include <advi/io/rdump_reader.hpp>

namespace advi {
namespace {

std::string lower_case(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace

DataTable read_data(const std::filesystem::path& file, bool keep_mapped) {
    // `.data.R` ends in `.R`: the last extension decides. R itself writes `.R`; `.json` and
    // `.csv` are accepted in any case because other tools write `.JSON` and `.CSV`.
    const std::string ext = file.extension().string();
    const std::string lower = lower_case(ext);
    if (lower == ".json") {
        return read_json_data(file);
    }
    if (ext == ".R" || ext == ".r" || lower == ".rdump") {
        return read_rdump_data(file);
    }
    if (lower == ".csv") {
        return read_csv_data(file);
    }
    if (lower == ".npy") {
        return read_npy_data(file, keep_mapped);
    }
    throw DataError(fmt::format(
        "data file `{}`: unknown format {}(expected .json for CmdStan JSON, .R, .r, .data.R or "
        ".rdump for R dump, .csv for CSV, .npy for NumPy)",
        file.string(), ext.empty() ? "without an extension " : "`" + ext + "` "));
}

DataTable read_data(std::span<const std::filesystem::path> files, bool keep_mapped) {
    std::vector<DataTable> tables;
    tables.reserve(files.size());
    for (const auto& f : files) {
        tables.push_back(read_data(f, keep_mapped));
    }
    return merge_tables(std::move(tables));
}

}  // namespace advi
