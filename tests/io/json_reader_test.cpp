// CmdStan JSON data: every value kind, nested arrays to column-major, special values, empty
// arrays, tuples as a variable per slot, every error with its file:line:col, real files of the
// shared data, and the memory of reading a large file.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <advi/base/error.hpp>
#include <advi/io/json_reader.hpp>

#include "support/error_message.hpp"

#include <unistd.h>

namespace advi {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

DataTable json(std::string_view text) {
    return read_json_data(text, "d.json");
}

// The message of the ParseError that reading `text` throws.
std::string json_error(std::string_view text) {
    return test::error_message<ParseError>([&] { (void)json(text); }, "no ParseError");
}

fs::path temp_file(const std::string& name, std::string_view content) {
    const fs::path dir = fs::temp_directory_path() / fmt::format("advi_io_json_{}", ::getpid());
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
}

// The process's resident set size or its peak since the last reset, in bytes (Linux).
std::int64_t status_kb(const std::string& key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key + ":", 0) == 0)
            return std::stoll(line.substr(key.size() + 1)) * 1024;
    return -1;
}

// Sets the peak resident size (VmHWM) to the current one; false where Linux does not allow it,
// or under AddressSanitizer, whose quarantine keeps freed memory resident.
bool reset_peak_rss() {
#if defined(__SANITIZE_ADDRESS__)
    return false;
#endif
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
    f.flush();
    return static_cast<bool>(f);
}

}  // namespace

TEST_CASE("JSON scalars: integers are int, a point or an exponent makes a real", "[io]") {
    const DataTable t = json(R"({"N": 3, "x": 1.0, "z": -2, "e": 1e3, "f": -2.5E-2, "zero": -0})");
    CHECK(t.names() == std::vector<std::string>{"N", "x", "z", "e", "f", "zero"});
    CHECK(t.at("N").is_int());
    CHECK(t.at("N").is_scalar());
    CHECK(t.at("N").as_int() == 3);
    CHECK_FALSE(t.at("x").is_int());
    CHECK(t.at("x").as_real() == 1.0);
    CHECK(t.at("z").as_int() == -2);
    CHECK(t.at("e").as_real() == 1000.0);
    CHECK_FALSE(t.at("e").is_int());
    CHECK(t.at("f").as_real() == -0.025);
    CHECK(t.at("zero").as_int() == 0);
    CHECK(t.at("N").source == "d.json:1:2");
}

TEST_CASE("JSON arrays: ints, reals, and one real making the whole array real", "[io]") {
    const DataTable t =
        json("{\n  \"k\": [1, 2, 3],\n  \"y\": [0.5, 1.5],\n  \"m\": [1, 2.5, 3]\n}");
    CHECK(t.at("k").is_int());
    CHECK(t.at("k").dims == std::vector<std::int64_t>{3});
    CHECK(t.at("k").as_int_vector() == Eigen::Vector3i(1, 2, 3));
    CHECK(t.at("y").as_vector() == Eigen::Vector2d(0.5, 1.5));
    CHECK_FALSE(t.at("m").is_int());
    CHECK(t.at("m").reals == std::vector<double>{1, 2.5, 3});
    CHECK(t.at("y").source == "d.json:3:3");
}

TEST_CASE("JSON nested arrays become column-major: a 2x3 matrix, a 2x3x4 array", "[io]") {
    const DataTable t = json(R"({"X": [[1, 2, 3], [4, 5, 6]]})");
    const DataValue& X = t.at("X");
    CHECK(X.dims == std::vector<std::int64_t>{2, 3});
    CHECK(X.ints == std::vector<int>{1, 4, 2, 5, 3, 6});
    const Eigen::MatrixXi m = X.as_int_matrix();
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) CHECK(m(i, j) == 3 * i + j + 1);

    // a[i][j][k] = 100 i + 10 j + k + 0.5.
    std::string text = R"({"a": [)";
    for (int i = 0; i < 2; ++i) {
        text += i ? ", [" : "[";
        for (int j = 0; j < 3; ++j) {
            text += j ? ", [" : "[";
            for (int k = 0; k < 4; ++k)
                text += fmt::format("{}{}", k ? ", " : "", 100 * i + 10 * j + k + 0.5);
            text += "]";
        }
        text += "]";
    }
    text += "]}";
    const DataTable t3 = json(text);
    const DataValue& a = t3.at("a");
    REQUIRE(a.dims == std::vector<std::int64_t>{2, 3, 4});
    REQUIRE(a.reals.size() == 24);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k)
                CHECK(a.reals[i + 2 * j + 6 * k] == 100 * i + 10 * j + k + 0.5);
}

TEST_CASE("JSON special values as strings and bare words", "[io]") {
    const DataTable t =
        json(R"({"s": ["NaN", "Inf", "-Inf", "+Inf", "Infinity", "-Infinity", "inf", "-inf"],)"
             R"( "w": [NaN, Infinity, -Infinity, 1], "n": "NaN"})");
    const std::vector<double>& s = t.at("s").reals;
    REQUIRE(s.size() == 8);
    constexpr double inf = std::numeric_limits<double>::infinity();
    CHECK(std::isnan(s[0]));
    CHECK(s[1] == inf);
    CHECK(s[2] == -inf);
    CHECK(s[3] == inf);
    CHECK(s[4] == inf);
    CHECK(s[5] == -inf);
    CHECK(s[6] == inf);
    CHECK(s[7] == -inf);
    const std::vector<double>& w = t.at("w").reals;
    CHECK(std::isnan(w[0]));
    CHECK(w[1] == inf);
    CHECK(w[2] == -inf);
    CHECK(w[3] == 1.0);
    CHECK(std::isnan(t.at("n").as_real()));
}

TEST_CASE("JSON empty arrays: dims with a 0 and no type", "[io]") {
    const DataTable t = json(R"({"e": [], "rows": [[], []], "one": [[]]})");
    const DataValue& e = t.at("e");
    CHECK(e.dims == std::vector<std::int64_t>{0});
    CHECK(e.type_unknown);
    CHECK(e.shape_str() == "empty[0]");
    CHECK(t.at("rows").dims == std::vector<std::int64_t>{2, 0});
    CHECK(t.at("one").dims == std::vector<std::int64_t>{1, 0});
    const std::vector<std::int64_t> ints{0};
    CHECK_NOTHROW(e.check(DType::Int, ints));
    CHECK(json("{}").empty());
    CHECK(json(" \n{ }\n").empty());
}

TEST_CASE("JSON names may hold escapes", "[io]") {
    const DataTable t = json(R"({"a\"b": 1, "\u00e9": 2, "tab\t": 3})");
    CHECK(t.names() == std::vector<std::string>{"a\"b", "\xc3\xa9", "tab\t"});
}

TEST_CASE("JSON syntax errors name file:line:col and what was expected", "[io]") {
    CHECK_THAT(json_error("[1, 2]"), StartsWith("d.json:1:1: expected `{` (CmdStan JSON data is "
                                                "one object of variables), got `[`"));
    CHECK_THAT(json_error(""), StartsWith("d.json:1:1: expected `{`"));
    CHECK_THAT(json_error(""), Contains("got end of file"));
    CHECK_THAT(json_error("{\"a\": [1 2]}"),
               StartsWith("d.json:1:10: expected `,` or `]`, got `2`"));
    CHECK_THAT(json_error("{\"a\": 1 \"b\": 2}"), StartsWith("d.json:1:9: expected `,` or `}`"));
    CHECK_THAT(json_error("{\"a\" 1}"), StartsWith("d.json:1:6: expected `:` after the name `a`"));
    CHECK_THAT(json_error("{a: 1}"), StartsWith("d.json:1:2: expected a variable name in double "
                                                "quotes, got `a`"));
    CHECK_THAT(json_error("{\"a\": 1,}"), StartsWith("d.json:1:9: expected a variable name"));
    CHECK_THAT(json_error("{\n  \"abc"), StartsWith("d.json:2:3: unterminated string"));
    CHECK_THAT(json_error("{\"a\": [1,]}"), StartsWith("d.json:1:10: expected a number for `a`, "
                                                       "got `]`"));
    CHECK_THAT(json_error("{\"a\": [1, 2"), StartsWith("d.json:1:12: expected `,` or `]`, got end "
                                                       "of file"));
    CHECK_THAT(json_error("{\"a\": 1} x"), StartsWith("d.json:1:10: expected the end of the file "
                                                      "after the top-level object, got `x`"));
    CHECK_THAT(json_error("{\"a\": 1.2.3}"), StartsWith("d.json:1:7: expected a number for `a`, "
                                                        "got `1.2.3`"));
    CHECK_THAT(json_error("{\"\": 1}"), StartsWith("d.json:1:2: empty variable name"));
    CHECK_THAT(json_error("{\"a\\q\": 1}"), StartsWith("d.json:1:5: invalid escape"));
    CHECK_THAT(json_error("{\"a\\u12G4\": 1}"), StartsWith("d.json:1:5: expected four hex digits "
                                                           "after `\\u`"));
    CHECK_THAT(json_error("{\"ab\ncd\": 1}"), StartsWith("d.json:1:2: unterminated string"));
}

TEST_CASE("JSON errors show the line and a caret under the column", "[io]") {
    CHECK(json_error("{\n  \"N\": 3,\n  \"y\": [1, 2 3]\n}") ==
          "d.json:3:14: expected `,` or `]`, got `3`\n"
          "    \"y\": [1, 2 3]\n"
          "               ^");
}

TEST_CASE("JSON: a duplicate variable names where it was first given", "[io]") {
    CHECK_THAT(json_error("{\n  \"N\": 3,\n  \"N\": 4\n}"),
               StartsWith("d.json:3:3: duplicate variable `N` (first given at d.json:2:3)"));
}

TEST_CASE("JSON: ragged arrays are errors naming the variable", "[io]") {
    // A row longer than the first, at its extra element.
    CHECK_THAT(json_error(R"({"X": [[1, 2], [3, 4, 5]]})"),
               StartsWith("d.json:1:23: ragged array `X`: expected `]` after 2 elements, as in "
                          "the first array at this depth"));
    // A row shorter than the first, at its `]`.
    CHECK_THAT(json_error(R"({"X": [[1, 2], [3]]})"),
               StartsWith("d.json:1:18: ragged array `X`: this array has 1 elements, the first "
                          "array at this depth has 2"));
    // A number where the first element had an array, and the reverse.
    CHECK_THAT(json_error(R"({"X": [[1, 2], 3]})"),
               StartsWith("d.json:1:16: ragged array `X`: expected `[`, not a number (the first "
                          "element is nested 2 deep)"));
    CHECK_THAT(json_error(R"({"X": [1, [2]]})"),
               StartsWith("d.json:1:11: ragged array `X`: expected a number, not `[` (the first "
                          "element is nested 1 deep)"));
    CHECK_THAT(json_error(R"({"X": [[], [1]]})"), StartsWith("d.json:1:13: ragged array `X`"));
    CHECK_THAT(json_error(R"({"X": [[1], []]})"), StartsWith("d.json:1:14: ragged array `X`"));
}

TEST_CASE("JSON values that are not numbers are errors naming the variable", "[io]") {
    CHECK_THAT(json_error(R"({"s": "abc"})"),
               StartsWith("d.json:1:7: variable `s`: the string \"abc\" is not a number"));
    CHECK_THAT(json_error(R"({"b": true})"), StartsWith("d.json:1:7: variable `b`: `true` is not a "
                                                        "number"));
    CHECK_THAT(json_error(R"({"b": [1, null]})"), StartsWith("d.json:1:11: variable `b`: `null` is "
                                                             "not a number"));
    CHECK_THAT(json_error(R"({"b": false})"), Contains("`false` is not a number"));
    CHECK_THAT(json_error(R"({"b": [1, "x"]})"),
               StartsWith("d.json:1:11: variable `b`: the string"));
}

TEST_CASE("JSON tuples: a variable per slot, named by its path, none for the tuple", "[io]") {
    const DataTable t = json(R"({"N": 2, "x": {"1": 3, "2": 2.5}, "M": 1})");
    CHECK(t.names() == std::vector<std::string>{"N", "x.1", "x.2", "M"});
    CHECK_FALSE(t.contains("x"));
    CHECK(t.at("x.1").is_int());
    CHECK(t.at("x.1").is_scalar());
    CHECK(t.at("x.1").as_int() == 3);
    CHECK_FALSE(t.at("x.2").is_int());
    CHECK(t.at("x.2").as_real() == 2.5);
    CHECK(t.at("x.1").source == "d.json:1:10");
    CHECK(t.at("x.2").source == "d.json:1:10");
}

TEST_CASE("JSON tuples nested in tuples: paths with a dot per level", "[io]") {
    const DataTable t = json(R"({"x": {"1": 1, "2": {"1": 2.5, "2": [1, 2], "3": {"1": 7}}}})");
    CHECK(t.names() == std::vector<std::string>{"x.1", "x.2.1", "x.2.2", "x.2.3.1"});
    CHECK(t.at("x.1").as_int() == 1);
    CHECK(t.at("x.2.1").as_real() == 2.5);
    CHECK(t.at("x.2.2").dims == std::vector<std::int64_t>{2});
    CHECK(t.at("x.2.2").ints == std::vector<int>{1, 2});
    CHECK(t.at("x.2.3.1").as_int() == 7);
    CHECK_FALSE(t.contains("x.2"));
}

TEST_CASE("JSON tuples with array and matrix slots, and slots in any order", "[io]") {
    const DataTable t =
        json(R"({"t": {"3": [["NaN", 1]], "1": [1, 2, 3], "2": [[1, 2, 3], [4, 5, 6]]}})");
    CHECK(t.names() == std::vector<std::string>{"t.1", "t.2", "t.3"});
    CHECK(t.at("t.1").as_int_vector() == Eigen::Vector3i(1, 2, 3));
    const DataValue& m = t.at("t.2");
    CHECK(m.dims == std::vector<std::int64_t>{2, 3});
    CHECK(m.ints == std::vector<int>{1, 4, 2, 5, 3, 6});
    CHECK(m.as_int_matrix()(1, 2) == 6);
    const DataValue& r = t.at("t.3");
    CHECK(r.dims == std::vector<std::int64_t>{1, 2});
    REQUIRE(r.reals.size() == 2);
    CHECK(std::isnan(r.reals[0]));
    CHECK(r.reals[1] == 1.0);
}

TEST_CASE("JSON arrays of tuples: each slot an array over the elements, column-major", "[io]") {
    // The contract's example: as if `p.1` and `p.2` had been written as arrays of their own.
    const DataTable t = json(R"({"p": [{"1": 1, "2": [1.5, 2.5]}, {"1": 2, "2": [3.5, 4.5]}]})");
    CHECK(t.names() == std::vector<std::string>{"p.1", "p.2"});
    CHECK(t.at("p.1").is_int());
    CHECK(t.at("p.1").dims == std::vector<std::int64_t>{2});
    CHECK(t.at("p.1").ints == std::vector<int>{1, 2});
    CHECK(t.at("p.2").dims == std::vector<std::int64_t>{2, 2});
    CHECK(t.at("p.2").reals == std::vector<double>{1.5, 3.5, 2.5, 4.5});
    const DataTable plain = json(R"({"p2": [[1.5, 2.5], [3.5, 4.5]]})");
    CHECK(t.at("p.2").reals == plain.at("p2").reals);

    // Each element may order its keys differently; one real makes the whole slot real.
    const DataTable k = json(R"({"q": [{"2": [1], "1": 1}, {"1": 2.5, "2": [2]}]})");
    CHECK(k.at("q.1").reals == std::vector<double>{1, 2.5});
    CHECK(k.at("q.2").dims == std::vector<std::int64_t>{2, 1});
    CHECK(k.at("q.2").ints == std::vector<int>{1, 2});

    // A slot holding an array of tuples: the dims of both arrays, outermost first.
    const DataTable n =
        json(R"({"r": [{"1": [{"1": 1}, {"1": 2}]}, {"1": [{"1": 3}, {"1": 4}]}]})");
    CHECK(n.names() == std::vector<std::string>{"r.1.1"});
    CHECK(n.at("r.1.1").dims == std::vector<std::int64_t>{2, 2});
    CHECK(n.at("r.1.1").ints == std::vector<int>{1, 3, 2, 4});
}

TEST_CASE("JSON 2-D arrays of tuples: the array's dims before the slot's own", "[io]") {
    // p[i][j] = (10 i + j, [100 i + 10 j + 0.5, 100 i + 10 j + 1.5]) for 2 x 3 elements.
    std::string text = R"({"p": [)";
    for (int i = 0; i < 2; ++i) {
        text += i ? ", [" : "[";
        for (int j = 0; j < 3; ++j)
            text += fmt::format(R"({}{{"2": [{}, {}], "1": {}}})", j ? ", " : "",
                                100 * i + 10 * j + 0.5, 100 * i + 10 * j + 1.5, 10 * i + j);
        text += "]";
    }
    text += "]}";
    const DataTable t = json(text);
    const DataValue& a = t.at("p.1");
    const DataValue& b = t.at("p.2");
    REQUIRE(a.dims == std::vector<std::int64_t>{2, 3});
    REQUIRE(b.dims == std::vector<std::int64_t>{2, 3, 2});
    REQUIRE(b.reals.size() == 12);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
            CHECK(a.ints[i + 2 * j] == 10 * i + j);
            for (int k = 0; k < 2; ++k)
                CHECK(b.reals[i + 2 * j + 6 * k] == 100 * i + 10 * j + k + 0.5);
        }
}

TEST_CASE("JSON empty arrays around and inside tuples", "[io]") {
    // `[]` cannot tell whether it holds tuples: one variable of unknown type, as for numbers.
    const DataTable t = json(R"({"e": [], "t": {"1": [], "2": 1}, "p": [{"1": []}, {"1": []}]})");
    CHECK(t.names() == std::vector<std::string>{"e", "t.1", "t.2", "p.1"});
    CHECK(t.at("e").dims == std::vector<std::int64_t>{0});
    CHECK(t.at("e").type_unknown);
    CHECK(t.at("t.1").dims == std::vector<std::int64_t>{0});
    CHECK(t.at("t.1").type_unknown);
    CHECK(t.at("p.1").dims == std::vector<std::int64_t>{2, 0});
    CHECK(t.at("p.1").type_unknown);
}

TEST_CASE("JSON tuple keys must be the slots \"1\" to \"k\", each once", "[io]") {
    CHECK_THAT(json_error(R"({"t": {"1": 1, "3": 2}})"),
               StartsWith("d.json:1:7: tuple `t` has slot \"3\" but no slot \"2\" (the keys of a "
                          "tuple are \"1\" to \"k\")"));
    CHECK_THAT(json_error(R"({"t": {"2": 1}})"), Contains("has slot \"2\" but no slot \"1\""));
    CHECK_THAT(json_error(R"({"t": {"a": 1}})"),
               StartsWith("d.json:1:8: tuple `t`: the key \"a\" is not a slot number (CmdStan "
                          "writes the slots of a tuple as \"1\", \"2\", ...)"));
    CHECK_THAT(json_error(R"({"t": {"0": 1}})"), Contains("the key \"0\" is not a slot number"));
    CHECK_THAT(json_error(R"({"t": {"01": 1}})"), Contains("the key \"01\" is not a slot number"));
    CHECK_THAT(json_error(R"({"t": {"-1": 1}})"), Contains("the key \"-1\" is not a slot number"));
    CHECK_THAT(json_error(R"({"t": {"1.0": 1}})"),
               Contains("the key \"1.0\" is not a slot number"));
    CHECK_THAT(json_error(R"({"t": {1: 1}})"),
               StartsWith("d.json:1:8: expected a slot number in double quotes (\"1\", \"2\", ...) "
                          "for tuple `t`, got `1`"));
    CHECK_THAT(json_error(R"({"t": {}})"), StartsWith("d.json:1:7: tuple `t` has no slots"));
    CHECK_THAT(json_error(R"({"t": {"1": 1, "1": 2}})"),
               StartsWith("d.json:1:16: tuple `t`: slot \"1\" is given twice"));
    CHECK_THAT(json_error(R"({"p": [{"1": 1}, {"1": 2, "1": 3}]})"),
               StartsWith("d.json:1:27: tuple `p`: slot \"1\" is given twice"));
    CHECK_THAT(json_error(R"({"t": {"1": 1 "2": 2}})"),
               StartsWith("d.json:1:15: expected `,` or `}`, got `\"`"));
    CHECK_THAT(json_error(R"({"t": {"1" 1}})"),
               StartsWith("d.json:1:12: expected `:` after the key \"1\" of tuple `t`"));
}

TEST_CASE("JSON arrays of tuples: every element has the slots and shapes of the first", "[io]") {
    CHECK_THAT(json_error(R"({"p": [{"1": 1, "2": 2}, {"1": 3}]})"),
               StartsWith("d.json:1:26: this element of `p` differs from the first: no slot "
                          "\"2\""));
    CHECK_THAT(json_error(R"({"p": [{"1": 1}, {"1": 3, "2": 4}]})"),
               StartsWith("d.json:1:27: this element of `p` differs from the first: slot \"2\" "
                          "is not in the first element, which has only slot \"1\""));
    CHECK_THAT(json_error(R"({"p": [{"1": [1, 2]}, {"1": [3]}]})"),
               StartsWith("d.json:1:31: `p.1` differs from the first element of `p`: this array "
                          "has 1 elements, the first element of `p` has 2"));
    CHECK_THAT(json_error(R"({"p": [{"1": [1]}, {"1": [3, 4]}]})"),
               Contains("`p.1` differs from the first element of `p`: expected `]` after 1 "
                        "elements, as in the first element of `p`"));
    CHECK_THAT(json_error(R"({"p": [{"1": 1}, {"1": [1]}]})"),
               StartsWith("d.json:1:24: `p.1` differs from the first element of `p`: expected a "
                          "number, not `[` (not an array in the first element)"));
    CHECK_THAT(json_error(R"({"p": [{"1": [1]}, {"1": 1}]})"),
               StartsWith("d.json:1:26: `p.1` differs from the first element of `p`: expected "
                          "`[`, not a number (nested 1 deep in the first element)"));
    CHECK_THAT(json_error(R"({"p": [{"1": 1}, {"1": {"1": 1}}]})"),
               StartsWith("d.json:1:24: `p.1` differs from the first element of `p`: expected a "
                          "number, not a tuple"));
    // A lone tuple in a slot is compared slot by slot as well.
    CHECK_THAT(json_error(R"({"p": [{"1": {"1": 1, "2": 2}}, {"1": {"1": 1}}]})"),
               Contains("`p.1` differs from the first element of `p`: no slot \"2\""));
    // Within one value, the arrays (of tuples, or in a slot) are rectangular as ever.
    CHECK_THAT(json_error(R"({"p": [[{"1": 1}], [{"1": 2}, {"1": 3}]]})"),
               StartsWith("d.json:1:31: ragged array `p`: expected `]` after 1 elements, as in "
                          "the first array at this depth"));
    CHECK_THAT(json_error(R"({"p": [{"1": 1}, [{"1": 2}]]})"),
               Contains("ragged array `p`: expected a tuple, not `[` (the first element is "
                        "nested 1 deep)"));
    CHECK_THAT(json_error(R"({"t": {"1": [[1, 2], [3]]}})"),
               Contains("ragged array `t.1`: this array has 1 elements"));
}

TEST_CASE("JSON: one array holds numbers or tuples, not both", "[io]") {
    CHECK_THAT(json_error(R"({"p": [1, {"1": 2}]})"),
               StartsWith("d.json:1:11: array `p` mixes numbers and tuples (objects)"));
    CHECK_THAT(json_error(R"({"p": [{"1": 2}, 1]})"),
               StartsWith("d.json:1:18: array `p` mixes numbers and tuples (objects)"));
    CHECK_THAT(json_error(R"({"p": [{"1": 2}, "NaN"]})"), Contains("mixes numbers and tuples"));
    // After a tuple, what cannot be a number is a syntax error.
    CHECK_THAT(json_error(R"({"p": [{"1": 1},]})"),
               StartsWith("d.json:1:17: expected a tuple (an object) for `p`, got `]`"));
}

TEST_CASE("JSON tuples: the numbers of slots are checked as any other's", "[io]") {
    CHECK_THAT(json_error(R"({"t": {"1": true}})"),
               StartsWith("d.json:1:13: variable `t.1`: `true` is not a number"));
    CHECK_THAT(json_error(R"({"p": [{"1": 1}, {"1": "x"}]})"),
               StartsWith("d.json:1:24: variable `p.1`: the string \"x\" is not a number"));
    CHECK_THAT(json_error(R"({"t": {"1": 1, "2": {"1": 3000000000}}})"),
               Contains("variable `t.2.1`: the integer 3000000000 is out of range"));
}

TEST_CASE("JSON tuples: duplicate names, and a bound on nesting", "[io]") {
    CHECK_THAT(json_error(R"({"x": {"1": 1}, "x": 2})"),
               StartsWith("d.json:1:17: duplicate variable `x` (first given at d.json:1:2)"));
    CHECK_THAT(json_error(R"({"x.1": 1, "x": {"1": 2}})"),
               StartsWith("d.json:1:12: duplicate variable `x.1` (first given at d.json:1:2)"));
    CHECK_THAT(json_error(R"({"x": {"1": 2}, "x.1": 1})"),
               StartsWith("d.json:1:17: duplicate variable `x.1` (first given at d.json:1:2)"));

    // 100 levels are read; one more is refused before the stack grows with it.
    auto nested = [](int levels) {
        std::string text = R"({"x": )";
        for (int i = 0; i < levels; ++i) text += R"({"1": )";
        text += "5";
        for (int i = 0; i < levels; ++i) text += "}";
        return text + "}";
    };
    std::string deepest = "x";
    for (int i = 0; i < 100; ++i) deepest += ".1";
    CHECK(json(nested(100)).at(deepest).as_int() == 5);
    CHECK_THAT(json_error(nested(101)),
               Contains("variable `" + deepest + "`: tuples nested more than 100 deep"));
    CHECK_THAT(json_error(nested(100000)), Contains("tuples nested more than 100 deep"));
}

TEST_CASE("JSON: an integer beyond 32 bits is an error naming the variable", "[io]") {
    CHECK_THAT(json_error(R"({"big": [1, 3000000000]})"),
               StartsWith("d.json:1:13: variable `big`: the integer 3000000000 is out of range for "
                          "a Stan int (32-bit); write 3000000000.0 if it is real"));
    CHECK_THAT(json_error(R"({"big": 99999999999999999999999})"), Contains("out of range"));
    CHECK(json(R"({"ok": [2147483647, -2147483648]})").at("ok").ints ==
          std::vector<int>{2147483647, -2147483647 - 1});
    CHECK(json(R"({"r": 3000000000.0})").at("r").as_real() == 3e9);
}

TEST_CASE("JSON on a long line: the message shows a window around the column", "[io]") {
    std::string text = R"({"y": [)";
    for (int i = 0; i < 200; ++i) text += "1, ";
    text += "2 3]}";  // the error is at the `3`
    const std::size_t col = text.find("2 3") + 3;
    const std::string msg = json_error(text);
    CHECK_THAT(msg,
               StartsWith(fmt::format("d.json:1:{}: expected `,` or `]`, got `3`\n  ...", col)));
    CHECK_THAT(msg, Contains("1, 1, 2 3]}\n"));
    CHECK(msg.size() < 400);
}

TEST_CASE("JSON from a file: errors re-read their line from the file", "[io]") {
    const fs::path p = temp_file("bad.json", "{\n  \"N\": 2,\n  \"y\": [1.5, oops]\n}\n");
    try {
        (void)read_json_data(p);
        FAIL("no ParseError");
    } catch (const ParseError& e) {
        CHECK(e.file() == p.string());
        CHECK(e.line() == 3);
        CHECK(e.column() == 14);
        CHECK_THAT(e.what(), Contains("expected a number for `y`, got `oops`\n"
                                      "    \"y\": [1.5, oops]\n"
                                      "               ^"));
    }
    CHECK_THROWS_WITH(read_json_data(p.parent_path() / "missing.json"),
                      StartsWith("cannot open data file"));
    fs::remove_all(p.parent_path());
}

TEST_CASE("JSON: real files of the shared data", "[io]") {
    const fs::path data = ADVI_SHARED_DATA;
    // ../shared/data sits beside the repository on our machines; a clone elsewhere has none.
    if (!fs::exists(data / "real")) {
        WARN("shared data not found at " << data << ": real-file checks skipped");
        return;
    }
    const DataTable faithful = read_json_data(data / "real/faithful.json");
    CHECK(faithful.names() == std::vector<std::string>{"N", "D", "y"});
    CHECK(faithful.at("N").as_int() == 272);
    const Eigen::MatrixXd y = faithful.at("y").as_matrix();
    REQUIRE(y.rows() == 272);
    REQUIRE(y.cols() == 2);
    CHECK(y(0, 0) == 3.6);  // first row of R's datasets::faithful: 3.600, 79
    CHECK(y(0, 1) == 79.0);
    CHECK(y(1, 0) == 1.8);
    CHECK(y(1, 1) == 54.0);

    const DataTable radon = read_json_data(data / "real/radon.json");
    CHECK(radon.at("N").as_int() == 919);
    CHECK(radon.at("county").is_int());
    CHECK(radon.at("county").dims == std::vector<std::int64_t>{919});
    CHECK(radon.at("log_uranium").dims == std::vector<std::int64_t>{85});

    const DataTable gauss = read_json_data(data / "sim/gauss2d/small.data.json");
    CHECK(gauss.at("y").dims == std::vector<std::int64_t>{1000, 2});
    CHECK(gauss.at("y").as_matrix()(0, 1) == -2.66866);

    // A truth file holds strings ("dataset": "gauss2d"): not data.
    try {
        (void)read_json_data(data / "sim/gauss2d/small.truth.json");
        FAIL("no ParseError");
    } catch (const ParseError& e) {
        CHECK(e.line() == 2);
        CHECK_THAT(e.what(),
                   Contains("variable `dataset`: the string \"gauss2d\" is not a number"));
    }
}

TEST_CASE("JSON: a 50 MB array is read with memory near the size of its values", "[io]") {
    // AddressSanitizer keeps freed memory in quarantine and adds its shadow: no measure there.
#if defined(__SANITIZE_ADDRESS__)
    constexpr bool sanitized = true;
#elif defined(__has_feature)
    constexpr bool sanitized = __has_feature(address_sanitizer);
#else
    constexpr bool sanitized = false;
#endif
    // 2^21 reals, so that the vector's capacity grows by doubling to exactly this size; with
    // 17 digits, an exponent and ", " about 24 bytes each. Under AddressSanitizer, where the
    // memory is not measured, 2^17 (3 MB, still three of the reader's 1 MiB chunks): the
    // same parsing checks (the test program took 21 s under the sanitizers with 2^21).
    constexpr std::int64_t n = std::int64_t{1} << (sanitized ? 17 : 21);
    auto value = [](std::int64_t i) { return (static_cast<double>(i) + 0.5) / 7.0 * 1e-7; };
    std::string text = fmt::format("{{\n  \"N\": {},\n  \"x\": [", n);
    text.reserve(static_cast<std::size_t>(n) * 24);
    for (std::int64_t i = 0; i < n; ++i)
        fmt::format_to(std::back_inserter(text), "{}{}{}", i ? ", " : "", i % 8 == 7 ? "\n" : "",
                       value(i));
    text += "]\n}\n";
    const fs::path p = temp_file("big.json", text);
    const auto file_size = static_cast<std::int64_t>(text.size());
    std::string().swap(text);

    // Reset the peak resident size to the current one, then read.
    const bool can_measure = !sanitized && reset_peak_rss() && status_kb("VmHWM") > 0;
    const std::int64_t before = status_kb("VmRSS");
    const DataTable t = read_json_data(p);
    const std::int64_t peak = status_kb("VmHWM");
    fs::remove_all(p.parent_path());

    const DataValue& x = t.at("x");
    REQUIRE(x.dims == std::vector<std::int64_t>{n});
    REQUIRE_FALSE(x.is_int());
    bool all_equal = true;
    for (std::int64_t i = 0; i < n; ++i)
        all_equal = all_equal && x.reals[static_cast<std::size_t>(i)] == value(i);
    CHECK(all_equal);

    // The values are 16 MiB; growing the vector holds 8 + 8 MiB at its last doubling; the
    // chunk is 1 MiB. Reading the whole file into memory would need its size again.
    const std::int64_t values = n * 8;
    if (can_measure) {
        INFO("file " << file_size << " bytes, values " << values << " bytes, peak extra "
                     << peak - before << " bytes");
        CHECK(peak - before < values + values / 2);
        CHECK(peak - before < file_size * 3 / 4);
    } else {
        WARN("peak memory not measured (no /proc/self/clear_refs, or AddressSanitizer)");
    }
}

}  // namespace advi
