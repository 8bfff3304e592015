// Where the examples find the shared simulated data (../shared/data beside the repository,
// passed as ADVI_SHARED_DATA by CMake), and the truth files read as numbers.
#pragma once

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <advi/io/json_reader.hpp>

namespace advi::examples {

// sim/<model>/ in the shared data folder (it may not exist: a clone outside the workplace).
inline std::filesystem::path sim_dir(const std::string& model) {
#ifdef ADVI_SHARED_DATA
    return std::filesystem::path(ADVI_SHARED_DATA) / "sim" / model;
#else
    return std::filesystem::path("../shared/data/sim") / model;
#endif
}

// A truth file (`*.truth.json`) as a DataTable. The CmdStan JSON reader takes numbers only,
// and truth files also hold strings (dataset, description, notes): those members are dropped
// first. Strings are JSON strings (escapes allowed) and sit only as values of top-level keys.
inline DataTable read_truth(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    static const std::regex string_member(R"re("[^"]*"\s*:\s*"(?:[^"\\]|\\.)*"\s*,?)re");
    static const std::regex trailing_comma(R"re(,(\s*)\})re");
    std::string numbers = std::regex_replace(text.str(), string_member, "");
    numbers = std::regex_replace(numbers, trailing_comma, "$1}");
    return read_json_data(numbers, file.string());
}

}  // namespace advi::examples
