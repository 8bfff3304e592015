// The comment lines of a Stan CSV read back in a test (io/csv_reader.hpp's StanCsv): whether
// one line stands there whole, all of them as one text to search, and the settings header as
// cmdstanpy reads it.
#pragma once

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

#include <advi/io/csv_reader.hpp>

namespace advi::test {

// Whether `line` is one of the comment lines, to the letter (with its '#').
inline bool has_comment(const StanCsv& csv, std::string_view line) {
    return std::find(csv.comments.begin(), csv.comments.end(), line) != csv.comments.end();
}

// The comment lines joined, each ended by '\n', so that a test can find "# key = value\n".
inline std::string comments_text(const StanCsv& csv) {
    std::string s;
    for (const std::string& c : csv.comments) s += c + "\n";
    return s;
}

// The settings header as cmdstanpy's scan_config (cmdstanpy/utils/stancsv.py) reads it: the
// '#' lines before the column names; " (Default)" at a line's end dropped, then the leading
// ' ', '#' and tabs; a line split at '=' into exactly two parts is "key = value" (both
// trimmed), any other line (a section name, a value holding '=') is passed over; a later key
// overwrites an earlier one; "file" is kept as data_file unless its value ends in "csv". The
// values stay text (cmdstanpy then tries int, float).
inline std::map<std::string, std::string> cmdstanpy_config(const std::string& csv_text) {
    const auto trim = [](std::string_view v) {
        const auto b = v.find_first_not_of(" \t");
        const auto e = v.find_last_not_of(" \t");
        return b == std::string_view::npos ? std::string() : std::string(v.substr(b, e - b + 1));
    };
    std::map<std::string, std::string> config;
    std::istringstream in(csv_text);
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (line.empty() || line[0] != '#')
            break;
        if (line.ends_with("(Default)"))
            line.erase(line.size() - 9);
        line.erase(0, line.find_first_not_of(" #\t"));
        const auto eq = line.find('=');
        if (eq == std::string::npos || line.find('=', eq + 1) != std::string::npos)
            continue;
        const std::string key = trim(std::string_view(line).substr(0, eq));
        const std::string value = trim(std::string_view(line).substr(eq + 1));
        if (key == "file") {
            if (!value.ends_with("csv"))
                config["data_file"] = value;
        } else {
            config[key] = value;
        }
    }
    return config;
}

}  // namespace advi::test
