// The parser runs on a stack of its own (dsl/advi/stan/large_stack.hpp), so that the nesting the
// grammar allows parses whatever stack the caller has.
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include <advi/base/error.hpp>
#include <advi/stan/large_stack.hpp>
#include <advi/stan/parser.hpp>

namespace advi::stan {
namespace {

// Recursion that needs about depth * 1 KiB of stack.
int deep(int depth) {
    volatile char frame[1024];
    frame[0] = 1;
    return depth == 0 ? 0 : deep(depth - 1) + frame[0];  // not a tail call: every frame stays
}

std::string nested(int levels) {
    return "model { target += " + std::string(levels, '(') + "1" + std::string(levels, ')') + "; }";
}

}  // namespace

TEST_CASE("run_with_stack runs on the stack asked for and passes exceptions back",
          "[stan][stack]") {
    int result = -1;
    // 64 MiB of recursion: more than a main thread's usual 8 MiB.
    run_with_stack(std::size_t{128} << 20, [&] { result = deep(64 * 1024); });
    CHECK(result == 64 * 1024);
    CHECK_THROWS_WITH(
        run_with_stack(std::size_t{1} << 20, [] { throw std::runtime_error("from the thread"); }),
        "from the thread");
    CHECK_THROWS_AS(run_with_stack(std::size_t{1} << 20, [] { throw ModelError("typed"); }),
                    ModelError);
}

TEST_CASE("the deepest nesting the grammar allows parses from a thread with a small stack",
          "[stan][stack]") {
    // A 256 KiB caller stack (a worker thread's) parses 150 levels of parentheses (with the
    // block and the statement, near the grammar's 200); 1000 are the grammar's error.
    bool parsed = false;
    std::string error;
    run_with_stack(std::size_t{256} << 10, [&] {
        (void)parse_program(nested(150), "deep.stan");
        parsed = true;
        try {
            (void)parse_program(nested(1000), "deep.stan");
        } catch (const ParseError& e) {
            error = e.what();
        }
    });
    CHECK(parsed);
    CHECK(error.find("nesting too deep (more than 200 levels") != std::string::npos);
}

}  // namespace advi::stan
