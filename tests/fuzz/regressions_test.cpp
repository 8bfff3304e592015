// Replays every input the fuzzers found (fuzz/regressions/<target>/) through the same function
// the fuzz target runs (fuzz/targets.hpp): each must end in an advi::Error or in success, never
// in a crash, an InternalError or another exception. Runs in the normal build too, so that a
// fixed finding stays fixed without clang or libFuzzer.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>

#include "../../fuzz/targets.hpp"

namespace advi {
namespace {

namespace fs = std::filesystem;

const fs::path kRegressions = fs::path(ADVI_SOURCE_DIR) / "fuzz" / "regressions";

std::string read_bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    REQUIRE(in);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The message of the advi::Error `run` ends in, or "" when it succeeds.
template <class Run>
std::string error_of(Run&& run) {
    try {
        run();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("every input the fuzzers found is refused cleanly or read", "[fuzz]") {
    int replayed = 0;
    for (const fuzz::Target& target : fuzz::kTargets) {
        const fs::path folder = kRegressions / target.name;
        if (!fs::is_directory(folder))
            continue;
        for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
            if (!entry.is_regular_file() || entry.path().filename() == "README.md")
                continue;
            INFO(target.name << ": " << entry.path().string());
            const std::string text = read_bytes(entry.path());
            REQUIRE_NOTHROW(target.run(text));
            ++replayed;
        }
    }
    // The folder is where fuzz/README.md says the findings are: an empty or missing folder means
    // the test would pass without replaying anything.
    CHECK(replayed > 0);
}

TEST_CASE("100000 levels of nesting are refused with a message, not a stack overflow", "[fuzz]") {
    const std::size_t n = 100000;
    const auto stan = [](const std::string& text) {
        return error_of([&] { stan::check(stan::parse_program(text, "deep.stan")); });
    };
    const std::string parens =
        stan("model {\n  x = " + std::string(n, '(') + "1" + std::string(n, ')') + ";\n}");
    // Line 2, at the 200th parenthesis: with the expression around them that is level 201.
    CHECK_THAT(parens, Catch::Matchers::StartsWith("deep.stan:2:206:"));
    CHECK_THAT(parens, Catch::Matchers::Contains("nesting too deep"));
    CHECK_THAT(stan("model { " + std::string(n, '{') + std::string(n, '}') + " }"),
               Catch::Matchers::Contains("nesting too deep"));
    CHECK_THAT(stan("model { x = " + std::string(n, '-') + "1; }"),
               Catch::Matchers::Contains("nesting too deep"));

    // The data readers nest without recursion; a deep array is read or refused with a message.
    const std::string json = "{\"x\": " + std::string(n, '[') + "1" + std::string(n, ']') + "}";
    CHECK_NOTHROW(fuzz::json_data(json));
    std::string rdump = "x <- ";
    for (std::size_t i = 0; i < n; ++i) rdump += "c(";
    rdump += "1" + std::string(n, ')') + "\n";
    CHECK_THAT(error_of([&] { (void)read_rdump_data(rdump, "deep.R"); }),
               Catch::Matchers::StartsWith("deep.R:1:"));
}

}  // namespace advi
