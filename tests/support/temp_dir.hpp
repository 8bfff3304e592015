// A fresh directory below the system's temporary folder for one test case, removed at the end,
// and the whole text of a file. The directory's name carries the process id, so test programs
// that ctest runs side by side never share one.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

namespace advi::test {

struct TempDir {
    std::filesystem::path path;
    explicit TempDir(std::string_view tag)
        : path(std::filesystem::temp_directory_path() /
               fmt::format("advi_test_{}_{}", tag, ::getpid())) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    // The names of the directory's entries, sorted.
    [[nodiscard]] std::vector<std::string> files() const {
        std::vector<std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(path))
            out.push_back(e.path().filename());
        std::sort(out.begin(), out.end());
        return out;
    }
};

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace advi::test
