// Where the examples find the shared simulated data (../shared/data beside the repository,
// passed as ADVI_SHARED_DATA by CMake), and the truth files read as numbers.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
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

// Whether sim/<model>/<size>.data.json exists; if not, says so on stdout (the examples then
// have nothing to fit and exit 0).
inline bool have_sim_data(const std::filesystem::path& dir, const std::string& size) {
    const std::filesystem::path file = dir / (size + ".data.json");
    if (std::filesystem::exists(file))
        return true;
    std::cout << "shared data not found at " << file
              << " (../shared/data beside the repository): nothing to fit\n";
    return false;
}

// The JSON text without its string-valued members (`"key": "text",`): a linear scan, no
// regex (std::regex recurses per character and overflows the stack on long strings).
inline std::string without_string_members(const std::string& t) {
    auto string_end = [&](std::size_t i) {  // t[i] == '"': the index after the closing quote
        std::size_t j = i + 1;
        while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
        return std::min(j + 1, t.size());
    };
    auto skip_space = [&](std::size_t i) {
        while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
        return i;
    };
    std::string out;
    out.reserve(t.size());
    for (std::size_t i = 0; i < t.size();) {
        if (t[i] != '"') {
            out += t[i++];
            continue;
        }
        const std::size_t key_end = string_end(i);
        const std::size_t colon = skip_space(key_end);
        if (colon < t.size() && t[colon] == ':') {
            const std::size_t value = skip_space(colon + 1);
            if (value < t.size() && t[value] == '"') {  // drop the member and its comma
                std::size_t next = skip_space(string_end(value));
                if (next < t.size() && t[next] == ',')
                    ++next;
                i = next;
                continue;
            }
        }
        out.append(t, i, key_end - i);
        i = key_end;
    }
    // a member dropped last leaves `, }`
    std::string clean;
    clean.reserve(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == ',') {
            std::size_t j = i + 1;
            while (j < out.size() && std::isspace(static_cast<unsigned char>(out[j]))) ++j;
            if (j < out.size() && out[j] == '}')
                continue;
        }
        clean += out[i];
    }
    return clean;
}

// A truth file (`*.truth.json`) as a DataTable. The CmdStan JSON reader takes numbers only,
// and truth files also hold strings (dataset, description, notes): those members are dropped
// first.
inline DataTable read_truth(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return read_json_data(without_string_members(text.str()), file.string());
}

}  // namespace advi::examples
