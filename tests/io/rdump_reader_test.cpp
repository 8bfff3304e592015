// R dump data: every value form (numbers, c(), a:b, structure with .Dim, integer(0), 5L, Inf,
// NaN), every error with its file:line:col, and a round trip: the same data written as JSON
// and as R dump read into equal tables.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/base/memory_budget.hpp>
#include <advi/io/json_reader.hpp>
#include <advi/io/rdump_reader.hpp>

#include "support/error_message.hpp"

#include <unistd.h>

namespace advi {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

DataTable rdump(std::string_view text) {
    return read_rdump_data(text, "d.R");
}

std::string rdump_error(std::string_view text) {
    return test::error_message<ParseError>([&] { (void)rdump(text); }, "no ParseError");
}

// Equal names in the same order, types, dims and values (NaN equal to NaN).
void check_same_tables(const DataTable& a, const DataTable& b) {
    REQUIRE(a.names() == b.names());
    for (const DataValue& x : a) {
        const DataValue& y = b.at(x.name);
        INFO("variable " << x.name);
        CHECK(x.type == y.type);
        CHECK(x.type_unknown == y.type_unknown);
        CHECK(x.dims == y.dims);
        CHECK(x.ints == y.ints);
        REQUIRE(x.reals.size() == y.reals.size());
        // Bitwise: NaN equals NaN, and -0.0 differs from 0.0.
        if (!x.reals.empty())
            CHECK(std::memcmp(x.reals.data(), y.reals.data(), x.reals.size() * sizeof(double)) ==
                  0);
    }
}

}  // namespace

TEST_CASE("R dump scalars: 5 and 5L are int, a point or an exponent makes a real", "[io]") {
    const DataTable t = rdump("N <- 5\nM <- 7L\nx <- 2.0\ne <- 1e3\nneg <- -4\nf <- -2.5E-2\n");
    CHECK(t.names() == std::vector<std::string>{"N", "M", "x", "e", "neg", "f"});
    CHECK(t.at("N").as_int() == 5);
    CHECK(t.at("N").is_scalar());
    CHECK(t.at("M").as_int() == 7);
    CHECK_FALSE(t.at("x").is_int());
    CHECK(t.at("x").as_real() == 2.0);
    CHECK(t.at("e").as_real() == 1000.0);
    CHECK(t.at("neg").as_int() == -4);
    CHECK(t.at("f").as_real() == -0.025);
    CHECK(t.at("x").source == "d.R:3:1");
}

TEST_CASE("R dump sequences: c(...), a:b up and down", "[io]") {
    const DataTable t = rdump(
        "k <- c(1, 2, 3)\ny <- c(1, 2.5)\nl <- c(1L, 2L)\ni <- 1:4\nd <- 2:-2\none <- c(7)\n"
        "w <- c(1:3, 10)\n");
    CHECK(t.at("k").is_int());
    CHECK(t.at("k").dims == std::vector<std::int64_t>{3});
    CHECK_FALSE(t.at("y").is_int());
    CHECK(t.at("y").reals == std::vector<double>{1, 2.5});
    CHECK(t.at("l").ints == std::vector<int>{1, 2});
    CHECK(t.at("i").ints == std::vector<int>{1, 2, 3, 4});
    CHECK(t.at("i").dims == std::vector<std::int64_t>{4});
    CHECK(t.at("d").ints == std::vector<int>{2, 1, 0, -1, -2});
    CHECK(t.at("one").dims == std::vector<std::int64_t>{1});
    CHECK(t.at("w").ints == std::vector<int>{1, 2, 3, 10});
}

TEST_CASE("R dump structure() is column-major already: a 2x3 matrix, a 2x3x4 array", "[io]") {
    // The matrix [[1, 2, 3], [4, 5, 6]].
    const DataTable t = rdump("X <- structure(c(1, 4, 2, 5, 3, 6), .Dim = c(2L, 3L))\n");
    const DataValue& X = t.at("X");
    CHECK(X.dims == std::vector<std::int64_t>{2, 3});
    const Eigen::MatrixXi m = X.as_int_matrix();
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) CHECK(m(i, j) == 3 * i + j + 1);

    // a[i, j, k] = 100 i + 10 j + k + 0.5 (0-based), listed first index fastest, over lines.
    std::string text = "a <- structure(c(";
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 2; ++i)
                text += fmt::format("{}{}", (i + j + k) ? ",\n  " : "", 100 * i + 10 * j + k + 0.5);
    text += "), .Dim = c(2, 3, 4))";
    const DataTable t3 = rdump(text);
    const DataValue& a = t3.at("a");
    REQUIRE(a.dims == std::vector<std::int64_t>{2, 3, 4});
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k)
                CHECK(a.reals[i + 2 * j + 6 * k] == 100 * i + 10 * j + k + 0.5);

    const DataTable s =
        rdump("s <- structure(1:6, .Dim = 2:3)\nu <- structure(5, .Dim = c(1L, 1L))");
    CHECK(s.at("s").dims == std::vector<std::int64_t>{2, 3});
    CHECK(s.at("s").ints == std::vector<int>{1, 2, 3, 4, 5, 6});
    CHECK(s.at("u").dims == std::vector<std::int64_t>{1, 1});
}

TEST_CASE("R dump special values, names, comments and separators", "[io]") {
    const DataTable t = rdump(
        "# written by hand\n"
        "s <- c(Inf, -Inf, NaN, 1)  # specials\n"
        "\"q\" <- 5; 'r' <- 6\n"
        "`b` = 2.5\r\n"
        "x.y_z <- 1\n"
        "\n"
        "long <-\n  c(1,\n    2)\n");
    const std::vector<double>& s = t.at("s").reals;
    constexpr double inf = std::numeric_limits<double>::infinity();
    REQUIRE(s.size() == 4);
    CHECK(s[0] == inf);
    CHECK(s[1] == -inf);
    CHECK(std::isnan(s[2]));
    CHECK(t.names() == std::vector<std::string>{"s", "q", "r", "b", "x.y_z", "long"});
    CHECK(t.at("b").as_real() == 2.5);
    CHECK(t.at("long").ints == std::vector<int>{1, 2});
}

TEST_CASE("R dump empty arrays: c() has no type, integer(0) and double(0) do", "[io]") {
    const DataTable t = rdump(
        "e <- c()\nei <- integer(0)\ned <- double(0)\nz <- structure(integer(0), .Dim = c(0L, "
        "3L))\nthree <- numeric(3)\n");
    CHECK(t.at("e").dims == std::vector<std::int64_t>{0});
    CHECK(t.at("e").type_unknown);
    CHECK(t.at("ei").is_int());
    CHECK_FALSE(t.at("ei").type_unknown);
    CHECK_FALSE(t.at("ed").is_int());
    CHECK_FALSE(t.at("ed").type_unknown);
    CHECK(t.at("z").dims == std::vector<std::int64_t>{0, 3});
    CHECK(t.at("z").is_int());
    CHECK(t.at("three").reals == std::vector<double>{0, 0, 0});
    CHECK(rdump("").empty());
    CHECK(rdump("# nothing\n\n").empty());
}

TEST_CASE("R dump errors name file:line:col and what was expected", "[io]") {
    CHECK_THAT(rdump_error("y 5"),
               StartsWith("d.R:1:3: expected `<-` after the name `y`, got `5`"));
    CHECK_THAT(rdump_error("y < 5"), StartsWith("d.R:1:4: expected `<-` after the name `y`"));
    CHECK_THAT(rdump_error("N <- 1\n5 <- 2"), StartsWith("d.R:2:1: expected a variable name, got "
                                                         "`5`"));
    CHECK_THAT(rdump_error("y <- 5 6"), StartsWith("d.R:1:8: expected a line break or `;` after "
                                                   "the value of `y`, got `6`"));
    CHECK_THAT(rdump_error("y <- c(1, 2"), StartsWith("d.R:1:12: expected `,` or `)`, got end of "
                                                      "file"));
    CHECK_THAT(rdump_error("y <- c(1 2)"), StartsWith("d.R:1:10: expected `,` or `)`, got `2`"));
    CHECK_THAT(rdump_error("y <- c(1, 1.2.3)"), StartsWith("d.R:1:11: expected a number for `y`, "
                                                           "got `1.2.3`"));
    CHECK_THAT(rdump_error("y <- c(1, foo)"), StartsWith("d.R:1:11: expected a number for `y`, "
                                                         "got `foo`"));
    CHECK_THAT(rdump_error("\"y <- 1"), StartsWith("d.R:1:1: unterminated string"));
    CHECK_THAT(rdump_error("N <- 1\nN <- 2"), StartsWith("d.R:2:1: duplicate variable `N` (first "
                                                         "given at d.R:1:1)"));
    CHECK_THAT(rdump_error("y <-"), StartsWith("d.R:1:5: expected a number for `y`, got end of "
                                               "file"));
    CHECK_THAT(rdump_error("y <- c 1"), StartsWith("d.R:1:8: expected `(` after `c`, got `1`"));
    CHECK_THAT(rdump_error("y <- - 1"), StartsWith("d.R:1:6: expected a number for `y`, got `-`"));
    CHECK_THAT(rdump_error("y <- integer(-1)"), StartsWith("d.R:1:14: variable `y`: the length of "
                                                           "integer() must be an integer >= 0"));
}

TEST_CASE("R dump values Stan cannot take are errors naming the variable", "[io]") {
    CHECK_THAT(rdump_error("y <- c(1, NA, 3)"),
               StartsWith("d.R:1:11: variable `y`: NA (a missing value) is not supported: Stan "
                          "data cannot be missing"));
    CHECK_THAT(rdump_error("b <- TRUE"), StartsWith("d.R:1:6: variable `b`: logical values (TRUE) "
                                                    "are not supported"));
    CHECK_THAT(rdump_error("s <- \"text\""), StartsWith("d.R:1:6: variable `s`: strings are not "
                                                        "supported"));
    CHECK_THAT(rdump_error("l <- list(1, 2)"), StartsWith("d.R:1:6: variable `l`: `list(...)` is "
                                                          "not supported"));
    CHECK_THAT(rdump_error("i <- 3000000000L"), StartsWith("d.R:1:6: variable `i`: the integer "
                                                           "3000000000 is out of range for a Stan "
                                                           "int (32-bit)"));
    CHECK_THAT(rdump_error("i <- c(1, 3000000000)"), Contains("out of range"));
    CHECK_THAT(rdump_error("i <- 1.5L"), StartsWith("d.R:1:6: variable `i`: `1.5L` is not an "
                                                    "integer"));
    CHECK_THAT(rdump_error("i <- 1.5:3"), StartsWith("d.R:1:6: variable `i`: the bounds of a "
                                                     "sequence a:b must be integers"));
}

TEST_CASE("R dump structure() errors", "[io]") {
    CHECK_THAT(rdump_error("X <- structure(c(1, 2, 3), .Dim = c(2L, 2L))"),
               StartsWith("d.R:1:6: variable `X`: .Dim = c(2, 2) needs 4 values, got 3"));
    // Found by fuzzing (fuzz/regressions/rdump_data): a product of sizes beyond int64 (32!) was
    // signed overflow; it is compared with the values read without overflowing.
    CHECK_THAT(rdump_error("s <- structure(1:6, .Dim = 2:32)"),
               StartsWith("d.R:1:6: variable `s`: .Dim = c(2, 3, 4, 5, 6, 7, 8, 9, ... (31 "
                          "sizes)) needs more than 2^63 values, got 6"));
    // Found by fuzzing (fuzz/regressions/rdump_data): millions of sizes took seconds to format;
    // the message shows the first 8.
    CHECK_THAT(rdump_error("x <- structure(c(1, 2), .Dim = 1:2000000)"),
               StartsWith("d.R:1:6: variable `x`: .Dim = c(1, 2, 3, 4, 5, 6, 7, 8, ... (2000000 "
                          "sizes)) needs more than 2^63 values, got 2"));
    CHECK_THAT(rdump_error("s <- structure(1:6, .Dim = c(3000000, 3000000, 3000000, 0))"),
               StartsWith("d.R:1:6: variable `s`: .Dim = c(3000000, 3000000, 3000000, 0) needs 0 "
                          "values, got 6"));
    CHECK_THAT(rdump_error("X <- structure(c(1, 2), .Dim = c(2L), .Dimnames = list(\"a\"))"),
               StartsWith("d.R:1:39: variable `X`: `.Dimnames` is not supported (only .Dim is "
                          "supported in structure())"));
    CHECK_THAT(rdump_error("X <- structure(c(1, 2), .Dim = c(2L) x"),
               StartsWith("d.R:1:38: expected `)` after the .Dim of structure(), got `x`"));
    CHECK_THAT(rdump_error("X <- structure(c(1, 2), .Names = c(\"a\", \"b\"))"),
               StartsWith("d.R:1:25: variable `X`: expected `.Dim`, got `.Names` (only .Dim is "
                          "supported in structure())"));
    CHECK_THAT(rdump_error("X <- structure(c(1, 2), .Dim = c(2.5))"),
               StartsWith("d.R:1:25: variable `X`: .Dim must be integers"));
    CHECK_THAT(rdump_error("X <- structure(c(), .Dim = c(2L, -1L))"),
               StartsWith("d.R:1:21: variable `X`: .Dim has a negative size"));
    CHECK_THAT(rdump_error("X <- structure(structure(1, .Dim = 1), .Dim = 1)"),
               StartsWith("d.R:1:16: variable `X`: `structure(...)` is not supported here"));
    CHECK_THAT(rdump_error("X <- structure(c(1, 2) .Dim = 2)"),
               StartsWith("d.R:1:24: expected `,` after the values of structure(), got `.`"));
}

TEST_CASE("the same data as JSON and as R dump read into equal tables", "[io]") {
    // N, a real vector, an int vector, a 2x3 real matrix, a 2x3x4 int array, special values, an
    // empty array: JSON writes rows, R dump column-major.
    std::string json =
        R"({"N": 3, "y": [0.5, -1.25, 3e-4], "k": [1, 2, 3],)"
        R"( "X": [[1.5, 2, 3], [4, 5, 6]], "s": ["Inf", "-Inf", "NaN", 0.0], "e": [],)"
        R"( "A": [)";
    std::string r =
        "N <- 3\ny <- c(0.5, -1.25, 3e-4)\nk <- 1:3\n"
        "X <- structure(c(1.5, 4, 2, 5, 3, 6), .Dim = c(2L, 3L))\n"
        "s <- c(Inf, -Inf, NaN, 0.0)\ne <- c()\nA <- structure(c(";
    for (int i = 0; i < 2; ++i) {
        json += i ? ", [" : "[";
        for (int j = 0; j < 3; ++j) {
            json += j ? ", [" : "[";
            for (int k = 0; k < 4; ++k)
                json += fmt::format("{}{}", k ? ", " : "", 100 * i + 10 * j + k);
            json += "]";
        }
        json += "]";
    }
    json += "]}";
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 2; ++i)
                r += fmt::format("{}{}", (i + j + k) ? ", " : "", 100 * i + 10 * j + k);
    r += "), .Dim = c(2L, 3L, 4L))\n";
    const DataTable from_json = read_json_data(json, "d.json");
    const DataTable from_r = rdump(r);
    check_same_tables(from_json, from_r);
    CHECK(from_json.str() == from_r.str());
    CHECK(from_r.str() ==
          "N int = 3\ny real[3]\nk int[3]\nX real[2,3]\ns real[4]\ne empty[0]\n"
          "A int[2,3,4]\n");
}

TEST_CASE("a real data file written as R dump reads back equal", "[io]") {
    if (!std::filesystem::exists(std::filesystem::path(ADVI_SHARED_DATA) / "real/faithful.json")) {
        WARN("shared data not found at " << ADVI_SHARED_DATA << ": skipped");
        return;
    }
    // faithful.json (N, D, y[272][2]) written out column-major as R dump.
    const DataTable t =
        read_json_data(std::filesystem::path(ADVI_SHARED_DATA) / "real/faithful.json");
    const DataValue& y = t.at("y");
    REQUIRE_FALSE(y.is_int());
    const std::string r = fmt::format(
        "N <- {}\nD <- {}\ny <- structure(c({}), .Dim = c({}L, {}L))\n", t.at("N").as_int(),
        t.at("D").as_int(), fmt::join(y.reals, ", "), y.dims[0], y.dims[1]);
    const DataTable back = rdump(r);
    check_same_tables(t, back);
    CHECK(back.at("y").as_matrix()(271, 1) == 74.0);  // the last row of datasets::faithful
}

TEST_CASE("R dump from a file", "[io]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / fmt::format("advi_io_rdump_{}", ::getpid());
    fs::create_directories(dir);
    const fs::path p = dir / "data.R";
    std::ofstream(p) << "N <- 2\ny <- c(1.5, 2.5)\nz <- c(1, NA)\n";
    try {
        (void)read_rdump_data(p);
        FAIL("no ParseError");
    } catch (const ParseError& e) {
        CHECK(e.line() == 3);
        CHECK(e.column() == 11);
        CHECK_THAT(e.what(), Contains("\n  z <- c(1, NA)\n            ^"));
    }
    std::ofstream(p) << "N <- 2\ny <- c(1.5, 2.5)\n";
    CHECK(read_rdump_data(p).at("y").as_vector() == Eigen::Vector2d(1.5, 2.5));
    fs::remove_all(dir);
}

}  // namespace advi

namespace advi {

TEST_CASE("R dump: a:b and integer(n) are refused before allocating beyond the memory budget",
          "[io][memory]") {
    // The text is a few bytes; its values are not. With a 1 MB budget, 125000 doubles fit.
    set_memory_budget_bytes(1000000);
    CHECK(read_rdump_data("x <- 1:125000\n", "d.R").at("x").size() == 125000);
    CHECK(read_rdump_data("x <- c(1:60000, 60001:125000)\n", "d.R").at("x").size() == 125000);
    CHECK_THROWS_WITH(read_rdump_data("x <- 1:125001\n", "d.R"),
                      StartsWith("d.R:1:6: variable `x` needs 1 MB (125001 elements of 8 bytes), "
                                 "more than the budget of 1 MB of memory"));
    // The running total of one value counts, not only the sequence at hand.
    CHECK_THROWS_WITH(read_rdump_data("x <- c(1:100000, 5:30000)\n", "d.R"),
                      StartsWith("d.R:1:18: variable `x` needs 1.04 MB (129996 elements"));
    CHECK_THROWS_WITH(read_rdump_data("y <- double(2000000000)\n", "d.R"),
                      StartsWith("d.R:1:13: variable `y` needs 16 GB"));
    set_memory_budget_bytes(0);
}

}  // namespace advi
