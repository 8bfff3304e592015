// Test support for running the built `advi` tool as a user does: in a scratch directory of
// its own, with stdout and stderr captured, and the checks every error must pass.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

namespace advi::test {

namespace fs = std::filesystem;

// The test runs from <build>/tests/dsl_cli_cli_test; the tool is <build>/dsl/advi/cli/advi.
inline fs::path build_dir() {
    return fs::read_symlink("/proc/self/exe").parent_path().parent_path();
}

inline fs::path advi_binary() {
    return build_dir() / "dsl" / "advi" / "cli" / "advi";
}

// Whether this build has the tool (ADVI_BUILD_CLI=OFF builds the tests without it).
inline bool cli_built() {
    std::ifstream cache(build_dir() / "CMakeCache.txt");
    std::string line;
    while (std::getline(cache, line)) {
        if (line.rfind("ADVI_BUILD_CLI:", 0) == 0) {
            return line.substr(line.find('=') + 1) != "OFF";
        }
    }
    return true;
}

inline fs::path programs_dir() {
    return fs::path(ADVI_SOURCE_DIR) / "tests/dsl/stan/programs";
}

// A directory of our own for the files a test writes, removed at exit.
struct Scratch {
    fs::path dir;
    Scratch() {
        dir = fs::temp_directory_path() / ("advi_cli_test_" + std::to_string(::getpid()));
        fs::create_directories(dir);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

inline const fs::path& scratch() {
    static Scratch s;
    return s.dir;
}

inline fs::path write_file(const std::string& name, const std::string& text) {
    const fs::path p = scratch() / name;
    std::ofstream(p) << text;
    return p;
}

inline std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Run {
    int status = -1;
    std::string out;
    std::string err;
};

// Runs `advi <args>` in the scratch directory; `args` is shell text (paths are quoted by q()).
inline Run tool(const std::string& args) {
    static int count = 0;
    const std::string n = std::to_string(count++);
    const fs::path out = scratch() / ("stdout" + n), err = scratch() / ("stderr" + n);
    const std::string command = "cd '" + scratch().string() + "' && '" + advi_binary().string() +
                                "' " + args + " > '" + out.string() + "' 2> '" + err.string() + "'";
    const int raw = std::system(command.c_str());
    Run r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

inline std::string q(const fs::path& p) {
    return "'" + p.string() + "'";
}

inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// One line "advi: error: ..." containing `part`, and the status.
inline void check_one_line_error(const Run& r, int status, const std::string& part) {
    INFO("stderr: " << r.err);
    CHECK(r.status == status);
    CHECK(lines(r.err).size() == 1);
    CHECK(r.err.rfind("advi: error: ", 0) == 0);
    CHECK(contains(r.err, part));
}

// Starts `advi args...` in the scratch directory, stdout and stderr to files; returns its pid.
inline pid_t spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::chdir(scratch().c_str()) != 0)
            ::_exit(127);
        std::FILE* o = std::freopen(out.c_str(), "w", stdout);
        std::FILE* e = std::freopen(err.c_str(), "w", stderr);
        if (o == nullptr || e == nullptr)
            ::_exit(127);
        std::vector<char*> argv;
        const std::string binary = advi_binary().string();
        argv.push_back(const_cast<char*>(binary.c_str()));
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
    }
    return pid;
}

// Waits until `file` contains `part` (at most `seconds`).
inline bool wait_for(const fs::path& file, const std::string& part, double seconds) {
    for (int i = 0; i < seconds * 100; ++i) {
        if (contains(read_file(file), part))
            return true;
        ::usleep(10000);
    }
    return false;
}

}  // namespace advi::test
